#!/bin/bash
# tests/bench/run.sh - nanosm routing benchmark (`make bench`; never part of
# `make test`).  Generates fabrics with build/bin/nanosm-gen, then
#  1. offline: times build/bin/nanosm-route TOPO -R ENGINE under
#     /usr/bin/time (wall seconds, peak RSS), BENCH_REPS runs, median;
#  2. under ibsim: time to SUBNET UP for nanosm and OpenSM on the same
#     fabric (fresh ibsim per run, SMs alternating), median and ratio.
# Prints one table per part.  Everything runs in a private scratch dir;
# every process it starts is stopped by PID; every wait is bounded.
#
# Environment (defaults in brackets):
#   BENCH_SIZES    size tiers to run offline [1k 4k 16k 48k mesh]; a tier
#                  or a fabric name: ft2-1k ft3-1k ft2-4k ft3-4k ft2-16k
#                  ft3-16k ft2-48k ft3-45k mesh-1k mesh-16k (docs/bench.md)
#   BENCH_ENGINES  engines [minhop updn ftree]
#   BENCH_REPS     offline repetitions per fabric/engine [3]
#   BENCH_TIMEOUT  bound for one offline run, seconds [300]
#   BENCH_SIM      fabrics for the ibsim comparison, "" to skip
#                  [ft2-1k ft3-1k mesh-1k]
#   BENCH_SIM_REPS runs per SM per fabric/engine [3]
#   BENCH_SIM_ENGINES engines for the ibsim comparison [$BENCH_ENGINES]
#   SM_UP_TIMEOUT  bound for one SM run to reach SUBNET UP, seconds [120]
#   BENCH_KEEP=1   keep the scratch dir;  BENCH_BIN=dir  binaries [build/bin]
#   NANOSM_ROUTE_ARGS  scoring options for nanosm-route [--shifts 0 --bisections 0]
#                  (the default skips the shift and bisection scores, which
#                  cost far more than routing; the gate always runs)
set -u

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$BENCH_DIR/../.." && pwd)
BIN=${BENCH_BIN:-$REPO/build/bin}
GEN=$BIN/nanosm-gen
ROUTE=$BIN/nanosm-route
NANOSM=$BIN/nanosm
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
TIME=/usr/bin/time
PYTHON=${PYTHON:-python3}
ROUTE_ARGS=${NANOSM_ROUTE_ARGS---shifts 0 --bisections 0 --timing}
SIZES=${BENCH_SIZES-1k 4k 16k 48k mesh}
ENGINES=${BENCH_ENGINES-minhop updn ftree}
REPS=${BENCH_REPS:-3}
TIMEOUT=${BENCH_TIMEOUT:-300}
SIM_FABRICS=${BENCH_SIM-ft2-1k ft3-1k mesh-1k}
SIM_REPS=${BENCH_SIM_REPS:-3}
SIM_ENGINES=${BENCH_SIM_ENGINES-$ENGINES}
SM_UP_TIMEOUT=${SM_UP_TIMEOUT:-120}
SIM_READY_TIMEOUT=${SIM_READY_TIMEOUT:-120}
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
	mesh-1k) echo "mesh --switches 128 --degree 6 --hosts 8 --seed 1" ;;
	mesh-16k) echo "mesh --switches 2048 --degree 8 --hosts 8 --seed 1" ;;
	*) return 1 ;;
	esac
}

# bench_tier_fabrics TIER: the fabrics of a size tier.
bench_tier_fabrics() {
	case $1 in
	1k) echo "ft2-1k ft3-1k" ;;
	4k) echo "ft2-4k ft3-4k" ;;
	16k) echo "ft2-16k ft3-16k" ;;
	48k) echo "ft2-48k ft3-45k" ;;
	mesh) echo "mesh-1k mesh-16k" ;;
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

bench_die() {
	echo "bench: $*" >&2
	exit 1
}

bench_log() { echo "bench: $*" >&2; }

# Stop one PID we started: SIGTERM, bounded wait, SIGKILL; reap it.
bench_kill() {
	local pid=$1 i
	[ -n "$pid" ] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null
		for i in $(seq 50); do
			ps -p "$pid" -o stat= 2>/dev/null | grep -qv Z || break
			sleep 0.1
		done
		ps -p "$pid" -o stat= 2>/dev/null | grep -qv Z && kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	bench_forget "$pid"
}

bench_forget() {
	local p keep=()
	for p in "${PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
	PIDS=("${keep[@]}")
}

bench_cleanup() {
	local rc=$? i
	trap - EXIT INT TERM HUP
	for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do bench_kill "${PIDS[$i]}"; done
	if [ -n "$SCRATCH" ] && [ -d "$SCRATCH" ]; then
		if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "bench: scratch kept: $SCRATCH" >&2; else rm -rf "$SCRATCH"; fi
	fi
	exit "$rc"
}

# bench_median V...: median of numbers (mean of the middle two when even).
bench_median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		if (m == int(m)) printf "%d\n", m; else printf "%.3f\n", m }'
}

# bench_wait_file FILE ERE TIMEOUT PID: poll (10 ms) until FILE matches,
# bounded; 1 if PID exits first or on timeout.
bench_wait_file() {
	local f=$1 pat=$2 t=$3 pid=$4 deadline
	deadline=$(($(date +%s%N) / 1000000 + t * 1000))
	while :; do
		grep -qE -- "$pat" "$f" 2>/dev/null && return 0
		if ! ps -p "$pid" -o stat= 2>/dev/null | grep -qv Z; then
			grep -qE -- "$pat" "$f" 2>/dev/null && return 0
			return 1
		fi
		[ $(($(date +%s%N) / 1000000)) -lt "$deadline" ] || return 1
		sleep 0.01
	done
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

# bench_route_json FILE: "GATE|ENGINE_S" from nanosm-route --json: the gate
# verdict (PASS, or FAIL with what failed) and, if the report carries
# "timing_ms": {"engine": N, ...}, the engine's own seconds.
bench_route_json() {
	"$PYTHON" - "$1" <<'PY' 2>/dev/null || echo "?|"
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
t = r.get("timing_ms", {}).get("engine")
print("%s|%s" % (v, "%.3f" % (t / 1000.0) if isinstance(t, (int, float)) else ""))
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
	local name=$1 eng=$2 topo counts d r res secs=() kbs=() s kb note='' gate es
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
	IFS='|' read -r gate es <<<"$(bench_route_json "$d/json")"
	s=$(bench_median "${secs[@]}")
	kb=$(bench_median "${kbs[@]}")
	kb=${kb%.*}
	OFFLINE_ROWS+=("$name|${counts% *}|${counts#* }|$eng|$s|$LOAD_S|${es:--}|$((kb / 1024))|${secs[*]}|$gate|$(bench_target "$name" "$eng" "${es:-$s}" "$kb" "${es:+engine}")")
	bench_log "offline $name $eng: median ${s}s (load ${LOAD_S}s), $((kb / 1024)) MB, gate $gate (runs: ${secs[*]})"
}

# bench_target NAME ENGINE SECONDS KB [engine]: the verdict for updn/ftree on
# the 48K tier.  Without the engine's own time the verdict is on the whole
# run (load + engine + gate + score), an upper bound: a FAIL is then "FAIL?".
bench_target() {
	case $1:$2 in
	ft2-48k:updn | ft2-48k:ftree | ft3-45k:updn | ft3-45k:ftree) ;;
	*) return 0 ;;
	esac
	awk -v s="$3" -v kb="$4" -v ts=$TARGET_S -v tm=$TARGET_MB -v exact="${5:-}" 'BEGIN {
		ok = (s < ts && kb / 1024 < tm)
		printf "%s (<%ds, <%dMB%s)", ok ? "PASS" : exact ? "FAIL" : "FAIL?", ts, tm,
			exact ? "" : "; whole run" }'
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

# bench_sim_limits TOPO: ibsim -N/-S/-P/-L options when the defaults (2048
# nodes, 256 switches, 13312 ports, LinearCap 30720) are too small.
bench_sim_limits() {
	awk '/^[[:space:]]*(Switch|Hca|Ca|Rt)[[:space:]]/ {
		n++; p += $2 + 1; if ($1 == "Switch") s++ }
	END {
		o = ""
		if (n > 2048) o = o " -N " n + 64
		if (s > 256) o = o " -S " s + 64
		if (p > 13312) o = o " -P " p + 1024
		if (n > 30000) o = o " -L 49152"	# default LinearCap 30720
		print o }' "$1"
}

# bench_sim_start TOPO: fresh ibsim with a unique socket; bounded wait.
bench_sim_start() {
	local topo=$1 d limits
	SIM_GEN=$((SIM_GEN + 1))
	d=$SCRATCH/sim/$SIM_GEN
	mkdir -p "$d/run"
	mkfifo "$d/ctl" || bench_die "mkfifo $d/ctl"
	SIM_SOCK=nanosm-bench-$$-$SIM_GEN
	SIM_DIR=$d
	limits=$(bench_sim_limits "$topo")
	# stdin: the fifo opened read-write, so ibsim never sees EOF
	# shellcheck disable=SC2086 # limits are words
	(cd "$d/run" && IBSIM_SOCKNAME=$SIM_SOCK exec ibsim $limits -s "$topo" 0<>"$d/ctl") \
		>"$d/ibsim.log" 2>&1 &
	SIM_PID=$!
	PIDS+=("$SIM_PID")
	bench_wait_file "$d/ibsim.log" 'Network simulator ready' "$SIM_READY_TIMEOUT" "$SIM_PID" && return 0
	bench_log "ibsim did not load $topo: $(grep -E 'ibpanic|error|rror' "$d/ibsim.log" | head -n 1)"
	bench_kill "$SIM_PID"
	SIM_PID=
	return 1
}

bench_sim_stop() {
	bench_kill "$SIM_PID"
	SIM_PID=
}

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

# bench_sm_run SM ENGINE HOST: run one SM (--once) against the running ibsim;
# sets RES to "MS ENGINE_USED" or "fail: reason".
bench_sm_run() {
	local sm=$1 eng=$2 host=$3 d log cmd=() envs=() pid t0 tod0 polled used why
	d=$SIM_DIR/$sm.$eng
	mkdir -p "$d/cache" "$d/tmp"
	log=$d/sm.log
	case $sm in
	nanosm) cmd=("$NANOSM" --once -R "$eng" --guid2lid "$d/guid2lid") ;;
	opensm)
		# -d2: flush the log after every line; private cache and tmp dirs
		cmd=(opensm --once -R "$eng" -d2 -f "$d/osm.log")
		envs=(OSM_CACHE_DIR="$d/cache" OSM_TMP_DIR="$d/tmp")
		;;
	esac
	tod0=$(bench_tod_ms)
	t0=$(date +%s%N)
	(cd "$SIM_DIR/run" && exec env "${envs[@]}" LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$SIM_SOCK" \
		SIM_HOST="$host" "${cmd[@]}") >"$log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	[ "$sm" = opensm ] && log=$d/osm.log
	if ! bench_wait_file "$log" 'SUBNET UP' "$SM_UP_TIMEOUT" "$pid"; then
		bench_kill "$pid"
		RES="fail: $(bench_sm_why "$sm" "$d")"
		[ "$RES" = "fail: " ] && RES="fail: no SUBNET UP within ${SM_UP_TIMEOUT}s"
		return 0
	fi
	polled=$((($(date +%s%N) - t0) / 1000000))
	bench_wait_exit "$pid"
	case $sm in
	nanosm) used=$(grep 'SUBNET UP' "$d/sm.log" | grep -m1 -oE 'engine=[a-z0-9_-]+' | cut -d= -f2) ;;
	opensm) used=$(grep -oE '[a-z0-9_-]+ tables configured on all switches' "$d/osm.log" | tail -n 1 | cut -d' ' -f1) ;;
	esac
	[ "$sm" = opensm ] && [ -n "$used" ] && [ "$used" != "$eng" ] && used="$used:$(bench_sm_why opensm "$d")"
	RES="$(bench_up_ms "$log" "$tod0" "$polled") ${used:-?}"
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

# bench_wait_exit PID: an --once SM exits by itself; bounded, else killed.
bench_wait_exit() {
	local pid=$1 i
	for i in $(seq 300); do
		ps -p "$pid" -o stat= 2>/dev/null | grep -qv Z || break
		sleep 0.1
	done
	bench_kill "$pid"
}

# bench_sim_pair NAME ENGINE: alternate nanosm and OpenSM runs, each on a
# fresh ibsim; appends a table row.
bench_sim_pair() {
	local name=$1 eng=$2 topo host r sm res ms_n=() ms_o=() fail_n='' fail_o='' used_n='' used_o=''
	bench_gen "$name"
	topo=$TOPO
	host=$(grep -m1 -E '^[[:space:]]*(Hca|Ca)[[:space:]]' "$topo" | sed -E 's/^[^"]*"([^"]*)".*/\1/')
	for r in $(seq "$SIM_REPS"); do
		for sm in nanosm opensm; do
			[ "$sm" = nanosm ] && [ -n "$fail_n" ] && continue
			[ "$sm" = opensm ] && [ -n "$fail_o" ] && continue
			bench_sim_start "$topo" || { SIM_ROWS+=("$name|$eng|n/a: ibsim cannot load it||||"); return; }
			bench_sm_run "$sm" "$eng" "$host"
			res=$RES
			bench_sim_stop
			bench_log "ibsim $name $eng $sm run $r: $res"
			case $sm:$res in
			nanosm:fail*) fail_n=$res ;;
			opensm:fail*) fail_o=$res ;;
			nanosm:*) ms_n+=("${res%% *}"); used_n=${res#* } ;;
			opensm:*) ms_o+=("${res%% *}"); used_o=${res#* } ;;
			esac
		done
	done
	bench_sim_row "$name" "$eng"
}

# bench_sim_row NAME ENGINE (uses bench_sim_pair's locals): one table row.
bench_sim_row() {
	local n o ratio='' fb
	n=${fail_n:-$(bench_median "${ms_n[@]}" | awk '{ printf "%.0f", $1 }')}
	o=${fail_o:-$(bench_median "${ms_o[@]}" | awk '{ printf "%.0f", $1 }')}
	if [ -z "$fail_n" ] && [ -z "$fail_o" ]; then
		ratio=$(awk -v a="$n" -v b="$o" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
	fi
	fb=${used_o:-?}
	# "ENGINE:REASON" when OpenSM used another engine than asked
	case $used_o in *:*) fb="${used_o%%:*} (FELL BACK: ${used_o#*:})" ;; esac
	[ -z "$fail_o" ] || fb=-
	SIM_ROWS+=("$1|$2|$n|${used_n:--}|$o|$fb|$ratio")
}

bench_sim() {
	local name eng
	[ -n "$SIM_FABRICS" ] || return 0
	command -v ibsim >/dev/null || { bench_log "ibsim not installed: skipping the SM comparison"; return 0; }
	command -v opensm >/dev/null || { bench_log "opensm not installed: skipping the SM comparison"; return 0; }
	[ -r "$UMAD2SIM" ] || { bench_log "umad2sim not found: skipping the SM comparison"; return 0; }
	[ -x "$NANOSM" ] || { bench_log "$NANOSM not built: skipping the SM comparison"; return 0; }
	bench_log "ibsim comparison: fabrics [$SIM_FABRICS], engines [$SIM_ENGINES], $SIM_REPS runs per SM"
	for name in $SIM_FABRICS; do
		bench_fabric_args "$name" >/dev/null || bench_die "unknown fabric $name"
		for eng in $SIM_ENGINES; do bench_sim_pair "$name" "$eng"; done
	done
}

# ---------------------------------------------------------------- report

bench_report() {
	local row f c s e t l es m g tg
	[ ${#OFFLINE_ROWS[@]} -gt 0 ] || { bench_report_sim; return; }
	echo
	echo "== Offline: nanosm-route TOPO -R ENGINE $ROUTE_ARGS =="
	echo "   total = wall s of the whole run (parse + LIDs + engine + gate + base score),"
	echo "   load = parse + LIDs alone; median of $REPS runs; $(nproc) CPUs, $(uname -r)"
	printf '%-9s %6s %5s %-7s %8s %7s %8s %7s  %-30s %s\n' fabric CAs sw engine total_s load_s engine_s peak_MB gate "target (48K tier)"
	for row in "${OFFLINE_ROWS[@]}"; do
		IFS='|' read -r f c s e t l es m _ g tg <<<"$row"
		case $t in
		n/a*) printf '%-9s %6s %5s %-7s %s\n' "$f" "$c" "$s" "$e" "$t" ;;
		*) printf '%-9s %6s %5s %-7s %8s %7s %8s %7s  %-30s %s\n' "$f" "$c" "$s" "$e" "$t" "$l" "$es" "$m" "${g:0:30}" "$tg" ;;
		esac
	done
	bench_report_sim
}

bench_report_sim() {
	local row f e n un o uo ratio
	[ ${#SIM_ROWS[@]} -gt 0 ] || return 0
	echo
	echo "== Under ibsim: ms from SM start to SUBNET UP (fresh ibsim per run; median of $SIM_REPS) =="
	printf '%-9s %-7s %10s %-7s %10s %8s  %s\n' fabric engine nanosm_ms used OpenSM_ms ratio "OpenSM engine used"
	for row in "${SIM_ROWS[@]}"; do
		IFS='|' read -r f e n un o uo ratio <<<"$row"
		printf '%-9s %-7s %10s %-7s %10s %8s  %s\n' "$f" "$e" "${n%%:*}" "$un" "${o%%:*}" "${ratio:--}" "$uo"
		case $n in fail*) echo "          nanosm: $n" ;; esac
		case $o in fail*) echo "          OpenSM: $o" ;; esac
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
START=$(date +%s)
bench_offline
bench_sim
bench_report
echo
echo "total $(($(date +%s) - START)) s"
