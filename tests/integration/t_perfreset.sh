#!/bin/bash
# perfreset: the performance manager keeps 64-bit totals over the PMA's
# saturating counters.  On twosw.topo with a 2 s interval, ibsim's console
# sets SymbolErrorCounter (16 bits, saturates at 65535) of sw1 port 7 to
# 40000, past half its range: the next pass reads it and clears the port
# (PortCounters Set), so perfquery then reads 0 there while
# infiniband_switch_port_symbol_error_total says 40000.  Set to 40000 again,
# the total reaches 80000, more than the counter itself can hold; the
# clears are counted in nanosm_perfmgr_clears_total; sw1 port 8, never
# raised, shows no symbol errors.  Last, `nanosmctl reload` of the policy
# with monitor.listen added starts the HTTP listener (GET /metrics answers
# the same total), and a reload without it stops it.
# nanosm-specific: SKIPped under SM=opensm.
. "$(dirname "$0")/lib.sh"

it_init perfreset
[ "$SM" = nanosm ] || it_skip "nanosm's performance manager only"
fabric_file twosw.topo
pol=$IT_SCRATCH/nanosm.yaml
printf 'monitor:\n  interval: 2\n' >"$pol"
export NANOSM_ARGS="-f $pol"
sw1=0x0002c90300b00101
d=$IT_SCRATCH/chk
mkdir -p "$d"
metric="infiniband_switch_port_symbol_error_total{guid=\"$sw1\",port=\"7\"}"

# wait_metric VALUE: the symbol error total of sw1/7 reaches VALUE (bounded)
wait_metric() {
	local i
	for i in $(seq 40); do
		sm_ctl "$d/metrics.txt" metrics
		grep -qx "$metric $1" "$d/metrics.txt" && return 0
		sleep 0.25
	done
	IT_LAST_OUT=$d/metrics.txt
	it_fail "$metric never reached $1"
}

# symbol_errors_now: SymbolErrorCounter of sw1/7 as perfquery reads it
symbol_errors_now() {
	local lid
	lid=$(sed -nE "s/^infiniband_switch_info\{guid=\"$sw1\",lid=\"([0-9]+)\".*/\1/p" "$d/metrics.txt")
	sim_client perfquery "$lid" 7 >"$d/pq.txt" 2>&1 || { IT_LAST_OUT=$d/pq.txt; it_fail "perfquery failed"; }
	sed -n 's/^SymbolErrorCounter:\.*//p' "$d/pq.txt"
}

sim_start "$IT_FABRIC"
sm_start --sweep-interval 300
sm_wait_up
sm_wait 'performance manager: pass 1 took' 10 || it_fail "no first performance manager pass"

it_step "40000 symbol errors (past half of 65535): read, then cleared"
sim_cmd 'PerformanceSet "sw1"[7] PortCounters.SymbolErrorCounter=40000'
wait_metric 40000
sleep 0.5
v=$(symbol_errors_now)
it_log "   total 40000, perfquery now reads $v"
[ "$v" = 0 ] || it_fail "sw1/7 SymbolErrorCounter is $v after the clear (expected 0)"

it_step "40000 more: the total goes past what the 16-bit counter holds"
sim_cmd 'PerformanceSet "sw1"[7] PortCounters.SymbolErrorCounter=40000'
wait_metric 80000
clears=$(sed -n 's/^nanosm_perfmgr_clears_total //p' "$d/metrics.txt")
[ "${clears:-0}" -ge 2 ] || { IT_LAST_OUT=$d/metrics.txt; it_fail "nanosm_perfmgr_clears_total is '$clears' (expected >= 2)"; }
grep -qE "^infiniband_switch_port_symbol_error_total\{guid=\"$sw1\",port=\"8\"\} 0$" "$d/metrics.txt" ||
	{ IT_LAST_OUT=$d/metrics.txt; it_fail "sw1/8 has symbol errors"; }

it_step "a reload adds monitor.listen, another takes it away"
port=$((20000 + RANDOM % 30000))
printf 'monitor:\n  interval: 2\n  listen: 127.0.0.1:%s\n' "$port" >"$pol"
sm_ctl "$d/reload1.txt" reload
sm_wait "metrics: listening on http://127.0.0.1:$port/metrics" 5 || it_fail "no listener after the reload"
timeout 10 python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode())' \
	"$port" >"$d/http.txt" 2>&1 || { IT_LAST_OUT=$d/http.txt; it_fail "GET /metrics failed"; }
grep -qx "$metric 80000" "$d/http.txt" || { IT_LAST_OUT=$d/http.txt; it_fail "HTTP /metrics lacks the total"; }
printf 'monitor:\n  interval: 2\n' >"$pol"
sm_ctl "$d/reload2.txt" reload
sm_wait "metrics: no longer listening on http://127.0.0.1:$port/metrics" 5 ||
	it_fail "the listener stayed after a reload without monitor.listen"
it_pass
