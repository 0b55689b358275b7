#!/bin/bash
# tests/faults/handover.sh NAME FABRIC PAIR HANDOVERS SEED OUTDIR
#
# Master/standby pairs under kill -9 (IBA 14.4).  Two SMs at two CAs (the
# first and the last of FABRIC; slot 0 and slot 1), both with a 1 s sweep
# interval (a standby polls its master once per interval and takes over
# after 3 failed polls), each with its own guid2lid/cache (two machines):
#
#   PAIR=nanosm  two nanosm.  Start: slot 0 priority 15 master, slot 1
#                priority 14 standby.  Event i: kill -9 the master; the
#                standby takes over; the killed one is restarted
#                  odd i  ("takeover"): priority survivor-1: it goes STANDBY;
#                  even i ("takeover+handover"): priority survivor+1: it
#                         goes STANDBY, the master hears of it (trap 144,
#                         its polls) and hands over (SMInfo HANDOVER), the
#                         restarted one is master again.
#   PAIR=opensm  the same with OpenSM (slot 0, -p 15 at the start) and
#                nanosm (slot 1, 14): "to-nanosm" / "to-opensm" name the
#                SM that takes over; "to-opensm+back": the killed nanosm
#                comes back better and OpenSM hands the mastership back to
#                it (HANDOVER) - every other time nanosm is killed.  The other way (nanosm
#                handing over to a better OpenSM) is not run: a better
#                OpenSM that finds a worse master sends it trap 144 and
#                waits for the TrapRepress, which ibsim drops ("got trap
#                repress - dropping", ibsim/sim_mad.c); umad2sim never
#                times the trap out, and OpenSM, once handed the
#                mastership, waits for it before its first sweep: MASTER
#                without SUBNET UP, for ever.  So a killed OpenSM always
#                comes back worse.  OpenSM runs with -k 0 (SM_Key 0):
#                OpenSM ignores an SM whose SMInfo shows another key than
#                its own (ERR 2F18), and nanosm shows its key only to a
#                requester that presents it, which OpenSM's Gets do not
#                (nanosm with sm_key 0x1 next to OpenSM's default 0x1:
#                both MASTER).  OpenSM polls every
#                sminfo_polling_timeout=1000 ms, 3 retries (-F file).  At
#                most 14 events (priorities must stay in 0..15).
# Each event is drawn from SEED only in its kill delay (faults.py hplan:
# 0..999 ms after the previous event was judged: anywhere in the 1 s poll
# period of the standby).
# Judged after every event: check_routes.py ports --fabric and routes
# (ibnetdiscover, iblinkinfo, dump_fts), every LID equal to the baseline,
# sminfo at each SM's LID (exactly one SMINFO_MASTER, the expected one, the
# other SMINFO_STANDBY), plain sminfo from a third CA names the expected
# master's GUID, nanosmctl status of each nanosm says MASTER/STANDBY.
# Figures: takeover = kill -> the survivor's SUBNET UP line (log time);
# handover = launch of the better SM -> its SUBNET UP line; lft_blocks_sent
# of the first sweep of each nanosm that became master ("A+B" when the
# mastership moved twice in the event).
#
# Writes OUTDIR/NAME.handovers.tsv (faults.py hsummary) and
# OUTDIR/NAME.hfail.<idx>.txt per failed event.
# Knobs: HO_TIMEOUT (30 s, every wait), HO_OSM_ARGS (extra OpenSM words,
# e.g. "-D 0x4f" for its debug log; OpenSM takes the last -k), NANOSM_ARGS
# (extra nanosm words, e.g. "-f policy.yaml").  The campaign stops after a failed
# event (the pair is then in an unknown state).
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/../integration/lib.sh"
FAULTS_DIR=$(cd "$(dirname "$0")" && pwd)

name=$1 fabric=$(realpath "$2") pair=$3 events=$4 seed=$5 out=$(realpath -m "$6")
HO_TIMEOUT=${HO_TIMEOUT:-30}
CTL=${NANOSMCTL:-$REPO/build/bin/nanosmctl}

it_init "handover-$name"
case $pair in
nanosm) ;;
opensm)
	command -v opensm >/dev/null || it_skip "opensm not installed"
	# a killed OpenSM always comes back one priority level lower
	[ "$events" -le 14 ] || { it_log "at most 14 events with OpenSM: $events -> 14"; events=14; }
	;;
*) it_fail "PAIR must be nanosm or opensm" ;;
esac
mkdir -p "$out"
res=$out/$name.handovers.tsv
: >"$res"
d=$IT_SCRATCH/ev
mkdir -p "$d"

now_ms() { date +%s%3N; }
hosts=$(fabric_nodes "$fabric" ca)
HOST=("$(echo "$hosts" | head -n 1)" "$(echo "$hosts" | tail -n 1)")
third=$(echo "$hosts" | sed -n "$((($(echo "$hosts" | wc -l) + 1) / 2))p")
KIND=(nanosm nanosm)
[ "$pair" = opensm ] && KIND=(opensm nanosm)
PID=("" "")
LOG=("" "")
SOCK=("" "")
PRIO=(15 14)
GEN=0

osmconf=$IT_SCRATCH/opensm.conf
printf 'sminfo_polling_timeout 1000\npolling_retry_number 3\n' >"$osmconf"

# ho_start SLOT PRIO: start slot's SM at its CA; LOG[slot] is the file
# with its state lines (nanosm's output, OpenSM's log file)
ho_start() {
	local s=$1 p=$2 cmd=() envs=() outf
	GEN=$((GEN + 1))
	PRIO[s]=$p
	outf=$IT_SCRATCH/sm$s.$GEN.out
	mkdir -p "$IT_SCRATCH/state$s"
	case ${KIND[s]} in
	nanosm)
		SOCK[s]=$IT_SCRATCH/sm$s.$GEN.sock
		cmd=("$NANOSM" -v --priority "$p" --sweep-interval 1 --guid2lid "$IT_SCRATCH/state$s/guid2lid"
			--socket "${SOCK[s]}")
		# shellcheck disable=SC2206 # NANOSM_ARGS: extra words, as in lib.sh
		[ -n "${NANOSM_ARGS:-}" ] && cmd+=($NANOSM_ARGS)
		LOG[s]=$outf
		;;
	opensm)
		SOCK[s]=
		LOG[s]=$IT_SCRATCH/osm$s.$GEN.log
		mkdir -p "$IT_SCRATCH/osm-tmp"
		# shellcheck disable=SC2206 # HO_OSM_ARGS: extra words, e.g. "-D 0x4f"
		cmd=(opensm -d2 -f "${LOG[s]}" -F "$osmconf" -p "$p" -s 1 -k 0 ${HO_OSM_ARGS:-})
		envs=(OSM_CACHE_DIR="$IT_SCRATCH/state$s" OSM_TMP_DIR="$IT_SCRATCH/osm-tmp")
		: >"${LOG[s]}"
		;;
	esac
	echo "# ${cmd[*]}" >"$outf"
	(cd "$IT_RUN" && exec env "${envs[@]}" LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$IT_SOCK" \
		SIM_HOST="${HOST[s]}" "${cmd[@]}") >>"$outf" 2>&1 &
	PID[s]=$!
	IT_PIDS+=("${PID[s]}")
}

# patterns by kind
up_pat() { echo 'SUBNET UP'; }
standby_pat() { [ "${KIND[$1]}" = nanosm ] && echo 'STANDBY under SM 0x' || echo 'Entering STANDBY state'; }

# wait_after SLOT OFFSET ERE: bounded wait for ERE in slot's log after
# byte OFFSET; 1 if the SM exits or the time runs out
wait_after() {
	local s=$1 off=$2 pat=$3 deadline
	deadline=$(($(date +%s) + HO_TIMEOUT))
	while :; do
		tail -c +$((off + 1)) "${LOG[s]}" 2>/dev/null | grep -qE -- "$pat" && return 0
		kill -0 "${PID[s]}" 2>/dev/null || return 1
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}
log_size() { stat -c %s "${LOG[$1]}" 2>/dev/null || echo 0; }
# lft_sent SLOT OFFSET: lft_blocks_sent of slot's first 'sweep N: ok' after OFFSET
lft_sent() {
	tail -c +$(($2 + 1)) "${LOG[$1]}" | grep -m1 -E ' sweep [0-9]+: ok ' |
		grep -oE 'lft_blocks_sent=[0-9]+' | cut -d= -f2
}
logtime() {
	"$PYTHON" "$FAULTS_DIR/faults.py" logtime --log "${LOG[$1]}" --t0 "$2" --off "$3" --pattern "$4"
}
# port GUID and LID of a slot's CA, from the baseline
sm_guid() { awk -v h="${HOST[$1]}" '$3 == h { print $1 }' "$base"; }
sm_lid() { awk -v h="${HOST[$1]}" '$3 == h { print $2 }' "$base"; }

# sminfo_of ARGS...: "GUID STATE" (guid as 0x%016x) from sminfo's answer
sminfo_of() {
	sim_client "$@" 2>&1 | sed -nE 's/.*sm guid (0x[0-9a-fA-F]+),.* state ([0-9]+) .*/\1 \2/p' |
		{ read -r g st && printf '0x%016x %s\n' "$g" "$st"; }
}

# judge MASTER_SLOT: the fabric and both SMs; output in $d/check.out
judge() {
	local m=$1 rc=0 s got want st
	{
		sim_client ibnetdiscover >"$d/ibnd.txt" 2>"$d/tools.err" &&
			sim_client iblinkinfo -l >"$d/ll.txt" 2>>"$d/tools.err" &&
			sim_client dump_fts >"$d/fts.txt" 2>>"$d/tools.err"
	} || { { echo "a diag tool failed:"; cat "$d/tools.err"; } >"$d/check.out"; return 1; }
	{
		"$PYTHON" "$IT_LIB_DIR/check_routes.py" ports --topo "$d/ibnd.txt" --linkinfo "$d/ll.txt" \
			--fabric "$fabric" || rc=1
		"$PYTHON" "$IT_LIB_DIR/check_routes.py" routes --topo "$d/ibnd.txt" --fts "$d/fts.txt" \
			--client "$client" || rc=1
		"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$d/ibnd.txt" >"$d/lids.txt" || rc=1
		"$PYTHON" "$FAULTS_DIR/faults.py" lidcmp "$base" "$d/lids.txt" >"$d/lidcmp.out"
		read -r CHANGED MISSING <"$d/lidcmp.out"
		if [ "$CHANGED" != 0 ] || [ "$MISSING" != 0 ]; then
			echo "lids: FAILED - $CHANGED changed, $MISSING missing vs the baseline"
			tail -n +2 "$d/lidcmp.out"
			rc=1
		fi
		# each SM's own SMInfo: exactly one master, the expected one
		for s in 0 1; do
			got=$(sminfo_of sminfo "$(sm_lid $s)")
			want="$(sm_guid $s) $([ $s = "$m" ] && echo 3 || echo 2)"
			if [ "$got" = "$want" ]; then
				echo "sminfo $(sm_lid $s) (${KIND[s]} at ${HOST[s]}): OK - $got"
			else
				echo "sminfo $(sm_lid $s) (${KIND[s]} at ${HOST[s]}): FAILED - '$got', want '$want'"
				rc=1
			fi
			if [ "${KIND[s]}" = nanosm ]; then
				st=$(timeout -k 5 "$CLIENT_TIMEOUT" "$CTL" -s "${SOCK[s]}" status 2>&1 | sed -n 's/^state: //p')
				want=$([ $s = "$m" ] && echo MASTER || echo STANDBY)
				[ "$st" = "$want" ] || { echo "nanosmctl status ${HOST[s]}: FAILED - '$st', want $want"; rc=1; }
			fi
		done
		got=$(sminfo_of --host "$third" sminfo)
		if [ "$got" = "$(sm_guid "$m") 3" ]; then
			echo "sminfo from $third: OK - master $got"
		else
			echo "sminfo from $third: FAILED - '$got', want '$(sm_guid "$m") 3'"
			rc=1
		fi
	} >"$d/check.out" 2>&1
	return $rc
}

it_step "start: ${KIND[0]} (priority ${PRIO[0]}) at ${HOST[0]} master, ${KIND[1]} (${PRIO[1]}) at ${HOST[1]} standby; sminfo from $third"
sim_start "$fabric" "${HOST[0]}"
client=$(it_client_wrapper)
ho_start 0 15
wait_after 0 0 "$(up_pat 0)" || it_fail "${KIND[0]} at ${HOST[0]}: no SUBNET UP within ${HO_TIMEOUT}s"
ho_start 1 14
wait_after 1 0 "$(standby_pat 1)" || it_fail "${KIND[1]} at ${HOST[1]}: not STANDBY within ${HO_TIMEOUT}s"
SM_LOG=${LOG[1]} # for it_fail
check_ports
check_routes
base=$IT_SCRATCH/lids.baseline
"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$IT_SCRATCH/chk/ibnetdiscover.txt" >"$base"
{ [ -n "$(sm_lid 0)" ] && [ -n "$(sm_lid 1)" ]; } || it_fail "no LID for ${HOST[0]} or ${HOST[1]} in the baseline"
CHANGED=0
judge 0 || { IT_LAST_OUT=$d/check.out; it_fail "the starting pair is not right"; }
sed "s/^/[$IT_NAME]    /" "$d/check.out" | grep -E 'sminfo'
it_log "baseline: $(wc -l <"$base") LIDs"

plan=$IT_SCRATCH/hplan.tsv
"$PYTHON" "$FAULTS_DIR/faults.py" hplan --seed "$seed" --handovers "$events" >"$plan" ||
	it_fail "faults.py hplan failed"
master=0 nfail=0 nano_back=worse
while IFS=$'\t' read -r idx delay <&3; do
	m=$master sb=$((1 - master)) status=ok takeover=- handover=- CHANGED=- lft=-
	# nanosm pair: odd events the killed SM comes back worse (it stays
	# STANDBY), even events better (the master hands over to it).  OpenSM
	# pair: a killed OpenSM comes back worse (it cannot take a HANDOVER
	# under ibsim, see the top), a killed nanosm alternately better and
	# worse.  Never out of 0..15.
	if [ "$pair" = nanosm ]; then
		if [ $((idx % 2)) = 1 ]; then back=worse; else back=better; fi
	elif [ "${KIND[m]}" = opensm ] || [ "$nano_back" = better ]; then
		back=worse
	else
		back=better
	fi
	[ "${PRIO[sb]}" = 15 ] && back=worse
	[ $back = worse ] && [ "${PRIO[sb]}" = 0 ] && back=better
	[ "${KIND[m]}" = nanosm ] && nano_back=$back
	if [ "$pair" = nanosm ]; then
		path=takeover
		[ $back = better ] && path="takeover+handover"
	else
		path=to-${KIND[sb]}
		[ $back = better ] && path="to-${KIND[sb]}+back"
	fi
	sleep "$(awk -v m="$delay" 'BEGIN { printf "%.3f", m / 1000 }')"
	off=$(log_size "$sb")
	t_kill=$(now_ms)
	it_kill9 "${PID[m]}" 2>/dev/null || it_fail "pid ${PID[m]} survived SIGKILL"
	# the standby notices (3 failed polls) and takes over
	if wait_after "$sb" "$off" "$(up_pat "$sb")"; then
		takeover=$(logtime "$sb" "$t_kill" "$off" "$(up_pat "$sb")")
		newm=$sb
		[ "${KIND[sb]}" = nanosm ] && lft=$(lft_sent "$sb" "$off")
	else
		status=no-takeover newm=$m
	fi
	if [ $status = ok ]; then
		if [ $back = better ]; then p=$((PRIO[sb] + 1)); else p=$((PRIO[sb] - 1)); fi
		{ [ $p -ge 0 ] && [ $p -le 15 ]; } || it_fail "event $idx: priority $p out of range (internal)"
		offsb=$(log_size "$sb")
		t_launch=$(now_ms)
		ho_start "$m" "$p"
		if [ $back = better ]; then
			if wait_after "$m" 0 "$(up_pat "$m")" && wait_after "$sb" "$offsb" "$(standby_pat "$sb")"; then
				handover=$(logtime "$m" "$t_launch" 0 "$(up_pat "$m")")
				newm=$m
				[ "${KIND[m]}" = nanosm ] && lft="$lft+$(lft_sent "$m" 0)"
			else
				status=no-handover
			fi
		else
			wait_after "$m" 0 "$(standby_pat "$m")" || status=restarted-not-standby
		fi
	fi
	if [ $status = ok ]; then
		judge "$newm" || status=check-failed
	elif [ $status != no-takeover ]; then
		judge "$newm" # the evidence for the failure file (who says MASTER)
	fi
	master=$newm
	# pair idx path killed new_master takeover_ms handover_ms changed status lft_sent
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$idx" "$path" \
		"${KIND[m]}@${HOST[m]}" "${KIND[newm]}@${HOST[newm]}" "$takeover" "$handover" "$CHANGED" \
		"$status" "$lft" >>"$res"
	if [ $status = ok ]; then
		printf '[%s] %3s %-17s kill %s (+%4s ms): takeover %5s ms%s, master now %s (prio %s), LIDs same, one master, lft sent %s\n' \
			"$IT_NAME" "$idx" "$path" "${KIND[m]}@${HOST[m]}" "$delay" "$takeover" \
			"$([ "$handover" = - ] || echo ", handover $handover ms")" "${KIND[newm]}@${HOST[newm]}" \
			"${PRIO[newm]}" "$lft"
	else
		nfail=$((nfail + 1))
		printf '[%s] %3s %-17s kill %s (+%4s ms): FAIL %s\n' "$IT_NAME" "$idx" "$path" \
			"${KIND[m]}@${HOST[m]}" "$delay" "$status"
		f=$out/$name.hfail.$idx.txt
		{
			echo "pair $name ($pair), fabric $fabric, seed $seed, event $idx: $path, killed ${KIND[m]}@${HOST[m]}"
			echo "status: $status"
			echo "----- last check output"
			cat "$d/check.out" 2>/dev/null
			for s in 0 1; do
				echo "----- slot $s (${KIND[s]} at ${HOST[s]}, pid ${PID[s]}): ${LOG[s]##*/} (debug lines left out, last 60)"
				grep -v ' debug: ' "${LOG[s]}" | tail -n 60
			done
		} >"$f"
		grep -E 'FAILED|^    - |^  ' "$d/check.out" 2>/dev/null | head -n 6 | sed "s/^/[$IT_NAME]        /"
	fi
	rm -f "$d/check.out"
	# after a failure the pair is in an unknown state: later events would not mean much
	[ $status = ok ] || { it_log "stopping after the failed event"; break; }
done 3<"$plan"

it_log "$(wc -l <"$res") events, $nfail failed"
[ $nfail -eq 0 ] || { echo "[$IT_NAME] FAIL: $nfail events failed (details in $out/$name.hfail.*)"; exit 1; }
it_pass
