#!/bin/bash
# ipoib: the policy's IPoIB broadcast group MTU and rate on the lab fabric,
# judged by saquery -g (infiniband-diags).  The default partition declared
# with mtu 4096 gets its group ff12:401b:ffff::ffff:ffff with Mtu 0x85
# (selector "exactly", 4096) from the first sweep, and again after a
# restart; ibsim's ports carry 2048, which NSM-W440 says, naming them.  A
# reload to mtu 2048 changes the group at once (Mtu 0x84) and is logged
# (old -> new, how many member ports re-register).  Once host2 and host3
# joined, a reload to mtu 1024 and rate 5 (Mtu 0x83, Rate 0x85) asks
# exactly those two ports to re-register: the next sweep's PortInfo Set
# carries ClientReregister for them and for no other port.
. "$(dirname "$0")/lib.sh"

it_init ipoib
[ "$SM" = nanosm ] || it_skip "nanosm's YAML partitions only (OpenSM uses partitions.conf)"
fabric_file lab.topo
NSA=$REPO/build/bin/nanosm-sa
CTL=$REPO/build/bin/nanosmctl
pol=$IT_SCRATCH/nanosm.yaml
bcast=ff12:401b:ffff::ffff:ffff
write_policy() { # MTU [RATE]
	cat >"$pol" <<EOT
partitions:
  - name: default
    pkey: 0x7fff
    ipoib: true
    mtu: $1
${2:+    rate: $2
}    members: [{group: ALL, membership: full}]
EOT
}
d=$IT_SCRATCH/chk
mkdir -p "$d"
# expect_group TAG MTU RATE: saquery -g shows the default group so
expect_group() {
	run_tool "$d/groups.$1" saquery -g
	IT_LAST_OUT=$d/groups.$1
	awk -v g="$bcast" '$1 ~ /^MGID/ { on = index($0, g) > 0 } on' "$d/groups.$1" >"$d/bcast.$1"
	[ -s "$d/bcast.$1" ] || it_fail "$1: no group $bcast in saquery -g"
	grep -q "^[[:space:]]*Mtu\.*$2\$" "$d/bcast.$1" || it_fail "$1: $bcast has not Mtu $2"
	grep -q "^[[:space:]]*Rate\.*$3\$" "$d/bcast.$1" || it_fail "$1: $bcast has not Rate $3"
	it_log "$1: $bcast $(grep -E 'Mtu|Rate' "$d/bcast.$1" | tr -d '\t' | tr '\n' ' ')"
}
# reload_and_wait PATTERN: SIGHUP, then the reload line and PATTERN
reload_and_wait() {
	local n
	n=$(grep -c 'reloaded ' "$SM_LOG")
	kill -HUP "$SM_PID"
	for _ in $(seq 100); do
		[ "$(grep -c 'reloaded ' "$SM_LOG")" -gt "$n" ] && break
		sleep 0.1
	done
	[ "$(grep -c 'reloaded ' "$SM_LOG")" -gt "$n" ] || it_fail "the policy was not reloaded"
	sm_wait "$1" 10 || { IT_LAST_OUT=$SM_LOG; it_fail "no log line matching: $1"; }
	it_log "$(grep -E -- "$1" "$SM_LOG" | tail -n 1 | cut -d' ' -f3- | cut -c1-200)"
}

write_policy 4096
export NANOSM_ARGS="-f $pol"
sim_start "$IT_FABRIC"

it_step "first sweep: the group has the policy's MTU (saquery -g: Mtu 0x85)"
sm_start --sweep-interval 300
sm_wait_up
wait_ports_ok 30
expect_group first 0x85 0x83
sm_wait 'NSM-W440 IPoIB group ff12:401b:ffff::ffff:ffff \(P_Key 0xffff\) has MTU 4096 and rate 10 Gb/s, which 3 ports .*"host2" 0x0002c90300a00021/1 \(MTUCap 2048' 5 ||
	{ IT_LAST_OUT=$SM_LOG; it_fail "no NSM-W440 naming the ports that cannot carry 4096"; }
it_log "NSM-W440 said: $(grep -c NSM-W440 "$SM_LOG") time(s)"

it_step "after a restart: still Mtu 0x85"
sm_stop
sm_start --sweep-interval 300
sm_wait_up
expect_group restart 0x85 0x83

it_step "plan and reload to mtu 2048: the group follows at once (Mtu 0x84), said in the log"
write_policy 2048
timeout -k 5 "$CLIENT_TIMEOUT" "$CTL" -s "$IT_SCRATCH/nanosm.$SM_GEN.sock" plan "$pol" >"$d/plan" 2>&1
IT_LAST_OUT=$d/plan
grep -q 'mtu 4096 rate 10 -> "default" ipoib true mtu 2048 rate 10' "$d/plan" ||
	it_fail "plan does not show the partition's mtu change"
reload_and_wait 'IPoIB group ff12:401b:ffff::ffff:ffff \(P_Key 0xffff\): MTU 4096 -> 2048, rate 10 -> 10 Gb/s; 0 member ports asked to re-register'
expect_group reload1 0x84 0x83

it_step "host2 and host3 join; a reload to mtu 1024, rate 5 asks exactly them to re-register"
sim_client --host host2 "$NSA" join $bcast fe80::2:c903:a0:21 qkey=0x0b1b pkey=0xffff >"$d/join2" 2>&1 ||
	{ IT_LAST_OUT=$d/join2; it_fail "host2 could not join $bcast"; }
sim_client --host host3 "$NSA" join $bcast fe80::2:c903:a0:31 qkey=0x0b1b pkey=0xffff >"$d/join3" 2>&1 ||
	{ IT_LAST_OUT=$d/join3; it_fail "host3 could not join $bcast"; }
it_log "host2: $(tail -n 1 "$d/join2")"
sweeps=$(grep -cE '(^|[^0-9A-Za-z_])sweep [0-9]+:' "$SM_LOG")
lines=$(wc -l <"$SM_LOG")
write_policy 1024 5
reload_and_wait 'IPoIB group ff12:401b:ffff::ffff:ffff \(P_Key 0xffff\): MTU 2048 -> 1024, rate 10 -> 5 Gb/s; 2 member ports asked to re-register \(ClientReregister at the next sweep\)'
expect_group reload2 0x83 0x85
sm_sweep_to $((sweeps + 1))
tail -n +"$((lines + 1))" "$SM_LOG" | grep -E 'debug: port 0x[0-9a-f]+/[0-9]+: .* rereg 1$' |
	sed -n 's/.*port \(0x[0-9a-f]*\/[0-9]*\):.*/\1/p' | sort >"$d/rereg"
IT_LAST_OUT=$SM_LOG
[ "$(tr '\n' ' ' <"$d/rereg")" = "0x0002c90300a00021/1 0x0002c90300a00031/1 " ] ||
	it_fail "ClientReregister went to '$(tr '\n' ' ' <"$d/rereg")', want host2 and host3 port 1"
it_log "ClientReregister sent to: $(tr '\n' ' ' <"$d/rereg")"
sm_stop
it_pass
