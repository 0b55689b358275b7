# tests/bench/lib.sh - helpers shared by the benchmarks (run.sh,
# routing_compare.sh): stopping what they started by PID, bounded waits, a
# fresh ibsim per run; the paths of the binaries (BIN, GEN, ROUTE, UMAD2SIM,
# REPO, BENCH_DIR).  Sourced, never run; the caller sets SCRATCH, PIDS=(),
# SIM_GEN=0, SIM_READY_TIMEOUT and BENCH_KEEP, and reads SIM_PID, SIM_SOCK,
# SIM_DIR after bench_sim_start.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$BENCH_DIR/../.." && pwd)
BIN=${BENCH_BIN:-$REPO/build/bin}
GEN=$BIN/nanosm-gen
ROUTE=$BIN/nanosm-route
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}

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
	[ -z "${QLEN_SAVED:-}" ] || echo "$QLEN_SAVED" >/proc/sys/net/unix/max_dgram_qlen
	if [ -n "$SCRATCH" ] && [ -d "$SCRATCH" ]; then
		if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "bench: scratch kept: $SCRATCH" >&2; else rm -rf "$SCRATCH"; fi
	fi
	exit "$rc"
}

# bench_qlen_set N: net.unix.max_dgram_qlen = N for the sockets created from
# now on (ibsim's and umad2sim's); bench_cleanup puts the old value back.
bench_qlen_set() {
	local f=/proc/sys/net/unix/max_dgram_qlen
	[ -w "$f" ] || bench_die "BENCH_QLEN needs root ($f)"
	[ -n "${QLEN_SAVED:-}" ] || QLEN_SAVED=$(cat "$f")
	echo "$1" >"$f" || bench_die "cannot set max_dgram_qlen to $1"
	bench_log "net.unix.max_dgram_qlen $QLEN_SAVED -> $1 (restored at exit)"
}

# bench_wait_file FILE ERE TIMEOUT PID: poll (50 ms) until FILE matches,
# bounded; 1 if PID exits first or on timeout.  One grep and one sleep per
# poll, the rest builtins: the poller shares the two CPUs with what it
# waits for (the times themselves come from the log lines' timestamps).
bench_wait_file() {
	local f=$1 pat=$2 t=$3 pid=$4 deadline st
	deadline=$((${EPOCHREALTIME/./} / 1000 + t * 1000))
	while :; do
		grep -qE -- "$pat" "$f" 2>/dev/null && return 0
		st=Z
		[ -r "/proc/$pid/stat" ] && read -r _ _ st _ <"/proc/$pid/stat" 2>/dev/null
		if [ "$st" = Z ]; then
			grep -qE -- "$pat" "$f" 2>/dev/null && return 0
			return 1
		fi
		[ $((${EPOCHREALTIME/./} / 1000)) -lt "$deadline" ] || return 1
		sleep 0.05
	done
}

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
	# stdin: the fifo opened read-write, so ibsim never sees EOF.  Its
	# warnings (one per port line of nanosm-gen's files: 23 MB for
	# ft3-45k) go to ibsim.err, apart from the ready line the wait greps
	# every 10 ms
	# shellcheck disable=SC2086 # limits are words
	(cd "$d/run" && IBSIM_SOCKNAME=$SIM_SOCK exec ibsim $limits -s "$topo" 0<>"$d/ctl") \
		>"$d/ibsim.log" 2>"$d/ibsim.err" &
	SIM_PID=$!
	PIDS+=("$SIM_PID")
	bench_wait_file "$d/ibsim.log" 'Network simulator ready' "$SIM_READY_TIMEOUT" "$SIM_PID" && return 0
	bench_log "ibsim did not load $topo: $(grep -hE 'ibpanic|error|rror' "$d/ibsim.log" "$d/ibsim.err" | head -n 1)"
	bench_kill "$SIM_PID"
	SIM_PID=
	return 1
}

bench_sim_stop() {
	bench_kill "$SIM_PID"
	SIM_PID=
}

# bench_kill_timed PID: stop a process started under /usr/bin/time: its
# children (the SM) by PID first, then time itself.
bench_kill_timed() {
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill -TERM "$c" 2>/dev/null; done
	bench_kill "$1"
}

# bench_wait_pid PID T: wait for the background child PID to exit, at most
# T seconds (then it is killed and 1 is returned).  No polling: on this
# two-CPU machine a poller that forks grep, ps and date every 10 ms takes
# a third of a CPU from the SM and ibsim it is timing.  PID is reaped.
bench_wait_pid() {
	local pid=$1 dog
	sleep "$2" &
	dog=$!
	wait -n "$pid" "$dog" 2>/dev/null
	if kill -0 "$dog" 2>/dev/null; then
		kill "$dog" 2>/dev/null
		wait "$dog" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 0
	fi
	wait "$dog" 2>/dev/null
	bench_kill_timed "$pid"
	return 1
}

# bench_wait_exit PID: an --once SM exits by itself; bounded, else killed.
bench_wait_exit() {
	local pid=$1 i
	for i in $(seq 300); do
		ps -p "$pid" -o stat= 2>/dev/null | grep -qv Z || break
		sleep 0.1
	done
	bench_kill_timed "$pid"
}

# bench_sim_host TOPO: the first CA's name (ibsim's default attach point).
bench_sim_host() {
	grep -m1 -E '^[[:space:]]*(Hca|Ca)[[:space:]]' "$1" | sed -E 's/^[^"]*"([^"]*)".*/\1/'
}
