#!/bin/bash
# sa: the Subnet Administrator on the lab fabric, judged by tools nanosm did
# not write.  From host2 and host3: saquery's NodeRecord, PortInfoRecord,
# LinkRecord, PathRecord (every CA pair), SMInfoRecord and ClassPortInfo
# agree with ibnetdiscover (check_sa.py); deliberately bad SA MADs get the
# right error status and the SA keeps answering; the default partition's
# IPoIB broadcast group exists; a join/leave sequence programs and then
# clears the switch's MFT (ibroute -M); InformInfo subscribers get traps 65
# and 64 when a cable is pulled and put back; osmtest's inventory flow
# passes; bad -p/-g/-t values are usage errors naming the option (before
# any port is opened).  With SM=opensm the same checks run against OpenSM,
# except the bad-MAD statuses (OpenSM leaves most of them unanswered;
# logged only).
. "$(dirname "$0")/lib.sh"

it_init sa
fabric_file lab.topo
NSA=$REPO/build/bin/nanosm-sa
[ -x "$NSA" ] || it_fail "nanosm-sa not built: $NSA"

it_step "bad -p/-g values are usage errors naming the option (no port opened)"
IT_LAST_OUT=$IT_SCRATCH/usage.txt
sa_usage() { # PATTERN ARGS...
	local pat=$1 rc
	shift
	"$NSA" "$@" >"$IT_LAST_OUT" 2>&1
	rc=$?
	[ $rc = 2 ] || it_fail "nanosm-sa $*: exit status $rc, expected 2"
	grep -Eq "$pat" "$IT_LAST_OUT" || it_fail "nanosm-sa $*: no line matching '$pat'"
}
sa_usage '^nanosm-sa: -p: "abc" is not a number$' -p abc get 0x11
sa_usage '^nanosm-sa: -p: 255 is out of range 1\.\.254$' --port 255 get 0x11
sa_usage '^nanosm-sa: -g: "0x2c9g" is not a number$' -g 0x2c9g get 0x11
sa_usage '^nanosm-sa: -g names the local port: give -g GUID or -d CA \[-p PORT\], not both$' \
	-g 0x0002c90300a00021 -p 1 get 0x11
sa_usage '^nanosm-sa: -t: "1s" is not a number$' -t 1s get 0x11

# SM_Key 1, OpenSM's default: queries carrying it are trusted (they see
# every member of a multicast group); a key belongs in a mode-600 file
pol=$IT_SCRATCH/nanosm.yaml
printf 'sm:\n  sm_key: 0x1\n' >"$pol"
chmod 600 "$pol"
export NANOSM_ARGS="-f $pol"
sim_start "$IT_FABRIC"
sm_start --sweep-interval 300
sm_wait_up
wait_ports_ok 30
d=$IT_SCRATCH/chk
mkdir -p "$d"
client=$(it_client_wrapper)
run_tool "$d/ibnd.txt" ibnetdiscover

it_step "records from host2 and host3: saquery vs ibnetdiscover"
IT_LAST_OUT=$d/records.out
"$PYTHON" "$IT_LIB_DIR/check_sa.py" records --topo "$d/ibnd.txt" --client "$client" \
	--host host2 --host host3 --sm-guid 0x0002c90300a00011 >"$d/records.out" 2>&1 ||
	it_fail "SA records disagree with the fabric"
sed "s/^/[$IT_NAME]    /" "$d/records.out"

it_step "bad SA MADs get error statuses, and the SA keeps answering"
# OpenSM 3.3.23 answers none of these but the class version one (with
# 0x0400): logged for it, required of nanosm (docs/sa.md).
expect_status() { # KIND STATUS
	sim_client --host host2 "$NSA" bad "$1" >"$d/bad.$1" 2>&1
	IT_LAST_OUT=$d/bad.$1
	it_log "bad $1: $(head -n 1 "$d/bad.$1")"
	[ "$SM" = nanosm ] || return 0
	grep -q "status $2 " "$d/bad.$1" || it_fail "bad $1: expected status $2"
}
expect_status attr 0x000c    # unknown attribute
expect_status version 0x0004 # class version 1
expect_status method 0x0008  # unknown method
expect_status mask 0x0600    # PathRecord Get naming neither end
sim_client --host host2 "$NSA" bad runt >"$d/bad.runt" 2>&1
IT_LAST_OUT=$d/bad.runt
grep -q 'no answer (dropped)' "$d/bad.runt" && grep -q 'ClassPortInfo: status 0x0000' "$d/bad.runt" ||
	it_fail "a runt SA MAD was answered, or the SA stopped answering after it"
kill -0 "$SM_PID" || it_fail "the SM died on bad SA MADs"

it_step "the default partition's IPoIB broadcast group (saquery -g)"
run_tool "$d/groups.txt" saquery -g
grep -q 'MGID.*ff12:401b:ffff::ffff:ffff' "$d/groups.txt" ||
	{ IT_LAST_OUT=$d/groups.txt; it_fail "no IPoIB broadcast group for the default partition"; }

it_step "join from host2 and host3 programs the MFT, leaves clear it (ibroute -M)"
mgid=ff12:601b:ffff::1:2
swlid=$(awk '/^Switch/ { for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1); exit } }' "$d/ibnd.txt")
[ -n "$swlid" ] || it_fail "no switch LID in ibnetdiscover output"
run_tool "$d/join2" "$NSA" join $mgid fe80::2:c903:a0:21
sim_client --host host3 "$NSA" join $mgid fe80::2:c903:a0:31 >"$d/join3" 2>&1 ||
	{ IT_LAST_OUT=$d/join3; it_fail "join from host3 failed"; }
mlid=$(sed -n 's/.*mlid \(0x[0-9a-f]*\).*/\1/p' "$d/join3" | head -n 1)
it_log "joined $mgid: MLID $mlid"
mft_ports() { # print the ports of MLID $mlid on the switch
	sim_client ibroute -M "$swlid" >"$d/mft.txt" 2>&1 || return 1
	awk -v m="$mlid" 'tolower($1) == tolower(m) { print }' "$d/mft.txt"
}
for i in $(seq 20); do row=$(mft_ports); [ -n "$row" ] && break; sleep 0.25; done
IT_LAST_OUT=$d/mft.txt
[ -n "$row" ] || it_fail "MLID $mlid not in the switch's MFT after two joins"
# host2 is cabled to switch port 2, host3 to port 3 (lab.topo): both marked
echo "$row" | awk -v m="$mlid" '{ n = 0; for (i = 2; i <= NF; i++) if ($i == "x") n++; exit !(n == 2) }' ||
	it_fail "MLID $mlid row should mark exactly two ports: $row"
it_log "MFT row: $row"
# a trusted query (the SM_Key) lists both members of the group; without
# the key the members are hidden (PortGID 0), as the IBA and OpenSM have it
run_tool "$d/members.txt" saquery --smkey 1 -m "$mlid"
IT_LAST_OUT=$d/members.txt
grep -qi 'c903:a0:21' "$d/members.txt" && grep -qi 'c903:a0:31' "$d/members.txt" ||
	it_fail "saquery --smkey 1 -m $mlid does not list host2 and host3"
it_log "saquery --smkey 1 -m $mlid: $(grep -ci 'PortGid' "$d/members.txt") member records"
run_tool "$d/members0.txt" saquery -m "$mlid"
IT_LAST_OUT=$d/members0.txt
grep -qi 'c903:a0:[23]1' "$d/members0.txt" && it_fail "an untrusted saquery -m saw the members"
it_log "saquery -m $mlid (no key): members hidden"
run_tool "$d/leave2" "$NSA" leave $mgid fe80::2:c903:a0:21
sim_client --host host3 "$NSA" leave $mgid fe80::2:c903:a0:31 >"$d/leave3" 2>&1 ||
	{ IT_LAST_OUT=$d/leave3; it_fail "leave from host3 failed"; }
for i in $(seq 20); do row=$(mft_ports); [ -z "$row" ] && break; sleep 0.25; done
[ -z "$row" ] || it_fail "MLID $mlid still in the MFT after both left: $row"

it_step "InformInfo: traps 65 and 64 reach a subscriber when host3's cable is pulled and put back"
if [ "$SM" = nanosm ]; then
(cd "$IT_RUN" && exec timeout -k 5 40 env LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$IT_SOCK" \
	SIM_HOST=host2 "$NSA" --issm subscribe 0xffff 30 2) >"$d/sub.txt" 2>&1 &
sub=$!
IT_PIDS+=("$sub")
wait_for_pattern "$d/sub.txt" '^listening' 10 "$sub" ||
	{ IT_LAST_OUT=$d/sub.txt; it_fail "the subscription failed"; }
sim_cmd 'Unlink "host3"'
wait_for_pattern "$d/sub.txt" 'report: trap 65 .*c903:00a0:0031' 20 "$sub" ||
	{ IT_LAST_OUT=$d/sub.txt; it_fail "no trap 65 for host3"; }
sim_cmd 'ReLink "host3"'
wait_for_pattern "$d/sub.txt" 'report: trap 64 .*c903:00a0:0031' 20 "$sub" ||
	{ IT_LAST_OUT=$d/sub.txt; it_fail "no trap 64 for host3"; }
wait "$sub"
it_forget_pid "$sub"
sed "s/^/[$IT_NAME]    /" "$d/sub.txt"
wait_ports_ok 30
else
	# OpenSM 3.3.23 accepted the subscription but no Report reached the
	# subscriber under ibsim in our runs; not required of it here
	it_log "skipped for $SM"
fi

it_step "osmtest -f c (inventory from the SA)"
sim_client --host host2 osmtest -f c -i "$IT_SCRATCH/osmtest.dat" >"$d/osmtest_c.txt" 2>&1
IT_LAST_OUT=$d/osmtest_c.txt
grep -q 'TEST "Create Inventory" PASS' "$d/osmtest_c.txt" || it_fail "osmtest inventory flow failed"
sm_stop
it_pass
