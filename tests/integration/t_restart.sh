#!/bin/bash
# restart: LIDs survive an SM restart on a brand-new fabric via guid2lid.
#
# Part A (plain): fresh ibsim, SM --once --guid2lid A -> record every port's
#   LID; stop ibsim; fresh ibsim (all LIDs 0 again - checked), SM attached at
#   a different CA, --once with the same file -> every port has the same LID.
#
# Part B (discriminating): a deterministic SM hands out the same LIDs on a
#   fresh fabric with or without the file, so part A alone cannot tell them
#   apart.  Here every other CA (never the SM's) is unlinked (ibsim console
#   "Unlink") before the SM starts; once the rest is up they are re-linked and
#   picked up by re-sweeps, so they get LIDs a from-scratch assignment would
#   not give them.  After a restart on a fresh full fabric with guid2lid B
#   every port must have exactly those LIDs again.  The number of ports whose
#   LID differs from part A's from-scratch assignment is reported (0 would
#   mean the fabric did not discriminate: noted, not failed).
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

FABRIC=${RESTART_FABRIC:-ring.topo}

it_init restart
fabric_file "$FABRIC"
first=$(fabric_first_ca "$IT_FABRIC")
other=$(fabric_nodes "$IT_FABRIC" ca | tail -n 1)
d=$IT_SCRATCH/chk
mkdir -p "$d" "$IT_SCRATCH/stateA" "$IT_SCRATCH/stateB"
g2lA=$IT_SCRATCH/stateA/guid2lid
g2lB=$IT_SCRATCH/stateB/guid2lid

# fresh_sim TAG HOST: new ibsim; assert it starts with every LID 0
fresh_sim() {
	sim_start "$IT_FABRIC" "$2"
	run_tool "$d/ibnd.$1.pre.txt" ibnetdiscover
	"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$d/ibnd.$1.pre.txt" >"$d/lids.$1.pre.txt"
	IT_LAST_OUT=$d/lids.$1.pre.txt
	awk '$2 != 0 { bad = 1 } END { exit bad }' "$d/lids.$1.pre.txt" ||
		it_fail "fresh ibsim ($1) does not start with all LIDs 0"
}

# record_lids TAG: every end port's LID (by port GUID) -> $d/lids.TAG.txt
record_lids() {
	run_tool "$d/ibnd.$1.txt" ibnetdiscover
	"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$d/ibnd.$1.txt" >"$d/lids.$1.txt"
}

# once TAG HOST GUID2LID: fresh fabric, SM --once, check (a), record LIDs
once() {
	fresh_sim "$1" "$2"
	sm_start --once --guid2lid "$3"
	sm_wait_up
	sm_wait_exit
	[ "$SM_RC" = 0 ] || it_fail "SM --once exited with status $SM_RC"
	check_ports
	record_lids "$1"
	sim_stop
}

# same_lids A B: the two LID lists must be identical
same_lids() {
	IT_LAST_OUT=$d/lids.$1.$2.diff
	diff -u "$d/lids.$1.txt" "$d/lids.$2.txt" >"$IT_LAST_OUT" ||
		it_fail "LIDs changed across the restart ($(grep -c '^+0x' "$IT_LAST_OUT") ports differ; lines are: portguid lid name)"
}

it_step "A1: fresh fabric, SM --once at \"$first\" with --guid2lid"
once a1 "$first" "$g2lA"
IT_LAST_OUT= # it_fail prints the SM log anyway
[ -s "$g2lA" ] || it_fail "SM did not write the guid2lid file $g2lA"
it_log "guid2lid written ($(wc -l <"$g2lA") lines); LIDs of $(wc -l <"$d/lids.a1.txt") ports recorded"

it_step "A2: new fresh fabric, SM --once at \"$other\", same --guid2lid"
once a2 "$other" "$g2lA"
same_lids a1 a2
it_log "all $(wc -l <"$d/lids.a2.txt") ports kept their LIDs"

it_step "B1: fresh fabric with every other CA unlinked; SM (sweep 1 s) at \"$first\"; then re-link"
fresh_sim b1 "$first"
mapfile -t late < <(fabric_nodes "$IT_FABRIC" ca | grep -vxF "$first" | awk 'NR % 2 == 1')
for n in "${late[@]}"; do sim_cmd "Unlink \"$n\""; done
sm_start --sweep-interval 1 --guid2lid "$g2lB"
sm_wait_up
for n in "${late[@]}"; do sim_cmd "ReLink \"$n\""; done
it_log "re-linked ${#late[@]} CAs: ${late[*]}"
wait_ports_ok 30
sleep 2 # two more sweeps, so the SM has had every chance to persist the LIDs
record_lids b1
sm_stop
sim_stop
[ -s "$g2lB" ] || it_fail "SM did not write the guid2lid file $g2lB"
n=$(join <(awk '{print $1, $2}' "$d/lids.a1.txt") <(awk '{print $1, $2}' "$d/lids.b1.txt") |
	awk '$2 != $3' | wc -l)

it_step "B2: new fresh fabric, SM --once at \"$other\", same --guid2lid"
once b2 "$other" "$g2lB"
same_lids b1 b2
if [ "$n" -gt 0 ]; then
	it_log "all ports kept their LIDs, including $n that differ from a from-scratch assignment"
else
	it_log "all ports kept their LIDs (note: none differed from a from-scratch assignment, so part B did not discriminate)"
fi
it_pass
