#!/bin/bash
# vl: virtual lanes as the SM programs and answers them (issue 15), on the
# ring, with the --test-vl-switch test aid standing in for a VL-aware
# engine: the paths to sw3 and to its hosts (host5, host6) ride SL 1, the
# rest SL 0, so the routes use 2 VLs.  Checks:
#   1. SUBNET UP and the sweep line say vls=2; SLtoVL tables were read and
#      written (sl2vl_reads, sl2vl_sets > 0); checks (a), (b), (c) pass.
#   2. smpquery sl2vl reads back the planned table (SL 0 -> VL 0, SL 1 ->
#      VL 1, every other SL -> VL 0) on every CA port and on every switch
#      pair of linked ports (input port 0 included); the pairs of the
#      unplugged port 3 keep ibsim's default.
#   3. nanosmctl sls: one line per CA port LID x other LID, SL 1 exactly
#      for the LIDs of sw3, host5 and host6.
#   4. saquery -p (one Get per pair) answers, for every pair sls lists,
#      the same SL.
#   5. sweep 2 (nothing changed): sl2vl_sets=0 sl2vl_reads=0.
#   6. a restart with the same guid2lid: every table read, none written
#      (sl2vl_sets=0), no LFT block written.
#   7. a restart without the test aid: vls=1, no SLtoVL SMP at all, the
#      tables stay, PathRecords say SL 0.
# The SM runs -R updn (one VL of its own, whatever the default list would
# give the ring), so the aid alone decides the SLs.
# nanosm-specific (the test aid, the sweep figures, nanosmctl): SKIPped
# under SM=opensm.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

PLANNED='| 0| 1| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0|'
IBSIM_DEFAULT='| 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14| 7|'

it_init vl
[ "$SM" = nanosm ] || it_skip "the --test-vl-switch aid and the sweep figures are nanosm's; SM=$SM"
d=$IT_SCRATCH/chk
mkdir -p "$d" "$IT_SCRATCH/state"
g2l=$IT_SCRATCH/state/guid2lid

# lid_of NAME: the LID nanosmctl lids gives node NAME
lid_of() { awk -v n="$1" '$3 == n { print $2; exit }' "$d/lids.txt"; }

# linked_ports NODE: the port numbers of NODE's cables in the fabric file
linked_ports() {
	awk -v n="\"$1\"" '/^(Switch|Hca|Ca)/ { inside = ($3 == n) } inside && /^\[/ {
		gsub(/[][]/, " ", $1); print $1 + 0 }' "$IT_FABRIC"
}

fabric_file ring.topo
sim_start "$IT_FABRIC"
sw3=$(awk '/^switchguid=/ { g = $0 } /^Switch.*"sw3"/ { sub(/.*=/, "", g); print g; exit }' "$IT_FABRIC")
[ -n "$sw3" ] || it_fail "no switchguid for sw3 in $IT_FABRIC"

it_step "1: nanosm --test-vl-switch $sw3 (sw3, host5, host6 on SL 1)"
NANOSM_ARGS="${NANOSM_ARGS:-} -R updn --test-vl-switch $sw3" sm_start --guid2lid "$g2l"
sm_wait_up
grep -m1 'SUBNET UP' "$SM_LOG" | grep -q ' vls=2 ' || it_fail "SUBNET UP does not say vls=2"
sm_want_field 1 vls = 2
sm_want_field 1 sl2vl_reads -gt 0
sm_want_field 1 sl2vl_sets -gt 0
sm_want_field 1 set_errors = 0
it_log "sweep 1: sl2vl_reads=$(sm_sweep_field 1 sl2vl_reads) sl2vl_sets=$(sm_sweep_field 1 sl2vl_sets)"
check_all

it_step "2: smpquery sl2vl reads back the planned tables"
sm_ctl "$d/lids.txt" lids
n_ca=0 n_pairs=0
for ca in $(fabric_nodes "$IT_FABRIC" ca); do
	lid=$(lid_of "$ca")
	[ -n "$lid" ] || it_fail "no LID for $ca in nanosmctl lids"
	run_tool "$d/sl2vl.$ca.txt" smpquery sl2vl "$lid"
	grep -qF "$PLANNED" "$d/sl2vl.$ca.txt" || it_fail "$ca (LID $lid) does not hold the planned SLtoVL table"
	n_ca=$((n_ca + 1))
done
for sw in $(fabric_nodes "$IT_FABRIC" sw); do
	lid=$(lid_of "$sw")
	[ -n "$lid" ] || it_fail "no LID for $sw in nanosmctl lids"
	linked=" $(linked_ports "$sw" | tr '\n' ' ')"
	for out in $(seq 1 8); do
		run_tool "$d/sl2vl.$sw.$out.txt" smpquery sl2vl "$lid" "$out"
		while read -r in row; do
			case "$linked" in *" $out "*) out_up=1 ;; *) out_up=0 ;; esac
			case " 0$linked" in *" $in "*) in_up=1 ;; *) in_up=0 ;; esac
			if [ "$out_up" = 1 ] && [ "$in_up" = 1 ] && [ "$in" != "$out" ]; then
				want=$PLANNED
				n_pairs=$((n_pairs + 1))
			else
				want=$IBSIM_DEFAULT
			fi
			IT_LAST_OUT=$d/sl2vl.$sw.$out.txt
			[ "$row" = "$want" ] || it_fail "$sw in $in out $out holds '$row', expected '$want'"
		done < <(sed -nE 's/^ports: in +([0-9]+), out +[0-9]+: (.*)$/\1 \2/p' "$d/sl2vl.$sw.$out.txt")
	done
done
it_log "$n_ca CA ports and $n_pairs switch port pairs hold SL0->VL0 SL1->VL1, the rest VL0; unplugged pairs untouched"
[ "$n_pairs" -gt 0 ] || it_fail "no switch port pair checked"
total=$((n_ca + n_pairs))
[ "$(sm_sweep_field 1 sl2vl_reads)" = "$total" ] ||
	it_fail "sweep 1 read $(sm_sweep_field 1 sl2vl_reads) SLtoVL tables, the fabric has $total"

it_step "3: nanosmctl sls"
sm_ctl "$d/sls.txt" sls
n_lids=$(awk 'NF >= 2 && $2 > 0' "$d/lids.txt" | awk '$3 != "(not"' | wc -l)
want_lines=$((n_ca * (n_lids - 1)))
[ "$(wc -l <"$d/sls.txt")" = "$want_lines" ] ||
	it_fail "sls printed $(wc -l <"$d/sls.txt") lines, expected $n_ca CA ports x $((n_lids - 1)) LIDs = $want_lines"
sl1=" $(lid_of sw3) $(lid_of host5) $(lid_of host6) "
IT_LAST_OUT=$d/sls.txt
awk -v sl1="$sl1" '{ want = index(sl1, " " $2 " ") ? 1 : 0; if ($3 != want) { print "bad:", $0; bad = 1 } }
	END { exit bad }' "$d/sls.txt" >"$d/sls.bad" || it_fail "sls: wrong SLs ($(head -n 3 "$d/sls.bad" | tr '\n' ' '))"
it_log "sls: $want_lines lines, SL 1 exactly to LIDs$sl1"

it_step "4: saquery -p answers the same SLs"
# one PathRecord Get per pair: ibsim carries only the first MAD of a
# GetTable answer (three records)
pr_sl() { # SLID DLID: the SL of the PathRecord saquery gets, or nothing
	sim_client saquery -p --src-to-dst "$1:$2" 2>/dev/null |
		sed -nE 's/^[[:space:]]*sl\.+0x([0-9a-fA-F])$/\1/p' | head -n 1
}
: >"$d/pr.cmp"
while read -r s dl sl; do
	printf '%s:%s %s %s\n' "$s" "$dl" "$sl" "$(pr_sl "$s" "$dl")" >>"$d/pr.cmp"
done <"$d/sls.txt"
IT_LAST_OUT=$d/pr.cmp
awk '$2 != $3' "$d/pr.cmp" >"$d/pr.diff"
IT_LAST_OUT=$d/pr.diff
[ ! -s "$d/pr.diff" ] ||
	it_fail "saquery -p and sls disagree on $(wc -l <"$d/pr.diff") of $want_lines pairs (pair sls saquery)"
grep -q ' 1 1$' "$d/pr.cmp" || it_fail "no PathRecord on SL 1"
it_log "saquery -p --src-to-dst: all $want_lines pairs carry the SL sls lists"

it_step "5: a second sweep changes nothing"
sm_sweep_to 2
sm_want_field 2 sl2vl_sets = 0
sm_want_field 2 sl2vl_reads = 0
sm_want_field 2 lft_blocks_sent = 0
sm_stop

it_step "6: a restart with the same guid2lid reads every table, writes none"
NANOSM_ARGS="${NANOSM_ARGS:-} -R updn --test-vl-switch $sw3" sm_start --guid2lid "$g2l"
sm_wait_up
sm_want_field 1 vls = 2
sm_want_field 1 sl2vl_reads = "$total"
sm_want_field 1 sl2vl_sets = 0
sm_want_field 1 lft_blocks_sent = 0
it_log "restart: sl2vl_reads=$total sl2vl_sets=0"
sm_stop

it_step "7: a restart without the test aid: one VL, no SLtoVL SMP, SL 0 paths"
NANOSM_ARGS="${NANOSM_ARGS:-} -R updn" sm_start --guid2lid "$g2l"
sm_wait_up
grep -m1 'SUBNET UP' "$SM_LOG" | grep -q ' vls=1 ' || it_fail "SUBNET UP does not say vls=1"
sm_want_field 1 sl2vl_reads = 0
sm_want_field 1 sl2vl_sets = 0
run_tool "$d/sl2vl.host5.after.txt" smpquery sl2vl "$(lid_of host5)"
grep -qF "$PLANNED" "$d/sl2vl.host5.after.txt" || it_fail "host5's SLtoVL table changed without VLs in use"
for dl in $(lid_of sw3) $(lid_of host5) $(lid_of host6); do
	sl=$(pr_sl "$(lid_of host1)" "$dl")
	[ "$sl" = 0 ] || it_fail "PathRecord host1 -> LID $dl: SL '$sl', expected 0 without VLs"
done
check_routes
sm_stop
it_pass
