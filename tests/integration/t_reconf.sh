#!/bin/bash
# reconf: paths verified live by nanosm-verify from three attach points
# after every reconfiguration of a running nanosm on the fat tree: start
# (ftree), a policy reload to updn, a cable pulled (ibsim Unlink; the SM
# reroutes around it: every path ok, but nanosm-verify names the cable
# down against the topology of SUBNET UP and exits 1), the cable back
# (ReLink).  The diags judge too (all-pairs check over dump_fts).
. "$(dirname "$0")/lib.sh"

it_init reconf
[ "$SM" = nanosm ] || it_skip "nanosm's policy reload and control socket only"
VERIFY=${NANOSM_VERIFY:-$REPO/build/bin/nanosm-verify}
CTL=${NANOSMCTL:-$REPO/build/bin/nanosmctl}
fabric_file fattree64.topo
pol=$IT_SCRATCH/nanosm.yaml
sock=$IT_SCRATCH/ctl.sock
d=$IT_SCRATCH/chk
mkdir -p "$d"
printf 'routing:\n  engine: [ftree]\n' >"$pol"
export NANOSM_ARGS="-f $pol --socket $sock"
sim_start "$IT_FABRIC"
sm_start --sweep-interval 300
sm_wait_up

# verify_all TAG [DOWN]: every LID reached from three attach points; the
# topology nanosm wrote at SUBNET UP all there (exit 0), or, with DOWN (an
# ERE naming a cable), exactly that cable missing: down (exit 1)
verify_all() {
	local h out rc
	for h in host01 host33 host64; do
		out=$d/verify.$1.$h.txt
		IT_LAST_OUT=$out
		sim_client --host "$h" "$VERIFY" --topo "$SM_TOPOLOGY" >"$out" 2>&1
		rc=$?
		grep -qE '^[0-9]+ paths ok, 0 failed$' "$out" ||
			it_fail "nanosm-verify from $h after $1: not all paths ok"
		if [ -z "${2:-}" ]; then
			[ $rc = 0 ] || it_fail "nanosm-verify from $h after $1 exited $rc"
			grep -qE '^expected topology .*, all there$' "$out" ||
				it_fail "nanosm-verify from $h after $1: the expected topology is not all there"
			continue
		fi
		[ $rc = 1 ] || it_fail "nanosm-verify from $h after $1 exited $rc, expected 1 (a cable is missing)"
		[ "$(grep -cE '^(MISSING|DOWN|MOVED|CHANGED) ' "$out")" = 1 ] &&
			grep -qE "^DOWN    cable $2" "$out" ||
			it_fail "nanosm-verify from $h after $1: not exactly the one down cable"
	done
	it_log "   $1: $(grep -m1 'paths ok' "$out") from host01, host33, host64"
	check_routes
}

# sweeps_after N: wait until a sweep numbered above N ends ok
sweeps_now() { grep -c '^.* sweep [0-9]*: ok' "$SM_LOG"; }
wait_sweep_after() {
	local n=$1 i
	for i in $(seq 100); do
		[ "$(sweeps_now)" -gt "$n" ] && return 0
		sleep 0.1
	done
	it_fail "no successful sweep after $2"
}

it_step "after start (ftree)"
verify_all start

it_step "reload to updn"
printf 'routing:\n  engine: [updn]\n' >"$pol"
n=$(sweeps_now)
IT_LAST_OUT=$d/reload.txt
"$CTL" -s "$sock" reload >"$d/reload.txt" 2>&1 || it_fail "nanosmctl reload failed"
wait_sweep_after "$n" reload
grep -q 'engine=updn' <(grep 'sweep [0-9]*: ok' "$SM_LOG" | tail -n 1) || it_fail "not routed by updn after reload"
verify_all reload

it_step "a cable pulled: leaf1 port 9 (to spine1)"
n=$(sweeps_now)
sim_cmd 'Unlink "leaf1"[9]'
sleep 0.5
"$CTL" -s "$sock" sweep >/dev/null 2>&1 || it_fail "nanosmctl sweep failed"
wait_sweep_after "$n" "the unlink"
verify_all unlink 'switch ("leaf1" \{0x[0-9a-f]+\} port 9 <-> switch "spine1"|"spine1" \{0x[0-9a-f]+\} port [0-9]+ <-> switch "leaf1" \{0x[0-9a-f]+\} port 9) .*\(DOWN\)$'


it_step "the cable back"
n=$(sweeps_now)
sim_cmd 'ReLink "leaf1"[9]'
sleep 0.5
"$CTL" -s "$sock" sweep >/dev/null 2>&1 || it_fail "nanosmctl sweep failed"
wait_sweep_after "$n" "the relink"
verify_all relink
sm_stop
it_pass
