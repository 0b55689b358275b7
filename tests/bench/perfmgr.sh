#!/bin/bash
# tests/bench/perfmgr.sh - the performance manager's pass over a generated
# fabric under ibsim (`make bench` runs it when BENCH_PERF is not empty;
# never part of `make test`).  For each fabric: a fresh ibsim, nanosm with
# monitor.interval 2 s, SUBNET UP, then the first two passes as nanosm logs
# them ("performance manager: pass N took X ms"): pass 1 also reads every
# node's ClassPortInfo, pass 2 is the steady state (PortCounters and
# PortCountersExtended of every ACTIVE port).  OpenSM's perfmgr logs no
# pass time in this build (its sweep profile is compiled out), so there is
# no ratio to it.  Every process started here is stopped by PID; every wait
# is bounded.
#
#   BENCH_PERF      fabrics [ft2-4k]: ft2-1k ft2-4k ft3-4k
#   BENCH_PERF_TIMEOUT  bound for SUBNET UP and each pass, seconds [120]
set -u

# shellcheck source=tests/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FABRICS=${BENCH_PERF-ft2-4k}
T=${BENCH_PERF_TIMEOUT:-120}
SIM_READY_TIMEOUT=$T
PIDS=()
SIM_GEN=0
BENCH_KEEP=${BENCH_KEEP:-0}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/nanosm-bench-perf.XXXXXX") || bench_die "mktemp failed"
trap bench_cleanup EXIT

perf_gen_args() {
	case $1 in
	ft2-1k) echo "fattree --levels 2 --cas 1024" ;;
	ft2-4k) echo "fattree --levels 2 --cas 4096" ;;
	ft3-4k) echo "fattree --levels 3 --cas 4096" ;;
	*) return 1 ;;
	esac
}

# perf_one NAME: sets RES to "NAME ports pass1_ms pass2_ms gmps_per_s up_ms"
# (run in this shell, not $(...), so PIDS keeps what it started)
perf_one() {
	local name=$1 topo=$SCRATCH/$1.topo args host d log pid t0 up p1 p2 ports
	args=$(perf_gen_args "$name") || bench_die "unknown fabric $name"
	# shellcheck disable=SC2086 # args are words
	"$GEN" $args -o "$topo" >/dev/null || bench_die "nanosm-gen $args failed"
	bench_sim_start "$topo" || return 1
	host=$(bench_sim_host "$topo")
	d=$SIM_DIR/nanosm
	mkdir -p "$d"
	printf 'monitor:\n  interval: 2\n' >"$d/policy.yaml"
	log=$d/sm.log
	t0=$(date +%s%N)
	(cd "$SIM_DIR/run" && exec env LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$SIM_SOCK" \
		SIM_HOST="$host" "$BIN/nanosm" -v -f "$d/policy.yaml" --sweep-interval 3600 \
		--guid2lid "$d/guid2lid" --socket none) >"$log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	bench_wait_file "$log" 'SUBNET UP' "$T" "$pid" ||
		{ bench_log "$name: no SUBNET UP"; bench_kill "$pid"; return 1; }
	up=$((($(date +%s%N) - t0) / 1000000))
	bench_wait_file "$log" 'performance manager: pass 2 took' "$T" "$pid" ||
		{ bench_log "$name: no second pass"; bench_kill "$pid"; return 1; }
	bench_kill "$pid"
	bench_sim_stop
	p1=$(sed -nE 's/.*performance manager: pass 1 took ([0-9]+) ms.*/\1/p' "$log")
	p2=$(sed -nE 's/.*performance manager: pass 2 took ([0-9]+) ms.*/\1/p' "$log")
	ports=$(sed -nE 's/.*performance manager: pass over ([0-9]+) ports \(0 ClassPortInfo.*/\1/p' "$log" | head -n 1)
	# pass 2: a PortCounters and a PortCountersExtended Get per port
	RES="$name ${ports:-?} $p1 $p2 $(awk -v n="${ports:-0}" -v ms="$p2" 'BEGIN { if (ms > 0) printf "%d", 2 * n * 1000 / ms; else print "-" }') $up"
}

echo "== Performance manager: one pass under ibsim (ms), monitor.interval 2 s =="
echo "   pass1 reads every node's ClassPortInfo too; pass2 is the steady state; gmps/s of pass2"
printf '%-8s %7s %8s %8s %8s %8s\n' fabric ports pass1 pass2 gmps/s up_ms
for f in $FABRICS; do
	RES="$f fail - - - -"
	perf_one "$f" || bench_sim_stop
	# shellcheck disable=SC2086 # fields
	printf '%-8s %7s %8s %8s %8s %8s\n' $RES
done
