#!/bin/bash
# partitions: nanosm -f POLICY with two partitions and no default rule on
# the lab fabric.  Judged by smpquery (the P_Key tables the ports hold) and
# by SA answers: host2 (blue, 0x0002) and host3 (red, 0x0003) share no
# partition they can talk in (both only limited members of the default), so
# the SA refuses a PathRecord between them, and host3 may not join blue's
# IPoIB broadcast group; host1 (the SM) is a full member of the default and
# reaches both.  A reload that adds host3 to blue as a limited member is
# programmed by the next sweep: host3's table gains 0x0002 and the path
# host2 -> host3 exists in P_Key 0x8002, but host1 (not in blue) is not
# told about it.  Last, a policy gives host3 to blue by its node GUID
# (0x...30, the kind node_names takes) instead of its port GUID, and adds
# green (0x0004) by name ({name: host2}, {name: host3, port: 1}): `nanosmctl
# plan`, the reload's answer and the log (NSM-W422, once, not every sweep)
# say that 0x...30 is host3's node GUID and its port 1 is 0x...31; host3 is
# left out of blue and both hosts hold green's P_Key (smpquery pkeys).
# With no partitions at all (the sa test) every port holds 0xffff.
. "$(dirname "$0")/lib.sh"

it_init partitions
[ "$SM" = nanosm ] || it_skip "nanosm's YAML partitions only (OpenSM uses partitions.conf)"
fabric_file lab.topo
NSA=$REPO/build/bin/nanosm-sa
pol=$IT_SCRATCH/nanosm.yaml
write_policy() { # HOST3_IN_BLUE(0|1)
	cat >"$pol" <<EOT
partitions:
  - name: blue
    pkey: 0x0002
    ipoib: true
    members:
      - {guid: 0x0002c90300a00021, membership: full}
EOT
	[ "$1" = 1 ] && echo "      - {guid: 0x0002c90300a00031, membership: limited}" >>"$pol"
	cat >>"$pol" <<EOT
  - name: red
    pkey: 0x0003
    ipoib: true
    members:
      - {guid: 0x0002c90300a00031, membership: full}
EOT
}
write_policy 0
export NANOSM_ARGS="-f $pol"
sim_start "$IT_FABRIC"
sm_start --sweep-interval 300
sm_wait_up
wait_ports_ok 30
d=$IT_SCRATCH/chk
mkdir -p "$d"
run_tool "$d/ibnd.txt" ibnetdiscover
lid_of() { # NODE DESC -> LID of its port 1 ('Ca 2 "H-..." # "host1"', then
	# '[1](guid) "S-..."[2] # lid 2 lmc 0 "lab-sw" lid 4 4xSDR')
	awk -v n="# \"$1\"" '/^Ca/ && index($0, n) { ca = 1; next }
		ca && /^\[1\]/ { for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1); exit } }
		/^$/ { ca = 0 }' "$d/ibnd.txt"
}
h1=$(lid_of host1); h2=$(lid_of host2); h3=$(lid_of host3)
[ -n "$h1" ] && [ -n "$h2" ] && [ -n "$h3" ] || it_fail "LIDs not found: '$h1' '$h2' '$h3'"
it_log "LIDs: host1 $h1, host2 $h2, host3 $h3"

pkeys() { # LID -> the non-zero P_Keys of its port 1, one line
	sim_client smpquery pkeys "$1" 1 >"$d/pk.$1" 2>&1 || return 1
	grep -o '0x[0-9a-f]\{4\}' "$d/pk.$1" | grep -v 0x0000 | sort | tr '\n' ' '
}
expect_pkeys() { # LID WANT
	local got
	got=$(pkeys "$1")
	IT_LAST_OUT=$d/pk.$1
	[ "$got" = "$2" ] || it_fail "port LID $1 holds P_Keys '$got', want '$2'"
	it_log "LID $1 P_Keys: $got"
}
it_step "P_Key tables (smpquery pkeys): limited default everywhere, SM full, members"
expect_pkeys "$h1" "0xffff "
expect_pkeys "$h2" "0x7fff 0x8002 "
expect_pkeys "$h3" "0x7fff 0x8003 "

it_step "PathRecords follow the partitions"
sim_client --host host2 "$NSA" path "$h2" "$h3" >"$d/path23" 2>&1
IT_LAST_OUT=$d/path23
grep -q 'status 0x0300' "$d/path23" || it_fail "host2 -> host3 (no shared partition) was not refused"
sim_client --host host2 "$NSA" path "$h2" "$h1" >"$d/path21" 2>&1 ||
	{ IT_LAST_OUT=$d/path21; it_fail "host2 -> host1 (SM, full default) refused"; }
grep -q 'pkey 0xffff' "$d/path21" || { IT_LAST_OUT=$d/path21; it_fail "host2 -> host1 not in 0xffff"; }
# saquery asks with GetTable: an empty table (status 0, no record) is the answer
sim_client --host host3 saquery -p --src-to-dst "$h3:$h2" >"$d/sq32" 2>&1
grep -q 'PathRecord dump' "$d/sq32" && { IT_LAST_OUT=$d/sq32; it_fail "saquery found a path host3 -> host2"; }
it_log "host2 -> host3 refused, host2 -> host1 in 0xffff, saquery host3 -> host2: none"

it_step "IPoIB groups: blue's broadcast group takes host2, refuses host3"
blue=ff12:401b:0002::ffff:ffff
sim_client --host host2 "$NSA" join $blue fe80::2:c903:a0:21 qkey=0x0b1b pkey=0x8002 \
	>"$d/join2" 2>&1 || { IT_LAST_OUT=$d/join2; it_fail "host2 could not join blue's IPoIB group"; }
sim_client --host host3 "$NSA" join $blue fe80::2:c903:a0:31 qkey=0x0b1b pkey=0x8002 \
	>"$d/join3" 2>&1 && { IT_LAST_OUT=$d/join3; it_fail "host3 joined blue's group"; }
it_log "host2: $(tail -n 1 "$d/join2")"
it_log "host3: $(head -n 1 "$d/join3")"

it_step "reload: host3 becomes a limited member of blue"
write_policy 1
kill -HUP "$SM_PID"
sm_wait 'reloaded ' 10 || it_fail "the policy was not reloaded"
for i in $(seq 40); do [ "$(pkeys "$h3")" = "0x0002 0x7fff 0x8003 " ] && break; sleep 0.25; done
expect_pkeys "$h3" "0x0002 0x7fff 0x8003 "
sim_client --host host2 "$NSA" path "$h2" "$h3" >"$d/path23b" 2>&1 ||
	{ IT_LAST_OUT=$d/path23b; it_fail "host2 -> host3 still refused after the reload"; }
grep -q 'pkey 0x8002' "$d/path23b" || { IT_LAST_OUT=$d/path23b; it_fail "host2 -> host3 not in 0x8002"; }
it_log "$(tail -n 1 "$d/path23b")"
# a third party outside blue (host1: only the default partition) is not told
# about a path inside blue
sim_client --host host1 "$NSA" path "$h2" "$h3" >"$d/path23c" 2>&1
IT_LAST_OUT=$d/path23c
grep -q 'status 0x0300' "$d/path23c" || it_fail "host1 learned a path inside a partition it is not in"
it_log "host1 asking for host2 -> host3: $(head -n 1 "$d/path23c")"
grep -q 'pkey_blocks_sent=[1-9]' "$SM_LOG" || it_fail "no P_Key blocks reported on the sweep lines"

it_step "members by node GUID and by name: plan, reload and the log say which match no port"
pol2=$IT_SCRATCH/nanosm-names.yaml
cat >"$pol2" <<EOT
partitions:
  - name: blue
    pkey: 0x0002
    ipoib: true
    members:
      - {guid: 0x0002c90300a00021, membership: full}
      - {guid: 0x0002c90300a00030, membership: limited}   # host3's node GUID
  - name: red
    pkey: 0x0003
    ipoib: true
    members:
      - {guid: 0x0002c90300a00031, membership: full}
  - name: green
    pkey: 0x0004
    members:
      - {name: host2, membership: full}
      - {name: host3, port: 1}
EOT
hint="member 0x0002c90300a00030 matches no port: 0x0002c90300a00030 is the node GUID of host3, not a port GUID; its port 1 is 0x0002c90300a00031"
nctl() { # ARGS...: nanosmctl on this SM's socket
	timeout -k 5 "$CLIENT_TIMEOUT" "$REPO/build/bin/nanosmctl" -s "$IT_SCRATCH/nanosm.$SM_GEN.sock" "$@"
}
IT_LAST_OUT=$d/plan
nctl plan "$pol2" >"$d/plan" 2>&1 || it_fail "nanosmctl plan failed"
grep -qF "$hint" "$d/plan" || it_fail "plan does not say that host3's node GUID matches no port"
[ "$(grep -c 'matches no port' "$d/plan")" = 1 ] || it_fail "plan lists members that match"
it_log "plan: $(grep -F "$hint" "$d/plan" | sed 's/^ *//')"
cp "$pol2" "$pol"
IT_LAST_OUT=$d/reload
nctl reload >"$d/reload" 2>&1 || it_fail "nanosmctl reload failed"
grep -qF "$hint" "$d/reload" || it_fail "the reload's answer does not say that host3's node GUID matches no port"
IT_LAST_OUT=$SM_LOG
sm_wait "NSM-W422 partition 'blue' .0x0002.: $hint" 10 || it_fail "no NSM-W422 line for host3's node GUID"
it_log "log: $(grep -m1 NSM-W422 "$SM_LOG" | cut -c1-200)"
for i in $(seq 40); do [ "$(pkeys "$h3")" = "0x0004 0x7fff 0x8003 " ] && break; sleep 0.25; done
expect_pkeys "$h3" "0x0004 0x7fff 0x8003 "
expect_pkeys "$h2" "0x7fff 0x8002 0x8004 "
last=$(grep -oE '(^|[^0-9A-Za-z_])sweep [0-9]+:' "$SM_LOG" | tail -n 1 | grep -oE '[0-9]+')
sm_sweep_to $((last + 1))
IT_LAST_OUT=$SM_LOG
[ "$(grep -c NSM-W422 "$SM_LOG")" = 1 ] || it_fail "NSM-W422 not logged exactly once over two sweeps"
sm_stop
it_pass
