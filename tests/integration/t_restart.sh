#!/bin/bash
# restart: LIDs survive an SM restart on a brand-new fabric via guid2lid.
#
#  1. fresh ibsim, SM --once --guid2lid STATE  -> record every port's LID
#  2. stop ibsim; start a fresh one (all LIDs 0 again, checked) and attach
#     the SM at a *different* CA, so discovery order - and hence a naive
#     fresh assignment - differs
#  3. SM --once with the same guid2lid          -> every port has the same LID
#  4. control (informational): same as 2+3 without the guid2lid file, to show
#     whether the fabric would otherwise have come up with other LIDs.
. "$(dirname "$0")/lib.sh"

FABRIC=${RESTART_FABRIC:-ring.topo}

it_init restart
fabric_file "$FABRIC"
state=$IT_SCRATCH/state
mkdir -p "$state"
g2l=$state/guid2lid
first=$(fabric_first_ca "$IT_FABRIC")
other=$(fabric_nodes "$IT_FABRIC" ca | tail -n 1)
d=$IT_SCRATCH/chk
mkdir -p "$d"

# run_once TAG HOST [--guid2lid PATH]: fresh ibsim, SM --once from HOST,
# LIDs into $d/lids.TAG.txt
run_once() {
	local tag=$1 host=$2
	shift 2
	sim_start "$IT_FABRIC" "$host"
	# a fresh ibsim must start with every LID 0, or the test proves nothing
	run_tool "$d/ibnd.$tag.pre.txt" ibnetdiscover
	"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$d/ibnd.$tag.pre.txt" >"$d/lids.$tag.pre.txt"
	IT_LAST_OUT=$d/lids.$tag.pre.txt
	awk '$2 != 0 { bad = 1 } END { exit bad }' "$d/lids.$tag.pre.txt" ||
		it_fail "fresh ibsim ($tag) does not start with all LIDs 0"
	sm_start --once "$@"
	sm_wait_up
	sm_wait_exit
	[ "$SM_RC" = 0 ] || it_fail "SM --once exited with status $SM_RC"
	check_ports
	run_tool "$d/ibnd.$tag.txt" ibnetdiscover
	"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$d/ibnd.$tag.txt" >"$d/lids.$tag.txt"
	sim_stop
	rm -f "$d/ibnetdiscover.txt" # check_ports output of this fabric instance
}

it_step "run 1: fresh fabric, SM at \"$first\" with --guid2lid"
run_once first "$first" --guid2lid "$g2l"
IT_LAST_OUT=$SM_LOG
[ -s "$g2l" ] || it_fail "SM did not write the guid2lid file $g2l"
it_log "guid2lid: $(wc -l <"$g2l") lines; LIDs recorded for $(wc -l <"$d/lids.first.txt") ports"

it_step "run 2: new fresh fabric, SM at \"$other\", same --guid2lid"
run_once second "$other" --guid2lid "$g2l"
IT_LAST_OUT=$d/lids.diff
if ! diff -u "$d/lids.first.txt" "$d/lids.second.txt" >"$d/lids.diff"; then
	it_fail "LIDs changed across the restart ($(grep -c '^+0x' "$d/lids.diff") ports differ; diff: portguid lid name)"
fi
it_log "all $(wc -l <"$d/lids.second.txt") ports kept their LIDs"

it_step "control: new fresh fabric, SM at \"$other\", no guid2lid (informational)"
mkdir -p "$IT_SCRATCH/state2"
run_once control "$other" --guid2lid "$IT_SCRATCH/state2/guid2lid"
n=$(join <(awk '{print $1, $2}' "$d/lids.first.txt") <(awk '{print $1, $2}' "$d/lids.control.txt") |
	awk '$2 != $3' | wc -l)
if [ "$n" -gt 0 ]; then
	it_log "without the file $n ports would have had a different LID: guid2lid made the difference"
else
	it_log "note: without the file the SM chose the same LIDs anyway (this fabric/attach point does not discriminate)"
fi
it_pass
