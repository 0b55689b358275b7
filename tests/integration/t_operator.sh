#!/bin/bash
# operator: what the operator of a big fabric is told (issue 20), on a
# degraded 3-level tree (`nanosm-gen fattree --levels 3 --radix 8
# --missing-links 3 --missing-switches 1 --seed 1`: 128 hosts, an
# aggregation switch and three cables gone; ftree passes there with EBB
# 0.55, updn gets 0.38, minhop's tables close a credit loop).
# `status` names the running engine and why it was chosen; `plan` of a
# routing that scores much worse names the engine that would win, the
# engines passed over with node names next to their GUIDs, the scores, and
# is refused (exit 1), and counts the LFT block Sets the push will send;
# `reload` of it is refused with the numbers and the
# switches keep their tables (dump_fts before == after); `reload --force`
# applies it and says so; the fallback from minhop to updn is one log line
# (NSM-W405, from what to what and why, names next to GUIDs), not repeated
# by the next sweep; going back to ftree (better) needs no --force.
. "$(dirname "$0")/lib.sh"

it_init operator
[ "$SM" = nanosm ] || it_skip "nanosm's reload and status only"
IT_FABRIC=$IT_SCRATCH/ft3-k8-degraded.topo
"$REPO/build/bin/nanosm-gen" fattree --levels 3 --radix 8 --missing-links 3 --missing-switches 1 \
	--seed 1 -o "$IT_FABRIC" || it_fail "nanosm-gen failed"
pol=$IT_SCRATCH/nanosm.yaml
write_policy() { printf 'routing:\n  engine: [%s]\n' "$1" >"$pol"; }
write_policy "ftree, updn, minhop"
export NANOSM_ARGS="-f $pol"
sim_start "$IT_FABRIC"
sm_start --sweep-interval 300
sm_wait_up
grep -q 'SUBNET UP: .*engine=ftree ' "$SM_LOG" || it_fail "not up with ftree"
d=$IT_SCRATCH/op
mkdir -p "$d"
# ctl OUT ARGS...: nanosmctl into OUT (stderr into OUT.err); sets CTL_RC
ctl() {
	local out=$1
	shift
	IT_LAST_OUT=$out.err
	timeout -k 5 "$CLIENT_TIMEOUT" "$REPO/build/bin/nanosmctl" -s "$IT_SCRATCH/nanosm.$SM_GEN.sock" \
		"$@" >"$out" 2>"$out.err"
	CTL_RC=$?
	[ "$CTL_RC" = 0 ]
}
# sweeps N: N more heavy sweeps
sweeps() {
	local last
	last=$(grep -oE '(^|[^0-9A-Za-z_])sweep [0-9]+:' "$SM_LOG" | tail -n 1 | grep -oE '[0-9]+')
	sm_sweep_to $((last + $1))
}

it_step "status names the running engine and why"
ctl "$d/status" status || it_fail "status failed"
grep -q '^routing engine: ftree, chosen from ftree,updn,minhop: the first in the list$' "$d/status" ||
	it_fail "status does not say which engine runs and why"

it_step "plan of a much worse routing: the winner, the engines passed over by name, the scores"
write_policy "minhop, updn"
ctl "$d/plan" plan "$pol"
[ "$CTL_RC" = 1 ] || it_fail "plan of a much worse routing exited $CTL_RC, not 1"
IT_LAST_OUT=$d/plan
grep -q '^engine that would be used: updn (gate passed)$' "$d/plan" || it_fail "plan does not name updn"
grep -qE '^engines passed over: routing engine minhop: tables refused by the gate \(.*credit loop: yes\): credit loop.*0x[0-9a-f]{16} \(pod[0-9]+-(leaf|agg)[0-9]+\)' "$d/plan" ||
	it_fail "plan does not say why minhop was passed over, with names"
grep -qE '^  effective bisection bandwidth +0\.[0-9]{4} -> 0\.[0-9]{4}$' "$d/plan" || it_fail "plan has no EBB line"
grep -q '^much worse than the routing in force' "$d/plan" || it_fail "plan does not call it much worse"
IT_LAST_OUT=$d/plan.err
grep -q 'would be refused: the new routing (engine updn) scores much worse than the one in force: EBB' "$d/plan.err" ||
	it_fail "plan's error does not give the reason with the scores"

it_step "reload refuses it without --force, and nothing is pushed"
run_tool "$d/fts.before" dump_fts
ctl "$d/reload" reload
[ "$CTL_RC" = 1 ] || it_fail "reload of a much worse routing exited $CTL_RC, not 1"
IT_LAST_OUT=$d/reload.err
grep -qE 'reload: the new routing \(engine updn\) scores much worse than the one in force: EBB 0\.[0-9]{4} -> 0\.[0-9]{4}, worst link load [0-9]+ -> [0-9]+ \(reload --force applies it anyway\)' "$d/reload.err" ||
	it_fail "the refusal does not give the scores"
sweeps 1
run_tool "$d/fts.after" dump_fts
diff -u "$d/fts.before" "$d/fts.after" >"$d/fts.diff" ||
	{ IT_LAST_OUT=$d/fts.diff; it_fail "LFTs changed after a refused reload"; }

it_step "reload --force applies it and says so; one fallback line, with names"
ctl "$d/force" reload --force || it_fail "reload --force failed"
IT_LAST_OUT=$d/force
grep -qE "^reloaded $pol \(routing minhop,updn: engine updn wins after routing engine minhop: tables refused by the gate .*; EBB 0\.[0-9]{4} -> 0\.[0-9]{4}, worst link load [0-9]+ -> [0-9]+; much worse, applied because forced\)" "$d/force" ||
	it_fail "reload --force does not name the winner, the reason and the scores"
sm_wait 'NSM-W405 routing falls back from minhop to updn: routing engine minhop: tables refused by the gate .*0x[0-9a-f]{16} \(pod' 20 ||
	it_fail "no single fallback line from minhop to updn with names"
# plan counted the Sets the push sends (loop-free steps included)
want=$(grep -oE 'the push sends [0-9]+ LFT block' "$d/plan" | grep -oE '[0-9]+')
sm_wait "sweep [0-9]+: ok .*lft_blocks_sent=$want " 20 ||
	it_fail "the push after the forced reload did not send the $want blocks plan said"
sweeps 2
IT_LAST_OUT=$SM_LOG
[ "$(grep -c 'NSM-W405' "$SM_LOG")" = 1 ] || it_fail "the same fallback was logged again by the next sweeps"
ctl "$d/status2" status
grep -q '^routing engine: updn, chosen from minhop,updn: routing engine minhop: tables refused by the gate' "$d/status2" ||
	{ IT_LAST_OUT=$d/status2; it_fail "status does not say why updn runs"; }

it_step "back to ftree: better, no --force needed"
write_policy "ftree, updn, minhop"
ctl "$d/back" reload || it_fail "reload back to ftree was refused"
grep -q 'engine ftree wins; EBB' "$d/back" || { IT_LAST_OUT=$d/back; it_fail "the answer does not name ftree"; }
it_pass
