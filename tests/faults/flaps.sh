#!/bin/bash
# tests/faults/flaps.sh NAME FABRIC FLAPS SEED OUTDIR
#
# One flap campaign: ibsim on FABRIC, nanosm up (checked), then FLAPS random
# link flaps planned by faults.py from SEED.  Each flap is two events (the
# Unlink, then the ReLink of the same one or two links); after each event:
# bounded wait for a nanosm "sweep N: ok", then the event check (faults.py
# evcheck: ports Active + LIDs, all-pairs routes over dump_fts, discovered
# fabric == file minus the links down, LIDs == baseline), repeated after every
# further sweep until it passes or CONV_TIMEOUT runs out; then a settle
# (no sweep for SETTLE_MS) and, if sweeps ran meanwhile, the check again.
# At the end, with every link back: the full integration checks.
#
# Writes OUTDIR/NAME.tsv (one line per event, see faults.py summary) and,
# for every failed event, OUTDIR/NAME.fail.<flap>.<event>.txt (the check
# output, nanosm's log lines since the event, ibsim's last lines).
# Exit 0 if every event passed.
#
# Knobs: SWEEP_INTERVAL (30 s: periodic sweeps only as a backstop, so the
# events are handled by traps), CONV_TIMEOUT (45 s), SETTLE_MS (500),
# MAX_CONSEC_FAIL (3: a campaign stops after that many failed events in a
# row, the fabric being beyond repair by then).
. "$(dirname "$0")/../integration/lib.sh"
FAULTS_DIR=$(cd "$(dirname "$0")" && pwd)

name=$1 fabric=$(realpath "$2") flaps=$3 seed=$4 out=$(realpath -m "$5")
SWEEP_INTERVAL=${SWEEP_INTERVAL:-30}
CONV_TIMEOUT=${CONV_TIMEOUT:-45}
SETTLE_MS=${SETTLE_MS:-500}
MAX_CONSEC_FAIL=${MAX_CONSEC_FAIL:-3}

it_init "flaps-$name"
[ "$SM" = nanosm ] || it_skip "reads nanosm's sweep lines"
mkdir -p "$out"
res=$out/$name.tsv
: >"$res"
sim_start "$fabric"
host=$SIM_HOST_DEFAULT
sm_start --sweep-interval "$SWEEP_INTERVAL"
sm_wait_up
check_ports
check_routes
d=$IT_SCRATCH/ev
mkdir -p "$d"
base=$IT_SCRATCH/lids.baseline
"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$IT_SCRATCH/chk/ibnetdiscover.txt" >"$base"
it_log "baseline: $(wc -l <"$base") LIDs"
client=$(it_client_wrapper)
plan=$IT_SCRATCH/plan.tsv
"$PYTHON" "$FAULTS_DIR/faults.py" plan --fabric "$fabric" --seed "$seed" --flaps "$flaps" \
	--sm-host "$host" >"$plan" || it_fail "faults.py plan failed"
cp "$plan" "$out/$name.plan.tsv"
it_log "plan: $flaps flaps, seed $seed ($(grep -c ' + ' "$plan") with two links)"

now_ms() { date +%s%3N; }
log_size() { stat -c %s "$SM_LOG"; }
# sweep lines (ok or failed) written since byte offset $1
sweeps_since() { tail -c +$(($1 + 1)) "$SM_LOG" | grep -cE ' sweep [0-9]+: (ok|failed) '; }
last_sweep_ok() { tail -c +$(($1 + 1)) "$SM_LOG" | grep -E ' sweep [0-9]+: (ok|failed) ' | tail -n 1 | grep -q ': ok '; }

# ev_check DOWN: the check after an event (output in $d/check.out)
ev_check() {
	local down=$1
	{
		sim_client ibnetdiscover >"$d/ibnd.txt" 2>"$d/tools.err" &&
			sim_client iblinkinfo -l >"$d/ll.txt" 2>>"$d/tools.err" &&
			sim_client dump_fts >"$d/fts.txt" 2>>"$d/tools.err"
	} || { { echo "a diag tool failed:"; cat "$d/tools.err"; } >"$d/check.out"; return 1; }
	"$PYTHON" "$FAULTS_DIR/faults.py" evcheck --fabric "$fabric" --sm-host "$host" \
		--down "$down" --topo "$d/ibnd.txt" --linkinfo "$d/ll.txt" --fts "$d/fts.txt" \
		--baseline "$base" --client "$client" >"$d/check.out" 2>&1
}

# event FLAP EVENT WHAT CMDS DOWN: run one event, append its line to $res
nfail=0 consec=0 nev=0
event() {
	local flap=$1 ev=$2 what=$3 cmds=$4 down=$5 kind off0 offc offe t0 deadline seen n
	local status=timeout-no-sweep m quiet_since
	case $what in
	*' + '*) kind=double ;;
	*) kind=${what%% *} ;;
	esac
	off0=$(log_size)
	t0=$(now_ms)
	# all the commands of the event in one write: "two at once"
	printf '%s\n' "${cmds//;/$'\n'}" >"$SIM_FIFO"
	deadline=$((t0 + CONV_TIMEOUT * 1000))
	seen=0
	offc=$off0
	while [ "$(now_ms)" -lt "$deadline" ]; do
		if ! kill -0 "$SM_PID" 2>/dev/null; then status=sm-exited; break; fi
		n=$(sweeps_since "$off0")
		if [ "$n" -gt "$seen" ]; then
			seen=$n
			if last_sweep_ok "$off0"; then
				offc=$(log_size)
				if ev_check "$down"; then status=ok; break; fi
				status=check-failed
			else
				status=sweep-failed
			fi
			continue
		fi
		sleep 0.05
	done
	if [ $status = ok ]; then
		# settle: until no new sweep line for SETTLE_MS (bounded by
		# CONV_TIMEOUT); sweeps that ran meanwhile must leave it correct
		quiet_since=$(now_ms)
		deadline=$((quiet_since + CONV_TIMEOUT * 1000))
		while [ "$(now_ms)" -lt "$deadline" ]; do
			n=$(sweeps_since "$off0")
			if [ "$n" -gt "$seen" ]; then seen=$n; quiet_since=$(now_ms); fi
			[ $(($(now_ms) - quiet_since)) -ge "$SETTLE_MS" ] && break
			sleep 0.05
		done
		if [ "$(sweeps_since "$offc")" -gt 0 ]; then
			ev_check "$down" || status=broken-by-later-sweep
		fi
	fi
	offe=$(log_size)
	m=$("$PYTHON" "$FAULTS_DIR/faults.py" measure --log "$SM_LOG" --t0 "$t0" --off0 "$off0" \
		--offc "$offc" --offe "$offe")
	# fabric flap event kind what conv_ms mads sweeps failed trap status
	read -r conv mads sweeps failed trap <<<"$m"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$flap" "$ev" "$kind" "$what" \
		"$conv" "$mads" "$sweeps" "$failed" "$trap" "$status" >>"$res"
	nev=$((nev + 1))
	if [ $status = ok ]; then
		consec=0
		printf '[%s] %3s %-6s %-58s ok   %6s ms %6s MADs %d sweep(s)%s\n' "$IT_NAME" "$flap" "$ev" \
			"$what" "$conv" "$mads" "$sweeps" "$([ "$trap" = yes ] || echo ', no trap first')"
	else
		nfail=$((nfail + 1)) consec=$((consec + 1))
		printf '[%s] %3s %-6s %-58s FAIL %s (%s sweeps, %s failed)\n' "$IT_NAME" "$flap" "$ev" \
			"$what" "$status" "$sweeps" "$failed"
		f=$out/$name.fail.$flap.$ev.txt
		{
			echo "campaign $name, fabric $fabric, seed $seed, flap $flap $ev: $what"
			echo "console: ${cmds//;/ ; }"
			echo "links down after it: ${down:-none}"
			echo "status: $status"
			echo "----- last check output"
			cat "$d/check.out" 2>/dev/null
			echo "----- nanosm log since the event (debug lines left out)"
			tail -c +$((off0 + 1)) "$SM_LOG" | grep -v ' debug: '
			echo "----- ibsim log (last 15 lines)"
			tail -n 15 "$SIM_LOG"
		} >"$f"
		sed -n '/^-----  *last check/,/^----- nanosm/p' "$f" | grep -E 'FAILED|^    - ' | head -n 8 |
			sed "s/^/[$IT_NAME]        /"
	fi
}

while IFS=$'\t' read -r flap what uncmds recmds down; do
	event "$flap" unlink "$what" "$uncmds" "$down"
	[ "$status" = sm-exited ] && break
	[ $consec -ge "$MAX_CONSEC_FAIL" ] && { it_log "stopping: $consec failed events in a row"; break; }
	event "$flap" relink "$what" "$recmds" ""
	[ "$status" = sm-exited ] && break
	[ $consec -ge "$MAX_CONSEC_FAIL" ] && { it_log "stopping: $consec failed events in a row"; break; }
done <"$plan"

kill -0 "$SM_PID" 2>/dev/null || it_fail "nanosm exited during the campaign"
it_step "all links back: the full checks (file-wide ports/LIDs, routes, ibtracert, LIDs == baseline)"
rm -f "$IT_SCRATCH/chk/ibnetdiscover.txt"
wait_ports_ok 30
check_ports
check_routes
"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$IT_SCRATCH/chk/ibnetdiscover.txt" >"$IT_SCRATCH/lids.end"
IT_LAST_OUT=$IT_SCRATCH/lids.diff
diff "$base" "$IT_SCRATCH/lids.end" >"$IT_LAST_OUT" || it_fail "LIDs changed over the campaign"
it_log "   LIDs: all $(wc -l <"$base") identical to the baseline"
sm_stop
grep -E 'MAD counters' "$SM_LOG" | sed "s/^/[$IT_NAME] /"
it_log "$nev events, $nfail failed"
[ $nfail -eq 0 ] || { echo "[$IT_NAME] FAIL: $nfail of $nev events failed (details in $out/$name.fail.*)"; exit 1; }
it_pass
