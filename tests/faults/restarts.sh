#!/bin/bash
# tests/faults/restarts.sh NAME FABRIC RESTARTS SEED OUTDIR
#
# kill -9 restarts of nanosm on one fabric, all with one guid2lid file and
# a control socket.  Baseline: one host pinned at a high LID in the
# guid2lid file (HIGH_LID: every switch gets HIGH_LID/64 + 1 LFT blocks, so
# a --window 1 push takes a while), nanosm up from scratch with --window 1,
# full checks, the LIDs recorded (check_routes.py lids, by port GUID).
# Calibration: the wall time from the launch to SUBNET UP of a nanosm on
# the programmed fabric (--window 1 and 16) and on a power-cycled one.
#
# Then RESTARTS times (faults.py rplan draws kind, window and point from
# SEED): start nanosm A, kill -9 it
#   up     FRAC x 1 s after its SUBNET UP;
#   sweep  FRAC x (calibrated start-up time) after its launch, on the
#          programmed fabric (its first sweep: discovery, LID checks,
#          ClientReregister, reading the LFTs back);
#   fresh  the same on a fabric power-cycled just before (ibsim restarted:
#          no LIDs, empty LFTs), --window 1: the kill may land in the push;
# then start nanosm B (same guid2lid, default window), bounded wait for
# SUBNET UP, and judge it:
#   - ibnetdiscover/iblinkinfo/dump_fts: check_routes.py ports --fabric
#     (every node and cable, all Active, LIDs) and routes (all pairs);
#   - every port's LID equals the baseline (faults.py lidcmp);
#   - when A had logged SUBNET UP: B's 'sweep 1:' line has
#     lft_blocks_sent=0 and lft_blocks_read>0 (it read the LFTs back and
#     found them right).
# B is stopped with SIGTERM (must exit 0) before the next restart.
#
# Writes OUTDIR/NAME.restarts.tsv (one line per restart, faults.py
# rsummary) and OUTDIR/NAME.rfail.<idx>.txt per failed restart.
# Knobs: HIGH_LID (16384), RESTART_UP_TIMEOUT (30 s), MAX_CONSEC_FAIL (3).
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/../integration/lib.sh"
FAULTS_DIR=$(cd "$(dirname "$0")" && pwd)

name=$1 fabric=$(realpath "$2") restarts=$3 seed=$4 out=$(realpath -m "$5")
HIGH_LID=${HIGH_LID:-16384}
RESTART_UP_TIMEOUT=${RESTART_UP_TIMEOUT:-30}
MAX_CONSEC_FAIL=${MAX_CONSEC_FAIL:-3}
INTERVAL=30 # no periodic sweep gets in the way of the figures

it_init "restarts-$name"
[ "$SM" = nanosm ] || it_skip "reads nanosm's sweep lines"
mkdir -p "$out"
res=$out/$name.restarts.tsv
: >"$res"
d=$IT_SCRATCH/ev
mkdir -p "$d" "$IT_SCRATCH/state"
g2l=$IT_SCRATCH/state/guid2lid
client=

now_ms() { date +%s%3N; }

# fields of the first 'sweep 1:' line of log $1: "$2" = KEY
sweep1_field() {
	grep -hE '(^|[^0-9A-Za-z_])sweep 1:' "$1" | head -n 1 |
		grep -oE "(^|[[:space:]])$2=[0-9]+" | head -n 1 | sed 's/.*=//'
}

# start_sm WINDOW: nanosm on the campaign's guid2lid; T_LAUNCH = epoch ms
start_sm() {
	T_LAUNCH=$(now_ms)
	NANOSM_ARGS="${NANOSM_ARGS:-} --window $1" sm_start --guid2lid "$g2l" \
		--sweep-interval "$INTERVAL" >>"$IT_SCRATCH/sm-starts.txt"
}

# up_wait: bounded wait for SUBNET UP of the current SM; UP_MS = launch ->
# the SUBNET UP line's timestamp ("-" if none)
up_wait() {
	UP_MS=-
	sm_wait 'SUBNET UP' "$RESTART_UP_TIMEOUT" || return 1
	UP_MS=$("$PYTHON" "$FAULTS_DIR/faults.py" logtime --log "$SM_LOG" --t0 "$T_LAUNCH" \
		--pattern 'SUBNET UP')
}

# power_cycle: a fresh ibsim on the same fabric (all ports down to LID 0,
# LFTs empty); the client wrapper follows the new socket
power_cycle() {
	sim_stop
	sim_start "$fabric" >>"$IT_SCRATCH/sm-starts.txt"
	client=$(it_client_wrapper)
}

# landed LOG: how far the killed nanosm got (its log)
landed() {
	if grep -q 'SUBNET UP' "$1"; then echo up
	elif grep -q 'gate passed' "$1"; then echo push
	elif grep -q 'SM state DISCOVERING -> MASTER' "$1"; then echo configure
	elif grep -qE 'control socket|loaded [0-9]+ LID' "$1"; then echo discover
	else echo start
	fi
}

# judge TAG: the fabric after a restart; output in $d/check.out
judge() {
	{
		sim_client ibnetdiscover >"$d/ibnd.txt" 2>"$d/tools.err" &&
			sim_client iblinkinfo -l >"$d/ll.txt" 2>>"$d/tools.err" &&
			sim_client dump_fts >"$d/fts.txt" 2>>"$d/tools.err"
	} || { { echo "a diag tool failed:"; cat "$d/tools.err"; } >"$d/check.out"; return 1; }
	local rc=0
	{
		"$PYTHON" "$IT_LIB_DIR/check_routes.py" ports --topo "$d/ibnd.txt" --linkinfo "$d/ll.txt" \
			--fabric "$fabric" || rc=1
		"$PYTHON" "$IT_LIB_DIR/check_routes.py" routes --topo "$d/ibnd.txt" --fts "$d/fts.txt" \
			--client "$client" || rc=1
		"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$d/ibnd.txt" >"$d/lids.txt" || rc=1
	} >"$d/check.out" 2>&1
	"$PYTHON" "$FAULTS_DIR/faults.py" lidcmp "$base" "$d/lids.txt" >"$d/lidcmp.out"
	read -r CHANGED MISSING <"$d/lidcmp.out"
	if [ "$CHANGED" != 0 ] || [ "$MISSING" != 0 ]; then
		{ echo "lids: FAILED - $CHANGED changed, $MISSING missing vs the baseline"
			tail -n +2 "$d/lidcmp.out"; } >>"$d/check.out"
		rc=1
	fi
	return $rc
}

it_step "baseline: ${fabric##*/}, one host pinned at LID $HIGH_LID, nanosm --window 1 from scratch"
sim_start "$fabric"
client=$(it_client_wrapper)
caguid=$(grep -oE 'caguid=0x[0-9a-fA-F]+' "$fabric" | tail -n 1 | cut -d= -f2)
[ -n "$caguid" ] || it_fail "no caguid= line in $fabric"
printf '0x%016x 0x%04x 0x%04x\n' $((caguid + 1)) "$HIGH_LID" "$HIGH_LID" >"$g2l"
start_sm 1
up_wait || it_fail "no SUBNET UP within ${RESTART_UP_TIMEOUT}s"
t_fresh=$UP_MS
first_sent=$(sweep1_field "$SM_LOG" lft_blocks_sent)
it_log "SUBNET UP ${t_fresh} ms after the launch, lft_blocks_sent=$first_sent"
check_ports
check_routes
base=$IT_SCRATCH/lids.baseline
"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$IT_SCRATCH/chk/ibnetdiscover.txt" >"$base"
grep -q " $HIGH_LID " "$base" || it_fail "the pinned LID $HIGH_LID is not in the baseline"
it_log "baseline: $(wc -l <"$base") LIDs, $(fabric_nodes "$fabric" sw | wc -l) switches"
it_kill9 "$SM_PID" 2>/dev/null || it_fail "nanosm survived SIGKILL"

it_step "calibration: launch -> SUBNET UP on the programmed fabric"
start_sm 1
up_wait || it_fail "no SUBNET UP (calibration, --window 1)"
t_w1=$UP_MS
it_kill9 "$SM_PID" 2>/dev/null || it_fail "nanosm survived SIGKILL"
start_sm 16
up_wait || it_fail "no SUBNET UP (calibration, --window 16)"
t_w16=$UP_MS
it_kill9 "$SM_PID" 2>/dev/null || it_fail "nanosm survived SIGKILL"
it_log "start-up: ${t_fresh} ms power-cycled (--window 1), ${t_w1} ms programmed --window 1, ${t_w16} ms --window 16"

plan=$IT_SCRATCH/rplan.tsv
"$PYTHON" "$FAULTS_DIR/faults.py" rplan --seed "$seed" --restarts "$restarts" >"$plan" ||
	it_fail "faults.py rplan failed"
cp "$plan" "$out/$name.rplan.tsv"
it_log "plan: $restarts restarts, seed $seed ($(cut -f2 "$plan" | sort | uniq -c | awk '{printf "%s%s %s", s, $1, $2; s=", "}'))"

nfail=0 consec=0
while IFS=$'\t' read -r idx kind window frac <&3; do
	status=ok why=
	[ "$kind" = fresh ] && power_cycle
	start_sm "$window"
	logA=$SM_LOG
	case $kind in
	up)
		if up_wait; then
			delay=$(awk -v f="$frac" 'BEGIN { printf "%d", f * 1000 }')
		else
			status=A-no-up delay=-
		fi
		;;
	sweep) delay=$(awk -v f="$frac" -v t="$([ "$window" = 1 ] && echo "$t_w1" || echo "$t_w16")" \
		'BEGIN { printf "%d", f * t }') ;;
	fresh) delay=$(awk -v f="$frac" -v t="$t_fresh" 'BEGIN { printf "%d", f * t }') ;;
	esac
	if [ "$kind" = up ]; then
		sleep "$(awk -v m="${delay/-/0}" 'BEGIN { printf "%.3f", m / 1000 }')"
	else
		# the delay counts from the launch
		rest=$((T_LAUNCH + delay - $(now_ms)))
		[ $rest -gt 0 ] && sleep "$(awk -v m=$rest 'BEGIN { printf "%.3f", m / 1000 }')"
	fi
	it_kill9 "$SM_PID" 2>/dev/null || it_fail "nanosm pid $SM_PID survived SIGKILL"
	where=$(landed "$logA")
	cp "$logA" "$d/killed.log"
	start_sm 16
	sent=- read=- CHANGED=- MISSING=-
	if [ $status = ok ] && ! up_wait; then
		status=no-up
		kill -0 "$SM_PID" 2>/dev/null || status=exited
	fi
	if [ $status = ok ]; then
		sent=$(sweep1_field "$SM_LOG" lft_blocks_sent)
		read=$(sweep1_field "$SM_LOG" lft_blocks_read)
		if [ -z "$sent" ] || [ -z "$read" ]; then status=no-sweep1-counters sent=- read=-; fi
	fi
	if [ $status = ok ]; then
		judge || status=check-failed
		if [ "$where" = up ] && [ $status = ok ] && { [ "$sent" != 0 ] || [ "$read" = 0 ]; }; then
			status=lft-rewritten why="lft_blocks_sent=$sent lft_blocks_read=$read after a kill after SUBNET UP"
		fi
	fi
	# B must stop cleanly (SIGTERM, exit 0)
	if kill -0 "$SM_PID" 2>/dev/null; then
		kill -TERM "$SM_PID"
		for _ in $(seq 100); do ps -p "$SM_PID" -o stat= 2>/dev/null | grep -qv Z || break; sleep 0.1; done
		if ps -p "$SM_PID" -o stat= 2>/dev/null | grep -qv Z; then
			it_kill9 "$SM_PID" 2>/dev/null
			[ $status = ok ] && status=no-exit-on-sigterm
		else
			wait "$SM_PID"
			rc=$?
			it_forget_pid "$SM_PID"
			[ $status = ok ] && [ $rc != 0 ] && status=sigterm-exit-$rc
		fi
	fi
	# fabric idx kind window frac delay landed up_ms sent read changed status
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$idx" "$kind" "$window" \
		"$frac" "$delay" "$where" "$UP_MS" "$sent" "$read" "$CHANGED" "$status" >>"$res"
	if [ $status = ok ]; then
		consec=0
		printf '[%s] %3s %-5s w%-2s kill at %5s ms, landed %-9s ok   restart->UP %5s ms  lft sent %4s read %5s  LIDs same\n' \
			"$IT_NAME" "$idx" "$kind" "$window" "$delay" "$where" "$UP_MS" "$sent" "$read"
	else
		nfail=$((nfail + 1)) consec=$((consec + 1))
		printf '[%s] %3s %-5s w%-2s kill at %5s ms, landed %-9s FAIL %s %s\n' "$IT_NAME" "$idx" \
			"$kind" "$window" "$delay" "$where" "$status" "$why"
		f=$out/$name.rfail.$idx.txt
		{
			echo "campaign $name, fabric $fabric, seed $seed, restart $idx: $kind window $window frac $frac delay $delay ms, landed $where"
			echo "status: $status $why"
			echo "----- last check output"
			cat "$d/check.out" 2>/dev/null
			echo "----- killed nanosm's log (debug lines left out)"
			grep -v ' debug: ' "$d/killed.log"
			echo "----- restarted nanosm's log (debug lines left out)"
			grep -v ' debug: ' "$SM_LOG"
		} >"$f"
		grep -E 'FAILED|^    - |^  ' "$d/check.out" 2>/dev/null | head -n 6 | sed "s/^/[$IT_NAME]        /"
	fi
	rm -f "$d/check.out"
	[ $consec -ge "$MAX_CONSEC_FAIL" ] && { it_log "stopping: $consec failed restarts in a row"; break; }
done 3<"$plan"

it_log "$(wc -l <"$res") restarts, $nfail failed"
[ $nfail -eq 0 ] || { echo "[$IT_NAME] FAIL: $nfail restarts failed (details in $out/$name.rfail.*)"; exit 1; }
it_pass
