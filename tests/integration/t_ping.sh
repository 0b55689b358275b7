#!/bin/bash
# ping: the real nanosm-ping carries packets under ibsim, through the
# simulated verbs layer (build/lib/libnanosm-verbs-sim.so preloaded next to
# umad2sim; docs/nanosm-ping.md "Running it under ibsim").  On twosw.topo
# (host1 and host2 on sw1, host3 and host4 on sw2, two cables between the
# switches) servers run on host1..host4 and the client on host1.
#  - Verbs nanosm-ping does not use fail with ENOSYS and say so.
#  - UD and RC ping-pong and bandwidth streams: every path OK.
#  - A black hole planted in sw1's LFT entry for host4's LID with
#    nanosm-smpset: exactly host4 FAILs (RC: retry counter exceeded), the
#    layer names sw1 and the entry; restored: all OK.
#  - Both inter-switch cables pulled (ibsim Unlink): a run to host3 that
#    began before ends within seconds (no response after N replies); host3
#    and host4 FAIL, the layer says why on the client's stderr, host2 (same
#    switch) stays OK.  Cables back (ReLink): all OK after nanosm's sweep.
#  - A policy that leaves host4 out of the default partition: from host2,
#    host4 FAILs (host4's server says it dropped P_Key 0xffff), host1 and
#    host3 are OK.
# Every wait is bounded; the servers are stopped by PID.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

SMPSET=$REPO/build/bin/nanosm-smpset
TCP_BASE=$((20000 + ($$ % 2000) * 8))
PING_ITERS=20

it_init ping
[ "$SM" = nanosm ] || it_skip "the partition step uses nanosm's YAML policy"
if [ ! -x "$NANOSM_PING" ] || [ ! -r "$VSIM" ] || [ ! -x "$SMPSET" ]; then
	it_fail "nanosm-ping, nanosm-smpset or libnanosm-verbs-sim.so not built (run make)"
fi
fabric_file twosw.topo
PD=$IT_SCRATCH/ping
mkdir -p "$PD"
declare -A LID PORT

# server_start HOST: nanosm-ping --server on HOST.
server_start() {
	PORT[$1]=$((TCP_BASE + ${#PORT[@]}))
	vsim_server "$1" "${PORT[$1]}" "$PD/server.$1.log"
	LID[$1]=$VSIM_SERVER_LID
	it_log "server on $1: lid ${LID[$1]}, TCP port ${PORT[$1]}"
}

# ping_run HOST NAME ARGS... TARGETS: the client on HOST into $PD/NAME.txt
# (its stderr in NAME.err); sets PING_RC and PING_OUT.
ping_run() {
	local h=$1 name=$2
	shift 2
	PING_OUT=$PD/$name.txt
	IT_LAST_OUT=$PING_OUT
	vsim_client "$h" "$NANOSM_PING" -n "$PING_ITERS" "$@" >"$PING_OUT" 2>"$PD/$name.err"
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

# ping_expect HOST NAME RC "OK HOSTS" "FAIL HOSTS" ARGS...: the client on
# HOST exits RC with exactly these verdicts.
ping_expect() {
	local h=$1 name=$2 rc=$3 ok=$4 fail=$5 x n
	shift 5
	ping_run "$h" "$name" "$@"
	[ "$PING_RC" = "$rc" ] || it_fail "$name: exit $PING_RC, expected $rc"
	for x in $ok; do verdict OK "$x"; done
	for x in $fail; do verdict FAIL "$x"; done
	n=$(echo "$fail" | wc -w)
	[ "$(grep -c '^FAIL' "$PING_OUT")" = "$n" ] || it_fail "$name: not exactly $n FAIL lines"
}

POL=$IT_SCRATCH/nanosm.yaml
echo '# no partitions yet' >"$POL"
export NANOSM_ARGS="-f $POL"
sim_start "$IT_FABRIC" host1
sm_start
sm_wait_up
wait_ports_ok 30
for h in host1 host2 host3 host4; do server_start "$h"; done
ALL=("$(target host2)" "$(target host3)" "$(target host4)")

it_step "verbs nanosm-ping does not use: ENOSYS and a line that says so"
IT_LAST_OUT=$PD/enosys.txt
vsim_client host1 "$PYTHON" -c '
import ctypes, os
g = ctypes.CDLL(None, use_errno=True)
g.ibv_create_comp_channel.restype = ctypes.c_void_p
assert g.ibv_create_comp_channel(None) is None
assert ctypes.get_errno() == 38, ctypes.get_errno()
assert g.ibv_query_qp(None, None, 0, None) == 38
' >"$IT_LAST_OUT" 2>&1 || it_fail "an unsimulated verb did not fail with ENOSYS"
for v in ibv_create_comp_channel ibv_query_qp; do
	grep -qx "nanosm-verbs-sim: $v is not simulated (nanosm-ping does not use it): Function not implemented" \
		"$IT_LAST_OUT" || it_fail "no ENOSYS line for $v"
done

it_step "UD and RC from host1: every path OK"
for mode in --ud --rc; do
	ping_expect host1 all$mode 0 "host2 host3 host4" "" "$mode" --bw --bw-count 256 "${ALL[@]}"
	grep -qE "^OK lid ${LID[host4]} .*, bw [0-9.]+ [GM]b/s" "$PING_OUT" || it_fail "$mode: no bandwidth figure"
	it_log "   $mode: $(grep -E '^nanosm-ping: [0-9]+ paths' "$PING_OUT")"
done

# why_lost HOST: the simulated layer said, on the client's stderr, why the
# packets to HOST were lost (a pattern of the reason).
why_lost() {
	grep -qE "^nanosm-verbs-sim: lid ${LID[host1]} -> lid ${LID[$1]}: packet lost: $2" "$PING_OUT" ||
		it_fail "$1: the simulated layer did not say '$2'"
}

it_step "black hole: sw1's LFT entry for host4 (lid ${LID[host4]}) to uncabled port 5"
IT_LAST_OUT=$PD/smpset.txt
sim_client --host host1 "$SMPSET" --lft 0,1 "${LID[host4]}" 5 >"$IT_LAST_OUT" 2>&1 ||
	it_fail "nanosm-smpset failed"
ORIG=$(sed -nE 's/.*: lid [0-9]+ port ([0-9]+) -> 5$/\1/p' "$IT_LAST_OUT")
[ -n "$ORIG" ] || it_fail "nanosm-smpset did not say the entry it replaced"
it_log "   $(cat "$IT_LAST_OUT")"
for mode in --ud --rc; do
	ping_expect host1 hole$mode 1 "host2 host3" host4 "$mode" "${ALL[@]}"
	why_lost host4 "black hole at switch \"sw1\" .*LFT entry for lid ${LID[host4]} is port 5, which has no link"
	it_log "   $mode: $(grep '^FAIL' "$PING_OUT")"
done
grep -q 'retry counter exceeded' "$PD/hole--rc.txt" || {
	IT_LAST_OUT=$PD/hole--rc.txt
	it_fail "RC across the black hole: no 'retry counter exceeded' completion"
}
IT_LAST_OUT=$PD/smpset.restore.txt
sim_client --host host1 "$SMPSET" --lft 0,1 "${LID[host4]}" "$ORIG" >"$IT_LAST_OUT" 2>&1 ||
	it_fail "nanosm-smpset (restore) failed"
ping_expect host1 restored 0 "host2 host3 host4" "" --ud "${ALL[@]}"

it_step "both cables between sw1 and sw2 pulled during a long run to host3"
# one process the whole time: its fabric snapshot must be read again
LONG=$PD/long.txt
(cd "$IT_RUN" && exec env LD_PRELOAD="$UMAD2SIM $VSIM" IBSIM_SOCKNAME="$IT_SOCK" SIM_HOST=host1 \
	TMPDIR="$IT_SCRATCH" timeout -k 5 60 "$NANOSM_PING" -n 10000000 -t 500ms \
	"$(target host3)") >"$LONG" 2>&1 &
LONG_PID=$!
IT_PIDS+=("$LONG_PID")
IT_LAST_OUT=$LONG
sleep 2
kill -0 "$LONG_PID" 2>/dev/null || it_fail "the long run ended before the cables went"
sim_cmd 'Unlink "sw1"[7]'
sim_cmd 'Unlink "sw1"[8]'
T0=$(date +%s%N)
for i in $(seq 200); do
	ps -p "$LONG_PID" -o stat= 2>/dev/null | grep -qv Z || break
	sleep 0.1
done
ps -p "$LONG_PID" -o stat= 2>/dev/null | grep -qv Z && it_fail "the long run did not end within 20 s of the cables going"
T1=$(date +%s%N)
wait "$LONG_PID"
it_forget_pid "$LONG_PID"
grep -qE "^FAIL lid ${LID[host3]} .*: no response after [1-9][0-9]* replies: [0-9]+ pings in a row lost" "$LONG" ||
	it_fail "the long run did not end on 'no response after N replies'"
it_log "   ended $(((T1 - T0) / 1000000)) ms after the cables went: $(grep '^FAIL' "$LONG" | cut -c1-120)"
IT_LAST_OUT=$SM_LOG
sm_wait "node gone: 0x0002c90300a00140" 60 || it_fail "nanosm did not see host4 go"
for mode in --ud --rc; do
	ping_expect host1 split$mode 1 host2 "host3 host4" "$mode" "${ALL[@]}"
	why_lost host3 "no port has lid ${LID[host3]} in the fabric reached from here \\(3 nodes\\): its port is cut off, down or gone"
	it_log "   $mode: $(grep '^FAIL' "$PING_OUT" | head -n 1)"
done
it_log "   why: $(grep -m1 'packet lost' "$PING_OUT")"

it_step "cables back: every path OK after nanosm's sweep"
sim_cmd 'ReLink "sw1"[7]'
sim_cmd 'ReLink "sw1"[8]'
IT_LAST_OUT=$SM_LOG
sm_wait "node new: 0x0002c90300a00140" 60 || it_fail "nanosm did not see host4 come back"
wait_ports_ok 30
for mode in --ud --rc; do
	ping_expect host1 back$mode 0 "host2 host3 host4" "" "$mode" "${ALL[@]}"
done

it_step "partitions: the default partition holds host1, host2 and host3; host4 is left out"
cat >"$POL" <<EOT
partitions:
  - name: default
    pkey: 0x7fff
    members:
      - {guid: 0x0002c90300a00111, membership: full}
      - {guid: 0x0002c90300a00121, membership: full}
      - {guid: 0x0002c90300a00131, membership: full}
EOT
kill -HUP "$SM_PID"
IT_LAST_OUT=$SM_LOG
sm_wait 'reloaded ' 10 || it_fail "the policy was not reloaded"
IT_LAST_OUT=$PD/pkeys.host4
for i in $(seq 40); do
	sim_client --host host1 smpquery pkeys "${LID[host4]}" >"$IT_LAST_OUT" 2>&1
	grep -qE '0x[7f]fff' "$IT_LAST_OUT" || break
	sleep 0.25
done
! grep -qE '0x[7f]fff' "$IT_LAST_OUT" || it_fail "host4 still holds the default P_Key"
# the simulated ports re-read their facts (P_Key table included) when
# they are older than 300 ms: host4's server may have read them just
# before the push
sleep 0.5
ping_expect host2 part 1 "host1 host3" host4 --ud "$(target host1)" "$(target host3)" "$(target host4)"
IT_LAST_OUT=$PD/server.host4.log
grep -qE "^nanosm-verbs-sim: lid ${LID[host2]} -> lid ${LID[host4]}: packet dropped: P_Key 0xffff from lid ${LID[host2]}: no partition shared with this port" \
	"$IT_LAST_OUT" || it_fail "host4's server did not say why it dropped host2's pings"
it_log "   $(grep '^FAIL' "$PING_OUT"); host4 says: $(grep -m1 'packet dropped' "$IT_LAST_OUT" | cut -d: -f3-)"

sm_stop
it_pass
