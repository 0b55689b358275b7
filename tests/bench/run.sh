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
#   BENCH_LIVE_NANOSM_ARGS  extra nanosm options there, e.g. "--window 32" [""]
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
SIM_ROWS=()
RS_ROWS=()
RS_PID=
RS_AWK=
RS_LOG=
RS_DIR=
SA_ROWS=()
SWEEP_ROWS=()
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

# ---------------------------------------------------------------- ibsim

# bench_tod_ms: now, as milliseconds since local midnight.
bench_tod_ms() {
	date +%H:%M:%S.%N | awk -F'[:.]' '{ printf "%d\n", (($1 * 60 + $2) * 60 + $3) * 1000 + substr($4, 1, 3) }'
}

# bench_up_ms LOG T0 POLLED: ms from T0 (ms since midnight) to the SUBNET UP
# line's own timestamp (nanosm "HH:MM:SS.mmm", OpenSM "Mon DD HH:MM:SS usec");
# POLLED when the line has no readable timestamp.
bench_up_ms() {
	grep -m1 'SUBNET UP' "$1" | awk -v t0="$2" -v polled="$3" '{
		ms = -1
		if (match($0, /[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9][0-9][0-9]/)) {
			split(substr($0, RSTART, 12), a, /[:.]/)
			ms = ((a[1] * 60 + a[2]) * 60 + a[3]) * 1000 + a[4]
		} else if (match($0, /[0-9][0-9]:[0-9][0-9]:[0-9][0-9] [0-9][0-9][0-9][0-9][0-9][0-9]/)) {
			split(substr($0, RSTART, 15), a, /[: ]/)
			ms = ((a[1] * 60 + a[2]) * 60 + a[3]) * 1000 + int(a[4] / 1000)
		}
		if (ms < 0) { print polled; exit }
		d = ms - t0
		if (d < 0) d += 86400000
		print d }'
}

# bench_cpu_ms PID: user + system CPU ms the process used so far (0 if gone).
bench_cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%d\n", ($12 + $13) * 1000 / hz }' \
		"/proc/$1/stat" 2>/dev/null || echo 0
}

# bench_wire_mads HOST: PortXmitPkts of HOST's port 1, as ibsim counts it
# (perfquery from HOST itself).  ibsim counts every MAD that leaves the port
# for the wire: the SMPs of an SM on HOST that go to other nodes (not those
# to its own port, which never leave it), but not perfquery's own queries.
# Both SMs are counted the same way; "n/a" when perfquery fails.
bench_wire_mads() {
	local v
	v=$(cd "$SIM_DIR/run" && timeout -k 2 20 env LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$SIM_SOCK" \
		SIM_HOST="$1" perfquery 2>/dev/null | sed -n 's/^PortXmitPkts:\.*\([0-9]*\)$/\1/p' | head -n 1)
	echo "${v:-n/a}"
}

# bench_sm_run SM ENGINE HOST: run one SM (--once) under /usr/bin/time
# against the running ibsim.  Sets RES to "MS RSS_KB SM_CPU_MS SIM_CPU_MS
# RUN_MS WIRE_MADS LFT_BLOCKS ENGINE_USED" or "fail: reason".  MS: start to
# the SUBNET UP line; RSS: time's %M; RUN_MS: start to exit, SIM_CPU_MS:
# ibsim's CPU time over that span; LFT_BLOCKS: nanosm's lft_blocks_sent,
# "-" for OpenSM (counted in the re-sweep part, which logs at debug level).
bench_sm_run() {
	local sm=$1 eng=$2 host=$3 d log cmd=() envs=() pid t0 t1 tod0 polled used c0 c1 up rss cpu lft
	d=$SIM_DIR/$sm.$eng
	mkdir -p "$d/cache" "$d/tmp"
	log=$d/sm.log
	case $sm in
	# shellcheck disable=SC2086 # BENCH_NANOSM_ARGS are words
	nanosm) cmd=("$NANOSM" --once -R "$eng" --guid2lid "$d/guid2lid" --socket none ${BENCH_NANOSM_ARGS:-}) ;;
	opensm)
		# -d2: flush the log after every line; private cache and tmp dirs
		cmd=(opensm --once -R "$(bench_osm_engine "$eng")" -d2 -f "$d/osm.log")
		envs=(OSM_CACHE_DIR="$d/cache" OSM_TMP_DIR="$d/tmp")
		;;
	esac
	c0=$(bench_cpu_ms "$SIM_PID")
	tod0=$(bench_tod_ms)
	t0=$(date +%s%N)
	# time outside the preload: umad2sim connects every process it is
	# loaded into to ibsim
	(cd "$SIM_DIR/run" && exec "$TIME" -f "%M %U %S" -o "$d/time" env "${envs[@]}" \
		LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$SIM_SOCK" SIM_HOST="$host" "${cmd[@]}") >"$log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	[ "$sm" = opensm ] && log=$d/osm.log
	if ! bench_wait_file "$log" 'SUBNET UP' "$SM_UP_TIMEOUT" "$pid"; then
		bench_kill_timed "$pid"
		RES="fail: $(bench_sm_why "$sm" "$d")"
		[ "$RES" = "fail: " ] && RES="fail: no SUBNET UP within ${SM_UP_TIMEOUT}s"
		return 0
	fi
	polled=$((($(date +%s%N) - t0) / 1000000))
	bench_wait_exit "$pid"
	t1=$(date +%s%N)
	c1=$(bench_cpu_ms "$SIM_PID")
	case $sm in
	nanosm)
		used=$(grep 'SUBNET UP' "$d/sm.log" | grep -m1 -oE 'engine=[a-z0-9_-]+' | cut -d= -f2)
		lft=$(grep -m1 -oE 'sweep [0-9]+: ok .*lft_blocks_sent=[0-9]+' "$d/sm.log" | grep -oE '[0-9]+$')
		;;
	opensm) used=$(grep -oE '[a-z0-9_-]+ tables configured on all switches' "$d/osm.log" | tail -n 1 | cut -d' ' -f1) ;;
	esac
	[ "$sm" = opensm ] && [ -n "$used" ] && [ "$used" != "$(bench_osm_engine "$eng")" ] &&
		used="$used:$(bench_sm_why opensm "$d")"
	up=$(bench_up_ms "$log" "$tod0" "$polled")
	read -r rss cpu <<<"$(awk '/^[0-9]+ [0-9.]+ [0-9.]+$/ { printf "%d %d\n", $1, ($2 + $3) * 1000 }' "$d/time")"
	RES="$up ${rss:-0} ${cpu:-0} $((c1 - c0)) $(((t1 - t0) / 1000000)) $(bench_wire_mads "$host") ${lft:--} ${used:-?}"
}

# bench_osm_engine ENGINE: OpenSM's engine to compare nanosm's ENGINE with:
# the same name, or dfsssp (balanced shortest paths over VLs) for vlsp.
bench_osm_engine() {
	case $1 in
	vlsp) echo dfsssp ;;
	*) echo "$1" ;;
	esac
}

# bench_sm_why SM DIR: the most telling error line of a run, prefix cut.
bench_sm_why() {
	case $1 in
	nanosm)
		grep -hoE 'NSM-E[0-9]+.*' "$2/sm.log" 2>/dev/null | grep -vE '^NSM-E(100|403)' | head -n 1
		;;
	opensm)
		grep -hE 'ERR [0-9A-F]+:|disabling|cannot|failed' "$2/osm.log" 2>/dev/null | head -n 1 |
			sed -E 's/^.* -> //'
		;;
	esac | cut -c1-160
}

# bench_sim_pair NAME ENGINE: alternate nanosm and OpenSM runs, each on a
# fresh ibsim; appends a table row.
bench_sim_pair() {
	local name=$1 eng=$2 topo host r sm res fail_n='' fail_o='' used_n='' used_o=''
	local ms_n=() ms_o=() rss_n=() rss_o=() mads_n=() mads_o=() lft_n=() sim_n=() sim_o=()
	local cpu_n=() simcpu_n=() upx_n=()
	local ms rss cpu simcpu run mads lft used
	bench_gen "$name"
	topo=$TOPO
	host=$(bench_sim_host "$topo")
	for r in $(seq "$SIM_REPS"); do
		for sm in nanosm opensm; do
			[ "$sm" = nanosm ] && [ -n "$fail_n" ] && continue
			[ "$sm" = opensm ] && [ -n "$fail_o" ] && continue
			bench_sim_start "$topo" || { SIM_ROWS+=("$name|$eng|n/a: ibsim cannot load it||||||||||"); return; }
			bench_sm_run "$sm" "$eng" "$host"
			res=$RES
			bench_sim_stop
			bench_log "ibsim $name $eng $sm run $r: $res (up_ms rss_kb cpu_ms ibsim_cpu_ms run_ms wire_mads lft engine)"
			case $res in
			fail*) [ "$sm" = nanosm ] && fail_n=$res || fail_o=$res; continue ;;
			esac
			read -r ms rss cpu simcpu run mads lft used <<<"$res"
			case $sm in
			nanosm)
				ms_n+=("$ms"); rss_n+=("$rss"); used_n=$used; lft_n+=("$lft")
				cpu_n+=("$cpu"); simcpu_n+=("$simcpu")
				# issue 18: time to SUBNET UP over ibsim's CPU time serving the run
				upx_n+=("$(awk -v a="$ms" -v b="$simcpu" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')")
				[ "$mads" = n/a ] || mads_n+=("$mads")
				sim_n+=("$(awk -v a="$simcpu" -v b="$run" 'BEGIN { printf "%.0f", (b > 0 ? 100 * a / b : 0) }')")
				;;
			opensm)
				ms_o+=("$ms"); rss_o+=("$rss"); used_o=$used
				[ "$mads" = n/a ] || mads_o+=("$mads")
				sim_o+=("$(awk -v a="$simcpu" -v b="$run" 'BEGIN { printf "%.0f", (b > 0 ? 100 * a / b : 0) }')")
				;;
			esac
		done
	done
	bench_sim_row "$name" "$eng"
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

# bench_sim_row NAME ENGINE (uses bench_sim_pair's locals): one table row
# "fabric|engine|n_ms|n_used|o_ms|o_used|ratio|n_MB|o_MB|rss_ratio|n_mads|o_mads|n_lft|n_sim%|o_sim%
# |n_cpu_ms|n_ibsim_cpu_ms|n_ms/ibsim_cpu".
bench_sim_row() {
	local n o fb nm om
	n=${fail_n:-$(bench_med0 "${ms_n[@]}")}
	o=${fail_o:-$(bench_med0 "${ms_o[@]}")}
	nm=$(bench_med0 "${rss_n[@]}")
	om=$(bench_med0 "${rss_o[@]}")
	[ "$nm" = - ] || nm=$(awk -v k="$nm" 'BEGIN { printf "%.1f", k / 1024 }')
	[ "$om" = - ] || om=$(awk -v k="$om" 'BEGIN { printf "%.1f", k / 1024 }')
	fb=${used_o:-?}
	# "ENGINE:REASON" when OpenSM used another engine than asked
	case $used_o in *:*) fb="${used_o%%:*} (FELL BACK: ${used_o#*:})" ;; esac
	[ -z "$fail_o" ] || fb=-
	SIM_ROWS+=("$1|$2|$n|${used_n:--}|$o|$fb|$(bench_ratio "$n" "$o")|$nm|$om|$(bench_ratio "$nm" "$om")|$(bench_med0 "${mads_n[@]}")|$(bench_med0 "${mads_o[@]}")|$(bench_med0 "${lft_n[@]}")|$(bench_med0 "${sim_n[@]}")|$(bench_med0 "${sim_o[@]}")|$(bench_med0 "${cpu_n[@]}")|$(bench_med0 "${simcpu_n[@]}")|$(bench_med2 "${upx_n[@]}")")
}

# bench_sim_fabrics LIST: bench fabric names, tiers expanded.
bench_sim_fabrics() {
	local t
	for t in $1; do
		bench_tier_fabrics "$t" >/dev/null || bench_die "unknown fabric or tier $t"
		bench_tier_fabrics "$t"
	done | tr ' ' '\n' | awk 'NF && !seen[$0]++'
}

bench_sim() {
	local name eng
	[ -n "${SIM_FABRICS// /}" ] || return 0
	command -v ibsim >/dev/null || { bench_log "ibsim not installed: skipping the SM comparison"; return 0; }
	command -v opensm >/dev/null || { bench_log "opensm not installed: skipping the SM comparison"; return 0; }
	[ -r "$UMAD2SIM" ] || { bench_log "umad2sim not found: skipping the SM comparison"; return 0; }
	[ -x "$NANOSM" ] || { bench_log "$NANOSM not built: skipping the SM comparison"; return 0; }
	bench_log "ibsim comparison: fabrics [$SIM_FABRICS], engines [$SIM_ENGINES], $SIM_REPS runs per SM"
	for name in $(bench_sim_fabrics "$SIM_FABRICS"); do
		for eng in $SIM_ENGINES; do bench_sim_pair "$name" "$eng"; done
	done
}

# ---------------------------------------------------------------- re-sweep

# bench_rs_start SM ENGINE HOST: the SM as a daemon (no periodic sweeps) on
# the running ibsim; bounded wait for SUBNET UP.  OpenSM logs at debug level
# (-D 0x0b) into a fifo read by an awk that counts its LinearForwardingTable
# Sets and writes only the SUBNET UP lines, each with the count since the
# previous one, to RS_LOG.  Sets RS_PID, RS_LOG, RS_DIR; 1 on failure.
bench_rs_start() {
	local sm=$1 eng=$2 host=$3 d cmd=() envs=()
	d=$SIM_DIR/$sm.rs
	mkdir -p "$d/cache" "$d/tmp"
	RS_DIR=$d
	case $sm in
	nanosm)
		RS_LOG=$d/sm.out
		cmd=("$NANOSM" -R "$eng" --socket "$d/ctl.sock" --guid2lid "$d/guid2lid" --sweep-interval 86400)
		;;
	opensm)
		envs=(OSM_CACHE_DIR="$d/cache" OSM_TMP_DIR="$d/tmp")
		if [ "$OSM_LFT" = 0 ]; then
			RS_LOG=$d/osm.log
			cmd=(opensm -R "$(bench_osm_engine "$eng")" -d2 -s 0 -f "$RS_LOG")
		else
			RS_LOG=$d/up.log
			mkfifo "$d/osm.fifo" || return 1
			# mawk reads a pipe in large blocks unless interactive
			# shellcheck disable=SC2046 # two words or none
			awk $(awk -W version 2>/dev/null | grep -q mawk && echo -W interactive) \
				'/Setting LinearForwardingTable/ { n++ }
				/-> SUBNET UP/ { print $0 " lft_sets=" n + 0; fflush(); n = 0 }' \
				<"$d/osm.fifo" >"$RS_LOG" 2>/dev/null &
			PIDS+=("$!")
			RS_AWK=$!
			cmd=(opensm -R "$(bench_osm_engine "$eng")" -d2 -s 0 -D 0x0b -f "$d/osm.fifo")
		fi
		;;
	esac
	(cd "$SIM_DIR/run" && exec env "${envs[@]}" LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$SIM_SOCK" \
		SIM_HOST="$host" "${cmd[@]}") >"$d/sm.out" 2>&1 &
	RS_PID=$!
	PIDS+=("$RS_PID")
	# a daemon retries a sweep that failed (engine error, gate refusal)
	# forever: the first failed sweep ends the wait
	if bench_wait_file "$RS_LOG" 'SUBNET UP|nanosm: sweep 1: failed' "$SM_UP_TIMEOUT" "$RS_PID" &&
		grep -q 'SUBNET UP' "$RS_LOG"; then
		return 0
	fi
	RES="fail: $(grep -hoE 'NSM-E[0-9]+.*' "$RS_LOG" 2>/dev/null | grep -vE '^NSM-E(100|403)' | head -n 1 | cut -c1-160)"
	[ "$RES" = "fail: " ] && RES="fail: no SUBNET UP within ${SM_UP_TIMEOUT}s"
	bench_rs_stop "$sm"
	return 1
}

bench_rs_stop() {
	bench_kill "$RS_PID"
	[ "$1" != opensm ] || [ "$OSM_LFT" = 0 ] || bench_kill "$RS_AWK"
}

# bench_rs_lft SM N: LFT blocks set by the N-th sweep (nanosm: sweep N's
# lft_blocks_sent; OpenSM: the count on its N-th SUBNET UP line).
bench_rs_lft() {
	case $1 in
	nanosm) grep -m1 -E "nanosm: sweep $2: " "$RS_LOG" | grep -oE 'lft_blocks_sent=[0-9]+' | cut -d= -f2 ;;
	opensm) grep -E -- '-> SUBNET UP' "$RS_LOG" | sed -n "$2p" | grep -oE 'lft_sets=[0-9]+' | cut -d= -f2 ;;
	esac
}

# bench_rs_run SM ENGINE TOPO HOST: fresh ibsim, daemon up, BENCH_RESWEEP_N
# re-sweeps of the unchanged fabric.  Appends "ms mads lft" per re-sweep to
# the caller's rs_SM array and the bring-up's LFT blocks to up_lft_SM.
bench_rs_run() {
	local sm=$1 eng=$2 topo=$3 host=$4 i m0 m1 ms up x said='' SA_TIMEOUT=$SM_UP_TIMEOUT
	bench_sim_start "$topo" || { rs_fail[$sm]="ibsim cannot load the fabric"; return; }
	if ! bench_rs_start "$sm" "$eng" "$host"; then
		rs_fail[$sm]=$RES
		bench_sim_stop
		return
	fi
	up=$(bench_rs_lft "$sm" 1)
	[ -z "$up" ] || eval "up_lft_$sm+=(\"\$up\")"
	# bench_sa_sweep reads these
	SA_SM_LOG=$RS_LOG SA_SM_PID=$RS_PID SA_SM_DIR=$RS_DIR
	for i in $(seq "$RS_N"); do
		m0=$(bench_wire_mads "$host")
		bench_sa_sweep "$sm"
		case $RES in fail*) rs_fail[$sm]=$RES; break ;; esac
		ms=${RES%% *}
		m1=$(bench_wire_mads "$host")
		[ "$m0" = n/a ] || [ "$m1" = n/a ] || m1=$((m1 - m0))
		x="$ms $m1 $(bench_rs_lft "$sm" $((i + 1)))"
		said+="[$x] "
		eval "rs_$sm+=(\"\$x\")"
	done
	bench_log "re-sweep $name $eng $sm: bring-up LFT blocks $up; re-sweeps (ms MADs LFT): $said"
	bench_rs_stop "$sm"
	bench_sim_stop
}

# bench_rs_col ROWS... (each "ms mads lft"): "ms|mads|lft" medians.
bench_rs_col() {
	local r ms_v=() mads_v=() lft_v=() x y z
	for r in "$@"; do
		read -r x y z <<<"$r"
		ms_v+=("$x")
		[ "$y" = n/a ] || mads_v+=("$y")
		[ -z "$z" ] || lft_v+=("$z")
	done
	echo "$(bench_med0 "${ms_v[@]}")|$(bench_med0 "${mads_v[@]}")|$(bench_med0 "${lft_v[@]}")"
}

# bench_rs_pair NAME ENGINE: one daemon run per SM; a table row
# "fabric|engine|n_up_lft|n_ms|n_mads|n_lft|o_up_lft|o_ms|o_mads|o_lft|why".
bench_rs_pair() {
	local name=$1 eng=$2 topo host sm why=''
	local -A rs_fail=()
	local rs_nanosm=() rs_opensm=() up_lft_nanosm=() up_lft_opensm=()
	bench_gen "$name"
	topo=$TOPO
	host=$(bench_sim_host "$topo")
	for sm in nanosm opensm; do bench_rs_run "$sm" "$eng" "$topo" "$host"; done
	for sm in nanosm opensm; do [ -z "${rs_fail[$sm]:-}" ] || why+="  $sm: ${rs_fail[$sm]}"; done
	RS_ROWS+=("$name|$eng|$(bench_med0 "${up_lft_nanosm[@]}")|$(bench_rs_col "${rs_nanosm[@]}")|$(bench_med0 "${up_lft_opensm[@]}")|$(bench_rs_col "${rs_opensm[@]}")|$why")
}

bench_resweep() {
	local name eng
	[ -n "${RS_FABRICS// /}" ] || return 0
	if ! command -v ibsim >/dev/null || ! command -v opensm >/dev/null || ! command -v perfquery >/dev/null ||
		[ ! -r "$UMAD2SIM" ] || [ ! -x "$NANOSMCTL" ]; then
		bench_log "ibsim, opensm, perfquery or nanosmctl missing: skipping the re-sweep part"
		return 0
	fi
	bench_log "re-sweep with no change: fabrics [$RS_FABRICS], engines [$RS_ENGINES], $RS_N re-sweeps per SM"
	for name in $(bench_sim_fabrics "$RS_FABRICS"); do
		for eng in $RS_ENGINES; do bench_rs_pair "$name" "$eng"; done
	done
}

# ---------------------------------------------------------------- SA flood

# bench_sa_topo NAME: TOPO = tests/fabrics/NAME.topo if it exists, else the
# generated bench fabric NAME.
bench_sa_topo() {
	if [ -s "$REPO/tests/fabrics/$1.topo" ]; then
		TOPO=$REPO/tests/fabrics/$1.topo
	else
		bench_fabric_args "$1" >/dev/null || bench_die "unknown fabric $1 (BENCH_SA)"
		bench_gen "$1"
	fi
}

# bench_line_ms: the timestamp of the log line on stdin as ms since
# midnight (nanosm "HH:MM:SS.mmm", OpenSM "Mon DD HH:MM:SS usec"), or -1.
bench_line_ms() {
	awk '{
		ms = -1
		if (match($0, /[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9][0-9][0-9]/)) {
			split(substr($0, RSTART, 12), a, /[:.]/)
			ms = ((a[1] * 60 + a[2]) * 60 + a[3]) * 1000 + a[4]
		} else if (match($0, /[0-9][0-9]:[0-9][0-9]:[0-9][0-9] [0-9][0-9][0-9][0-9][0-9][0-9]/)) {
			split(substr($0, RSTART, 15), a, /[: ]/)
			ms = ((a[1] * 60 + a[2]) * 60 + a[3]) * 1000 + int(a[4] / 1000)
		}
		print ms; exit }'
}

# bench_ms_since T0 T1: T1 - T0, both ms since midnight (wraps once).
bench_ms_since() {
	local d=$(($2 - $1))
	[ "$d" -ge 0 ] || d=$((d + 86400000))
	echo "$d"
}

# bench_wait_count FILE ERE COUNT TIMEOUT PID: like bench_wait_file, until
# FILE has COUNT lines matching.
bench_wait_count() {
	local f=$1 pat=$2 n=$3 t=$4 pid=$5 deadline
	deadline=$(($(date +%s%N) / 1000000 + t * 1000))
	while :; do
		[ "$(grep -cE -- "$pat" "$f" 2>/dev/null)" -ge "$n" ] && return 0
		ps -p "$pid" -o stat= 2>/dev/null | grep -qv Z || return 1
		[ $(($(date +%s%N) / 1000000)) -lt "$deadline" ] || return 1
		sleep 0.01
	done
}

# bench_daemon_spawn SM DIR HOST ENGINE [NANOSM_ARG...]: start SM as a
# daemon (no --once, no periodic sweeps) on the running ibsim, in DIR (its
# output in DIR/sm.out, OpenSM's log in DIR/osm.log); no wait.  Sets
# DAEMON_PID and DAEMON_LOG (the file its SUBNET UP lines go to).
bench_daemon_spawn() {
	local sm=$1 d=$2 host=$3 eng=$4 cmd=() envs=()
	shift 4
	mkdir -p "$d/cache" "$d/tmp"
	case $sm in
	nanosm)
		DAEMON_LOG=$d/sm.out
		cmd=("$NANOSM" -R "$eng" --socket "$d/ctl.sock" --guid2lid "$d/guid2lid" --sweep-interval 86400 "$@")
		;;
	opensm)
		DAEMON_LOG=$d/osm.log
		# -s 0: no periodic sweeps; SIGHUP (and traps) still start a heavy
		# one; -d2: flush the log after every line
		cmd=(opensm -R "$(bench_osm_engine "$eng")" -d2 -s 0 -f "$DAEMON_LOG")
		envs=(OSM_CACHE_DIR="$d/cache" OSM_TMP_DIR="$d/tmp")
		;;
	esac
	(cd "$SIM_DIR/run" && exec env "${envs[@]}" LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$SIM_SOCK" \
		SIM_HOST="$host" "${cmd[@]}") >"$d/sm.out" 2>&1 &
	DAEMON_PID=$!
	PIDS+=("$DAEMON_PID")
}

# bench_sa_sm_start SM HOST: start SM as a daemon on the running ibsim,
# bounded wait for SUBNET UP.  Sets SA_SM_PID, SA_SM_LOG, SA_SM_DIR; 1 on
# failure (SM stopped, RES says why).
bench_sa_sm_start() {
	local sm=$1 host=$2 d
	d=$SIM_DIR/$sm.sa
	SA_SM_DIR=$d
	bench_daemon_spawn "$sm" "$d" "$host" "$SA_ENGINE" -v
	SA_SM_PID=$DAEMON_PID
	SA_SM_LOG=$DAEMON_LOG
	bench_wait_file "$SA_SM_LOG" 'SUBNET UP' "$SM_UP_TIMEOUT" "$SA_SM_PID" && return 0
	RES="fail: $(bench_sm_why "$sm" "$d")"
	[ "$RES" = "fail: " ] && RES="fail: no SUBNET UP within ${SM_UP_TIMEOUT}s"
	bench_kill "$SA_SM_PID"
	return 1
}

# bench_sa_client OUT HOST CMD...: one umad2sim client in the background,
# bounded by BENCH_SA_TIMEOUT; sets SA_CLIENT_PID.
bench_sa_client() {
	local out=$1 host=$2
	shift 2
	(cd "$SIM_DIR/run" && exec timeout -k 5 "$SA_TIMEOUT" env LD_PRELOAD="$UMAD2SIM" \
		IBSIM_SOCKNAME="$SIM_SOCK" SIM_HOST="$host" "$@") >"$out" 2>&1 &
	SA_CLIENT_PID=$!
	PIDS+=("$SA_CLIENT_PID")
}

# bench_sa_lids HOST: the CA LIDs the SM gave out (ibnetdiscover -p from
# HOST), into SA_LIDS (array); 1 when none.
bench_sa_lids() {
	local out=$SA_SM_DIR/ibnd.txt
	bench_sa_client "$out" "$1" ibnetdiscover -p
	wait "$SA_CLIENT_PID" 2>/dev/null
	bench_forget "$SA_CLIENT_PID"
	mapfile -t SA_LIDS < <(awk '$1 == "CA" && $2 > 0 { print $2 }' "$out" | sort -n -u)
	[ ${#SA_LIDS[@]} -ge 2 ]
}

# bench_sa_flood_start TAG N HOST...: one `nanosm-sa flood N WINDOW LID...`
# per HOST, all at once; client k gets the LID list rotated by k/HOSTS of
# its length, so the clients ask for different pairs.  Sets FLOOD_PIDS,
# FLOOD_OUTS.
bench_sa_flood_start() {
	local tag=$1 n=$2 k=0 nh host rot lids
	shift 2
	nh=$#
	FLOOD_PIDS=()
	FLOOD_OUTS=()
	for host in "$@"; do
		rot=$((k * ${#SA_LIDS[@]} / nh))
		lids=("${SA_LIDS[@]:rot}" "${SA_LIDS[@]:0:rot}")
		# --retries 0 --timeout 1000: an answer that is not back within 1 s
		# is lost, and the flood ends 1 s after answers stop coming
		bench_sa_client "$SA_SM_DIR/flood.$tag.$k" "$host" "$NANOSM_SA" --timeout 1000 --retries 0 \
			flood "$n" "$SA_WINDOW" "${lids[@]}"
		FLOOD_PIDS+=("$SA_CLIENT_PID")
		FLOOD_OUTS+=("$SA_SM_DIR/flood.$tag.$k")
		k=$((k + 1))
	done
}

# bench_sa_flood_collect N: wait (bounded by the clients' timeout) and sum
# the clients' "flood: sent S answered A ok O errors E lost L in MS ms"
# lines; RES = "RATE ANSWERED ERRORS LOST MS" (answers/s = all answers over
# the longest client's time; LOST = asked - answered, including requests
# never sent) or "fail: why".
bench_sa_flood_collect() {
	local n=$1 p f a=0 e=0 lost=0 ms=0 line missing=0
	for p in "${FLOOD_PIDS[@]}"; do
		wait "$p" 2>/dev/null
		bench_forget "$p"
	done
	for f in "${FLOOD_OUTS[@]}"; do
		line=$(grep -m1 '^flood: sent' "$f")
		if [ -z "$line" ]; then
			missing=$((missing + 1))
			lost=$((lost + n))
			continue
		fi
		# shellcheck disable=SC2086 # the summary's words
		set -- $line
		# flood: sent S answered A ok O errors E lost L in MS ms: ...
		a=$((a + $5))
		e=$((e + ${9}))
		lost=$((lost + n - $5))
		[ "${13}" -gt "$ms" ] && ms=${13}
	done
	if [ "$missing" = "${#FLOOD_OUTS[@]}" ]; then
		RES="fail: no flood summary ($(head -c 120 "${FLOOD_OUTS[0]}" | tr '\n' ' '))"
		return
	fi
	RES="$(awk -v a="$a" -v ms="$ms" 'BEGIN { printf "%.0f", ms ? a * 1000 / ms : 0 }') $a $e $lost $ms"
}

# bench_sa_sweep SM: request one heavy sweep of the running SM and wait for
# its end (bounded).  nanosm: `nanosmctl sweep`, end = the "sweep N:" line
# (its sweep_ms is the sweep's own time); OpenSM: SIGHUP, end = the next
# "SUBNET UP" line (OpenSM logs one at the end of every heavy sweep).
# RES = "WALL_MS OWN_MS" (WALL: request to the end line's timestamp; OWN:
# nanosm's sweep_ms, "-" for OpenSM) or "fail: why".
bench_sa_sweep() {
	local sm=$1 next k tod0 line end own
	case $sm in
	nanosm)
		next=$(($(grep -oE 'nanosm: sweep [0-9]+:' "$SA_SM_LOG" | tail -n 1 | grep -oE '[0-9]+') + 1))
		tod0=$(bench_tod_ms)
		# SA_CTL_T: how long the daemon may take to take the request (5 s;
		# the live tier gives more: its sweeps hold the loop for seconds)
		timeout -k 2 $((${SA_CTL_T:-5} + 5)) "$NANOSMCTL" -s "$SA_SM_DIR/ctl.sock" -t "${SA_CTL_T:-5}" sweep >/dev/null 2>&1 ||
			{ RES="fail: nanosmctl sweep failed"; return; }
		bench_wait_file "$SA_SM_LOG" "nanosm: sweep $next: " "$SA_TIMEOUT" "$SA_SM_PID" ||
			{ RES="fail: sweep $next did not end within ${SA_TIMEOUT}s"; return; }
		line=$(grep -m1 "nanosm: sweep $next: " "$SA_SM_LOG")
		case $line in *"sweep $next: failed"*) RES="fail: $(echo "$line" | cut -c1-120)"; return ;; esac
		own=$(echo "$line" | grep -oE 'sweep_ms=[0-9]+' | cut -d= -f2)
		;;
	opensm)
		k=$(grep -cE -- '-> SUBNET UP' "$SA_SM_LOG")
		tod0=$(bench_tod_ms)
		kill -HUP "$SA_SM_PID"
		bench_wait_count "$SA_SM_LOG" '-> SUBNET UP' $((k + 1)) "$SA_TIMEOUT" "$SA_SM_PID" ||
			{ RES="fail: no SUBNET UP within ${SA_TIMEOUT}s of SIGHUP"; return; }
		line=$(grep -E -- '-> SUBNET UP' "$SA_SM_LOG" | sed -n "$((k + 1))p")
		own=-
		;;
	esac
	end=$(echo "$line" | bench_line_ms)
	[ "$end" -ge 0 ] || { RES="fail: no timestamp on: $line"; return; }
	RES="$(bench_ms_since "$tod0" "$end") $own"
}

# bench_sa_sweeps SM TAG: BENCH_SA_SWEEPS sweeps in a row; appends
# "WALL OWN" to the caller's arrays sw_wall_TAG / sw_own_TAG (via eval) or
# sets sw_fail.
bench_sa_sweeps() {
	local sm=$1 tag=$2 i
	for i in $(seq "$SA_SWEEPS"); do
		bench_sa_sweep "$sm"
		case $RES in fail*) sw_fail="$tag: $RES"; return 1 ;; esac
		eval "sw_wall_${sm}_$tag+=(\"\${RES%% *}\")"
		[ "${RES#* }" = - ] || eval "sw_own_${sm}_$tag+=(\"\${RES#* }\")"
	done
}

# bench_sa_alive PID...: 0 when every PID still runs.
bench_sa_alive() {
	local p
	for p in "$@"; do ps -p "$p" -o stat= 2>/dev/null | grep -qv Z || return 1; done
}

# bench_sa_run SM TOPO: one run on a fresh ibsim: SM up, CA LIDs, idle
# sweeps, a 1-client flood, a BENCH_SA_CLIENTS flood, then the same clients
# flooding (a long flood, stopped afterwards) while the sweeps are timed
# again.  Appends to the caller's (bench_sa_fabric's) arrays.
bench_sa_run() {
	local sm=$1 topo=$2 hosts=() nh i res p short=0
	mapfile -t hosts < <(grep -E '^[[:space:]]*(Hca|Ca)[[:space:]]' "$topo" | sed -E 's/^[^"]*"([^"]*)".*/\1/')
	nh=${#hosts[@]}
	# the SM on the first CA; clients spread over the others
	clients=()
	for ((i = 0; i < SA_CLIENTS; i++)); do clients+=("${hosts[1 + i * (nh - 1) / SA_CLIENTS]}"); done
	bench_sim_start "$topo" || { sa_fail[$sm]="ibsim cannot load the fabric"; return; }
	if ! bench_sa_sm_start "$sm" "${hosts[0]}"; then
		sa_fail[$sm]=$RES
		bench_sim_stop
		return
	fi
	if ! bench_sa_lids "${clients[0]}"; then
		sa_fail[$sm]="ibnetdiscover found no CA LIDs"
		bench_kill "$SA_SM_PID"
		bench_sim_stop
		return
	fi
	sw_fail=
	bench_sa_sweeps "$sm" idle
	bench_sa_flood_start 1 "$SA_N" "${clients[0]}"
	bench_sa_flood_collect "$SA_N"
	res=$RES
	bench_log "sa ${name} $sm run $r: 1 client: $res (answers/s answered errors lost ms)"
	case $res in fail*) sa_fail[$sm]=$res ;; *) eval "rate1_$sm+=(${res%% *})"; read -r _ _ e l _ <<<"$res"; eval "err1_$sm=\$((err1_$sm + e)); lost1_$sm=\$((lost1_$sm + l))" ;; esac
	bench_sa_flood_start m "$SA_N" "${clients[@]}"
	bench_sa_flood_collect "$SA_N"
	res=$RES
	bench_log "sa ${name} $sm run $r: ${#clients[@]} clients: $res"
	case $res in fail*) sa_fail[$sm]=$res ;; *) eval "ratem_$sm+=(${res%% *})"; read -r _ _ e l _ <<<"$res"; eval "errm_$sm=\$((errm_$sm + e)); lostm_$sm=\$((lostm_$sm + l))" ;; esac
	if [ -z "$sw_fail" ]; then
		# a flood far longer than the sweeps; stopped once they are timed
		bench_sa_flood_start s $((SA_N * 100)) "${clients[@]}"
		sleep 0.3
		bench_sa_sweeps "$sm" flood
		bench_sa_alive "${FLOOD_PIDS[@]}" || short=1
		for p in "${FLOOD_PIDS[@]}"; do bench_kill "$p"; done
		[ "$short" = 0 ] || sw_fail="a flood client ended before the sweeps did (BENCH_SA_TIMEOUT? see $SA_SM_DIR)"
	fi
	[ -z "$sw_fail" ] || { sa_swfail[$sm]=$sw_fail; bench_log "sa ${name} $sm run $r: sweeps: $sw_fail"; }
	eval "bench_log \"sa \${name} \$sm run \$r: sweeps idle ms [\${sw_wall_${sm}_idle[*]}] under flood [\${sw_wall_${sm}_flood[*]}]\""
	bench_kill "$SA_SM_PID"
	bench_sim_stop
}

# bench_sa_fabric NAME: alternate nanosm and OpenSM runs; table rows.
bench_sa_fabric() {
	local name=$1 topo r sm clients=()
	local -A sa_fail=() sa_swfail=()
	local rate1_nanosm=() rate1_opensm=() ratem_nanosm=() ratem_opensm=()
	local err1_nanosm=0 err1_opensm=0 lost1_nanosm=0 lost1_opensm=0
	local errm_nanosm=0 errm_opensm=0 lostm_nanosm=0 lostm_opensm=0
	local sw_wall_nanosm_idle=() sw_wall_nanosm_flood=() sw_own_nanosm_idle=() sw_own_nanosm_flood=()
	local sw_wall_opensm_idle=() sw_wall_opensm_flood=() sw_fail e l
	bench_sa_topo "$name"
	topo=$TOPO
	for r in $(seq "$SA_REPS"); do
		for sm in nanosm opensm; do
			[ -z "${sa_fail[$sm]:-}" ] || continue
			bench_sa_run "$sm" "$topo"
		done
	done
	bench_sa_rows "$name" "$(grep -cE '^[[:space:]]*(Hca|Ca)[[:space:]]' "$topo")"
}

# bench_sa_cell VALUES...: the median, or "-".
bench_sa_cell() {
	[ $# -gt 0 ] || { echo -; return; }
	bench_median "$@" | awk '{ printf "%.0f", $1 }'
}

bench_sa_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else print "-" }'
}

# bench_sa_rows NAME CAS (uses bench_sa_fabric's locals).
bench_sa_rows() {
	local n o ni nf oi of own_i own_f why
	n=$(bench_sa_cell "${rate1_nanosm[@]}")
	o=$(bench_sa_cell "${rate1_opensm[@]}")
	SA_ROWS+=("$1|$2|1|$n|$err1_nanosm|$lost1_nanosm|$o|$err1_opensm|$lost1_opensm|$(bench_sa_ratio "$n" "$o")")
	n=$(bench_sa_cell "${ratem_nanosm[@]}")
	o=$(bench_sa_cell "${ratem_opensm[@]}")
	SA_ROWS+=("$1|$2|$SA_CLIENTS|$n|$errm_nanosm|$lostm_nanosm|$o|$errm_opensm|$lostm_opensm|$(bench_sa_ratio "$n" "$o")")
	ni=$(bench_sa_cell "${sw_wall_nanosm_idle[@]}")
	nf=$(bench_sa_cell "${sw_wall_nanosm_flood[@]}")
	oi=$(bench_sa_cell "${sw_wall_opensm_idle[@]}")
	of=$(bench_sa_cell "${sw_wall_opensm_flood[@]}")
	own_i=$(bench_sa_cell "${sw_own_nanosm_idle[@]}")
	own_f=$(bench_sa_cell "${sw_own_nanosm_flood[@]}")
	why=
	for sm in nanosm opensm; do
		[ -z "${sa_fail[$sm]:-}" ] || why+="  $sm: ${sa_fail[$sm]}"
		[ -z "${sa_swfail[$sm]:-}" ] || why+="  $sm sweeps: ${sa_swfail[$sm]}"
	done
	SWEEP_ROWS+=("$1|$ni|$nf|$(bench_sa_ratio "$nf" "$ni")|$own_i|$own_f|$oi|$of|$(bench_sa_ratio "$of" "$oi")|$(bench_sa_ratio "$ni" "$oi")|$(bench_sa_ratio "$nf" "$of")|${#sw_wall_nanosm_flood[@]}/${#sw_wall_opensm_flood[@]}|$why")
}

bench_sa() {
	local name
	[ -n "${SA_FABRICS// /}" ] || return 0
	command -v ibsim >/dev/null || { bench_log "ibsim not installed: skipping the SA flood"; return 0; }
	command -v opensm >/dev/null || { bench_log "opensm not installed: skipping the SA flood"; return 0; }
	command -v ibnetdiscover >/dev/null || { bench_log "ibnetdiscover not installed: skipping the SA flood"; return 0; }
	[ -r "$UMAD2SIM" ] || { bench_log "umad2sim not found: skipping the SA flood"; return 0; }
	for name in "$NANOSM" "$NANOSM_SA" "$NANOSMCTL"; do
		[ -x "$name" ] || { bench_log "$name not built: skipping the SA flood"; return 0; }
	done
	{ [ "$SA_CLIENTS" -ge 1 ] && [ "$SA_CLIENTS" -le 8 ]; } ||
		bench_die "BENCH_SA_CLIENTS must be 1-8 (ibsim takes 10 clients, the SM is one)"
	bench_log "SA PathRecord flood: fabrics [$SA_FABRICS], N=$SA_N window $SA_WINDOW, 1 and $SA_CLIENTS clients, $SA_SWEEPS sweeps idle/under flood, $SA_REPS runs per SM"
	for name in $SA_FABRICS; do bench_sa_fabric "$name"; done
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

bench_report_sim() {
	local row f e n o uo ratio nm om rr nmad omad nl ns os nc sc ux
	[ ${#SIM_ROWS[@]} -gt 0 ] || return 0
	echo
	echo "== Under ibsim: --once from start to SUBNET UP (fresh ibsim per run, SMs alternating; median of $SIM_REPS) =="
	echo "   ms = SM start to its SUBNET UP line; MB = peak RSS (time %M); MADs = the SM port's PortXmitPkts"
	echo "   in ibsim after the run (SMPs that left the port; the SM's own port is not counted);"
	echo "   LFT = nanosm's lft_blocks_sent (OpenSM's: the re-sweep table); sim% = ibsim CPU / SM run wall;"
	echo "   n/O = nanosm / OpenSM (below 1: nanosm faster / smaller); n_cpu = nanosm's user+sys ms;"
	echo "   sim_cpu = ibsim's CPU ms over nanosm's run; n/sim = n_ms / sim_cpu (issue 18 aims at <= 1.3)"
	printf '%-9s %-7s %8s %8s %6s  %7s %7s %6s  %8s %8s %7s  %5s %5s  %6s %7s %5s  %s\n' fabric engine n_ms O_ms n/O \
		n_MB O_MB n/O n_MADs O_MADs n_LFT n_sim O_sim n_cpu sim_cpu n/sim "OpenSM engine used"
	for row in "${SIM_ROWS[@]}"; do
		IFS="|" read -r f e n _ o uo ratio nm om rr nmad omad nl ns os nc sc ux <<<"$row"
		printf '%-9s %-7s %8s %8s %6s  %7s %7s %6s  %8s %8s %7s  %4s%% %4s%%  %6s %7s %5s  %s\n' "$f" "$e" "${n%%:*}" "${o%%:*}" \
			"${ratio:--}" "$nm" "$om" "$rr" "$nmad" "$omad" "$nl" "$ns" "$os" "${nc:--}" "${sc:--}" "${ux:--}" "$uo"
		case $n in fail* | n/a*) echo "          nanosm: $n" ;; esac
		case $o in fail*) echo "          OpenSM: $o" ;; esac
	done
}

bench_report_rs() {
	local row f e nu nms nmad nl ou oms omad ol why
	[ ${#RS_ROWS[@]} -gt 0 ] || return 0
	echo
	echo "== Re-sweep of an unchanged fabric: daemons, nanosmctl sweep / SIGHUP; median of $RS_N =="
	echo "   up_LFT = LFT blocks the bring-up sweep set; ms = request to the sweep's end line;"
	echo "   MADs = PortXmitPkts delta over the re-sweep; LFT = blocks the re-sweep set."
	if [ "$OSM_LFT" = 0 ]; then
		echo "   OpenSM at its default log level (BENCH_OSM_LFT=0): its LFT Sets are not counted"
	else
		echo "   OpenSM logs at debug level here (-D 0x0b, to count its LFT Sets), which slows it: its ms"
		echo "   in this table are an upper bound; its MADs and LFT counts are exact (BENCH_OSM_LFT=0: no debug)"
	fi
	printf '%-9s %-7s | %7s %7s %8s %5s | %7s %7s %8s %5s\n' fabric engine n_upLFT n_ms n_MADs n_LFT \
		O_upLFT O_ms O_MADs O_LFT
	for row in "${RS_ROWS[@]}"; do
		IFS='|' read -r f e nu nms nmad nl ou oms omad ol why <<<"$row"
		printf '%-9s %-7s | %7s %7s %8s %5s | %7s %7s %8s %5s\n' "$f" "$e" "$nu" "$nms" "$nmad" "$nl" \
			"$ou" "$oms" "$omad" "$ol"
		[ -z "$why" ] || echo "          ${why# }"
	done
}

bench_report_sa() {
	local row f c k n ne nl o oe ol ratio ni nf ns oi_ of os own_i own_f ri rf cnt why
	[ ${#SA_ROWS[@]} -gt 0 ] || return 0
	echo
	echo "== SA PathRecord flood under ibsim: nanosm-sa flood N=$SA_N window $SA_WINDOW per client, -R $SA_ENGINE =="
	echo "   answers/s: median of $SA_REPS runs (fresh ibsim each; with several clients all answers over"
	echo "   the longest client's time); err = answers with an error status, lost = asked - answered,"
	echo "   both summed over the runs; ratio = nanosm / OpenSM answers/s (above 1: nanosm answers more)"
	printf '%-10s %5s %7s %10s %5s %6s %10s %5s %6s %6s\n' fabric CAs clients nanosm_ans/s err lost OpenSM_ans/s err lost ratio
	for row in "${SA_ROWS[@]}"; do
		IFS='|' read -r f c k n ne nl o oe ol ratio <<<"$row"
		printf '%-10s %5s %7s %10s %5s %6s %10s %5s %6s %6s\n' "$f" "$c" "$k" "$n" "$ne" "$nl" "$o" "$oe" "$ol" "$ratio"
	done
	echo
	echo "== Heavy sweep under the flood: ms from the request (nanosmctl sweep / SIGHUP) to the sweep's end line =="
	echo "   idle vs during a $SA_CLIENTS-client flood; median of $SA_SWEEPS sweeps x $SA_REPS runs; slow = flood / idle;"
	echo "   own = nanosm's sweep_ms (sweep start to end; request-to-end minus own = wait before the sweep starts);"
	echo "   n/O = nanosm / OpenSM (below 1: nanosm sweeps faster); swept = sweeps timed under flood nanosm/OpenSM"
	printf '%-10s %8s %8s %6s %6s %6s  %8s %8s %6s  %6s %6s %7s\n' fabric n_idle n_flood slow own_i own_f O_idle O_flood slow n/O_idle n/O_fl swept
	for row in "${SWEEP_ROWS[@]}"; do
		IFS='|' read -r f ni nf ns own_i own_f oi_ of os ri rf cnt why <<<"$row"
		printf '%-10s %8s %8s %6s %6s %6s  %8s %8s %6s  %6s %6s %7s\n' "$f" "$ni" "$nf" "$ns" "$own_i" "$own_f" "$oi_" "$of" "$os" "$ri" "$rf" "$cnt"
		[ -z "$why" ] || echo "          ${why# }"
	done
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
