#!/bin/bash
# tests/faults/drops.sh NAME FABRIC RATE OUTDIR [NANOSM ARGS...]
#
# One MAD-drop run: ibsim drops RATE % of the packets on every port of every
# node (console `Error "node" RATE`, before nanosm starts), nanosm starts
# from scratch (--sweep-interval 300: only the sweeps this script asks for).
#
#  A. bounded wait (DROP_UP_TIMEOUT) for SUBNET UP, asking for a new sweep
#     (nanosmctl sweep) whenever one ends failed.  If it comes, the drops
#     are paused (`Error "node" 0`; nanosm is idle between sweeps) and the
#     fabric is judged: check_routes.py ports --fabric (every node/link of the
#     file, every port Active, LIDs) and routes (all pairs over dump_fts).
#  B. up to DROP_RESWEEPS more sweeps under drops (nanosmctl sweep), each
#     judged the same way with the drops paused: after how many sweeps is the
#     fabric correct?
#  C. drops off for good, one more sweep: the fabric must be correct (nanosm
#     recovers once the loss stops).
#
# ibsim drops per hop (sim_mad.c: every port a MAD enters, request and reply,
# and the target port), so a DR SMP over h links is lost with probability
# about 1 - (1 - RATE/100)^(2h + 1): nanosm's own MAD counters (sent vs
# received) give the loss it really saw.
#
# Appends one line to OUTDIR/drops.tsv; writes OUTDIR/NAME.log.txt (nanosm's
# log without debug lines) and OUTDIR/NAME.check.*.txt (the check outputs).
# Exit 0 if A passed (SUBNET UP and a correct fabric at that point; or a
# degraded SUBNET UP and a correct fabric within the re-sweeps), 1 if not.
. "$(dirname "$0")/../integration/lib.sh"

name=$1 fabric=$(realpath "$2") rate=$3 out=$(realpath -m "$4")
shift 4
DROP_UP_TIMEOUT=${DROP_UP_TIMEOUT:-150}
DROP_RESWEEPS=${DROP_RESWEEPS:-3}
DROP_SWEEP_TIMEOUT=${DROP_SWEEP_TIMEOUT:-60}

it_init "drops-$name"
[ "$SM" = nanosm ] || it_skip "reads nanosm's sweep lines"
mkdir -p "$out"
export NANOSM_ARGS="${NANOSM_ARGS:-} $*"
sim_start "$fabric"
nodes=$(fabric_nodes "$fabric" all)

set_drops() {
	local n buf=
	for n in $nodes; do buf+="Error \"$n\" $1"$'\n'; done
	printf '%s' "$buf" >"$SIM_FIFO"
	sleep 0.2 # ibsim reads its console between packets
}
set_drops "$rate"
# evidence that ibsim took it: Dump prints "# err_rate N" on each port
first=$(echo "$nodes" | head -n 1)
sim_cmd "Dump \"$first\""
wait_for_pattern "$SIM_LOG" "err_rate $rate" 5 "$SIM_PID" ||
	[ "$rate" = 0 ] || it_fail "ibsim did not take 'Error \"$first\" $rate'"
it_log "ibsim: $rate% drop on every port of $(echo "$nodes" | wc -w) nodes"

sm_start --sweep-interval 300
sock=$IT_SCRATCH/nanosm.$SM_GEN.sock
CTL=${NANOSMCTL:-$REPO/build/bin/nanosmctl}
client=$(it_client_wrapper)
d=$IT_SCRATCH/chk
mkdir -p "$d"

nsweeps() { grep -cE ' sweep [0-9]+: (ok|failed) ' "$SM_LOG"; }

# judge TAG: drops paused, ports (file-wide) + routes; prints one word
judge() {
	local tag=$1 f=$out/$name.check.$1.txt rc=0
	set_drops 0
	{
		sim_client ibnetdiscover >"$d/ibnd.$tag" 2>&1 &&
			sim_client iblinkinfo -l >"$d/ll.$tag" 2>&1 &&
			sim_client dump_fts >"$d/fts.$tag" 2>&1
	} || rc=2
	if [ $rc = 0 ]; then
		{
			"$PYTHON" "$IT_LIB_DIR/check_routes.py" ports --topo "$d/ibnd.$tag" \
				--linkinfo "$d/ll.$tag" --fabric "$fabric" || rc=1
			"$PYTHON" "$IT_LIB_DIR/check_routes.py" routes --topo "$d/ibnd.$tag" \
				--fts "$d/fts.$tag" --client "$client" || rc=1
		} >"$f" 2>&1
	else
		echo "a diag tool failed" >"$f"
	fi
	grep -E '^(ports|routes):' "$f" | cut -c1-150 | sed "s/^/[$IT_NAME]    $tag: /" >&2
	[ $rc = 0 ] && echo correct || echo wrong
}

# A: the first SUBNET UP under drops
t0=$(date +%s%3N)
up=no up_ms=- first=- sweeps_up=-
# nanosm retries a failed sweep only at its next --sweep-interval: ask for
# the next sweep (nanosmctl sweep) as soon as one ends without SUBNET UP
asked=0
deadline=$(($(date +%s) + DROP_UP_TIMEOUT))
while [ "$(date +%s)" -lt "$deadline" ] && kill -0 "$SM_PID" 2>/dev/null; do
	grep -q 'SUBNET UP' "$SM_LOG" && { up=yes; break; }
	n=$(nsweeps)
	if [ "$n" -gt "$asked" ]; then
		asked=$n
		"$CTL" -s "$sock" sweep >/dev/null 2>&1 || it_fail "nanosmctl sweep failed"
	fi
	sleep 0.1
done
if [ $up = yes ]; then
	up_ms=$(($(date +%s%3N) - t0))
	sweeps_up=$(nsweeps)
	degraded=no
	grep -q 'SUBNET UP:.* degraded=1' "$SM_LOG" && degraded=yes
	it_log "SUBNET UP after ${up_ms} ms, sweep $sweeps_up (degraded: $degraded): $(grep -m1 'SUBNET UP' "$SM_LOG" | cut -d' ' -f3- | cut -c1-200)"
	first=$(judge up)
else
	kill -0 "$SM_PID" 2>/dev/null || it_fail "nanosm exited under $rate% drops"
	it_log "no SUBNET UP within ${DROP_UP_TIMEOUT}s ($(nsweeps) sweeps ended, all failed)"
	sweeps_up=">$(nsweeps)"
fi
grep -E ' sweep [0-9]+: (ok|failed) ' "$SM_LOG" | cut -d' ' -f3- | cut -c1-220 | sed "s/^/[$IT_NAME]    /"

# B: more sweeps under drops (only once up: before that nanosm keeps trying)
correct_after=-
[ "$first" = correct ] && correct_after=$sweeps_up
if [ $up = yes ] && [ "$first" != correct ]; then
	for i in $(seq "$DROP_RESWEEPS"); do
		set_drops "$rate"
		n=$(nsweeps)
		"$CTL" -s "$sock" sweep >/dev/null 2>&1 || it_fail "nanosmctl sweep failed"
		deadline=$(($(date +%s) + DROP_SWEEP_TIMEOUT))
		while [ "$(nsweeps)" -le "$n" ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.2; done
		[ "$(nsweeps)" -gt "$n" ] || { it_log "sweep under drops did not end within ${DROP_SWEEP_TIMEOUT}s"; break; }
		it_log "re-sweep $i under drops: $(grep -E ' sweep [0-9]+: (ok|failed) ' "$SM_LOG" | tail -n 1 | cut -d' ' -f3- | cut -c1-160)"
		v=$(judge "resweep$i")
		if [ "$v" = correct ]; then correct_after=$(nsweeps); break; fi
	done
fi

# C: drops off, one sweep: nanosm must recover
set_drops 0
n=$(nsweeps)
# a sweep may still be running (no SUBNET UP yet): wait for it first
"$CTL" -s "$sock" sweep >/dev/null 2>&1 || it_fail "nanosmctl sweep failed"
deadline=$(($(date +%s) + DROP_SWEEP_TIMEOUT))
while [ "$(date +%s)" -lt "$deadline" ]; do
	grep -E ' sweep [0-9]+: (ok|failed) ' "$SM_LOG" | tail -n +$((n + 1)) | grep -q ': ok ' && break
	sleep 0.2
done
recovered=$(judge recovered)
it_log "drops off, one more sweep: fabric $recovered"

sm_stop
grep -v ' debug: ' "$SM_LOG" >"$out/$name.log.txt"
counters=$(grep -m1 'MAD counters' "$SM_LOG" | sed 's/.*MAD counters: //')
sent=$(sed -nE 's/.*sent=([0-9]+).*/\1/p' <<<"$counters")
recv=$(sed -nE 's/.*received=([0-9]+).*/\1/p' <<<"$counters")
loss=$(awk -v s="$sent" -v r="$recv" 'BEGIN { if (s > 0) printf "%.0f", 100 * (s - r) / s; else print "-" }')
ids=$(grep -oE 'NSM-[EW][0-9]+' "$SM_LOG" | sort | uniq -c | awk '{ printf "%s%s:%s", sep, $2, $1; sep = "," }')
it_log "MAD counters: $counters (lost ${loss}%)"
it_log "warnings/errors: ${ids:-none}"
# name rate args up up_ms sweeps_up first correct_after recovered loss ids
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$rate" "${*:-defaults}" "$up" "$up_ms" \
	"$sweeps_up" "$first" "$correct_after" "$recovered" "$loss" "${ids:-none}" >>"$out/drops.tsv"
[ "$recovered" = correct ] || { echo "[$IT_NAME] FAIL: fabric not correct after the drops stopped and a sweep"; exit 1; }
# A complete SUBNET UP must be correct; a degraded one (nanosm says the
# sweeps keep leaving work undone) must become correct within the re-sweeps.
if [ $up = yes ] && [ "$first" != correct ] && [ "${degraded:-no}" = yes ] && [ "$correct_after" != - ]; then
	it_log "degraded SUBNET UP at sweep $sweeps_up, correct at sweep $correct_after"
	it_pass
fi
[ $up = yes ] && [ "$first" = correct ] || { echo "[$IT_NAME] FAIL: $rate% drops: SUBNET UP=$up (degraded: ${degraded:-no}), fabric at SUBNET UP: $first, correct after: $correct_after"; exit 1; }
it_pass
