#!/bin/bash
# sacrowd: the SA under a crowd (issue 21), on the lab fabric, with a
# flooding client built from nanosm's own MAD code (nanosm-sa crowd):
# (1) per-port quotas: host2 creating more groups and services than its
#     quota gets 0x0100 for the rest while host3 still creates its own;
#     `status` and `metrics` name host2 as the top holder and the log says
#     why (NSM-W471);
# (2) MLIDs: with no group quota, creating more groups than the switches'
#     MulticastFDBCap (read with smpquery switchinfo) fills exactly that
#     many MLIDs and the rest get 0x0100 (NSM-W470, status mlids=cap/cap);
# (3) a subscriber that never reads, then a simulator that stops reading:
#     host2 holds 900 InformInfo subscriptions (trap 64) and is stopped
#     (SIGSTOP); host3's cable is pulled and put back, so 900 Reports go to
#     host2 (ibsim 0.10 drops what a full client socket cannot take); then
#     ibsim itself is stopped, so nanosm's sends block in umad2sim once
#     ibsim's socket holds 10 datagrams while 2700 retries fall due.
#     nanosmctl status must answer within 5 s, showing the 2700 retries
#     and the 900 subscriptions dropped (NSM-W472, 4 tries each), and
#     SIGTERM must stop nanosm within 2 s (exit status 0).
# nanosm-specific: SKIPped under SM=opensm.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

it_init sacrowd
[ "$SM" = nanosm ] || it_skip "nanosm-specific (SA limits and the never-blocking send)"
fabric_file lab.topo
NSA=$REPO/build/bin/nanosm-sa
NANOSMCTL=$REPO/build/bin/nanosmctl
[ -x "$NSA" ] || it_fail "nanosm-sa not built: $NSA"
HOST2_GUID=0x0002c90300a00021

pol=$IT_SCRATCH/nanosm.yaml
write_policy() { # GROUPS_PER_PORT
	printf 'sa:\n  groups_per_port: %s\n  services_per_port: 32\n' "$1" >"$pol"
	printf '  subscriptions_per_port: 1024\n  reports_per_second: 1000\n' >>"$pol"
}
write_policy 64
export NANOSM_ARGS="-f $pol"
sim_start "$IT_FABRIC"
sm_start --sweep-interval 300
sm_wait_up
wait_ports_ok 30
d=$IT_SCRATCH/chk
mkdir -p "$d"

# crowd OUT HOST ARGS...: nanosm-sa crowd from HOST into OUT; prints its
# no_resources count
crowd() {
	local out=$1 host=$2
	shift 2
	sim_client --host "$host" "$NSA" --timeout 2000 --retries 1 crowd "$@" >"$out" 2>&1
	IT_LAST_OUT=$out
	grep -q '^flood: sent' "$out" || it_fail "nanosm-sa crowd $* from $host did not run"
	sed -n 's/^crowd: [a-z]* no_resources \([0-9]*\)$/\1/p' "$out"
}

it_step "quotas: host2 over its 64 groups and 32 services is refused, host3 is not"
n=$(crowd "$d/g2" host2 groups 100)
[ "$n" = 36 ] || it_fail "host2: $n of 100 group creations refused, expected 36 (quota 64)"
n=$(crowd "$d/g3" host3 groups 10 16)
[ "$n" = 0 ] || it_fail "host3: $n of its 10 group creations refused (host2's quota must not count)"
n=$(crowd "$d/s2" host2 services 40)
[ "$n" = 8 ] || it_fail "host2: $n of 40 service registrations refused, expected 8 (quota 32)"
n=$(crowd "$d/s3" host3 services 5)
[ "$n" = 0 ] || it_fail "host3: $n of its 5 registrations refused"
IT_LAST_OUT=$SM_LOG
grep -q "NSM-W471 port $HOST2_GUID .*quota of 64 groups" "$SM_LOG" ||
	it_fail "no NSM-W471 line naming host2's group quota"
sm_ctl "$d/status1" status
IT_LAST_OUT=$d/status1
grep -q "^sa groups: held=75 quota_per_port=64 top: $HOST2_GUID=64 " "$d/status1" ||
	it_fail "status does not show 75 groups with host2 the top holder (64)"
grep -q "^sa services: held=37 quota_per_port=32 top: $HOST2_GUID=32 " "$d/status1" ||
	it_fail "status does not show 37 services with host2 the top holder (32)"
sm_ctl "$d/metrics1" metrics
IT_LAST_OUT=$d/metrics1
grep -q "^nanosm_sa_top_holder{kind=\"groups\",port_guid=\"$HOST2_GUID\"} 64$" "$d/metrics1" ||
	it_fail "metrics: no top holder line for host2's groups"
grep -q '^nanosm_sa_refused_total{reason="quota"} 44$' "$d/metrics1" ||
	it_fail "metrics: quota refusals are not 36 + 8"
it_log "$(grep '^sa ' "$d/status1" | tr '\n' ';')"

it_step "MLIDs: no more groups than the switches' MulticastFDBCap"
run_tool "$d/ibnd" ibnetdiscover
sw_lid=$(sed -n 's/^Switch.*"lab-sw".* lid \([0-9]*\) .*/\1/p' "$d/ibnd" | head -n 1)
IT_LAST_OUT=$d/ibnd
[ -n "$sw_lid" ] || it_fail "no LID of lab-sw in ibnetdiscover's output"
run_tool "$d/si" smpquery switchinfo "$sw_lid"
cap=$(sed -n 's/^McastFdbCap:\.*\([0-9]*\)$/\1/p' "$d/si")
IT_LAST_OUT=$d/si
if [ -z "$cap" ] || [ "$cap" -le 0 ]; then it_fail "no McastFdbCap in smpquery switchinfo"; fi
write_policy 0
sm_ctl "$d/reload" reload
want=$((cap + 100))
n=$(crowd "$d/gcap" host2 groups "$want" 32)
# 75 groups (the IPoIB broadcast group, host2's 64, host3's 10) hold MLIDs
# already; host2's first 64 creations now join its own groups
refused=$((want - 64 - (cap - 75)))
[ "$n" = "$refused" ] || it_fail "$n of $want creations refused, expected $refused (cap $cap)"
IT_LAST_OUT=$SM_LOG
grep -q "NSM-W470 multicast join from port $HOST2_GUID .*every MLID the switches hold is in use ($cap from 0xC000" "$SM_LOG" ||
	it_fail "no NSM-W470 line"
sm_ctl "$d/status2" status
IT_LAST_OUT=$d/status2
grep -q "^sa limits: mlids=$cap/$cap mlid_refused=$refused " "$d/status2" ||
	it_fail "status does not show mlids=$cap/$cap and $refused refused"
it_log "McastFdbCap $cap: $refused refused; $(grep '^sa limits' "$d/status2")"

it_step "a subscriber that never reads, then ibsim stops reading: the loop never blocks"
(cd "$IT_RUN" && exec timeout -k 5 300 env LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$IT_SOCK" \
	SIM_HOST=host2 "$NSA" --issm --timeout 2000 --retries 1 crowd subs 900 32 250) >"$d/subs" 2>&1 &
sub=$!
IT_PIDS+=("$sub")
wait_for_pattern "$d/subs" '^listening' 60 "$sub" ||
	{ IT_LAST_OUT=$d/subs; it_fail "the 900 subscriptions failed"; }
IT_LAST_OUT=$d/subs
grep -q '^crowd: subs no_resources 0$' "$d/subs" || it_fail "subscriptions refused"
kill -STOP "$sub"
# from here on a failure lets the stopped processes go first
crowd_fail() {
	[ -n "${SACROWD_STACKS:-}" ] && gdb -p "$SM_PID" -batch -ex 'thread apply all bt' >"$SACROWD_STACKS" 2>&1
	kill -CONT "$SIM_PID" "$sub" 2>/dev/null
	it_fail "$@"
}
sim_cmd 'Unlink "host3"'
sm_wait 'node gone: .*host3' 20 || crowd_fail "host3's pulled cable was not seen"
sim_cmd 'ReLink "host3"'
# trap 64 to host2's 900 subscriptions: wait for the first sending
reports=0
for _ in $(seq 40); do
	sm_ctl "$d/status3" status
	reports=$(sed -n 's/^sa: .* reports=\([0-9]*\) .*/\1/p' "$d/status3")
	[ "${reports:-0}" -ge 900 ] && break
	sleep 0.25
done
IT_LAST_OUT=$d/status3
[ "${reports:-0}" -ge 900 ] || crowd_fail "the 900 Reports were not sent"
# ibsim stops reading: nanosm's sends block in umad2sim once its socket
# holds 10 datagrams, and 2700 retries (3 per Report, a second apart) are due
kill -STOP "$SIM_PID"
for _ in $(seq 40); do
	grep -q 'NSM-W472 InformInfo subscription of port '"$HOST2_GUID" "$SM_LOG" && break
	sleep 0.25
done
sleep 1.5 # the last of them
t0=$(date +%s%N)
timeout -k 1 5 "$NANOSMCTL" -s "$IT_SCRATCH/nanosm.$SM_GEN.sock" status >"$d/status4" 2>&1
rc=$?
t1=$(date +%s%N)
IT_LAST_OUT=$d/status4
[ $rc = 0 ] || { crowd_fail "nanosmctl status did not answer within 5 s (status $rc) while ibsim does not read"; }
it_log "status answered in $(((t1 - t0) / 1000000)) ms while ibsim was stopped: $(grep -E '^sa (limits|subscriptions)' "$d/status4" | tr '\n' ';')"
grep -q '^sa limits: .* report_retries=2700 .* subs_dropped=900 ' "$d/status4" ||
	{ crowd_fail "not 2700 retries and 900 subscriptions dropped"; }
grep -q '^sa subscriptions: held=0 ' "$d/status4" ||
	{ crowd_fail "subscriptions left after the drop"; }
IT_LAST_OUT=$SM_LOG
grep -q "NSM-W472 InformInfo subscription of port $HOST2_GUID (LID 2) dropped: no ReportResp after 4 tries" "$SM_LOG" ||
	{ crowd_fail "no NSM-W472 line for host2 with 4 tries"; }
t0=$(date +%s%N)
kill -TERM "$SM_PID"
for _ in $(seq 40); do
	ps -p "$SM_PID" -o stat= 2>/dev/null | grep -qv Z || break
	sleep 0.05
done
t1=$(date +%s%N)
if ps -p "$SM_PID" -o stat= 2>/dev/null | grep -qv Z; then
	IT_LAST_OUT=$SM_LOG
	crowd_fail "nanosm did not stop within 2 s of SIGTERM while ibsim does not read"
fi
kill -CONT "$SIM_PID"
kill -CONT "$sub" 2>/dev/null
wait "$SM_PID"
rc=$?
it_forget_pid "$SM_PID"
IT_LAST_OUT=$SM_LOG
[ $rc = 0 ] || it_fail "nanosm exited with status $rc after SIGTERM"
it_log "SIGTERM: nanosm exited (0) after $(((t1 - t0) / 1000000)) ms"
it_pass
