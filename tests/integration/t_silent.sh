#!/bin/bash
# silent: a host whose cable stays up but which answers nothing (ibsim
# `Error "host" 100`: every MAD through its port lost).  nanosm must keep
# it as the last sweep saw it - its LID and every route to it - instead of
# withdrawing them (dump_fts identical before and during), say so
# (NSM-W208 naming it), quarantine it after 3 sweeps in a row (NSM-W230,
# listed by `nanosmctl status`), and let it go when it answers again
# (`quarantine over`, a complete sweep, checks a and b on the whole fabric).
# nanosm-specific behaviour and messages: SKIPped under SM=opensm.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

FABRIC=${SILENT_FABRIC:-fattree64.topo}
CTL=$REPO/build/bin/nanosmctl

it_init silent
[ "$SM" = nanosm ] || it_skip "keeping a silent node and the quarantine are nanosm's; SM=$SM"
fabric_file "$FABRIC"
victim=$(fabric_nodes "$IT_FABRIC" ca | tail -n 1)
sim_start "$IT_FABRIC"
sm_start --sweep-interval 300
sm_wait_up
sock=$IT_SCRATCH/nanosm.$SM_GEN.sock
d=$IT_SCRATCH/chk
mkdir -p "$d"

run_tool "$d/fts.before" dump_fts
run_tool "$d/ibnd.before" ibnetdiscover
"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$d/ibnd.before" >"$d/lids.before"
lid=$(awk -v n="$victim" '$3 == n { print $2 }' "$d/lids.before")
[ -n "$lid" ] || it_fail "no LID for $victim before the test"
# the forwarding entries alone (switch, LID, out port): dump_fts names the
# destinations from its own discovery, which cannot read a silent host
fts_entries() {
	awk '/^Unicast lids/ { sw = $0; sub(/.*guid /, "", sw); sub(/ .*/, "", sw) }
	     /^0x[0-9a-f]+ [0-9]+/ { print sw, $1, $2 }' "$1"
}
hexlid=$(printf '0x%04x' "$lid")
fts_entries "$d/fts.before" >"$d/fts.before.e"
[ "$(grep -c " $hexlid " "$d/fts.before.e")" -gt 0 ] ||
	it_fail "dump_fts has no entry for $victim's LID $hexlid to begin with"
it_log "$victim (LID $lid) goes silent: Error \"$victim\" 100"

sim_cmd "Error \"$victim\" 100"
sleep 0.3
n0=$(grep -cE ' sweep [0-9]+: (ok|failed) ' "$SM_LOG")
for k in 1 2 3; do sm_sweep_to $((n0 + k)); done

# sweep_field N KEY: value of KEY=... on the first 'sweep N: ok|failed' line
sweep_field() {
	grep -hE " sweep $1: (ok|failed) " "$SM_LOG" | head -n 1 |
		grep -oE "(^|[[:space:]])$2=[0-9]+" | head -n 1 | sed 's/.*=//'
}
for k in 1 2 3; do
	n=$((n0 + k))
	[ "$(sweep_field $n lft_blocks_sent)" = 0 ] ||
		it_fail "sweep $n wrote LFT blocks while $victim was silent (its routes moved)"
	grep -qE " sweep $n: stale=1 " "$SM_LOG" || it_fail "sweep $n does not report stale=1"
done
grep -qE "NSM-W208 node 0x[0-9a-f]+ \\($victim\\)" "$SM_LOG" ||
	it_fail "no NSM-W208 line naming $victim"
grep -q 'NSM-W230 quarantined' "$SM_LOG" || it_fail "no NSM-W230 after 3 sweeps in a row"
it_log "  $(grep -m1 -oE "NSM-W208 .*" "$SM_LOG" | cut -c1-150)"
it_log "  $(grep -m1 -oE "NSM-W230 .*" "$SM_LOG" | cut -c1-150)"
"$CTL" -s "$sock" status >"$d/status.silent" 2>&1 || it_fail "nanosmctl status failed"
grep -q '^quarantined: 1$' "$d/status.silent" || {
	IT_LAST_OUT=$d/status.silent
	it_fail "nanosmctl status does not list one quarantined key"
}
it_log "  status: $(grep -A1 '^quarantined' "$d/status.silent" | tr '\n' ' ' | cut -c1-150)"

# the independent judge: every switch still forwards the silent host's LID
# exactly as before (dump_fts, read through the other hosts)
run_tool "$d/fts.silent" dump_fts
fts_entries "$d/fts.silent" >"$d/fts.silent.e"
IT_LAST_OUT=$d/fts.diff
diff "$d/fts.before.e" "$d/fts.silent.e" >"$d/fts.diff" ||
	it_fail "the LFTs changed while $victim was silent"
it_log "dump_fts: all $(wc -l <"$d/fts.silent.e") entries as before, $(grep -c " $hexlid " "$d/fts.silent.e") switches still forward $victim's LID $hexlid"

sim_cmd "Error \"$victim\" 0"
sleep 0.3
n1=$(grep -cE ' sweep [0-9]+: (ok|failed) ' "$SM_LOG")
sm_sweep_to $((n1 + 1))
[ "$(sweep_field $((n1 + 1)) unreachable)" = 0 ] || it_fail "sweep $((n1 + 1)) still has unreachable nodes"
grep -q 'quarantine over' "$SM_LOG" || it_fail "no 'quarantine over' line once $victim answers"
"$CTL" -s "$sock" status >"$d/status.back" 2>&1 || it_fail "nanosmctl status failed"
grep -q '^quarantined: 0$' "$d/status.back" || {
	IT_LAST_OUT=$d/status.back
	it_fail "the quarantine is not empty once $victim answers"
}
check_ports
check_routes
run_tool "$d/ibnd.after" ibnetdiscover
"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$d/ibnd.after" >"$d/lids.after"
IT_LAST_OUT=$d/lids.diff
diff "$d/lids.before" "$d/lids.after" >"$d/lids.diff" || it_fail "LIDs changed"
sm_stop
it_pass
