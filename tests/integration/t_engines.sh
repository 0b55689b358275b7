#!/bin/bash
# engines: each routing engine (-R) alone brings each bundled fabric it
# applies to up, and the SUBNET UP line names it; the diags judge the routes
# (checks a, b, c).  ftree only runs on trees (lab, fattree64); updn on all.
. "$(dirname "$0")/lib.sh"

[ "$SM" = nanosm ] || { it_init engines; it_skip "nanosm's -R engine list only"; }

engines_case() { # NAME FABRIC ENGINE
	(
		export NANOSM_ARGS="-R $3"
		it_init "$1"
		fabric_file "$2"
		sim_start "$IT_FABRIC"
		sm_start
		sm_wait_up
		grep -q "SUBNET UP: .*engine=$3 " "$SM_LOG" ||
			it_fail "SUBNET UP does not name engine $3: $(grep -m1 'SUBNET UP' "$SM_LOG")"
		check_all
		sm_stop
		it_pass
	) || exit 1
}

engines_case engines-lab-updn lab.topo updn
engines_case engines-lab-ftree lab.topo ftree
engines_case engines-twosw-updn twosw.topo updn
engines_case engines-ring-updn ring.topo updn
engines_case engines-fattree64-updn fattree64.topo updn
engines_case engines-fattree64-ftree fattree64.topo ftree
