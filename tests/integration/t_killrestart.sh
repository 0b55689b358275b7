#!/bin/bash
# killrestart: nanosm killed with SIGKILL (no chance to clean up), then a new
# nanosm on the same ibsim with the same guid2lid (issue 6).
#
# Part A (after SUBNET UP): kill -9 a nanosm that brought fattree64 up; the
#   new one must reach SUBNET UP with lft_blocks_sent=0 (it reads every LFT
#   block, lft_blocks_read > 0, and finds them right), every port keeps its
#   LID (ibnetdiscover + check_routes.py lids, by port GUID), and the routes
#   pass check (b).
# Part B (in the middle of the first sweep): a larger generated fat tree,
#   one host pinned at a high LID in the guid2lid file (many LFT blocks)
#   and nanosm with --window 1, so the LFT push takes a moment; kill -9
#   shortly after its routes passed the gate (the push has started); then a
#   new nanosm with the same guid2lid: every port that had a LID when the
#   first was killed keeps it, checks (a) and (b) pass.  Blocks may be sent
#   (the killed one did not finish), never more than the switches have.
#   Whether the kill landed in the push (blocks both read and sent) is
#   logged; on a loaded machine it may land later - noted, not failed.
# nanosm-specific counters: SKIPped under SM=opensm.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

FABRIC=${KILLRESTART_FABRIC:-fattree64.topo}
KILL_TIMEOUT=${KILL_TIMEOUT:-30} # bound for the first sweep to reach the LFT push (part B)
KILL_DELAY=${KILL_DELAY:-0.05}  # then this long into the push before kill -9
HIGH_LID=${HIGH_LID:-16384}     # part B: 257 LFT blocks per switch

it_init killrestart
[ "$SM" = nanosm ] || it_skip "sweep counters (lft_blocks_sent/read) are nanosm-specific; SM=$SM"
d=$IT_SCRATCH/chk
mkdir -p "$d" "$IT_SCRATCH/stateA" "$IT_SCRATCH/stateB"

# sm_kill9: SIGKILL the running SM and reap it (bounded).
sm_kill9() {
	local i rc
	kill -KILL "$SM_PID" 2>/dev/null
	for i in $(seq 100); do
		ps -p "$SM_PID" -o stat= 2>/dev/null | grep -qv Z || break
		sleep 0.1
	done
	ps -p "$SM_PID" -o stat= 2>/dev/null | grep -qv Z && it_fail "SM pid $SM_PID survived SIGKILL for 10s"
	wait "$SM_PID" 2>/dev/null
	rc=$?
	it_forget_pid "$SM_PID"
	it_log "SM pid $SM_PID killed with SIGKILL (wait status $rc)"
}

# wait_fast PATTERN TIMEOUT: like sm_wait, polling every 10 ms (the LFT
# push of part B lasts a fraction of a second)
wait_fast() {
	local deadline=$(($(date +%s) + $2))
	while ! grep -qE -- "$1" "$SM_LOG" 2>/dev/null; do
		kill -0 "$SM_PID" 2>/dev/null || return 1
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.01
	done
}

# record_lids TAG: every end port's LID (by port GUID) -> $d/lids.TAG.txt
record_lids() {
	run_tool "$d/ibnd.$1.txt" ibnetdiscover
	"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$d/ibnd.$1.txt" >"$d/lids.$1.txt"
}

# same_lids A B: every port with a LID in A has the same LID in B
same_lids() {
	IT_LAST_OUT=$d/lids.$1.$2.diff
	join <(awk '$2 != 0 {print $1, $2, $3}' "$d/lids.$1.txt") \
		<(awk '{print $1, $2}' "$d/lids.$2.txt") | awk '$2 != $4' >"$IT_LAST_OUT"
	[ ! -s "$IT_LAST_OUT" ] ||
		it_fail "LIDs changed across the kill -9 restart ($(wc -l <"$IT_LAST_OUT") ports; lines: portguid old name new)"
	[ "$(awk '$2 != 0' "$d/lids.$1.txt" | wc -l)" -le "$(wc -l <"$d/lids.$2.txt")" ] ||
		it_fail "ports missing after the restart"
}

# sweep_field N KEY: value of KEY=... on the first 'sweep N:' line of the SM log
sweep_field() {
	grep -hE "(^|[^0-9A-Za-z_])sweep $1:" "$SM_LOG" | head -n 1 |
		grep -oE "(^|[[:space:]])$2=[0-9]+" | head -n 1 | sed 's/.*=//'
}

# sweep1 KEY: sweep_field 1 KEY, failing when the field is absent
sweep1() {
	local v
	v=$(sweep_field 1 "$1")
	[ -n "$v" ] || it_fail "'sweep 1:' line has no $1= field"
	echo "$v"
}

it_step "A1: nanosm up on ${FABRIC} with --guid2lid"
fabric_file "$FABRIC"
sim_start "$IT_FABRIC"
g2lA=$IT_SCRATCH/stateA/guid2lid
sm_start --guid2lid "$g2lA"
sm_wait_up
first_sent=$(sweep1 lft_blocks_sent)
[ "$first_sent" -gt 0 ] || it_fail "the first nanosm sent no LFT block on a fresh fabric"
record_lids a1
sm_kill9 2>/dev/null

it_step "A2: a new nanosm on the same ibsim, same --guid2lid"
sm_start --guid2lid "$g2lA"
sm_wait_up
sent=$(sweep1 lft_blocks_sent)
read=$(sweep1 lft_blocks_read)
it_log "sweep 1 after the restart: lft_blocks_sent=$sent lft_blocks_read=$read (first start sent $first_sent)"
IT_LAST_OUT=
[ "$sent" = 0 ] || it_fail "restart rewrote $sent LFT blocks that were already right"
[ "$read" -gt 0 ] || it_fail "restart read no LFT block (lft_blocks_read=0)"
record_lids a2
same_lids a1 a2
it_log "all $(wc -l <"$d/lids.a2.txt") ports kept their LIDs"
check_ports
check_routes
sm_stop
sim_stop

it_step "B1: a larger fat tree and a high LID, nanosm --window 1, kill -9 once its LFT push has started"
gen=$IT_SCRATCH/fattree-big.topo
"$REPO/tests/fabrics/gen_fattree.sh" 12 12 6 1 >"$gen" || it_fail "gen_fattree.sh failed"
sim_start "$gen"
g2lB=$IT_SCRATCH/stateB/guid2lid
# one host pinned at a high LID in the guid2lid file: every switch then
# gets HIGH_LID/64 + 1 blocks, so the push lasts long enough for the kill
# to land in it
caguid=$(grep -oE 'caguid=0x[0-9a-fA-F]+' "$gen" | tail -n 1 | cut -d= -f2)
printf '0x%016x 0x%04x 0x%04x\n' $((caguid + 1)) "$HIGH_LID" "$HIGH_LID" >"$g2lB"
NANOSM_ARGS="${NANOSM_ARGS:-} --window 1" sm_start --guid2lid "$g2lB"
wait_fast 'gate passed' "$KILL_TIMEOUT" || it_fail "no 'gate passed' within ${KILL_TIMEOUT}s"
sleep "$KILL_DELAY"
sm_kill9 2>/dev/null
if grep -q 'SUBNET UP' "$SM_LOG"; then
	it_log "note: the first sweep had already finished when the kill landed"
fi
record_lids b1
it_log "at the kill: $(awk '$2 != 0' "$d/lids.b1.txt" | wc -l) of $(wc -l <"$d/lids.b1.txt") ports had a LID"

it_step "B2: a new nanosm, same --guid2lid"
sm_start --guid2lid "$g2lB"
sm_wait_up
sent=$(sweep1 lft_blocks_sent)
read=$(sweep1 lft_blocks_read)
it_log "sweep 1 after the mid-sweep kill: lft_blocks_sent=$sent lft_blocks_read=$read"
total=$(($(fabric_nodes "$gen" sw | wc -l) * (HIGH_LID / 64 + 1)))
IT_LAST_OUT=
[ "$((sent))" -le "$total" ] || it_fail "restart sent $sent LFT blocks, more than the $total there are"
if [ "$sent" -gt 0 ] && [ "$read" -gt 0 ]; then
	it_log "the kill landed in the LFT push: $read blocks read, $((total - sent)) of $total kept"
else
	it_log "note: the kill did not land in the LFT push this time (timing); checks still apply"
fi
record_lids b2
same_lids b1 b2
it_log "every port that had a LID at the kill kept it"
check_ports
check_routes
sm_stop
it_pass
