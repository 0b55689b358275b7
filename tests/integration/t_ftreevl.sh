#!/bin/bash
# ftreevl: ftree's down-up turns on more than one VL, live (issue 15).  The
# fabric is `nanosm-gen fattree --levels 3 --radix 8 --missing-links 20
# --seed 13` (80 switches, 128 hosts; the tree of test_ftree's "turns VL 0
# cannot take ride VL 1"), where one switch has no turn left on VL 0 that
# closes no credit loop.  nanosm -R ftree:
#   1. SUBNET UP and the sweep line say engine=ftree and vls=N, N >= 2;
#      checks a, b, c pass; SLtoVL tables were written.
#   2. nanosmctl sls: N = 1 + the highest SL it lists.
#   3. the outsider's check (check_vl_loops.py loops): dump_fts and the SLs
#      close no cycle on any VL.  (No control with every route on SL 0:
#      the checker follows CA traffic only, and so the routes close no
#      cycle on one VL either; the gate, which also counts the paths from
#      every switch to a CA LID, does find one there (test_ftree), which
#      is why ftree's VL merge keeps 2 VLs here.  The vlsp test runs the
#      control for the checker.)
#   4. saquery -p answers the SL sls lists for pairs on every SL in use.
# nanosm-specific (the engine's VLs, nanosmctl): SKIPped under SM=opensm.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

GEN=${NANOSM_GEN:-$REPO/build/bin/nanosm-gen}
CHECK_VL="$PYTHON $IT_LIB_DIR/check_vl_loops.py"

it_init ftreevl
[ "$SM" = nanosm ] || it_skip "ftree's VLs and nanosmctl sls are nanosm's; SM=$SM"
[ -x "$GEN" ] || it_fail "nanosm-gen not found: $GEN (run make first)"
d=$IT_SCRATCH/chk
mkdir -p "$d"
IT_FABRIC=$IT_SCRATCH/ft3k8-miss20-s13.topo
"$GEN" fattree --levels 3 --radix 8 --missing-links 20 --seed 13 -o "$IT_FABRIC" ||
	it_fail "nanosm-gen fattree failed"

it_step "1: nanosm -R ftree"
sim_start "$IT_FABRIC"
NANOSM_ARGS="${NANOSM_ARGS:-} -R ftree" sm_start
sm_wait_up
IT_LAST_OUT=$SM_LOG
grep -m1 'SUBNET UP' "$SM_LOG" | grep -q ' engine=ftree ' || it_fail "SUBNET UP does not say engine=ftree"
VLS=$(grep -m1 'SUBNET UP' "$SM_LOG" | grep -oE ' vls=[0-9]+ ' | tr -dc 0-9)
if [ -z "$VLS" ] || [ "$VLS" -lt 2 ]; then
	it_fail "SUBNET UP says vls=${VLS:-none}, expected 2 or more"
fi
sm_want_field 1 vls = "$VLS"
sm_want_field 1 sl2vl_sets -gt 0
sm_want_field 1 set_errors = 0
it_log "   $(grep -m1 -oE 'engine=[^ ]+ vls=[0-9]+' "$SM_LOG"); $(grep -m1 -oE 'CA LIDs on VL [^;]*' "$SM_LOG")"
check_all

it_step "2: nanosmctl sls"
sm_ctl "$d/sls.txt" sls
top=$(awk 'BEGIN { m = 0 } $3 > m { m = $3 } END { print m }' "$d/sls.txt")
[ "$VLS" = $((top + 1)) ] || it_fail "vls=$VLS but the highest SL nanosmctl sls lists is $top"

it_step "3: no credit loop on any VL"
client=$(it_client_wrapper)
IT_LAST_OUT=$d/loops.out
$CHECK_VL loops --topo "$d/ibnetdiscover.txt" --fts "$d/dump_fts.txt" --sls "$d/sls.txt" \
	--client "$client" >"$d/loops.out" 2>&1 || it_fail "credit loop check failed"
sed "s/^/[$IT_NAME]    /" "$d/loops.out"

it_step "4: saquery -p answers the SLs sls lists"
# the first 3 pairs of each SL (one Get per pair: ibsim carries only the
# first MAD of a GetTable answer)
awk 'seen[$3]++ < 3' "$d/sls.txt" >"$d/sa.pairs"
: >"$d/sa.cmp"
while read -r s dl sl; do
	got=$(sim_client saquery -p --src-to-dst "$s:$dl" 2>/dev/null |
		sed -nE 's/^[[:space:]]*sl\.+0x([0-9a-fA-F])$/\1/p' | head -n 1)
	printf '%s:%s %s %s\n' "$s" "$dl" "$sl" "${got:-none}" >>"$d/sa.cmp"
done <"$d/sa.pairs"
IT_LAST_OUT=$d/sa.cmp
[ -z "$(awk '$2 != $3' "$d/sa.cmp")" ] || it_fail "saquery -p and sls disagree (pair sls saquery)"
it_log "   saquery -p: $(wc -l <"$d/sa.cmp") pairs on SLs $(awk '{ print $3 }' "$d/sa.pairs" | sort -u | tr '\n' ' ')agree with sls"
sm_stop
it_pass
