#!/bin/bash
# tests/faults/termload.sh [N] - SIGTERM in the middle of a sweep while the
# machine is loaded (opt-in; not part of run.sh or make test: it needs the
# load to show anything, and its result is a rate, not a certainty).
#
# Under umad2sim an answer that reaches the preload's receiver thread after
# nanosm closed its umad fd crashes that thread (SIGSEGV, status 139), or
# deadlocks umad2sim's own exit handler (it joins that thread while holding
# the lock the thread waits for: nanosm never exits).  nanosm therefore
# reads the answers still due before it closes (mad/mad_port.c,
# mad_port_settle).  This script makes the answers late: two busy loops,
# ibsim at nice 19, a 1024-host 3-level fat tree, SIGTERM once the sweep
# routes (or after 4 s of discovery).  N runs (default 8); each must end
# with status 0 within 10 s of its SIGTERM.  Before mad_port_settle, 7 of
# 8 runs crashed or hung on a 2-CPU VM (docs/design.md, "Threads").
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
N=${1:-8}
NANOSM=${NANOSM:-$REPO/build/bin/nanosm}
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
# shellcheck source=tests/bench/lib.sh
. "$REPO/tests/bench/lib.sh"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/nanosm-termload.XXXXXX") || exit 1
hogs=() sim='' sm=''
finish() {
	local p
	for p in "${hogs[@]}" $sim $sm; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ "${KEEP:-0}" = 1 ] || rm -rf "$scratch"
}
trap finish EXIT

topo=$scratch/ft3-1k.topo
"$REPO/build/bin/nanosm-gen" fattree --levels 3 --cas 1024 -o "$topo" >/dev/null || exit 1
host=$(bench_sim_host "$topo")
for _ in 1 2; do
	(while :; do :; done) &
	hogs+=($!)
done

bad=0 statuses=''
for i in $(seq "$N"); do
	d=$scratch/run$i
	mkdir -p "$d/run"
	mkfifo "$d/ctl"
	sock=nanosm-termload-$$-$i
	(cd "$d/run" && IBSIM_SOCKNAME=$sock exec nice -n 19 ibsim $(bench_sim_limits "$topo") -s "$topo" \
		0<>"$d/ctl") >"$d/ibsim.log" 2>&1 &
	sim=$!
	for _ in $(seq 300); do grep -q 'Network simulator ready' "$d/ibsim.log" && break; sleep 0.1; done
	(cd "$d/run" && exec env LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$sock" SIM_HOST="$host" \
		"$NANOSM" -v --guid2lid "$d/g2l" --socket none) >"$d/sm.log" 2>&1 &
	sm=$!
	# a sweep under way: routing, or 4 s of discovery
	for _ in $(seq 300); do grep -q 'phase 4 of 10' "$d/sm.log" && break; sleep 0.02; done
	for _ in $(seq 100); do grep -q 'phase 1 of 10' "$d/sm.log" && break; sleep 0.1; done
	kill -TERM "$sm"
	for _ in $(seq 100); do kill -0 "$sm" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$sm" 2>/dev/null; then
		kill -KILL "$sm"
		wait "$sm" 2>/dev/null
		rc=hung
	else
		wait "$sm"
		rc=$?
	fi
	sm=''
	kill "$sim" 2>/dev/null
	wait "$sim" 2>/dev/null
	sim=''
	statuses+="$rc "
	[ "$rc" = 0 ] || { bad=$((bad + 1)); KEEP=1; echo "run $i: status $rc, logs in $d" >&2; }
done
echo "termload: $N SIGTERMs mid-sweep under load: statuses $statuses($bad not 0)"
[ $bad = 0 ]
