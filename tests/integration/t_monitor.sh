#!/bin/bash
# monitor: the performance manager on twosw.topo with a 2 s interval.  After
# a first pass (the baseline), ibsim's console raises SymbolErrorCounter on
# sw1 port 7 (the sw1-sw2 cable, degrading) and LinkDownedCounter on host3
# port 1 (the host3-sw2 cable, flapping).  Within two intervals: exactly two
# NSM-W760 lines, naming those two cables by both ends; `nanosmctl health`
# lists exactly those two with their counters and verdicts, `status` counts
# them; `nanosmctl metrics` carries the counters under the InfiniBand
# exporter's names (symbol errors 500 on sw1/7 only, link downed 3 on
# host3/1, data in bytes = 4 x perfquery's words, the info and uplink
# series naming the far ends); `topology --format dot` colours exactly those
# two cables (orange degrading, purple flapping).  With nothing rising for two intervals,
# NSM-W761 says each cable recovered.  monitor.listen serves the same
# metrics over HTTP on 127.0.0.1 (GET /metrics; 404 elsewhere, 405 for
# POST, 413 for a request head over 4 KiB, after which it still answers),
# also with no control socket (--socket none).
# nanosm-specific: SKIPped under SM=opensm.
. "$(dirname "$0")/lib.sh"

it_init monitor
[ "$SM" = nanosm ] || it_skip "nanosm's performance manager only"
fabric_file twosw.topo
pol=$IT_SCRATCH/nanosm.yaml
http_port=$((20000 + RANDOM % 30000))
cat >"$pol" <<EOT
monitor:
  interval: 2
  listen: 127.0.0.1:$http_port
  thresholds:
    degrading: 10
    failing: 1000
    flapping: 1
    recover: 2
EOT
export NANOSM_ARGS="-f $pol"
sw1=0x0002c90300b00101 sw2=0x0002c90300b00102 host3=0x0002c90300a00130
d=$IT_SCRATCH/chk
mkdir -p "$d"

sim_start "$IT_FABRIC"
sm_start --sweep-interval 300
sm_wait_up
sm_wait 'performance manager: pass 1 took' 10 || it_fail "no first performance manager pass"

it_step "raise SymbolErrorCounter on sw1/7 and LinkDownedCounter on host3/1"
sim_cmd 'PerformanceSet "sw1"[7] PortCounters.SymbolErrorCounter=500'
sim_cmd 'PerformanceSet "host3"[1] PortCounters.LinkDownedCounter=3'
t0=$(date +%s)
sm_wait 'NSM-W760 cable host3 .*flapping' 6 || it_fail "no NSM-W760 for the host3 cable within two intervals"
sm_wait 'NSM-W760 cable sw1 .*degrading' 6 || it_fail "no NSM-W760 for the sw1-sw2 cable within two intervals"
it_log "   both cables logged $(($(date +%s) - t0)) s after the raise"
IT_LAST_OUT=$SM_LOG
[ "$(grep -c 'NSM-W760' "$SM_LOG")" = 2 ] || it_fail "expected exactly two NSM-W760 lines"
grep -qE "NSM-W760 cable sw1 $sw1/7 <-> sw2 $sw2/7: degrading \(was ok\): SymbolErrorCounter \+500" "$SM_LOG" ||
	it_fail "the sw1-sw2 line does not name both ends and the counter"
grep -qE "NSM-W760 cable host3 $host3/1 <-> sw2 $sw2/1: flapping \(was ok\): LinkDownedCounter \+3" "$SM_LOG" ||
	it_fail "the host3-sw2 line does not name both ends and the counter"

it_step "health names exactly those two cables"
sm_ctl "$d/health.txt" health
IT_LAST_OUT=$d/health.txt
[ "$(grep -c '^cable ' "$d/health.txt")" = 2 ] || it_fail "health lists other than two cables"
grep -qE "^cable sw1 $sw1/7 <-> sw2 $sw2/7: degrading$" "$d/health.txt" || it_fail "health lacks sw1-sw2"
grep -qE "^  sw1 $sw1/7: SymbolErrorCounter \+500 \([0-9.]+/s\) \(health degrading\)$" "$d/health.txt" ||
	it_fail "health lacks the sw1 end's counter and rate"
grep -qE "^cable host3 $host3/1 <-> sw2 $sw2/1: flapping$" "$d/health.txt" || it_fail "health lacks host3-sw2"
sm_ctl "$d/status.txt" status
IT_LAST_OUT=$d/status.txt
grep -qE '^health: 4 cables ok, 1 degrading, 1 flapping, 0 failing' "$d/status.txt" ||
	it_fail "status has no health summary with the two cables"

it_step "the topology picture colours those two cables"
sm_ctl "$d/topo.dot" topology --format dot
IT_LAST_OUT=$d/topo.dot
[ "$(grep -c 'penwidth=3' "$d/topo.dot")" = 2 ] || it_fail "not exactly two coloured cables"
grep -qE "\"$sw1\" -- \"$sw2\" \[taillabel=\"7\", headlabel=\"7\", color=\"orange\", penwidth=3\]" "$d/topo.dot" ||
	it_fail "the sw1-sw2 port 7 cable is not orange"
grep -qE "\"($sw2|$host3)\" -- \"($host3|$sw2)\" \[taillabel=\"1\", headlabel=\"1\", color=\"purple\", penwidth=3\]" "$d/topo.dot" ||
	it_fail "the host3 cable is not purple"
# nanosm's own picture (tools/draw): the same two, by the health nanosmctl asks for
sm_ctl "$d/topo.svg" topology --format svg
IT_LAST_OUT=$d/topo.svg
[ "$(grep -cE 'id="e[0-9]+" class="c (hr|hd|hf|hx)"' "$d/topo.svg")" = 2 ] || it_fail "svg: not exactly two coloured lines"
grep -qE '<line id="e[0-9]+" class="c hd"[^>]*><title>sw1/7 - sw2/7: degrading: ' "$d/topo.svg" ||
	it_fail "svg: the sw1-sw2 bundle is not drawn degrading with port 7's counters"
grep -qE '<line id="e[0-9]+" class="c hf"[^>]*><title>(sw2/1 - host3/1|host3/1 - sw2/1): flapping' "$d/topo.svg" ||
	it_fail "svg: the host3 cable is not drawn flapping"

it_step "metrics under the InfiniBand exporter's names"
sm_ctl "$d/metrics.txt" metrics
m=$d/metrics.txt
IT_LAST_OUT=$m
grep -qx "infiniband_switch_port_symbol_error_total{guid=\"$sw1\",port=\"7\"} 500" "$m" ||
	it_fail "no symbol_error_total 500 for sw1/7"
[ "$(grep '^infiniband_switch_port_symbol_error_total{' "$m" | grep -vc ' 0$')" = 1 ] ||
	it_fail "symbol errors on other switch ports than sw1/7"
grep -qx "infiniband_hca_port_link_downed_total{guid=\"$host3\",port=\"1\"} 3" "$m" ||
	it_fail "no link_downed_total 3 for host3/1"
grep -qE "^infiniband_switch_info\{guid=\"$sw1\",lid=\"[0-9]+\",switch=\"sw1\"\} 1$" "$m" ||
	it_fail "no infiniband_switch_info for sw1"
grep -qE "^infiniband_switch_uplink_info\{guid=\"$sw1\",port=\"7\",switch=\"sw1\",uplink=\"sw2\",uplink_guid=\"$sw2\",uplink_lid=\"[0-9]+\",uplink_port=\"7\",uplink_type=\"SW\"\} 1$" "$m" ||
	it_fail "no uplink_info for sw1/7"
grep -qE "^infiniband_hca_uplink_info\{guid=\"$host3\",port=\"1\",hca=\"host3\",uplink=\"sw2\",uplink_guid=\"$sw2\",uplink_lid=\"[0-9]+\",uplink_port=\"1\",uplink_type=\"SW\"\} 1$" "$m" ||
	it_fail "no hca uplink_info for host3/1"
grep -qx "nanosm_port_health{guid=\"$sw1\",port=\"7\"} 1" "$m" || it_fail "sw1/7 health is not 1"
bytes=$(sed -n "s/^infiniband_hca_port_transmit_data_bytes_total{guid=\"0x0002c90300a00110\",port=\"1\"} //p" "$m")
lid1=$(sed -nE "s/^infiniband_hca_info\{guid=\"0x0002c90300a00110\",lid=\"([0-9]+)\".*/\1/p" "$m")
sim_client perfquery -x "$lid1" 1 >"$d/pq.txt" 2>&1 || { IT_LAST_OUT=$d/pq.txt; it_fail "perfquery -x $lid1 1 failed"; }
words=$(sed -n 's/^PortXmitData:\.*//p' "$d/pq.txt")
it_log "   host1/1: metrics $bytes bytes, perfquery now $words words"
[ -n "$bytes" ] && [ -n "$words" ] && [ "$bytes" -gt 0 ] && [ $((bytes % 4)) = 0 ] &&
	[ $((bytes / 4)) -le "$words" ] || it_fail "host1/1 transmit bytes $bytes do not match 4 x $words words"

it_step "the same metrics over HTTP on 127.0.0.1:$http_port"
sm_wait "metrics: listening on http://127.0.0.1:$http_port/metrics" 5 || it_fail "no HTTP listener"
cat >"$d/http.py" <<'EOP'
import socket, sys
def ask(raw):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    s.sendall(raw)
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
    return out.decode()
r = ask(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
head, _, body = r.partition("\r\n\r\n")
print(head.splitlines()[0])
open(sys.argv[2], "w").write(body)
print(ask(b"GET /nothing HTTP/1.0\r\n\r\n").splitlines()[0])
print(ask(b"POST /metrics HTTP/1.0\r\n\r\n").splitlines()[0])
print(ask(b"GET /metrics HTTP/1.0\r\nX: " + b"a" * 5000 + b"\r\n\r\n").splitlines()[0])
print(ask(b"GET /metrics HTTP/1.0\r\n\r\n").splitlines()[0])
EOP
timeout 20 python3 "$d/http.py" "$http_port" "$d/http.txt" >"$d/http.status" 2>&1 ||
	{ IT_LAST_OUT=$d/http.status; it_fail "HTTP requests failed"; }
IT_LAST_OUT=$d/http.status
printf 'HTTP/1.0 200 OK\nHTTP/1.0 404 Not Found\nHTTP/1.0 405 Method Not Allowed\nHTTP/1.0 413 Request Header Fields Too Large\nHTTP/1.0 200 OK\n' |
	diff - "$d/http.status" >/dev/null || it_fail "unexpected HTTP status lines"
IT_LAST_OUT=$d/http.txt
grep -qx "infiniband_switch_port_symbol_error_total{guid=\"$sw1\",port=\"7\"} 500" "$d/http.txt" ||
	it_fail "HTTP /metrics lacks the sw1/7 symbol errors"
[ "$(grep -c '^infiniband_' "$d/http.txt")" = "$(grep -c '^infiniband_' "$m")" ] ||
	it_fail "HTTP /metrics and nanosmctl metrics carry different series"

it_step "nothing rises for two intervals: both cables recover"
sm_wait 'NSM-W761 cable host3 .* recovered \(was flapping\)' 10 || it_fail "no NSM-W761 for the host3 cable"
sm_wait 'NSM-W761 cable sw1 .* recovered \(was degrading\)' 10 || it_fail "no NSM-W761 for the sw1 cable"
sm_ctl "$d/health2.txt" health
grep -q '^no cable errors$' "$d/health2.txt" || { IT_LAST_OUT=$d/health2.txt; it_fail "health still lists cables"; }

it_step "the HTTP listener does not need the control socket (--socket none)"
sm_stop
export NANOSM_ARGS="-f $pol --socket none"
sm_start --sweep-interval 300
sm_wait "metrics: listening on http://127.0.0.1:$http_port/metrics" 10 ||
	it_fail "no HTTP listener with --socket none"
sm_wait 'performance manager: pass 1 took' 10 || it_fail "no pass in the second run"
timeout 20 python3 "$d/http.py" "$http_port" "$d/http2.txt" >"$d/http2.status" 2>&1 ||
	{ IT_LAST_OUT=$d/http2.status; it_fail "HTTP requests failed with --socket none"; }
grep -q '^infiniband_switch_port_symbol_error_total{' "$d/http2.txt" ||
	{ IT_LAST_OUT=$d/http2.txt; it_fail "no port counters over HTTP with --socket none"; }
sm_stop
it_pass
