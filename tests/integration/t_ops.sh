#!/bin/bash
# ops: the operations side of nanosm on lab.topo.  nanosm runs with
# -L FILE and a fake systemd ($NOTIFY_SOCKET: a python3 unix datagram
# server in the scratch dir): SUBNET UP lands in the file (not on stderr);
# the fake systemd gets READY=1 with a STATUS= after it; `nanosmctl
# metrics` is well-formed Prometheus text (every sample `name{labels}
# value` with a TYPE line, counters end in _total, the required names
# present) and its heavy-sweep counter grows after `nanosmctl sweep`, its
# SA series after a saquery;
# `nanosmctl reload` is wrapped in RELOADING=1 ... READY=1; log rotation: mv the file, SIGUSR1, sweep - the new file gets the new
# lines and the moved one does not; a reopen that fails (the path is a
# directory) keeps the old file and says NSM-W901 in it; at SIGTERM the
# fake systemd gets STOPPING=1.  Last, a --once run whose stderr is "the
# journal" ($JOURNAL_STREAM = its dev:inode) logs "<6>SUBNET UP" lines
# without timestamps.
# nanosm-specific: SKIPped under SM=opensm.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

NANOSMCTL=${NANOSMCTL:-$REPO/build/bin/nanosmctl}

it_init ops
[ "$SM" = nanosm ] || it_skip "log file, sd_notify and metrics are nanosm's; SM=$SM"
fabric_file lab.topo
sim_start "$IT_FABRIC"

LOGF=$IT_SCRATCH/nanosm.log
NOTIFY_SOCK=$IT_SCRATCH/notify.sock
NOTIFY_OUT=$IT_SCRATCH/notify.txt
CHECKER=$IT_SCRATCH/check_metrics.py
POLICY=$IT_SCRATCH/nanosm.yaml
printf 'sm:\n  sweep_interval: 10\n' >"$POLICY"

# ---------------------------------------------------------------- helpers

# ctl OUT ARGS...: nanosmctl (bounded) into OUT; must exit 0.
ctl() {
	local out=$1
	shift
	IT_LAST_OUT=$out.err
	timeout -k 5 "$CLIENT_TIMEOUT" "$NANOSMCTL" -s "$IT_SCRATCH/nanosm.$SM_GEN.sock" "$@" \
		>"$out" 2>"$out.err" || it_fail "nanosmctl $* failed"
	IT_LAST_OUT=$out
}

# last_sweep FILE: the number of the last 'sweep N:' line in FILE (0: none).
last_sweep() {
	local n
	n=$(grep -oE '(^|[^0-9A-Za-z_])sweep [0-9]+:' "$1" 2>/dev/null | tail -n 1 | grep -oE '[0-9]+')
	echo "${n:-0}"
}

# sweep_into FILE: ask for a heavy sweep; wait (bounded) for its line in FILE
# (the next number after the last in any of the log files, rotated ones too).
sweep_into() {
	local f=$1 before=0 g n
	for g in "$LOGF" "$LOGF".[0-9]; do
		[ -f "$g" ] || continue
		n=$(last_sweep "$g")
		[ "$n" -gt "$before" ] && before=$n
	done
	ctl "$IT_SCRATCH/sweep.out" sweep
	wait_for_pattern "$f" "(^|[^0-9A-Za-z_])sweep $((before + 1)):" 20 "$SM_PID" ||
		it_fail "no 'sweep $((before + 1)):' line in ${f##*/} after nanosmctl sweep"
}

# The fake systemd: one line per datagram (newlines shown as ' | '), ends
# by itself after STOPPING=1 or 170 s.
start_fake_systemd() {
	cat >"$IT_SCRATCH/fake_systemd.py" <<'EOF'
import socket, sys, time
path, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(0.5)
end = time.monotonic() + 170
with open(out, "a", buffering=1) as f:
    f.write("listening\n")
    while time.monotonic() < end:
        try:
            msg = s.recv(4096).decode("utf-8", "replace")
        except socket.timeout:
            continue
        f.write(msg.replace("\n", " | ") + "\n")
        if "STOPPING=1" in msg.split("\n"):
            break
EOF
	(cd "$IT_RUN" && exec "$PYTHON" "$IT_SCRATCH/fake_systemd.py" "$NOTIFY_SOCK" "$NOTIFY_OUT") \
		>"$IT_SCRATCH/fake_systemd.log" 2>&1 &
	FAKE_PID=$!
	IT_PIDS+=("$FAKE_PID")
	wait_for_pattern "$NOTIFY_OUT" '^listening$' 10 "$FAKE_PID" ||
		it_fail "the fake systemd did not start: $(cat "$IT_SCRATCH/fake_systemd.log")"
}

# The metrics checker: exposition syntax, TYPE lines, _total counters,
# required names; prints the heavy-sweep counter.
write_checker() {
	cat >"$CHECKER" <<'EOF'
import re, sys
NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:\\.|[^"\\\n])*"'
SAMPLE = re.compile(r'^(%s)(\{%s(?:,%s)*\})? (-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)$' % (NAME, LABEL, LABEL))
REQUIRED = """nanosm_sweeps_total nanosm_sweeps_failed_total nanosm_last_sweep_duration_seconds
nanosm_mads_sent_total nanosm_mads_received_total nanosm_mad_timeouts_total
nanosm_mad_retries_total nanosm_sa_answered_total nanosm_sa_errors_total nanosm_lids_used
nanosm_lids_capacity nanosm_lft_blocks_sent_total nanosm_routing_engine_info
nanosm_sm_state nanosm_subnet_up nanosm_fabric_switches nanosm_fabric_cas nanosm_fabric_ports
nanosm_fabric_lids nanosm_routing_vls""".split()
types, seen, bad, values = {}, set(), [], {}
for n, line in enumerate(open(sys.argv[1]).read().splitlines(), 1):
    if line.startswith("# TYPE "):
        _, _, name, kind = line.split(" ", 3)
        types[name] = kind
        continue
    if line.startswith("# HELP ") or not line:
        continue
    m = SAMPLE.match(line)
    if not m:
        bad.append("line %d not 'name{labels} value': %r" % (n, line))
        continue
    name = m.group(1)
    seen.add(name)
    values[name + (m.group(2) or "")] = float(m.group(3))
    if name not in types:
        bad.append("line %d: %s has no # TYPE line before it" % (n, name))
    elif types[name] == "counter" and not name.endswith("_total"):
        bad.append("line %d: counter %s does not end in _total" % (n, name))
for r in REQUIRED:
    if r not in seen:
        bad.append("missing metric " + r)
checks = [('nanosm_lids_capacity', 49151), ('nanosm_subnet_up', 1),
          ('nanosm_sm_state{state="master"}', 1)]
for key, want in checks:
    if values.get(key) != want:
        bad.append("%s is %s, expected %s" % (key, values.get(key), want))
nonzero = ['nanosm_lids_used', 'nanosm_lft_blocks_sent_total', 'nanosm_mads_sent_total{class="smp"}',
           'nanosm_fabric_switches', 'nanosm_fabric_cas', 'nanosm_fabric_ports', 'nanosm_fabric_lids',
           'nanosm_routing_vls']
if "--sa" in sys.argv:  # an SA query was made: the SA series count it
    nonzero += ['nanosm_mads_received_total{class="sa"}', 'nanosm_mads_sent_total{class="sa"}',
                'nanosm_sa_answered_total']
for key in nonzero:
    if not values.get(key):
        bad.append("%s is %s, expected > 0" % (key, values.get(key)))
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
print(int(values['nanosm_sweeps_total{kind="heavy"}']))
EOF
}

# metrics OUT [--sa]: nanosmctl metrics into OUT, checked; sets HEAVY.
metrics() {
	ctl "$1" metrics
	IT_LAST_OUT=$1.check
	HEAVY=$("$PYTHON" "$CHECKER" "$@" 2>"$1.check") || {
		cat "$1" >>"$1.check"
		it_fail "nanosmctl metrics output does not check out (${1##*/})"
	}
}

# ---------------------------------------------------------------- 1. -L FILE, READY=1

start_fake_systemd
write_checker
it_step "nanosm -L ${LOGF##*/} with NOTIFY_SOCKET=${NOTIFY_SOCK##*/}"
NANOSM_ARGS="${NANOSM_ARGS:-} -L $LOGF -f $POLICY" NOTIFY_SOCKET=$NOTIFY_SOCK sm_start
wait_for_pattern "$LOGF" 'SUBNET UP' "$SM_UP_TIMEOUT" "$SM_PID" ||
	it_fail "no SUBNET UP in the log file ${LOGF##*/} within ${SM_UP_TIMEOUT}s"
it_log "log file: $(grep -m1 'SUBNET UP' "$LOGF" | cut -c1-120)"
grep -q 'SUBNET UP' "$SM_LOG" && it_fail "SUBNET UP went to stderr although -L was given"
wait_for_pattern "$NOTIFY_OUT" '(^| )READY=1( |$)' 10 "$FAKE_PID" ||
	it_fail "the fake systemd got no READY=1 after SUBNET UP: $(tr '\n' '/' <"$NOTIFY_OUT")"
grep -m1 'READY=1' "$NOTIFY_OUT" | grep -q 'STATUS=sweep [0-9]* ok' ||
	it_fail "READY=1 came without a 'STATUS=sweep N ok' line: $(grep -m1 READY=1 "$NOTIFY_OUT")"
it_log "sd_notify: $(grep -m1 'READY=1' "$NOTIFY_OUT")"

# ---------------------------------------------------------------- 2. metrics

it_step "nanosmctl metrics: well-formed, heavy sweeps counted"
metrics "$IT_SCRATCH/metrics.1"
h1=$HEAVY
sweep_into "$LOGF"
run_tool "$IT_SCRATCH/saquery.txt" saquery # NodeRecords: SA traffic to count
metrics "$IT_SCRATCH/metrics.2" --sa
h2=$HEAVY
[ "$h2" -gt "$h1" ] || it_fail "nanosm_sweeps_total{kind=\"heavy\"} did not grow after a sweep ($h1 -> $h2)"
it_log "   $(grep -c '^nanosm' "$IT_SCRATCH/metrics.2") samples; heavy sweeps $h1 -> $h2"

it_step "nanosmctl reload: RELOADING=1, then READY=1 again"
ctl "$IT_SCRATCH/reload.out" reload
wait_for_pattern "$NOTIFY_OUT" '^RELOADING=1 \| MONOTONIC_USEC=[0-9]+' 10 "$FAKE_PID" ||
	it_fail "no RELOADING=1 (with MONOTONIC_USEC=) at a reload"
IT_LAST_OUT=$NOTIFY_OUT
for i in $(seq 50); do # bounded: 5 s
	awk '/^RELOADING=1/ { r = NR } /^READY=1/ && r && NR > r { ok = 1 } END { exit !ok }' \
		"$NOTIFY_OUT" && break
	[ "$i" = 50 ] && it_fail "no READY=1 after RELOADING=1"
	sleep 0.1
done
it_log "   $(grep -A1 '^RELOADING=1' "$NOTIFY_OUT" | tr '\n' '/')"

# ---------------------------------------------------------------- 3. rotation

it_step "rotation: mv, SIGUSR1, sweep"
mv "$LOGF" "$LOGF.1"
kill -USR1 "$SM_PID"
wait_for_pattern "$LOGF" 'reopened the log file' 10 "$SM_PID" ||
	it_fail "no new ${LOGF##*/} saying it was reopened after SIGUSR1"
old_size=$(stat -c %s "$LOGF.1")
sweep_into "$LOGF"
n=$(last_sweep "$LOGF")
grep -qE "(^|[^0-9A-Za-z_])sweep $n:" "$LOGF.1" && it_fail "'sweep $n:' went to the rotated file"
[ "$(stat -c %s "$LOGF.1")" = "$old_size" ] || it_fail "the rotated file still grows after SIGUSR1"
it_log "   'sweep $n:' in the new file only; the old one stayed at $old_size bytes"

it_step "a reopen that fails keeps the old file (NSM-W901)"
mv "$LOGF" "$LOGF.2"
mkdir "$LOGF"
kill -USR1 "$SM_PID"
wait_for_pattern "$LOGF.2" 'NSM-W901 .*nanosm.log' 10 "$SM_PID" ||
	it_fail "no NSM-W901 naming the path in the old file after a failed reopen"
sweep_into "$LOGF.2"
rmdir "$LOGF"
it_log "   $(grep -m1 NSM-W901 "$LOGF.2" | cut -c1-140)"

# ---------------------------------------------------------------- 4. stop

sm_stop
wait_for_pattern "$NOTIFY_OUT" '(^| )STOPPING=1( |$)' 10 ||
	it_fail "the fake systemd got no STOPPING=1 at SIGTERM"
it_log "sd_notify at exit: $(grep -m1 STOPPING=1 "$NOTIFY_OUT")"

# ---------------------------------------------------------------- 5. journal

it_step "stderr is the journal: <N> prefixes, no timestamps"
jlog=$IT_SCRATCH/sm.$((SM_GEN + 1)).log # the file sm_start will write stderr to
: >"$jlog"
JOURNAL_STREAM=$(stat -c '%d:%i' "$jlog") sm_start --once
# shellcheck disable=SC2119 # the default timeout
sm_wait_exit
IT_LAST_OUT=$jlog
grep -qE '^<6>SUBNET UP: ' "$jlog" || it_fail "no '<6>SUBNET UP: ' line with JOURNAL_STREAM naming stderr"
grep -qE '^<7>debug: ' "$jlog" || it_fail "no '<7>debug: ' line (nanosm runs with -v)"
grep -vE '^(<[3467]>|# )' "$jlog" | grep -q . && it_fail "a line without a <N> prefix"
grep -qE '^<[0-9]>[0-9]{2}:[0-9]{2}:[0-9]{2}' "$jlog" && it_fail "a timestamp after the <N> prefix"
it_log "   $(grep -m1 '^<6>SUBNET UP' "$jlog" | cut -c1-100)"
it_pass
