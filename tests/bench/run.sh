#!/bin/bash
# tests/bench/run.sh - nanosm routing benchmark (`make bench`; never part of
# `make test`).  Generates fabrics with build/bin/nanosm-gen, then
#  1. offline: times build/bin/nanosm-route TOPO -R ENGINE under
#     /usr/bin/time (wall seconds, peak RSS), BENCH_REPS runs, median;
#  2. under ibsim: time to SUBNET UP for nanosm and OpenSM on the same
#     fabric (fresh ibsim per run, SMs alternating), median and ratio;
#  3. under ibsim: SA PathRecord flood (build/bin/nanosm-sa flood) against a
#     running nanosm and a running OpenSM: answers/s with 1 and with
#     BENCH_SA_CLIENTS clients, and heavy-sweep latency idle vs during a
#     flood (nanosmctl sweep / SIGHUP), medians and ratios.
# Prints one table per part.  Everything runs in a private scratch dir;
# every process it starts is stopped by PID; every wait is bounded.
#
# Environment (defaults in brackets):
#   BENCH_SIZES    size tiers to run offline; a tier
#                  or a fabric name: ft2-1k ft3-1k ft2-4k ft3-4k ft2-16k
#                  ft3-16k ft2-48k ft3-45k mesh-1k mesh-10k mesh-16k (docs/bench.md);
#                  tiers deg (ft3-1k-deg ft3-16k-deg: 1% of the cables and
#                  a switch gone) and torus (torus-1k: 8x8x4)
#                  [1k 4k 16k 48k mesh deg torus]
#   BENCH_ENGINES  engines [minhop updn ftree vlsp]; under ibsim OpenSM
#                  runs the same engine, or dfsssp for nanosm's vlsp
#   BENCH_REPS     offline repetitions per fabric/engine [3]
#   BENCH_TIMEOUT  bound for one offline run, seconds [300]
#   BENCH_SIM      fabrics or tiers for the ibsim comparison, "" to skip
#                  [1k mesh-1k]; tiers 1k, 4k (ft2-4k ft3-4k), 10k (ft2-10k
#                  ft3-10k), irr (mesh-1k); fabric mesh-4k; e.g. "1k 4k 10k irr"
#   BENCH_SIM_REPS runs per SM per fabric/engine [3]
#   BENCH_SIM_ENGINES engines for the ibsim comparison [$BENCH_ENGINES]
#   SM_UP_TIMEOUT  bound for one SM run to reach SUBNET UP, seconds [120;
#                  give 300 for the 10k tier]
#   BENCH_RESWEEP  fabrics/tiers for the no-change re-sweep part [$BENCH_SIM]
#   BENCH_RESWEEP_ENGINES  [$BENCH_SIM_ENGINES]
#   BENCH_RESWEEP_N  re-sweeps per SM (one daemon run each) [3]
#   BENCH_OSM_LFT  1: OpenSM's re-sweep daemon logs at debug level (-D 0x0b)
#                  so its LFT Sets can be counted (slow: minutes at 4k); 0: its
#                  default level, no LFT count, honest re-sweep times [1]
#   BENCH_SA       fabrics for the SA PathRecord flood, "" to skip
#                  [fattree64 ft2-1k]; a bench fabric name or a file
#                  tests/fabrics/NAME.topo
#   BENCH_SA_REPS  runs per SM per fabric (fresh ibsim each) [3]
#   BENCH_SA_N     PathRecord Gets per flood client [20000]
#   BENCH_SA_WINDOW  requests each client keeps on the wire [32]
#   BENCH_SA_CLIENTS clients of the multi-client flood, 1-8 [4]
#   BENCH_SA_SWEEPS  heavy sweeps timed per run, idle and under flood [3]
#   BENCH_SA_ENGINE  routing engine of both SMs [minhop]
#   BENCH_SA_TIMEOUT bound for one flood client and one sweep, seconds [60]
#   BENCH_PERF     fabrics for the performance manager's pass time
#                  (tests/bench/perfmgr.sh), "" to skip [ft2-4k]
#   BENCH_BOOT     fabrics for the multicast boot storm, "" to skip [fattree64]
#   BENCH_BOOT_HOSTS  hosts creating groups at once, 1-8 [8]
#   BENCH_BOOT_N   new groups per host [100];  BENCH_BOOT_WINDOW  joins on the
#                  wire per host [4];  BENCH_BOOT_REPS  runs per SM [3]
#   BENCH_NANOSM_ARGS  more nanosm options for the --once runs, e.g. "--window 8" []
#   BENCH_SIM_IBSIM  1: each fabric of the ibsim comparison also runs nanosm --ibsim
#                  (ibsim's own protocol, no umad2sim; rows with engine*) [1]
#   BENCH_QLEN     net.unix.max_dgram_qlen for the run (root; restored at exit):
#                  how many datagrams ibsim and umad2sim may have unread before a
#                  write blocks (Linux default 10; see docs/performance.md) []
#   BENCH_LIVE     fabrics for the live full-LID-space tier (tests/bench/live45k.sh:
#                  each SM as a daemon on a fresh ibsim: SUBNET UP, a no-change
#                  re-sweep, a re-sweep after a cable pull), "" to skip [""];
#                  opt-in: BENCH_LIVE=ft3-45k takes 1-2 hours
#   BENCH_LIVE_ENGINE  both SMs' engine [updn];  BENCH_LIVE_SMS [nanosm opensm]
#   BENCH_LIVE_UP_TIMEOUT  bound for SUBNET UP, seconds [1800];
#                  BENCH_LIVE_SWEEP_TIMEOUT  for one re-sweep [1800];
#                  BENCH_LIVE_SIM_TIMEOUT  for ibsim to load the fabric [1800]
#   BENCH_LIVE_NANOSM_ARGS  extra nanosm options there, e.g. "--window 32"; "--ibsim": nanosm
#                  with ibsim's own protocol, no umad2sim preload [""]
#   BENCH_KEEP=1   keep the scratch dir;  BENCH_BIN=dir  binaries [build/bin]
#   NANOSM_ROUTE_ARGS  scoring options for nanosm-route [--shifts 0 --bisections 0]
#                  (the default skips the shift and bisection scores, which
#                  cost far more than routing; the gate always runs)
set -u

# shellcheck source=tests/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=tests/bench/bootstorm.sh
. "$(dirname "${BASH_SOURCE[0]}")/bootstorm.sh"
# shellcheck source=tests/bench/live45k.sh
. "$(dirname "${BASH_SOURCE[0]}")/live45k.sh"
# shellcheck source=tests/bench/simup.sh
. "$(dirname "${BASH_SOURCE[0]}")/simup.sh"
# shellcheck source=tests/bench/resweep.sh
. "$(dirname "${BASH_SOURCE[0]}")/resweep.sh"
# shellcheck source=tests/bench/saflood.sh
. "$(dirname "${BASH_SOURCE[0]}")/saflood.sh"
NANOSM=$BIN/nanosm
TIME=/usr/bin/time
PYTHON=${PYTHON:-python3}
ROUTE_ARGS=${NANOSM_ROUTE_ARGS---shifts 0 --bisections 0 --timing}
SIZES=${BENCH_SIZES-1k 4k 16k 48k mesh deg torus}
ENGINES=${BENCH_ENGINES-minhop updn ftree vlsp}
REPS=${BENCH_REPS:-3}
TIMEOUT=${BENCH_TIMEOUT:-300}
SIM_FABRICS=${BENCH_SIM-1k mesh-1k}
SIM_REPS=${BENCH_SIM_REPS:-3}
SIM_ENGINES=${BENCH_SIM_ENGINES-$ENGINES}
SM_UP_TIMEOUT=${SM_UP_TIMEOUT:-120}
SIM_READY_TIMEOUT=${SIM_READY_TIMEOUT:-120}
NANOSM_SA=$BIN/nanosm-sa
NANOSMCTL=$BIN/nanosmctl
SA_FABRICS=${BENCH_SA-fattree64 ft2-1k}
SA_REPS=${BENCH_SA_REPS:-3}
SA_N=${BENCH_SA_N:-20000}
SA_WINDOW=${BENCH_SA_WINDOW:-32}
SA_CLIENTS=${BENCH_SA_CLIENTS:-4}
SA_SWEEPS=${BENCH_SA_SWEEPS:-3}
SA_ENGINE=${BENCH_SA_ENGINE:-minhop}
SA_TIMEOUT=${BENCH_SA_TIMEOUT:-60}
RS_FABRICS=${BENCH_RESWEEP-$SIM_FABRICS}
RS_ENGINES=${BENCH_RESWEEP_ENGINES-$SIM_ENGINES}
RS_N=${BENCH_RESWEEP_N:-3}
OSM_LFT=${BENCH_OSM_LFT:-1}
# targets for updn/ftree on the largest tier
TARGET_S=10
TARGET_MB=2048

SCRATCH=
PIDS=()
SIM_PID=
SIM_SOCK=
SIM_GEN=0
OFFLINE_ROWS=()
TOPO=
RES=
SIM_DIR=
LOAD_S=

# ---------------------------------------------------------------- fabrics

# bench_fabric_args NAME: nanosm-gen arguments for a named fabric.
bench_fabric_args() {
	case $1 in
	ft2-1k) echo "fattree --levels 2 --cas 1024" ;;
	ft3-1k) echo "fattree --levels 3 --cas 1024" ;;
	ft2-4k) echo "fattree --levels 2 --cas 4096" ;;
	ft3-4k) echo "fattree --levels 3 --cas 4096" ;;
	ft2-16k) echo "fattree --levels 2 --cas 16384" ;;
	ft3-16k) echo "fattree --levels 3 --cas 16384" ;;
	# 2 levels cannot hold 48K at full bisection with <= 254 ports: 190
	# hosts and 64 uplinks per leaf (about 3:1)
	ft2-48k) echo "fattree --levels 2 --radix 254 --hosts-per-leaf 190 --cas 48000" ;;
	# 64-port k-ary 3-tree, full bisection; 45000 CAs + 3839 switches is
	# about the most that fits the 49151 unicast LIDs
	ft3-45k) echo "fattree --levels 3 --radix 64 --cas 45000" ;;
	ft2-10k) echo "fattree --levels 2 --cas 10240" ;;
	ft3-10k) echo "fattree --levels 3 --cas 10240" ;;
	# degraded 3-level trees: 1% of the switch cables and a switch without
	# hosts (agg or core) gone
	ft3-1k-deg) echo "fattree --levels 3 --cas 1024 --missing-links 20 --missing-switches 1 --seed 1" ;;
	ft3-16k-deg) echo "fattree --levels 3 --cas 16384 --missing-links 330 --missing-switches 1 --seed 1" ;;
	torus-1k) echo "torus --x 8 --y 8 --z 4 --hosts 4" ;;
	mesh-1k) echo "mesh --switches 128 --degree 6 --hosts 8 --seed 1" ;;
	# issue 15's 10K-CA mesh (vlsp: engine and gate under 10 s)
	mesh-10k) echo "mesh --switches 2500 --degree 6 --hosts 4 --seed 1" ;;
	mesh-4k) echo "mesh --switches 512 --degree 6 --hosts 8 --seed 1" ;;
	mesh-16k) echo "mesh --switches 2048 --degree 8 --hosts 8 --seed 1" ;;
	*) return 1 ;;
	esac
}

# bench_tier_fabrics TIER: the fabrics of a size tier.
bench_tier_fabrics() {
	case $1 in
	1k) echo "ft2-1k ft3-1k" ;;
	4k) echo "ft2-4k ft3-4k" ;;
	10k) echo "ft2-10k ft3-10k" ;;
	irr) echo "mesh-1k" ;;
	16k) echo "ft2-16k ft3-16k" ;;
	48k) echo "ft2-48k ft3-45k" ;;
	mesh) echo "mesh-1k mesh-10k mesh-16k" ;;
	deg) echo "ft3-1k-deg ft3-16k-deg" ;;
	torus) echo "torus-1k" ;;
	*) bench_fabric_args "$1" >/dev/null && echo "$1" ;;
	esac
}

# bench_gen NAME: generate once into the scratch dir; sets TOPO to its path.
bench_gen() {
	local name=$1 f=$SCRATCH/fabrics/$1.topo args t0 t1
	TOPO=$f
	if [ ! -s "$f" ]; then
		args=$(bench_fabric_args "$name") || bench_die "unknown fabric $name"
		t0=$(date +%s%N)
		# shellcheck disable=SC2086 # args are words
		"$GEN" $args -o "$f" || bench_die "nanosm-gen $args failed"
		t1=$(date +%s%N)
		bench_log "$name: nanosm-gen $args ($(((t1 - t0) / 1000000)) ms): $(sed -n 2p "$f" | sed 's/^# //')"
	fi
}

# bench_counts FILE: "CAS SWITCHES" from the generator's header line.
bench_counts() {
	sed -n 2p "$1" | awk '{ print $4, $2 }'
}

# ---------------------------------------------------------------- helpers

# bench_median V...: median of numbers (mean of the middle two when even).
bench_median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		if (m == int(m)) printf "%d\n", m; else printf "%.3f\n", m }'
}

# bench_ratio A B: A / B with 2 decimals, "-" unless both are numbers.
bench_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b == 0) print "-"; else printf "%.2f\n", a / b }'
}

# bench_med0 V...: median rounded to an integer, "-" for none.
bench_med0() {
	[ $# -gt 0 ] || { echo -; return; }
	bench_median "$@" | awk '{ printf "%.0f\n", $1 }'
}

# bench_med2 V...: median with 2 decimals, "-" for none.
bench_med2() {
	[ $# -gt 0 ] || { echo -; return; }
	bench_median "$@" | awk '{ printf "%.2f\n", $1 }'
}

# ---------------------------------------------------------------- offline

# bench_route_once TOPO ENGINE OUTDIR: one nanosm-route run under
# /usr/bin/time.  Sets RES to "SECONDS PEAK_KB RC" (RC 0: gate passes, 1:
# gate fails; either way the tables were computed) or "n/a: reason".  The
# seconds are our own wall clock (ms resolution); the peak RSS is time's %M.
bench_route_once() {
	local topo=$1 eng=$2 d=$3 rc why t0 t1
	t0=$(date +%s%N)
	# shellcheck disable=SC2086 # extra args are words
	timeout -k 5 "$TIMEOUT" "$TIME" -f "%e %M" -o "$d/time" \
		"$ROUTE" "$topo" -R "$eng" --json $ROUTE_ARGS >"$d/json" 2>"$d/err"
	rc=$?
	t1=$(date +%s%N)
	if [ $rc = 0 ] || { [ $rc = 1 ] && [ -s "$d/json" ]; }; then
		RES="$(awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.3f", ns / 1e9 }') $(tail -n 1 "$d/time" | cut -d' ' -f2) $rc"
	elif [ $rc = 124 ] || [ $rc = 137 ]; then
		RES="n/a: timed out after ${TIMEOUT}s"
	else
		why=$(grep -v '^[[:space:]]*$' "$d/err" | grep -v '^engines:' | tail -n 1 | cut -c1-90)
		RES="n/a: ${why:-exit status $rc}"
	fi
}

# bench_route_json FILE: "GATE|ENGINE_S|SCORE_S|GATE_S|EG_CPU_S" from
# nanosm-route --json: the gate verdict (PASS, or FAIL with what failed)
# and, if the report carries "timing_ms" (--timing), the engine's own
# seconds, those of the gate plus the scores asked for (with the default
# NANOSM_ROUTE_ARGS: the gate and the path scores only), the gate's alone,
# and the CPU seconds of engine plus gate (what nanosm runs before a push;
# issue 18's target on ft3-45k: < 5 s).
bench_route_json() {
	"$PYTHON" - "$1" <<'PY' 2>/dev/null || echo "?||||"
import json, sys
r = json.load(open(sys.argv[1]))
g = r.get("gate", {})
if g.get("pass"):
    v = "PASS"
else:
    bad = [k for k in ("unreachable", "loops", "bad_ports") if g.get(k)]
    v = "FAIL: " + ", ".join("%s %s" % (k, g[k]) for k in bad)
    if g.get("credit_loop"):
        v += (", " if bad else "") + "credit loop"
def sec(k):
    t = r.get("timing_ms", {}).get(k)
    return "%.3f" % (t / 1000.0) if isinstance(t, (int, float)) else ""
eg = [r.get("timing_ms", {}).get(k) for k in ("engine_cpu", "gate_cpu")]
egs = "%.3f" % (sum(eg) / 1000.0) if all(isinstance(t, (int, float)) for t in eg) else ""
print("%s|%s|%s|%s|%s" % (v, sec("engine"), sec("score"), sec("gate"), egs))
PY
}

# bench_load_baseline TOPO DIR: median seconds of nanosm-route reading the
# fabric and giving it LIDs, nothing else (an unknown engine name makes it
# stop right there).  Sets LOAD_S.
bench_load_baseline() {
	local topo=$1 d=$2 r t0 t1 secs=()
	for r in $(seq "$REPS"); do
		t0=$(date +%s%N)
		timeout -k 5 "$TIMEOUT" "$TIME" -f "%e %M" -o "$d/time" \
			"$ROUTE" "$topo" -R load-only-baseline >/dev/null 2>&1
		t1=$(date +%s%N)
		secs+=("$(awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.3f", ns / 1e9 }')")
	done
	LOAD_S=$(bench_median "${secs[@]}")
}

# bench_offline_one NAME ENGINE: BENCH_REPS runs; appends a table row
# "fabric|CAs|switches|engine|median s|load s|engine s|peak MB|runs|gate|target".
bench_offline_one() {
	local name=$1 eng=$2 topo counts d r res secs=() kbs=() s kb note='' gate es ss gs ec t
	bench_gen "$name"
	topo=$TOPO
	counts=$(bench_counts "$topo")
	d=$SCRATCH/offline/$name.$eng
	mkdir -p "$d"
	for r in $(seq "$REPS"); do
		bench_route_once "$topo" "$eng" "$d"
		res=$RES
		case $res in
		n/a:*) note=$res; break ;;
		esac
		read -r s kb _ <<<"$res"
		secs+=("$s")
		kbs+=("$kb")
	done
	if [ -n "$note" ]; then
		OFFLINE_ROWS+=("$name|${counts% *}|${counts#* }|$eng|$note")
		bench_log "offline $name $eng: $note"
		return
	fi
	IFS='|' read -r gate es ss gs ec <<<"$(bench_route_json "$d/json")"
	s=$(bench_median "${secs[@]}")
	kb=$(bench_median "${kbs[@]}")
	kb=${kb%.*}
	if [ "$eng" = vlsp ] && [ -n "$es" ] && [ -n "$ss" ]; then
		t=$(awk -v a="$es" -v b="$ss" 'BEGIN { printf "%.3f", a + b }')
		t=$(bench_target "$name" "$eng" "$t" "$kb" "engine and gate")
	else
		t=$(bench_target "$name" "$eng" "${es:-$s}" "$kb" "${es:+engine}")
	fi
	OFFLINE_ROWS+=("$name|${counts% *}|${counts#* }|$eng|$s|$LOAD_S|${es:--}|${gs:--}|${ec:--}|$((kb / 1024))|${secs[*]}|$gate|$t")
	bench_log "offline $name $eng: median ${s}s (load ${LOAD_S}s), $((kb / 1024)) MB, gate $gate (runs: ${secs[*]})"
}

# bench_target NAME ENGINE SECONDS KB [WHAT]: the verdict for updn/ftree on
# the 48K tier (SECONDS: the engine's) and for vlsp on the 10K-CA mesh
# (SECONDS: engine and gate, issue 15).  Without WHAT the seconds are the
# whole run (load + engine + gate + score), an upper bound: a FAIL is then
# "FAIL?".
bench_target() {
	case $1:$2 in
	ft2-48k:updn | ft2-48k:ftree | ft3-45k:updn | ft3-45k:ftree | mesh-10k:vlsp) ;;
	*) return 0 ;;
	esac
	awk -v s="$3" -v kb="$4" -v ts=$TARGET_S -v tm=$TARGET_MB -v what="${5:-}" 'BEGIN {
		ok = (s < ts && kb / 1024 < tm)
		printf "%s (%s <%ds, <%dMB)", ok ? "PASS" : what != "" ? "FAIL" : "FAIL?",
			what != "" ? what : "whole run", ts, tm }'
}

bench_offline() {
	local tier name eng
	[ -n "${SIZES// /}" ] || return 0
	bench_log "offline routing: tiers [$SIZES], engines [$ENGINES], $REPS runs each"
	if [ ! -x "$ROUTE" ]; then
		bench_log "WARNING: $ROUTE not built: no offline numbers"
		OFFLINE_ROWS+=("-|-|-|-|n/a: $ROUTE not built")
		return 0
	fi
	for tier in $SIZES; do
		bench_tier_fabrics "$tier" >/dev/null || bench_die "unknown size tier $tier"
		for name in $(bench_tier_fabrics "$tier"); do
			bench_gen "$name"
			mkdir -p "$SCRATCH/offline/$name"
			bench_load_baseline "$TOPO" "$SCRATCH/offline/$name"
			for eng in $ENGINES; do bench_offline_one "$name" "$eng"; done
		done
	done
}

# ---------------------------------------------------------------- report

bench_report() {
	local row f c s e t l es gs ec m g tg
	[ ${#OFFLINE_ROWS[@]} -gt 0 ] || { bench_report_sim; bench_report_rs; bench_report_sa; bench_report_boot; return; }
	echo
	echo "== Offline: nanosm-route TOPO -R ENGINE $ROUTE_ARGS =="
	echo "   total = wall s of the whole run (parse + LIDs + engine + gate + base score),"
	echo "   load = parse + LIDs alone; median of $REPS runs; $(nproc) CPUs, $(uname -r);"
	echo "   engine_s, gate_s: wall s of the last run; eg_cpu: its engine + gate CPU s"
	printf '%-9s %6s %5s %-7s %8s %7s %8s %7s %7s %7s  %-30s %s\n' fabric CAs sw engine total_s load_s engine_s gate_s eg_cpu peak_MB gate "target (48K tier, mesh-10k vlsp)"
	for row in "${OFFLINE_ROWS[@]}"; do
		IFS='|' read -r f c s e t l es gs ec m _ g tg <<<"$row"
		case $t in
		n/a*) printf '%-9s %6s %5s %-7s %s\n' "$f" "$c" "$s" "$e" "$t" ;;
		*) printf '%-9s %6s %5s %-7s %8s %7s %8s %7s %7s %7s  %-30s %s\n' "$f" "$c" "$s" "$e" "$t" "$l" "$es" "$gs" "$ec" "$m" "${g:0:30}" "$tg" ;;
		esac
	done
	bench_report_sim
	bench_report_rs
	bench_report_sa
	bench_report_boot
}

# ---------------------------------------------------------------- main

case ${1:-} in
-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
[ -x "$GEN" ] || bench_die "$GEN not built (run make)"
[ -x "$TIME" ] || bench_die "$TIME missing (apt-get install time)"
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/nanosm-bench.XXXXXX") || bench_die "mktemp failed"
mkdir -p "$SCRATCH/fabrics" "$SCRATCH/offline" "$SCRATCH/sim"
trap bench_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
bench_log "scratch $SCRATCH"
[ -z "${BENCH_QLEN:-}" ] || bench_qlen_set "$BENCH_QLEN"
START=$(date +%s)
bench_offline
bench_sim
bench_resweep
bench_sa
bench_boot
bench_live
bench_report
bench_report_live
if [ -n "${BENCH_PERF-ft2-4k}" ]; then
	echo
	BENCH_PERF=${BENCH_PERF-ft2-4k} "$BENCH_DIR/perfmgr.sh"
fi
echo
echo "total $(($(date +%s) - START)) s"
