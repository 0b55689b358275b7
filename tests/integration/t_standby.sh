#!/bin/bash
# standby: two nanosm instances on one fabric (IBA 14.4).
#
#  1. A (priority 10) at the first CA comes up as master; B (priority 1) at
#     the last CA finds it and goes STANDBY (nanosmctl status names the
#     master); sminfo still reports A's master state; checks a/b/c.
#  2. kill -9 A: B's polls fail, it takes over with a heavy sweep; every
#     port keeps its LID (check_routes.py lids before/after), routes and
#     sminfo are fine.
#  3. C (priority 15) starts at the first CA: it finds B MASTER and goes
#     STANDBY; B hears C's polls, hands over (SMInfo HANDOVER), goes
#     STANDBY under C; C programs the fabric with the same LIDs.
#  4. (when opensm is installed) a fresh fabric with OpenSM (-p 10) master
#     and nanosm (priority 1) standby; kill -9 OpenSM: nanosm takes over
#     with the LIDs OpenSM gave out.  (The other way round needs the same
#     SM_Key on both: OpenSM ignores SMs that do not show its key, default
#     1, and nanosm shows its key only to who presents it.)
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

FABRIC=${STANDBY_FABRIC:-twosw.topo}
CTL=$REPO/build/bin/nanosmctl

it_init standby
fabric_file "$FABRIC"
first=$(fabric_first_ca "$IT_FABRIC")
last=$(fabric_nodes "$IT_FABRIC" ca | tail -n 1)
d=$IT_SCRATCH/chk
mkdir -p "$d"

record_lids() {
	run_tool "$d/ibnd.$1.txt" ibnetdiscover
	"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$d/ibnd.$1.txt" >"$d/lids.$1.txt"
}

same_lids() {
	IT_LAST_OUT=$d/lids.$1.$2.diff
	diff -u "$d/lids.$1.txt" "$d/lids.$2.txt" >"$IT_LAST_OUT" ||
		it_fail "LIDs changed between $1 and $2 (lines are: portguid lid name)"
	it_log "   all $(wc -l <"$d/lids.$2.txt") ports kept their LIDs ($1 -> $2)"
}

# ctl_state SOCK OUT: nanosmctl status into OUT; prints the state word
ctl_state() {
	timeout -k 5 "$CLIENT_TIMEOUT" "$CTL" -s "$1" status >"$2" 2>&1
	sed -n 's/^state: //p' "$2"
}

# wait_log FILE PATTERN PID WHAT: bounded wait for PATTERN in an SM's log
wait_log() {
	wait_for_pattern "$1" "$2" 30 "$3" || { IT_LAST_OUT=$1; it_fail "$4"; }
}

# fresh_checks TAG: a (fresh ibnetdiscover), b, c
fresh_checks() {
	rm -f "$d/ibnetdiscover.txt"
	check_all
	record_lids "$1"
}

it_step "1: A (priority 10) at \"$first\" is master, B (priority 1) at \"$last\" goes standby"
sim_start "$IT_FABRIC" "$first"
sm_start --host "$first" --sweep-interval 1 --priority 10
sm_wait_up
pidA=$SM_PID
sm_start2 --host "$last" --sweep-interval 1 --priority 1
wait_log "$SM_LOG2" 'STANDBY under SM 0x' "$SM_PID2" "B did not go STANDBY under A"
st=$(ctl_state "$SM_SOCK2" "$d/statusB.1.txt")
[ "$st" = STANDBY ] || { IT_LAST_OUT=$d/statusB.1.txt; it_fail "B's status says '$st', not STANDBY"; }
grep -q '^master: 0x' "$d/statusB.1.txt" || { IT_LAST_OUT=$d/statusB.1.txt; it_fail "B's status names no master"; }
it_log "   B: $(grep '^master:' "$d/statusB.1.txt")"
grep -qE 'SUBNET UP|port_sets=[1-9]' "$SM_LOG2" && { IT_LAST_OUT=$SM_LOG2; it_fail "standby B programmed the fabric"; }
fresh_checks one

it_step "2: kill -9 A; B takes over, LIDs unchanged"
kill -KILL "$pidA"
wait "$pidA" 2>/dev/null
it_forget_pid "$pidA"
wait_log "$SM_LOG2" 'SUBNET UP' "$SM_PID2" "B did not take over (no SUBNET UP) after A was killed"
it_log "   B: $(grep -m1 -o 'NSM-W133.*' "$SM_LOG2" | cut -c1-100)"
st=$(ctl_state "$SM_SOCK2" "$d/statusB.2.txt")
[ "$st" = MASTER ] || { IT_LAST_OUT=$d/statusB.2.txt; it_fail "B's status says '$st' after the takeover"; }
fresh_checks two
same_lids one two

it_step "3: C (priority 15) at \"$first\": standby first, then B hands over to it"
sm_start --host "$first" --sweep-interval 1 --priority 15
wait_log "$SM_LOG2" 'HANDOVER' "$SM_PID2" "B never handed over to the better C"
sm_wait_up
wait_log "$SM_LOG2" 'STANDBY under SM 0x' "$SM_PID2" "B did not go STANDBY under C"
st=$(ctl_state "$IT_SCRATCH/nanosm.$SM_GEN.sock" "$d/statusC.txt")
[ "$st" = MASTER ] || { IT_LAST_OUT=$d/statusC.txt; it_fail "C's status says '$st'"; }
fresh_checks three
same_lids one three
sm_stop
it_kill_pid "$SM_PID2"
it_forget_pid "$SM_PID2"

command -v opensm >/dev/null || { it_log "opensm not installed: part 4 skipped"; it_pass; }
it_step "4: OpenSM (-p 10) master at \"$first\", nanosm (priority 1) standby at \"$last\"; kill -9 OpenSM"
sim_stop
sim_start "$IT_FABRIC" "$first"
SM=opensm sm_start --host "$first" --sweep-interval 1 --priority 10
sm_wait_up
sm_start2 --host "$last" --sweep-interval 1 --priority 1
wait_log "$SM_LOG2" 'STANDBY under SM 0x' "$SM_PID2" "nanosm did not go STANDBY under OpenSM"
fresh_checks osm
kill -KILL "$SM_PID"
wait "$SM_PID" 2>/dev/null
it_forget_pid "$SM_PID"
wait_log "$SM_LOG2" 'SUBNET UP' "$SM_PID2" "nanosm did not take over from OpenSM"
fresh_checks osm_after
same_lids osm osm_after
it_pass
