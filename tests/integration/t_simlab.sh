#!/bin/bash
# simlab: tools/simlab, the hands-on lab, run non-interactively (-c) on
# twosw.topo.  In its shell nanosmctl reaches the lab's nanosm, the diags
# reach ibsim, `cable down sw1 7` pulls a cable the SM then sees (its log
# names it) and ibnetdiscover no longer shows; on exit, and on a SIGTERM
# to simlab, every process it started is gone and its directory removed.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

it_init simlab
SIMLAB=$REPO/tools/simlab
[ -x "$SIMLAB" ] || it_fail "tools/simlab missing or not executable"
export T_OUT=$IT_SCRATCH/out
mkdir -p "$T_OUT"

# simlab_run ARGS...: simlab with its scratch dirs under ours (so run.sh's
# leftover check sees its processes), bounded.
simlab_run() { TMPDIR=$IT_SCRATCH timeout -k 5 150 "$SIMLAB" "$@"; }

# every PID in FILE is gone, and the lab directory too
check_gone() {
	local f=$1 pid sim sm lab sh
	[ -s "$f" ] || it_fail "simlab's shell did not write $f"
	read -r _ sim sm lab sh <"$f"
	for pid in $sim $sm $sh; do
		if kill -0 "$pid" 2>/dev/null; then
			kill -KILL "$pid"
			it_fail "process $pid ($2) still runs after simlab ended"
		fi
	done
	[ ! -e "$lab" ] || it_fail "lab directory $lab left behind"
	it_log "   ibsim $sim and nanosm $sm stopped, $lab removed ($2)"
}

it_step "simlab -c: nanosmctl, diags, cable down"
# shellcheck disable=SC2016 # expanded by simlab's shell
simlab_run -c '
set -e
echo "PIDS $SIMLAB_IBSIM_PID $SIMLAB_NANOSM_PID $SIMLAB" >"$T_OUT/pids"
nanosmctl status >"$T_OUT/status.txt"
sminfo >"$T_OUT/sminfo.txt"
ibnetdiscover >"$T_OUT/before.txt"
cable down sw1 7 >"$T_OUT/cable.txt"
for i in $(seq 100); do
	grep -q "cable down: .*(sw1) port 7" "$NANOSM_LOG" && break
	sleep 0.2
done
cp "$NANOSM_LOG" "$T_OUT/nanosm.log"
ibnetdiscover >"$T_OUT/after.txt"
nanosmctl topology >"$T_OUT/topology.txt"
' twosw >"$IT_SCRATCH/simlab.out" 2>&1
rc=$?
IT_LAST_OUT=$IT_SCRATCH/simlab.out
[ $rc = 0 ] || it_fail "simlab -c exited with status $rc"

grep -q '^state: MASTER' "$T_OUT/status.txt" || it_fail "nanosmctl status in the lab: not MASTER"
grep -q 'state 3 SMINFO_MASTER' "$T_OUT/sminfo.txt" || it_fail "sminfo in the lab: no master"
it_log "   nanosmctl status: MASTER; $(cat "$T_OUT/sminfo.txt")"

# sw1's port 7 and 8 lines lead to sw2 before; port 7's is gone after
sw1_port() { # FILE PORT: the port's line in sw1's block of an ibnetdiscover dump
	awk -v p="[$2]" '/^Switch/ { in_sw1 = /"sw1"/ } in_sw1 && index($1, p) == 1' "$1"
}
for p in 7 8; do
	sw1_port "$T_OUT/before.txt" $p | grep -q '"sw2"' ||
		{ IT_LAST_OUT=$T_OUT/before.txt; it_fail "before: sw1 port $p not cabled to sw2"; }
done
grep -q 'cable down: .*(sw1) port 7' "$T_OUT/nanosm.log" ||
	{ IT_LAST_OUT=$T_OUT/nanosm.log; it_fail "the SM did not see the cable sw1/7 go down"; }
IT_LAST_OUT=$T_OUT/after.txt
[ -z "$(sw1_port "$T_OUT/after.txt" 7)" ] || it_fail "after cable down: ibnetdiscover still shows sw1 port 7"
sw1_port "$T_OUT/after.txt" 8 | grep -q '"sw2"' || it_fail "after cable down: sw1 port 8 lost too"
it_log "   cable down sw1 7: the SM logged it, ibnetdiscover shows only sw1/8 to sw2"
check_gone "$T_OUT/pids" "after the shell ended"

it_step "SIGTERM to simlab stops everything it started"
rm -f "$T_OUT/pids"
# shellcheck disable=SC2016
TMPDIR=$IT_SCRATCH "$SIMLAB" -c 'echo "PIDS $SIMLAB_IBSIM_PID $SIMLAB_NANOSM_PID $SIMLAB $$" >"$T_OUT/pids"
sleep 120' lab >"$IT_SCRATCH/simlab2.out" 2>&1 &
lab_pid=$!
IT_PIDS+=("$lab_pid")
wait_for_pattern "$T_OUT/pids" PIDS 60 "$lab_pid" || it_fail "simlab's shell did not start"
kill -TERM "$lab_pid"
for _ in $(seq 150); do
	kill -0 "$lab_pid" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$lab_pid" 2>/dev/null && it_fail "simlab still runs 15 s after SIGTERM"
wait "$lab_pid"
it_forget_pid "$lab_pid"
check_gone "$T_OUT/pids" "after SIGTERM"
it_pass
