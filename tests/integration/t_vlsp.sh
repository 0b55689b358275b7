#!/bin/bash
# vlsp: the VL engine live (issue 15), nanosm -R vlsp on five fabrics:
# ring.topo, torus3x3x2.topo, and three nanosm-gen fabrics whose routes
# need two VLs: a ring of 5 switches (shortest paths are unique there and
# close a cycle: no single VL holds them), a 3x3x3 torus and a 6x6 torus
# whose paths to one DLID ride different SLs (an SL per path: 3 VLs where
# one SL per destination took 4).  On each:
#   1. SUBNET UP and the sweep line say engine=vlsp vls=N; checks a, b, c.
#   2. nanosmctl sls: N = 1 + the highest SL it lists.
#   3. N >= 2 (it must be on the ring of 5): smpquery sl2vl reads, on every
#      CA port and every pair of cabled switch ports, SL s -> VL s for
#      s < N and the rest VL 0 (check_vl_loops.py tables); sweep 1 read
#      exactly that many tables and wrote some.  N = 1: no SLtoVL SMP.
#   4. the outsider's check (check_vl_loops.py loops): the channel
#      dependencies rebuilt from ibnetdiscover, dump_fts, nanosmctl sls and
#      the tables read back have no cycle on any VL; and, as a control that
#      the check can fail and that the VLs were needed, the same routes all
#      on SL 0 close a cycle exactly when N >= 2.
#   5. saquery -p (one Get per pair: ibsim carries only the first MAD of a
#      GetTable) answers the SL sls lists, on a sample of pairs that holds
#      every SL in use.
# On the ring of 5 also: sweep 2 writes nothing; a restart with the same
# guid2lid reads every SLtoVL table and writes none (nor an LFT block).
# nanosm-specific (the engine, the sweep figures, nanosmctl): SKIPped under
# SM=opensm.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

GEN=${NANOSM_GEN:-$REPO/build/bin/nanosm-gen}
CHECK_VL="$PYTHON $IT_LIB_DIR/check_vl_loops.py"
SAMPLE=${VLSP_SA_SAMPLE:-24} # PathRecords asked per fabric

it_init vlsp
[ "$SM" = nanosm ] || it_skip "the vlsp engine and the sweep figures are nanosm's; SM=$SM"
[ -x "$GEN" ] || it_fail "nanosm-gen not found: $GEN (run make first)"
d=$IT_SCRATCH/chk
mkdir -p "$d" "$IT_SCRATCH/fabrics"
client=

# sm_up_vlsp: nanosm -R vlsp with the guid2lid $g2l; VLS := its vls=
sm_up_vlsp() {
	NANOSM_ARGS="${NANOSM_ARGS:-} -R vlsp" sm_start --guid2lid "$g2l"
	sm_wait_up
	IT_LAST_OUT=$SM_LOG
	grep -m1 'SUBNET UP' "$SM_LOG" | grep -q ' engine=vlsp ' || it_fail "SUBNET UP does not say engine=vlsp"
	VLS=$(grep -m1 'SUBNET UP' "$SM_LOG" | grep -oE ' vls=[0-9]+ ' | tr -dc 0-9)
	[ -n "$VLS" ] || it_fail "SUBNET UP has no vls= field"
	sm_want_field 1 vls = "$VLS"
	sm_want_field 1 set_errors = 0
}

# read_tables: smpquery sl2vl for every CA port and cabled switch port
# (three at a time: each client is a process of its own) into $d/sl2vl.txt
read_tables() {
	local q=$d/queries.txt
	IT_LAST_OUT=$q.err
	$CHECK_VL queries --topo "$d/ibnetdiscover.txt" >"$q" 2>"$q.err" || it_fail "check_vl_loops.py queries failed"
	rm -rf "$d/sl2vl" && mkdir -p "$d/sl2vl"
	# shellcheck disable=SC2016 # expanded by sh -c
	awk '{ print NR, $0 }' "$q" |
		xargs -P 3 -L 1 sh -c 'n=$1; shift; exec "$0" smpquery sl2vl "$@" >"'"$d"'/sl2vl/$n" 2>&1' "$client"
	: >"$d/sl2vl.txt"
	for n in $(seq "$(wc -l <"$q")"); do
		IT_LAST_OUT=$d/sl2vl/$n
		grep -q '^# SL2VL table' "$d/sl2vl/$n" || it_fail "smpquery sl2vl $(sed -n "${n}p" "$q") failed"
		cat "$d/sl2vl/$n" >>"$d/sl2vl.txt"
	done
	it_log "   smpquery sl2vl: $(wc -l <"$q") queries"
}

# sa_sample: saquery -p for a sample of the pairs of $d/sls.txt holding
# every SL in use: the same SL as sls, pair by pair
sa_sample() {
	local s dl sl got n=0 lines
	lines=$(wc -l <"$d/sls.txt")
	# every k-th pair, plus the first pair of each SL
	awk -v k=$(((lines + SAMPLE - 1) / SAMPLE)) 'NR % k == 1 || !seen[$3]++' "$d/sls.txt" >"$d/sa.pairs"
	: >"$d/sa.cmp"
	while read -r s dl sl; do
		got=$(sim_client saquery -p --src-to-dst "$s:$dl" 2>/dev/null |
			sed -nE 's/^[[:space:]]*sl\.+0x([0-9a-fA-F])$/\1/p' | head -n 1)
		printf '%s:%s %s %s\n' "$s" "$dl" "$sl" "${got:-none}" >>"$d/sa.cmp"
		n=$((n + 1))
	done <"$d/sa.pairs"
	IT_LAST_OUT=$d/sa.cmp
	awk '$2 != $3' "$d/sa.cmp" >"$d/sa.diff"
	[ ! -s "$d/sa.diff" ] || it_fail "saquery -p and sls disagree on $(wc -l <"$d/sa.diff") of $n pairs (pair sls saquery)"
	it_log "   saquery -p --src-to-dst: $n pairs (SLs $(awk '{ print $3 }' "$d/sa.pairs" | sort -u | tr '\n' ' ')) carry the SL sls lists"
}

# check_vl_fabric: steps 1-5 on the running SM (VLS set by sm_up_vlsp)
check_vl_fabric() {
	local top rc tables=() n_tables
	check_all
	it_step "the VLs: sls, SLtoVL tables, credit loops per VL, PathRecord SLs"
	client=$(it_client_wrapper)
	sm_ctl "$d/sls.txt" sls
	top=$(awk 'BEGIN { m = 0 } $3 > m { m = $3 } END { print m }' "$d/sls.txt")
	[ "$VLS" = $((top + 1)) ] || it_fail "vls=$VLS but the highest SL nanosmctl sls lists is $top"
	if [ "$VLS" -ge 2 ]; then
		read_tables
		IT_LAST_OUT=$d/tables.out
		$CHECK_VL tables --topo "$d/ibnetdiscover.txt" --sl2vl "$d/sl2vl.txt" --vls "$VLS" \
			>"$d/tables.out" 2>&1 || it_fail "the SLtoVL tables read back are not the planned ones"
		sed "s/^/[$IT_NAME]    /" "$d/tables.out"
		n_tables=$(sed -nE 's/^sl2vl: OK - ([0-9]+) tables.*/\1/p' "$d/tables.out")
		sm_want_field 1 sl2vl_reads = "$n_tables"
		sm_want_field 1 sl2vl_sets -gt 0
		tables=(--sl2vl "$d/sl2vl.txt")
	else
		sm_want_field 1 sl2vl_reads = 0
		sm_want_field 1 sl2vl_sets = 0
	fi
	IT_LAST_OUT=$d/loops.out
	$CHECK_VL loops --topo "$d/ibnetdiscover.txt" --fts "$d/dump_fts.txt" --sls "$d/sls.txt" \
		"${tables[@]}" --client "$client" >"$d/loops.out" 2>&1 || it_fail "credit loop check failed"
	sed "s/^/[$IT_NAME]    /" "$d/loops.out"
	IT_LAST_OUT=$d/loops0.out
	$CHECK_VL loops --topo "$d/ibnetdiscover.txt" --fts "$d/dump_fts.txt" --sls "$d/sls.txt" \
		"${tables[@]}" --client "$client" --all-sl0 >"$d/loops0.out" 2>&1
	rc=$?
	if [ "$VLS" -ge 2 ]; then
		if [ $rc != 1 ] || ! grep -q '^vl-loops: FAILED - credit loop on VL 0' "$d/loops0.out"; then
			it_fail "control: the routes all on SL 0 should close a cycle on VL 0 (status $rc)"
		fi
		it_log "   control, the same routes all on SL 0: $(cut -c1-200 "$d/loops0.out")"
	else
		[ $rc = 0 ] || it_fail "control: the routes (one VL) all on SL 0 should pass as they are (status $rc)"
	fi
	sa_sample
}

# fabric_run NAME FILE: the SM on FILE with a fresh ibsim and guid2lid
fabric_run() {
	it_step "$1: nanosm -R vlsp"
	sim_start "$2"
	mkdir -p "$IT_SCRATCH/state.$1"
	g2l=$IT_SCRATCH/state.$1/guid2lid
	rm -f "$d"/*.txt
	sm_up_vlsp
	check_vl_fabric
	it_log "$1: engine=vlsp vls=$VLS"
}

"$GEN" ring --switches 5 --hosts 2 -o "$IT_SCRATCH/fabrics/ring5.topo" ||
	it_fail "nanosm-gen ring failed"
"$GEN" torus --x 3 --y 3 --z 3 --hosts 1 -o "$IT_SCRATCH/fabrics/torus3x3x3.topo" ||
	it_fail "nanosm-gen torus failed"

fabric_file ring.topo
fabric_run ring "$IT_FABRIC"
sm_stop
sim_stop

fabric_file torus3x3x2.topo
fabric_run torus3x3x2 "$IT_FABRIC"
sm_stop
sim_stop

fabric_run torus3x3x3 "$IT_SCRATCH/fabrics/torus3x3x3.topo"
sm_stop
sim_stop

# a 6x6 torus whose paths fit fewer VLs one by one than destination by
# destination: an SL per path (routing/vlsp_path.c), so the paths to one
# DLID ride different SLs from different sources
"$GEN" torus --x 6 --y 6 --hosts 1 -o "$IT_SCRATCH/fabrics/torus6x6.topo" ||
	it_fail "nanosm-gen mesh failed"
fabric_run torus6x6 "$IT_SCRATCH/fabrics/torus6x6.topo"
grep -q 'an SL per path' "$SM_LOG" || it_fail "torus6x6: the engine's note names no SL per path"
mixed=$(awk '{ k = $2; if (k in sl && sl[k] != $3) m[k] = 1; sl[k] = $3 } END { print length(m) }' "$d/sls.txt")
[ "$mixed" -gt 0 ] || it_fail "torus6x6: every DLID has one SL in nanosmctl sls (no SL per path)"
it_log "torus6x6: $mixed DLIDs with paths on different SLs"
sm_stop
sim_stop

fabric_run ring5 "$IT_SCRATCH/fabrics/ring5.topo"
[ "$VLS" -ge 2 ] || it_fail "ring5: vls=$VLS, its shortest paths need 2 VLs"
n_tables=$(sm_sweep_field 1 sl2vl_reads)

it_step "ring5: a second sweep writes nothing"
sm_sweep_to 2
sm_want_field 2 sl2vl_sets = 0
sm_want_field 2 sl2vl_reads = 0
sm_want_field 2 lft_blocks_sent = 0
sm_stop

it_step "ring5: a restart with the same guid2lid reads every SLtoVL table, writes none"
sm_up_vlsp
sm_want_field 1 sl2vl_reads = "$n_tables"
sm_want_field 1 sl2vl_sets = 0
sm_want_field 1 lft_blocks_sent = 0
it_log "restart: vls=$VLS sl2vl_reads=$n_tables sl2vl_sets=0 lft_blocks_sent=0"
sm_stop
it_pass
