#!/bin/bash
# reload: nanosm -f POLICY on the ring; SIGHUP re-reads the policy into a
# fresh struct, routes the last good fabric with it and runs the gate
# before anything is pushed.  A broken file and a policy whose routes fail
# the gate (min-hop on a ring: credit loop) are refused with the old tables
# left untouched on the switches (dump_fts before == after); a good change
# (priority) takes effect (sminfo shows it).
. "$(dirname "$0")/lib.sh"

it_init reload
[ "$SM" = nanosm ] || it_skip "nanosm's policy reload only"
fabric_file ring.topo
pol=$IT_SCRATCH/nanosm.yaml
write_policy() { # ENGINE PRIORITY
	cat >"$pol" <<EOT
sm:
  priority: $2
routing:
  engine: [$1]
EOT
}
write_policy updn 0
export NANOSM_ARGS="-f $pol"
sim_start "$IT_FABRIC"
sm_start --sweep-interval 300
sm_wait_up
grep -q 'SUBNET UP: .*engine=updn ' "$SM_LOG" || it_fail "not up with updn"
d=$IT_SCRATCH/chk
mkdir -p "$d"
run_tool "$d/fts.before" dump_fts

it_step "a policy whose routes fail the gate is refused"
write_policy minhop 0
kill -HUP "$SM_PID"
sm_wait 'NSM-E600 reload .* refused: the new routing fails the gate: .*credit loop' 10 ||
	it_fail "min-hop on the ring was not refused by the gate"
it_step "a broken file is refused with file:line:column"
printf 'sm:\n  priority: 3\nrouting:\n  engin: [updn]\n' >"$pol"
kill -HUP "$SM_PID"
sm_wait "NSM-E600 reload .* refused: .*nanosm.yaml:4:3: unknown key 'engin'" 10 ||
	it_fail "a broken policy was not refused with its position"
sleep 1
run_tool "$d/fts.after" dump_fts
diff -u "$d/fts.before" "$d/fts.after" >"$d/fts.diff" ||
	{ IT_LAST_OUT=$d/fts.diff; it_fail "LFTs changed after refused reloads"; }
kill -0 "$SM_PID" 2>/dev/null || it_fail "nanosm died on a refused reload"

it_step "a good change takes effect"
write_policy updn,minhop 5
kill -HUP "$SM_PID"
sm_wait 'reloaded .* \(routing updn,minhop\)' 10 || it_fail "the good policy was not reloaded"
run_tool "$d/sminfo" sminfo
grep -q 'priority 5' "$d/sminfo" || { IT_LAST_OUT=$d/sminfo; it_fail "sminfo does not show priority 5"; }
check_routes
sm_stop
it_pass
