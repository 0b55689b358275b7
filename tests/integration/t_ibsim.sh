#!/bin/bash
# ibsim: nanosm --ibsim, ibsim's own socket protocol with no umad2sim
# preload (mad/mad_ibsim.c).  On the lab fabric the judges see what they
# see under the preload: every port ACTIVE with a unique LID, every route
# (ibtracert), sminfo MASTER from two hosts; the SM's port advertises IsSM
# while it runs and no longer after SIGTERM; SA queries from another host
# (saquery, through umad2sim) reach the SM and are answered; a second
# start with -d is refused at once, a policy's sm.ca is said not to apply;
# the process maps no umad2sim.  The run
# without a simulator is in t_nosim.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

it_init ibsim
[ "$SM" = nanosm ] || it_skip "nanosm's own transport (SM=$SM)"
fabric_file lab.topo
sim_start "$IT_FABRIC"
sm_start --ibsim
sm_wait_up
IT_LAST_OUT=$SM_LOG
grep -q 'SM port ibsim:host1/1 GUID 0x[0-9a-f]* (IsSM set)' "$SM_LOG" ||
	it_fail "no 'SM port ibsim:host1/1 ... (IsSM set)' line in the SM's log"
if grep -q umad2sim "/proc/$SM_PID/maps"; then
	it_fail "nanosm --ibsim has umad2sim mapped (it should need no preload)"
fi
it_log "   $(grep -o 'SM port ibsim.*' "$SM_LOG"), no umad2sim in its maps"
check_all

d=$IT_SCRATCH/chk
sm_lid=$(grep -m1 -oE 'sm lid [0-9]+' "$d/sminfo.host1.txt" | awk '{print $3}')
[ -n "$sm_lid" ] || it_fail "no SM LID in sminfo's answer"

it_step "IsSM in the SM port's CapabilityMask (smpquery from host3)"
IT_LAST_OUT=$d/pi.on.txt
sim_client --host host3 smpquery portinfo "$sm_lid" 1 >"$IT_LAST_OUT" 2>&1 ||
	it_fail "smpquery portinfo $sm_lid failed"
grep -qE '^[[:space:]]+IsSM[[:space:]]*$' "$IT_LAST_OUT" || it_fail "LID $sm_lid's PortInfo lacks IsSM"
it_log "   $(grep -E '^CapMask' "$IT_LAST_OUT" | tr -s '.' ' ') (IsSM)"

it_step "SA: saquery from host2 (umad2sim) answered by nanosm --ibsim"
IT_LAST_OUT=$d/sa.nr.txt
sim_client --host host2 saquery -s >"$IT_LAST_OUT" 2>&1 || it_fail "saquery -s failed"
grep -q "$sm_lid" "$IT_LAST_OUT" || it_fail "saquery -s does not name the SM's LID $sm_lid"
IT_LAST_OUT=$d/sa.pr.txt
sim_client --host host2 saquery -p "$sm_lid" >"$IT_LAST_OUT" 2>&1 || it_fail "saquery -p failed"
grep -qE 'dlid[. ]*'"$sm_lid"'$' "$IT_LAST_OUT" ||
	grep -qiE "dlid.*($sm_lid|$(printf '0x%x' "$sm_lid"))" "$IT_LAST_OUT" ||
	it_fail "saquery -p $sm_lid has no PathRecord to LID $sm_lid"
it_log "   saquery -s and -p $sm_lid answered"

it_step "SIGTERM: IsSM given back"
sm_stop
IT_LAST_OUT=$d/pi.off.txt
sim_client --host host3 smpquery portinfo "$sm_lid" 1 >"$IT_LAST_OUT" 2>&1 ||
	it_fail "smpquery portinfo $sm_lid failed after the stop"
if grep -qE '^[[:space:]]+IsSM[[:space:]]*$' "$IT_LAST_OUT"; then
	it_fail "LID $sm_lid still advertises IsSM after nanosm stopped"
fi
it_log "   $(grep -E '^CapMask' "$IT_LAST_OUT" | tr -s '.' ' ')"

it_step "--ibsim with a policy that names a CA: said, and SUBNET UP on SIM_HOST's node"
pol=$IT_SCRATCH/ca.yaml
printf 'sm:\n  ca: mlx5_0\n  port: 1\n' >"$pol"
NANOSM_ARGS="-f $pol" sm_start --ibsim --once
sm_wait_exit 60
IT_LAST_OUT=$SM_LOG
[ "$SM_RC" = 0 ] || it_fail "nanosm --ibsim -f $pol --once exited with status $SM_RC"
grep -q -- "--ibsim: the policy's sm.ca, sm.port and sm.guid do not apply" "$SM_LOG" ||
	it_fail "nanosm did not say that the policy's port does not apply"
grep -q 'SUBNET UP' "$SM_LOG" || it_fail "no SUBNET UP with the policy"

it_step "--ibsim with -d: a usage error"
out=$IT_SCRATCH/usage.out
IT_LAST_OUT=$out
timeout -k 2 10 "$NANOSM" --ibsim -d mlx5_0 --socket none >"$out" 2>&1
rc=$?
[ $rc = 2 ] || it_fail "nanosm --ibsim -d exited with status $rc, expected 2"
grep -q -- '--ibsim attaches to an ibsim node: -g, -d and -p do not apply' "$out" ||
	it_fail "nanosm --ibsim -d did not say why"
it_pass
