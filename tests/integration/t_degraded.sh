#!/bin/bash
# degraded: generated fabrics beyond trees and rings come up (issue 15): a
# 3-D torus (torus3x3x2.topo, with the parallel cables of its size-2
# dimension) and a 3-level fat tree with an aggregation switch and a cable
# gone (ft3k4-degraded.topo), each with updn alone and with the default
# engine list; the SUBNET UP line names the engine and the diags judge the
# routes (checks a, b, c).
. "$(dirname "$0")/lib.sh"

[ "$SM" = nanosm ] || { it_init degraded; it_skip "nanosm's -R engine list only"; }

degraded_case() { # NAME FABRIC [ENGINE]: ENGINE empty = the default list
	(
		export NANOSM_ARGS="${3:+-R $3}"
		it_init "$1"
		fabric_file "$2"
		sim_start "$IT_FABRIC"
		sm_start
		sm_wait_up
		grep -qE "SUBNET UP: .*engine=${3:-[a-z]+} " "$SM_LOG" ||
			it_fail "SUBNET UP does not name engine ${3:-(any)}: $(grep -m1 'SUBNET UP' "$SM_LOG")"
		it_log "   $(grep -m1 -oE 'engine=[^ ]+' "$SM_LOG")"
		check_all
		sm_stop
		it_pass
	) || exit 1
}

degraded_case degraded-torus3x3x2-updn torus3x3x2.topo updn
degraded_case degraded-torus3x3x2-default torus3x3x2.topo
degraded_case degraded-ft3k4-updn ft3k4-degraded.topo updn
degraded_case degraded-ft3k4-default ft3k4-degraded.topo
