# shellcheck shell=bash
# tests/integration/lib.sh - helpers for the nanosm ibsim integration tests.
#
# Source it from a test script (bash), then:
#
#   it_init lab                         # scratch dir, unique IBSIM_SOCKNAME, EXIT trap
#   fabric_file lab.topo                # IT_FABRIC=<repo>/tests/fabrics/lab.topo
#   sim_start "$IT_FABRIC"              # ibsim on it, waits for "ready"
#   sm_start                            # SM in background (nanosm or opensm)
#   sm_wait_up                          # bounded wait for "SUBNET UP"
#   check_all                           # (a) ports/LIDs, (b) routes, (c) sminfo
#   sm_stop                             # SIGTERM, bounded wait
#   it_pass
#
# Everything runs in a private scratch dir; every process we start is
# recorded by PID and killed by PID on exit.  Nothing is killed by name.
#
# Environment knobs:
#   SM=nanosm|opensm     which SM to run (default nanosm)
#   NANOSM=path          nanosm binary (default <repo>/build/bin/nanosm)
#   NANOSM_ARGS="..."    extra arguments for nanosm (e.g. "-R minhop")
#   FABRIC_DIR=dir       where the *.topo files live (default <repo>/tests/fabrics)
#   IT_KEEP=1            keep the scratch dir (path is printed) for debugging
#   IT_VERBOSE=1         echo every client command
#   CLIENT_TIMEOUT=sec   bound for each diag tool run (default 30)
#   SM_UP_TIMEOUT=sec    bound for the first SUBNET UP (default 60)

IT_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$IT_LIB_DIR/../.." && pwd)
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
SM=${SM:-nanosm}
NANOSM=${NANOSM:-$REPO/build/bin/nanosm}
FABRIC_DIR=${FABRIC_DIR:-$REPO/tests/fabrics}
CLIENT_TIMEOUT=${CLIENT_TIMEOUT:-30}
SM_UP_TIMEOUT=${SM_UP_TIMEOUT:-60}
SIM_READY_TIMEOUT=${SIM_READY_TIMEOUT:-20}
PYTHON=${PYTHON:-python3}

IT_NAME=
IT_SCRATCH=
IT_RUN=             # cwd of every client (umad2sim writes sys-<pid>/ there)
IT_SOCK=
IT_SIM_GEN=0        # bumps per sim_start so a restarted ibsim gets a fresh socket
IT_PIDS=()          # every background PID we started (SM, ibsim)
SIM_PID=
SIM_LOG=
SIM_FABRIC=
SIM_HOST_DEFAULT=
SM_PID=
SM_LOG=
SM_PID2=             # a second SM (sm_start2)
SM_LOG2=
SM_OSMLOG2=
SM_SOCK2=
SM_OSMLOG=
SM_RC=
SM_GEN=0
SM_TOPOLOGY=        # the topology nanosm writes at SUBNET UP (beside its guid2lid)
IT_LAST_OUT=        # output file of the last check, printed on failure

# ---------------------------------------------------------------- reporting

it_log()  { printf '[%s] %s\n' "$IT_NAME" "$*"; }
it_step() { printf '[%s] -- %s\n' "$IT_NAME" "$*"; }

# Print the tail of a file under a heading (if it exists and is non-empty).
it_show() {
	local f=$1 n=${2:-40} title=${3:-$1}
	[ -n "$f" ] && [ -s "$f" ] || return 0
	echo "----- ${title} (last $n lines) -----"
	tail -n "$n" "$f" | sed 's/^/    /'
}

# it_fail MSG: report the failure with the relevant logs and exit 1
# (the EXIT trap then kills everything we started).
it_fail() {
	echo "[$IT_NAME] FAIL: $*"
	it_show "$IT_LAST_OUT" 60 "last check output: ${IT_LAST_OUT##*/}"
	it_show "$SM_LOG" 40 "SM output ($SM): ${SM_LOG##*/}"
	if [ -n "$SM_OSMLOG" ] && [ -s "$SM_OSMLOG" ]; then
		echo "----- opensm log: errors and state (last 30) -----"
		grep -E 'ERR|SUBNET UP|Entering|ERROR|error' "$SM_OSMLOG" | tail -n 30 | sed 's/^/    /'
	fi
	it_show "$SIM_LOG" 15 "ibsim log: ${SIM_LOG##*/}"
	[ -n "$IT_SCRATCH" ] && [ "${IT_KEEP:-0}" = 1 ] && echo "(scratch kept: $IT_SCRATCH)"
	exit 1
}

it_skip() {
	echo "[$IT_NAME] SKIP: $*"
	exit 77
}

it_pass() {
	echo "[$IT_NAME] PASS"
	exit 0
}

# ---------------------------------------------------------------- lifecycle

# it_init NAME: scratch dir, unique socket name, cleanup trap.
it_init() {
	IT_NAME=$1
	# run.sh looks for leftover processes by this prefix (their cwd)
	IT_SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/nanosm-it.${IT_RUN_TAG:-$$}.${IT_NAME}.XXXXXX") ||
		{ echo "mktemp failed"; exit 1; }
	IT_RUN=$IT_SCRATCH/run
	mkdir -p "$IT_RUN"
	IT_SOCK_BASE="nanosm-it-${IT_RUN_TAG:-$$}-${IT_NAME}-$$"
	trap it_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
	[ -r "$UMAD2SIM" ] || it_fail "umad2sim wrapper not found at $UMAD2SIM (install ibsim-utils)"
	command -v ibsim >/dev/null || it_fail "ibsim not installed (package ibsim-utils)"
	command -v ibnetdiscover >/dev/null || it_fail "infiniband-diags not installed"
	it_log "scratch $IT_SCRATCH, SM=$SM"
}

# Kill one PID: SIGTERM, bounded wait, then SIGKILL; reap it.
it_kill_pid() {
	local pid=$1 i
	[ -n "$pid" ] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null
		for i in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			# a zombie child still answers kill -0: reap it
			if ! ps -p "$pid" -o stat= 2>/dev/null | grep -qv Z; then break; fi
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null && ps -p "$pid" -o stat= 2>/dev/null | grep -qv Z; then
			kill -KILL "$pid" 2>/dev/null
		fi
	fi
	wait "$pid" 2>/dev/null
	return 0
}

it_cleanup() {
	local rc=$? i
	trap - EXIT INT TERM HUP
	# newest first: SMs before the ibsim they talk to
	for ((i = ${#IT_PIDS[@]} - 1; i >= 0; i--)); do
		it_kill_pid "${IT_PIDS[$i]}"
	done
	IT_PIDS=()
	if [ -n "$IT_SCRATCH" ] && [ -d "$IT_SCRATCH" ]; then
		if [ "${IT_KEEP:-0}" = 1 ]; then
			echo "[$IT_NAME] scratch kept: $IT_SCRATCH"
		else
			rm -rf "$IT_SCRATCH"
		fi
	fi
	exit "$rc"
}

# ---------------------------------------------------------------- fabrics

# fabric_file NAME: set IT_FABRIC to the fabric file's path (fails the test
# if it is absent).
fabric_file() {
	IT_FABRIC=$FABRIC_DIR/$1
	[ -r "$IT_FABRIC" ] || it_fail "fabric file missing: $IT_FABRIC"
}

# fabric_nodes FILE TYPE: node ids (first quoted word of each header line)
# of the given type: "ca" (Hca/Ca) or "sw" (Switch), in file order.
fabric_nodes() {
	local re
	case $2 in
	ca) re='^[[:space:]]*(Hca|Ca)[[:space:]]' ;;
	sw) re='^[[:space:]]*Switch[[:space:]]' ;;
	*) re='^[[:space:]]*(Hca|Ca|Switch|Rt)[[:space:]]' ;;
	esac
	grep -E "$re" "$1" | sed -E 's/^[^"]*"([^"]*)".*/\1/'
}

# fabric_first_ca FILE: default SM attach point = first CA in the file.
fabric_first_ca() { fabric_nodes "$1" ca | head -n 1; }

# ---------------------------------------------------------------- ibsim

# sim_start FABRIC [SIM_HOST]: start ibsim with a fresh unique socket name,
# wait (bounded) for "Network simulator ready".  SIM_HOST defaults to the
# first CA in the file (override with $2 or env SM_HOST).
sim_start() {
	local fabric=$1 host=${2:-${SM_HOST:-}} fifo
	[ -r "$fabric" ] || it_fail "fabric file missing: $fabric"
	IT_SIM_GEN=$((IT_SIM_GEN + 1))
	IT_SOCK="${IT_SOCK_BASE}-${IT_SIM_GEN}"
	SIM_FABRIC=$fabric
	SIM_LOG=$IT_SCRATCH/ibsim.$IT_SIM_GEN.log
	fifo=$IT_SCRATCH/ibsim.$IT_SIM_GEN.fifo
	mkfifo "$fifo" || it_fail "mkfifo $fifo"
	[ -n "$host" ] || host=$(fabric_first_ca "$fabric")
	[ -n "$host" ] || it_fail "no CA found in $fabric"
	SIM_HOST_DEFAULT=$host
	# stdin is the fifo opened read-write: ibsim never sees EOF (it would spin)
	(cd "$IT_RUN" && IBSIM_SOCKNAME=$IT_SOCK exec ibsim -s "$fabric" 0<>"$fifo") \
		>"$SIM_LOG" 2>&1 &
	SIM_PID=$!
	SIM_FIFO=$fifo
	IT_PIDS+=("$SIM_PID")
	wait_for_pattern "$SIM_LOG" 'Network simulator ready' "$SIM_READY_TIMEOUT" "$SIM_PID" ||
		it_fail "ibsim did not become ready within ${SIM_READY_TIMEOUT}s"
	it_log "ibsim pid $SIM_PID on ${fabric##*/} (socket $IT_SOCK, SM host \"$host\")"
}

# sim_cmd LINE: send a console command to the running ibsim.
sim_cmd() { printf '%s\n' "$*" >"$SIM_FIFO"; }

sim_stop() {
	[ -n "$SIM_PID" ] || return 0
	it_kill_pid "$SIM_PID"
	it_forget_pid "$SIM_PID"
	SIM_PID=
}

it_forget_pid() {
	local p keep=()
	for p in "${IT_PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
	IT_PIDS=("${keep[@]}")
}

# wait_for_pattern FILE ERE TIMEOUT [PID]: poll until FILE matches, bounded;
# returns early (1) if PID dies without the pattern having appeared.
wait_for_pattern() {
	local f=$1 pat=$2 t=$3 pid=${4:-} deadline
	deadline=$(($(date +%s%N) / 1000000 + t * 1000))
	while :; do
		grep -qE -- "$pat" "$f" 2>/dev/null && return 0
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			grep -qE -- "$pat" "$f" 2>/dev/null && return 0
			return 1
		fi
		[ $(($(date +%s%N) / 1000000)) -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

# ---------------------------------------------------------------- clients

# sim_client [--host NODEID] CMD ARGS...: run a libibumad program attached to
# the simulated fabric, in the scratch dir, bounded by CLIENT_TIMEOUT.
sim_client() {
	local host=$SIM_HOST_DEFAULT
	if [ "${1:-}" = --host ]; then host=$2; shift 2; fi
	[ "${IT_VERBOSE:-0}" = 1 ] && it_log "+ [$host] $*" >&2
	(cd "$IT_RUN" && exec timeout -k 5 "$CLIENT_TIMEOUT" \
		env LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$IT_SOCK" SIM_HOST="$host" "$@")
}

# A tiny wrapper script so python (check_routes.py) can run clients too.
it_client_wrapper() {
	local w=$IT_SCRATCH/client
	cat >"$w" <<EOF
#!/bin/sh
# run a diag tool against this test's ibsim: \$0 CMD ARGS...
cd "$IT_RUN" || exit 1
exec timeout -k 5 "$CLIENT_TIMEOUT" env LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$IT_SOCK" SIM_HOST="$SIM_HOST_DEFAULT" "\$@"
EOF
	chmod +x "$w"
	echo "$w"
}

# ---------------------------------------------------------------- the SM

# shellcheck disable=SC2120 # options are optional
# sm_start [--host NODEID] [--once] [--sweep-interval N] [--guid2lid PATH]
#          [--priority N]
# Start the SM under test in the background (stdout+stderr -> $SM_LOG).
# nanosm writes the topology of its SUBNET UP to $SM_TOPOLOGY (unset for
# OpenSM).
# The generic options are mapped onto nanosm or OpenSM:
#   nanosm:  --once / --sweep-interval N / --guid2lid PATH / --priority N
#            (+ $NANOSM_ARGS)
#   opensm:  -o / -s N / OSM_CACHE_DIR=dirname(PATH) (file must be named
#            guid2lid) / -p N
sm_start() {
	local host=$SIM_HOST_DEFAULT once=0 interval='' g2l='' prio='' cmd=() envs=() cache
	local preload=$UMAD2SIM direct=0
	while [ $# -gt 0 ]; do
		case $1 in
		--host) host=$2; shift ;;
		--ibsim) direct=1 ;; # nanosm --ibsim: ibsim's own protocol, no umad2sim preload
		--priority) prio=$2; shift ;;
		--once) once=1 ;;
		--sweep-interval) interval=$2; shift ;;
		--guid2lid) g2l=$2; shift ;;
		*) it_fail "sm_start: unknown option $1" ;;
		esac
		shift
	done
	SM_GEN=$((SM_GEN + 1))
	SM_LOG=$IT_SCRATCH/sm.$SM_GEN.log
	SM_OSMLOG=
	SM_RC=
	case $SM in
	nanosm)
		[ -x "$NANOSM" ] || it_fail "nanosm binary not found: $NANOSM (run make first, or SM=opensm)"
		cmd=("$NANOSM" -v)
		[ $once = 1 ] && cmd+=(--once)
		if [ $direct = 1 ]; then
			cmd+=(--ibsim)
			preload=
		fi
		[ -n "$interval" ] && cmd+=(--sweep-interval "$interval")
		[ -n "$prio" ] && cmd+=(--priority "$prio")
		# always a private guid2lid: the default (/var/lib/nanosm/guid2lid) is
		# machine-wide state that would leak LIDs between tests and runs
		if [ -z "$g2l" ]; then
			mkdir -p "$IT_SCRATCH/nanosm-state.$SM_GEN"
			g2l=$IT_SCRATCH/nanosm-state.$SM_GEN/guid2lid
		fi
		cmd+=(--guid2lid "$g2l")
		SM_TOPOLOGY=${g2l%/*}/topology
		# a private control socket: /run/nanosm is machine-wide state too
		cmd+=(--socket "$IT_SCRATCH/nanosm.$SM_GEN.sock")
		# shellcheck disable=SC2206
		[ -n "${NANOSM_ARGS:-}" ] && cmd+=($NANOSM_ARGS)
		;;
	opensm)
		command -v opensm >/dev/null || it_fail "opensm not installed"
		SM_TOPOLOGY=
		SM_OSMLOG=$IT_SCRATCH/osm.$SM_GEN.log
		# -d2: flush the log after every message (else "SUBNET UP" shows late)
		cmd=(opensm -d2 -f "$SM_OSMLOG")
		[ $once = 1 ] && cmd+=(-o)
		[ -n "$interval" ] && cmd+=(-s "$interval")
		[ -n "$prio" ] && cmd+=(-p "$prio")
		if [ -n "$g2l" ]; then
			[ "${g2l##*/}" = guid2lid ] || it_fail "with opensm the guid2lid path must end in /guid2lid"
			cache=${g2l%/*}
		else
			cache=$IT_SCRATCH/osm-cache.$SM_GEN
		fi
		mkdir -p "$cache" "$IT_SCRATCH/osm-tmp"
		# never touch /var/cache/opensm: private cache and tmp dirs
		envs=(OSM_CACHE_DIR="$cache" OSM_TMP_DIR="$IT_SCRATCH/osm-tmp")
		;;
	*) it_fail "unknown SM=$SM (use nanosm or opensm)" ;;
	esac
	echo "# ${cmd[*]}" >"$SM_LOG"
	(cd "$IT_RUN" && exec env "${envs[@]}" LD_PRELOAD="$preload" IBSIM_SOCKNAME="$IT_SOCK" \
		SIM_HOST="$host" "${cmd[@]}") >>"$SM_LOG" 2>&1 &
	SM_PID=$!
	IT_PIDS+=("$SM_PID")
	it_log "SM ($SM) pid $SM_PID at \"$host\": ${cmd[*]}"
}

# sm_start2 ARGS...: a second SM next to the first (sm_start's options;
# SM=opensm sm_start2 ... picks its kind).  Its PID, log and control socket
# land in SM_PID2, SM_LOG2 (SM_OSMLOG2) and SM_SOCK2; SM_PID/SM_LOG keep
# naming the first.  Both are killed by PID on exit like everything else.
sm_start2() {
	local pid=$SM_PID log=$SM_LOG osm=$SM_OSMLOG
	sm_start "$@"
	SM_PID2=$SM_PID SM_LOG2=$SM_LOG SM_OSMLOG2=$SM_OSMLOG
	SM_SOCK2=$IT_SCRATCH/nanosm.$SM_GEN.sock
	SM_PID=$pid SM_LOG=$log SM_OSMLOG=$osm
}

# The files the SM writes its progress to.
sm_logs() { echo "$SM_LOG" ${SM_OSMLOG:+"$SM_OSMLOG"}; }

# sm_wait PATTERN [TIMEOUT]: bounded wait for PATTERN in the SM output
# (and OpenSM's log file).  Fails early if the SM exits first.
sm_wait() {
	local pat=$1 t=${2:-$SM_UP_TIMEOUT} deadline f
	deadline=$(($(date +%s) + t))
	while :; do
		for f in $(sm_logs); do
			grep -qE -- "$pat" "$f" 2>/dev/null && return 0
		done
		if ! kill -0 "$SM_PID" 2>/dev/null; then
			for f in $(sm_logs); do
				grep -qE -- "$pat" "$f" 2>/dev/null && return 0
			done
			return 1
		fi
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

# sm_sweep_to N: (nanosm) ask for heavy sweeps through the control socket
# until the 'sweep N:' line shows (bounded).  The sweep interval only runs
# light sweeps, which turn into heavy ones when something changed.
sm_sweep_to() {
	local n=$1 i
	for i in $(seq 30); do
		grep -qE "(^|[^0-9A-Za-z_])sweep $n:" "$SM_LOG" && return 0
		timeout -k 5 "$CLIENT_TIMEOUT" "$REPO/build/bin/nanosmctl" \
			-s "$IT_SCRATCH/nanosm.$SM_GEN.sock" sweep >/dev/null 2>&1
		sm_wait "(^|[^0-9A-Za-z_])sweep [0-9]+:" 5 >/dev/null
		sleep 0.3
	done
	grep -qE "(^|[^0-9A-Za-z_])sweep $n:" "$SM_LOG" || it_fail "no 'sweep $n:' line after asking for heavy sweeps"
}

# sm_sweep_field N KEY: (nanosm) the value of KEY=... on the first
# 'sweep N:' line of the SM log (empty when there is none)
sm_sweep_field() {
	grep -hE "(^|[^0-9A-Za-z_])sweep $1:" "$SM_LOG" | head -n 1 |
		grep -oE "(^|[[:space:]])$2=[0-9]+" | head -n 1 | sed 's/.*=//'
}

# sm_want_field N KEY OP VALUE: fail unless the 'sweep N:' line has KEY OP
# VALUE (OP as test(1) takes it: = -gt ...)
sm_want_field() {
	local v
	v=$(sm_sweep_field "$1" "$2")
	IT_LAST_OUT=$SM_LOG
	[ -n "$v" ] || it_fail "'sweep $1:' line has no $2= field"
	test "$v" "$3" "$4" || it_fail "sweep $1: $2=$v, expected $3 $4"
}

# sm_ctl OUT ARGS...: (nanosm) nanosmctl ARGS on this SM's control socket
# into OUT (stderr in OUT.err); fails the test when nanosmctl fails
sm_ctl() {
	local out=$1
	shift
	IT_LAST_OUT=$out.err
	timeout -k 5 "$CLIENT_TIMEOUT" "$REPO/build/bin/nanosmctl" -s "$IT_SCRATCH/nanosm.$SM_GEN.sock" \
		"$@" >"$out" 2>"$out.err" || it_fail "nanosmctl $* failed ($(head -c 300 "$out.err"))"
}

# shellcheck disable=SC2120
# sm_wait_up [TIMEOUT]: wait for SUBNET UP; fail the test otherwise.
sm_wait_up() {
	local t0 t1
	t0=$(date +%s%N)
	sm_wait 'SUBNET UP' "${1:-$SM_UP_TIMEOUT}" ||
		it_fail "SM did not report SUBNET UP within ${1:-$SM_UP_TIMEOUT}s$(kill -0 "$SM_PID" 2>/dev/null || echo ' (SM exited)')"
	t1=$(date +%s%N)
	# nanosm writes its SUBNET UP's topology just after the line: a slow
	# run (valgrind) may not have it yet (bounded; tests needing it fail
	# on their own if it never comes)
	local i
	for i in $(seq 100); do
		[ -z "$SM_TOPOLOGY" ] || [ -s "$SM_TOPOLOGY" ] || ! kill -0 "$SM_PID" 2>/dev/null && break
		sleep 0.1
	done
	# shellcheck disable=SC2046 # sm_logs: one or two plain paths
	it_log "SUBNET UP after $(((t1 - t0) / 1000000)) ms: $(grep -h -m1 'SUBNET UP' $(sm_logs) | head -n 1 | sed 's/^ *//' | cut -c1-160)"
}

# sm_wait_exit [TIMEOUT]: wait for the SM (e.g. --once) to exit by itself;
# sets SM_RC.  Fails the test on timeout.
sm_wait_exit() {
	local t=${1:-$SM_UP_TIMEOUT} deadline
	deadline=$(($(date +%s) + t))
	while kill -0 "$SM_PID" 2>/dev/null; do
		[ "$(date +%s)" -lt "$deadline" ] || it_fail "SM did not exit within ${t}s"
		sleep 0.1
		# a zombie still answers kill -0; wait reaps it below
		ps -p "$SM_PID" -o stat= 2>/dev/null | grep -q Z && break
	done
	wait "$SM_PID"
	SM_RC=$?
	it_forget_pid "$SM_PID"
	it_log "SM exited with status $SM_RC"
}

# sm_stop: SIGTERM, bounded wait (10 s), then SIGKILL.  Sets SM_RC; fails the
# test if the SM needed SIGKILL.
sm_stop() {
	local i
	[ -n "$SM_PID" ] || return 0
	if ! kill -0 "$SM_PID" 2>/dev/null; then
		wait "$SM_PID" 2>/dev/null
		SM_RC=$?
		it_forget_pid "$SM_PID"
		it_fail "SM had already exited (status $SM_RC) before SIGTERM"
	fi
	kill -TERM "$SM_PID"
	for i in $(seq 100); do
		ps -p "$SM_PID" -o stat= 2>/dev/null | grep -qv Z || break
		sleep 0.1
	done
	if ps -p "$SM_PID" -o stat= 2>/dev/null | grep -qv Z; then
		kill -KILL "$SM_PID"
		wait "$SM_PID" 2>/dev/null
		it_forget_pid "$SM_PID"
		it_fail "SM did not stop within 10s of SIGTERM"
	fi
	wait "$SM_PID"
	SM_RC=$?
	it_forget_pid "$SM_PID"
	it_log "SM stopped by SIGTERM (status $SM_RC)"
	if [ "$SM" = nanosm ] && [ "$SM_RC" != 0 ]; then
		it_fail "nanosm exited with status $SM_RC after SIGTERM (expected 0)"
	fi
}

# ---------------------------------------------------------------- checks

# run_tool OUTFILE CMD...: run a diag tool into OUTFILE (stderr alongside in
# OUTFILE.err); fail the test if it fails.
run_tool() {
	local out=$1 rc
	shift
	IT_LAST_OUT=$out.err
	sim_client "$@" >"$out" 2>"$out.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		IT_LAST_OUT=$out.err
		[ -s "$out" ] && cat "$out" >>"$out.err"
		it_fail "'$*' failed with status $rc"
	fi
}

# (a) every linked port ACTIVE, LIDs non-zero and unique, every node of the
# fabric file discovered.  Judges: ibnetdiscover + iblinkinfo.
check_ports() {
	local d=$IT_SCRATCH/chk
	mkdir -p "$d"
	it_step "check (a): ports ACTIVE, LIDs unique/non-zero (ibnetdiscover, iblinkinfo)"
	run_tool "$d/ibnetdiscover.txt" ibnetdiscover
	run_tool "$d/iblinkinfo.txt" iblinkinfo -l
	IT_LAST_OUT=$d/ports.out
	"$PYTHON" "$IT_LIB_DIR/check_routes.py" ports \
		--topo "$d/ibnetdiscover.txt" --linkinfo "$d/iblinkinfo.txt" \
		--fabric "$SIM_FABRIC" >"$d/ports.out" 2>&1 ||
		it_fail "ports/LID check failed"
	sed "s/^/[$IT_NAME]    /" "$d/ports.out"
}

# wait_ports_ok TIMEOUT: poll (bounded, 1 s period) until check (a) passes,
# e.g. after re-linking nodes; fails the test with the last check output.
wait_ports_ok() {
	local t=${1:-30} deadline d=$IT_SCRATCH/chk
	mkdir -p "$d"
	deadline=$(($(date +%s) + t))
	while :; do
		if sim_client ibnetdiscover >"$d/poll.ibnd.txt" 2>"$d/poll.err" &&
			sim_client iblinkinfo -l >"$d/poll.ll.txt" 2>>"$d/poll.err" &&
			"$PYTHON" "$IT_LIB_DIR/check_routes.py" ports --topo "$d/poll.ibnd.txt" \
				--linkinfo "$d/poll.ll.txt" --fabric "$SIM_FABRIC" >"$d/poll.out" 2>&1; then
			return 0
		fi
		IT_LAST_OUT=$d/poll.out
		[ "$(date +%s)" -lt "$deadline" ] || it_fail "fabric not fully ACTIVE with LIDs within ${t}s"
		sleep 1
	done
}

# (b) all-pairs reachability through the programmed LFTs (dump_fts, with
# smpdump re-reads for the block dump_fts skips), plus ibtracert spot checks.
check_routes() {
	local d=$IT_SCRATCH/chk client
	mkdir -p "$d"
	it_step "check (b): all CA pairs routed through the LFTs (dump_fts + check_routes.py)"
	[ -s "$d/ibnetdiscover.txt" ] || run_tool "$d/ibnetdiscover.txt" ibnetdiscover
	run_tool "$d/dump_fts.txt" dump_fts
	client=$(it_client_wrapper)
	IT_LAST_OUT=$d/routes.out
	"$PYTHON" "$IT_LIB_DIR/check_routes.py" routes \
		--topo "$d/ibnetdiscover.txt" --fts "$d/dump_fts.txt" \
		--client "$client" --spot-pairs "$d/spot_pairs.txt" >"$d/routes.out" 2>&1 ||
		it_fail "route check failed"
	sed "s/^/[$IT_NAME]    /" "$d/routes.out"
	check_tracert "$d/spot_pairs.txt"
}

# ibtracert between a few CA pairs chosen by check_routes.py
# (lines "SRCLID DSTLID SRCNAME DSTNAME"); every trace must end at the target.
check_tracert() {
	local pairs=$1 d=$IT_SCRATCH/chk s t sn tn n=0
	[ -s "$pairs" ] || return 0
	while read -r s t sn tn; do
		IT_LAST_OUT=$d/tracert.$s.$t.txt
		sim_client ibtracert "$s" "$t" >"$IT_LAST_OUT" 2>&1 ||
			it_fail "ibtracert $s -> $t ($sn -> $tn) failed"
		grep -qE "^To .* lid $t-" "$IT_LAST_OUT" ||
			it_fail "ibtracert $s -> $t ($sn -> $tn) did not reach lid $t"
		n=$((n + 1))
	done <"$pairs"
	it_log "   ibtracert: $n spot-checked pairs reached their destination"
}

# (c) sminfo (from the SM host and from another CA) reports MASTER, state 3.
check_sminfo() {
	local d=$IT_SCRATCH/chk host hosts
	mkdir -p "$d"
	it_step "check (c): sminfo reports SMINFO_MASTER / state 3"
	hosts=$( (echo "$SIM_HOST_DEFAULT"; fabric_nodes "$SIM_FABRIC" ca | tail -n 1) | awk '!seen[$0]++')
	for host in $hosts; do
		IT_LAST_OUT=$d/sminfo.$host.txt
		sim_client --host "$host" sminfo >"$IT_LAST_OUT" 2>&1 ||
			it_fail "sminfo from \"$host\" failed"
		grep -qE 'state 3 SMINFO_MASTER' "$IT_LAST_OUT" ||
			it_fail "sminfo from \"$host\" does not report state 3 SMINFO_MASTER"
		it_log "   from \"$host\": $(grep -m1 'sm lid' "$IT_LAST_OUT")"
	done
}

check_all() {
	check_ports
	check_routes
	check_sminfo
}

# standard test body for a fabric: SM up, checks a/b/c, clean SM stop.
it_fabric_test() {
	it_init "$1"
	fabric_file "$2"
	sim_start "$IT_FABRIC" "${3:-}"
	sm_start
	sm_wait_up
	check_all
	sm_stop
	it_pass
}

# ---------------------------------------------------------------- added for tests/faults

# it_kill9 PID: SIGKILL one process we started (no chance to clean up),
# bounded wait until it is gone, reap it, forget it.  Prints nothing;
# returns 1 if it still runs after 10 s.
it_kill9() {
	local pid=$1 i
	[ -n "$pid" ] || return 0
	kill -KILL "$pid" 2>/dev/null
	for i in $(seq 100); do
		ps -p "$pid" -o stat= 2>/dev/null | grep -qv Z || break
		sleep 0.1
	done
	ps -p "$pid" -o stat= 2>/dev/null | grep -qv Z && return 1
	wait "$pid" 2>/dev/null
	it_forget_pid "$pid"
	return 0
}

# ---------------------------------------------------------------- added for nanosm-ping under ibsim

# The simulated verbs layer (tests/verbs_sim/, docs/nanosm-ping.md
# "Running it under ibsim"): nanosm-ping runs on a simulated host with it
# preloaded next to umad2sim; its packets' sockets go under the scratch dir.
VSIM=${VSIM:-$REPO/build/lib/libnanosm-verbs-sim.so}
NANOSM_PING=${NANOSM_PING:-$REPO/build/bin/nanosm-ping}

# vsim_client HOST CMD ARGS...: CMD on simulated HOST with both preloads,
# bounded by CLIENT_TIMEOUT.
vsim_client() {
	local host=$1
	shift
	(cd "$IT_RUN" && exec env LD_PRELOAD="$UMAD2SIM $VSIM" IBSIM_SOCKNAME="$IT_SOCK" \
		SIM_HOST="$host" TMPDIR="$IT_SCRATCH" timeout -k 5 "$CLIENT_TIMEOUT" "$@")
}

# vsim_server HOST TCPPORT LOG: `nanosm-ping --server` on simulated HOST in
# the background (recorded by PID, bounded to 10 minutes), output in LOG;
# waits (bounded) for its banner.  Sets VSIM_SERVER_PID and VSIM_SERVER_LID.
vsim_server() {
	local h=$1 port=$2 log=$3
	# not through a function: $! must be the process that becomes timeout
	(cd "$IT_RUN" && exec env LD_PRELOAD="$UMAD2SIM $VSIM" IBSIM_SOCKNAME="$IT_SOCK" \
		SIM_HOST="$h" TMPDIR="$IT_SCRATCH" timeout -k 5 600 "$NANOSM_PING" --server \
		--tcp-port "$port") >"$log" 2>&1 &
	VSIM_SERVER_PID=$!
	IT_PIDS+=("$VSIM_SERVER_PID")
	wait_for_pattern "$log" 'server on .* \(lid [0-9]+\)' 20 "$VSIM_SERVER_PID" || {
		IT_LAST_OUT=$log
		it_fail "nanosm-ping --server on $h did not start"
	}
	# shellcheck disable=SC2034 # read by the callers
	VSIM_SERVER_LID=$(sed -nE 's/.*server on .* \(lid ([0-9]+)\).*/\1/p' "$log" | head -n 1)
}
