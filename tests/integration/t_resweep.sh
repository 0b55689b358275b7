#!/bin/bash
# resweep: on an unchanged fabric a re-sweep must be quiet - heavy sweeps 2
# and 3 (asked for through nanosmctl) must report lft_blocks_sent=0 and
# port_sets=0 (sweep 1 must have sent both, so the counters are live) and
# use sweep 1's tables without running the engine and the gate again; and
# the light sweeps --sweep-interval 1 runs in between cost one SwitchInfo
# Get per switch and find no change.  At exit, at least 90 % of the SMPs
# left from the loop's own thread (issue 18), the window fitted to ibsim.
# nanosm-specific counters: SKIPped under SM=opensm.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

FABRIC=${RESWEEP_FABRIC:-fattree64.topo}

it_init resweep
[ "$SM" = nanosm ] || it_skip "sweep counters (lft_blocks_sent, port_sets) are nanosm-specific; SM=$SM"
fabric_file "$FABRIC"
sim_start "$IT_FABRIC"
sm_start --sweep-interval 1
sm_wait_up
sm_sweep_to 3

# sweep_field N KEY: value of KEY=... on the first 'sweep N:' line
sweep_field() {
	grep -hE "(^|[^0-9A-Za-z_])sweep $1:" "$SM_LOG" | head -n 1 |
		grep -oE "(^|[[:space:]])$2=[0-9]+" | head -n 1 | sed 's/.*=//'
}

# shellcheck disable=SC2034 # read by it_fail in lib.sh
IT_LAST_OUT= # it_fail shows the SM log anyway
for n in 1 2 3; do
	line=$(grep -hE "(^|[^0-9A-Za-z_])sweep $n:" "$SM_LOG" | head -n 1)
	it_log "  ${line#"${line%%sweep*}"}"
	for k in lft_blocks_sent port_sets; do
		v=$(sweep_field "$n" "$k")
		[ -n "$v" ] || it_fail "'sweep $n:' line has no $k= field"
		if [ "$n" = 1 ]; then
			[ "$v" -gt 0 ] || it_fail "sweep 1 reports $k=$v: the first sweep must program the fabric"
		else
			[ "$v" = 0 ] || it_fail "sweep $n is not quiet: $k=$v (expected 0 on an unchanged fabric)"
		fi
	done
done
it_log "sweeps 2 and 3: lft_blocks_sent=0 port_sets=0"
# the fabric is the one sweep 1 routed (its ports came up since, which
# routes alike): sweeps 2 and 3 use sweep 1's tables again, engine and
# gate not run
for n in 2 3; do
	grep -qE "routing: sweep $n found the fabric sweep 1 routed: its tables \(engine [a-z]+\) are used again" "$SM_LOG" ||
		it_fail "sweep $n ran the routing engine again on an unchanged fabric"
done
it_log "sweeps 2 and 3: sweep 1's tables used again (engine and gate not run)"

# light sweeps: one MAD per switch, no change found, no heavy sweep caused
sm_wait 'light sweep: [0-9]+ switches, [0-9]+ MADs' 10 || it_fail "no light sweep line"
line=$(grep -hE 'light sweep: [0-9]+ switches' "$SM_LOG" | tail -n 1)
it_log "  ${line#*nanosm: }"
sw=$(echo "$line" | sed -E 's/.*light sweep: ([0-9]+) switches, ([0-9]+) MADs.*/\1/')
mads=$(echo "$line" | sed -E 's/.*light sweep: ([0-9]+) switches, ([0-9]+) MADs.*/\2/')
[ "$sw" = "$mads" ] || it_fail "a light sweep of $sw switches sent $mads MADs"
echo "$line" | grep -q 'no change' || it_fail "a light sweep found a change on an unchanged fabric"
grep -q 'light sweep: .*: heavy sweep' "$SM_LOG" && it_fail "a light sweep escalated on an unchanged fabric"

# the fabric is still fine after the re-sweeps
check_ports
check_routes
sm_stop

# issue 18: under umad2sim the window fits ibsim's socket, and the SMPs
# leave from the loop itself, not through the sender thread
qlen=$(cat /proc/sys/net/unix/max_dgram_qlen)
grep -qE "SMP window [0-9]+ -> $((qlen - 2)):" "$SM_LOG" ||
	[ "$qlen" -ge 18 ] || it_fail "no 'SMP window 16 -> $((qlen - 2))' line (max_dgram_qlen $qlen)"
line=$(grep -hE 'MAD counters: sent=[0-9]+ .*sent_by_loop=[0-9]+' "$SM_LOG" | tail -n 1)
[ -n "$line" ] || it_fail "no 'MAD counters: ... sent_by_loop=' line at exit"
sent=$(echo "$line" | sed -E 's/.*MAD counters: sent=([0-9]+).*/\1/')
by_loop=$(echo "$line" | sed -E 's/.*sent_by_loop=([0-9]+).*/\1/')
it_log "  ${line#*nanosm: }"
[ $((by_loop * 10)) -ge $((sent * 9)) ] ||
	it_fail "only $by_loop of $sent SMPs left from the loop (the rest through the sender thread)"
it_pass
