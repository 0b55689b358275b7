#!/bin/bash
# degraded: generated fabrics beyond trees and rings come up (issue 15): a
# 3-D torus (torus3x3x2.topo, with the parallel cables of its size-2
# dimension) and a 3-level fat tree with an aggregation switch and a cable
# gone (ft3k4-degraded.topo), each with updn alone and with the default
# engine list (ftree,vlsp,updn,minhop); the SUBNET UP line names the engine
# the list must end on (the torus: vlsp, ibsim's ports offer 8 data VLs;
# the tree: ftree where it routes around what is missing, else vlsp, never
# updn) and the diags judge the routes (checks a, b, c).
. "$(dirname "$0")/lib.sh"

[ "$SM" = nanosm ] || { it_init degraded; it_skip "nanosm's -R engine list only"; }

# NAME FABRIC [ENGINE [EXPECT]]: ENGINE empty = the default list; EXPECT:
# an ERE of the engine SUBNET UP must name (default ENGINE)
degraded_case() {
	(
		export NANOSM_ARGS="${3:+-R $3}"
		want=${4:-$3}
		it_init "$1"
		fabric_file "$2"
		sim_start "$IT_FABRIC"
		sm_start
		sm_wait_up
		grep -qE "SUBNET UP: .*engine=($want) vls=[0-9]+ " "$SM_LOG" ||
			it_fail "SUBNET UP does not name engine $want and its VLs: $(grep -m1 'SUBNET UP' "$SM_LOG")"
		it_log "   $(grep -m1 -oE 'engine=[^ ]+ vls=[0-9]+' "$SM_LOG")"
		check_all
		sm_stop
		it_pass
	) || exit 1
}

degraded_case degraded-torus3x3x2-updn torus3x3x2.topo updn
degraded_case degraded-torus3x3x2-default torus3x3x2.topo '' vlsp
degraded_case degraded-ft3k4-updn ft3k4-degraded.topo updn
degraded_case degraded-ft3k4-default ft3k4-degraded.topo '' 'ftree|vlsp'
