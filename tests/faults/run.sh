#!/bin/bash
# tests/faults/run.sh - nanosm under faults (ibsim): link flaps, MAD drops,
# kill -9 restarts, master/standby handovers.
#
#   tests/faults/run.sh                  # 50 flaps on each fabric, 3 drop runs, 20 restarts
#                                        # on each fabric, 10 handovers per pair (~13 min)
#   tests/faults/run.sh --quick          # 5 flaps, one 5% drop run, 3 restarts, 3 handovers (~2.5 min)
#   tests/faults/run.sh --flaps N        # N flaps on each fabric
#   tests/faults/run.sh --restarts N     # N kill -9 restarts on each fabric
#   tests/faults/run.sh --handovers M    # M kill -9 of the master per pair
#   tests/faults/run.sh --seed S         # replay a run (the seed is printed)
#   tests/faults/run.sh --no-drops | --no-flaps | --no-restarts | --no-handovers
#   tests/faults/run.sh --out DIR        # keep the results there (default: a
#                                        # temp dir, removed unless something failed)
#
# Parts (each its own ibsim and nanosm, run one after the other):
#   flaps-fat   fattree64.topo, N flaps          (flaps.sh)
#   flaps-mesh  a generated irregular mesh with bridges (nanosm-gen mesh
#               --switches 12 --degree 3 --hosts 2 --missing-links 5 --seed 2)
#   drops-*     5 % and 20 % drop on every port, nanosm defaults, and 20 %
#               with --mad-retries 8                          (drops.sh)
#   restarts-fat, restarts-mesh   N kill -9 restarts, same guid2lid (restarts.sh)
#   handover-nanosm  two nanosm, M kills of the master            (handover.sh)
#   handover-opensm  OpenSM + nanosm (skipped without opensm)     (handover.sh)
# Then the figures (faults.py summary).  Exit status non-zero if any part
# failed; every part is bounded by PART_TIMEOUT (400 s) and afterwards no
# process started by the run may be alive (found by cwd, killed by PID).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
PYTHON=${PYTHON:-python3}
flaps=50 seed='' quick=0 do_flaps=1 do_drops=1 outdir='' keep=0
restarts='' handovers='' do_restarts=1 do_handovers=1
while [ $# -gt 0 ]; do
	case $1 in
	--flaps) flaps=$2; shift ;;
	--seed) seed=$2; shift ;;
	--quick) quick=1 ;;
	--no-drops) do_drops=0 ;;
	--no-flaps) do_flaps=0 ;;
	--restarts) restarts=$2; shift ;;
	--handovers) handovers=$2; shift ;;
	--no-restarts) do_restarts=0 ;;
	--no-handovers) do_handovers=0 ;;
	--out) outdir=$2; keep=1; shift ;;
	-h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
	*) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
[ $quick = 1 ] && [ "$flaps" = 50 ] && flaps=5
[ -n "$restarts" ] || restarts=$([ $quick = 1 ] && echo 3 || echo 20)
[ -n "$handovers" ] || handovers=$([ $quick = 1 ] && echo 3 || echo 10)
case $flaps in '' | *[!0-9]*) echo "--flaps needs a number" >&2; exit 2 ;; esac
case $restarts in '' | *[!0-9]*) echo "--restarts needs a number" >&2; exit 2 ;; esac
case $handovers in '' | *[!0-9]*) echo "--handovers needs a number" >&2; exit 2 ;; esac
[ -n "$seed" ] || seed=$(( $(date +%s%N) / 1000 % 1000000 ))
case $seed in *[!0-9]*) echo "--seed needs a number" >&2; exit 2 ;; esac
PART_TIMEOUT=${PART_TIMEOUT:-400}
export SM=nanosm
export IT_RUN_TAG=faults$$
scratch_prefix="${TMPDIR:-/tmp}/nanosm-it.${IT_RUN_TAG}."

for b in nanosm nanosm-gen nanosmctl; do
	[ -x "$REPO/build/bin/$b" ] || { echo "build/bin/$b missing: run make first" >&2; exit 2; }
done
if [ -z "$outdir" ]; then
	outdir=$(mktemp -d "${TMPDIR:-/tmp}/nanosm-faults.XXXXXX") || exit 1
else
	mkdir -p "$outdir" || exit 1
	outdir=$(cd "$outdir" && pwd)
	rm -f "$outdir"/*.tsv "$outdir"/*.txt
fi

leftovers() {
	local c pid d
	for c in /proc/[0-9]*/cwd; do
		pid=${c#/proc/}
		pid=${pid%/cwd}
		d=$(readlink "$c" 2>/dev/null) || continue
		case $d in "$scratch_prefix"*) echo "$pid" ;; esac
	done
}

echo "== nanosm fault suite: seed $seed, $flaps flaps per fabric, $restarts restarts per fabric, $handovers handovers per pair$([ $quick = 1 ] && echo ', quick'), results in $outdir"
fails=()
t_all=$(date +%s%N)
part() {
	local name=$1 s rc secs
	shift
	s=$(date +%s%N)
	# timeout signals the part's process group; its EXIT trap kills its
	# ibsim and nanosm by PID
	timeout -k 10 "$PART_TIMEOUT" bash "$@" >"$outdir/$name.out" 2>&1
	rc=$?
	secs=$(awk -v n=$(($(date +%s%N) - s)) 'BEGIN { printf "%.0f", n / 1e9 }')
	case $rc in
	0) echo "PASS  $name (${secs}s)" ;;
	77) echo "SKIP  $name (${secs}s): $(sed -n 's/.*SKIP: //p' "$outdir/$name.out" | head -n 1)" ;;
	124 | 137) echo "FAIL  $name (${secs}s): exceeded ${PART_TIMEOUT}s"; fails+=("$name") ;;
	*) echo "FAIL  $name (${secs}s)"; fails+=("$name") ;;
	esac
	# the per-event lines and verdicts, not the full chatter
	grep -E '\] +[0-9]+ (unlink|relink) .*FAIL|\] +[0-9]+ (up|sweep|fresh|takeover|to-).* FAIL|start-up:|restarts, [0-9]+ failed|^\[[^]]*\]        |SUBNET UP after|no SUBNET UP|re-sweep|    (up|resweep[0-9]|recovered):|drops off|MAD counters|warnings/errors|events, |FAIL:|LIDs:' \
		"$outdir/$name.out" | sed 's/^/    | /'
	if [ $rc != 0 ] || [ "${FAULTS_VERBOSE:-0}" = 1 ]; then
		tail -n 25 "$outdir/$name.out" | sed 's/^/    ! /'
	fi
}

mesh=$outdir/mesh12.topo
"$REPO/build/bin/nanosm-gen" mesh --switches 12 --degree 3 --hosts 2 --missing-links 5 \
	--seed 2 -o "$mesh" || { echo "nanosm-gen failed"; exit 1; }
if [ $do_flaps = 1 ] && [ "$flaps" -gt 0 ]; then
	part flaps-fat "$HERE/flaps.sh" fat "$REPO/tests/fabrics/fattree64.topo" "$flaps" "$seed" "$outdir"
	part flaps-mesh "$HERE/flaps.sh" mesh "$mesh" "$flaps" "$((seed + 1))" "$outdir"
fi
if [ $do_drops = 1 ]; then
	part drops-5 "$HERE/drops.sh" d5 "$REPO/tests/fabrics/fattree64.topo" 5 "$outdir"
	if [ $quick = 0 ]; then
		part drops-20 "$HERE/drops.sh" d20 "$REPO/tests/fabrics/fattree64.topo" 20 "$outdir"
		part drops-20-r8 "$HERE/drops.sh" d20r8 "$REPO/tests/fabrics/fattree64.topo" 20 "$outdir" \
			--mad-retries 8
	fi
fi
if [ $do_restarts = 1 ] && [ "$restarts" -gt 0 ]; then
	part restarts-fat "$HERE/restarts.sh" fat "$REPO/tests/fabrics/fattree64.topo" "$restarts" \
		"$((seed + 2))" "$outdir"
	part restarts-mesh "$HERE/restarts.sh" mesh "$mesh" "$restarts" "$((seed + 3))" "$outdir"
fi
if [ $do_handovers = 1 ] && [ "$handovers" -gt 0 ]; then
	part handover-nanosm "$HERE/handover.sh" nanosm "$REPO/tests/fabrics/fattree64.topo" nanosm \
		"$handovers" "$((seed + 4))" "$outdir"
	part handover-opensm "$HERE/handover.sh" opensm "$REPO/tests/fabrics/fattree64.topo" opensm \
		"$handovers" "$((seed + 5))" "$outdir"
fi

left=$(leftovers)
if [ -n "$left" ]; then
	echo "FAIL  leftover processes from this run:"
	for p in $left; do
		echo "    | $(tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null) (pid $p) - killing"
		kill -KILL "$p" 2>/dev/null
	done
	fails+=(leftovers)
fi

tsvs=("$outdir"/fat.tsv "$outdir"/mesh.tsv)
have=()
for f in "${tsvs[@]}"; do [ -s "$f" ] && have+=("$f"); done
if [ ${#have[@]} -gt 0 ]; then
	echo
	echo "== figures (seed $seed; times from the console command to the 'sweep N: ok' after which the check passed)"
	"$PYTHON" "$HERE/faults.py" summary "${have[@]}"
fi
if [ -s "$outdir/drops.tsv" ]; then
	echo
	printf '%-7s %5s %-18s %-9s %-10s %-11s %-13s %-10s %5s\n' run drop nanosm 'SUBNET UP' 'after' \
		'at UP' 'correct after' 'drops off' 'MAD loss'
	while IFS=$'\t' read -r n r args up ms sw first ca rec loss ids; do
		printf '%-7s %4s%% %-18s %-9s %-10s %-11s %-13s %-10s %4s%%\n' "$n" "$r" "$args" "$up" \
			"$([ "$ms" = - ] && echo - || echo "${ms}ms/sw$sw")" "$first" \
			"$([ "$ca" = - ] && echo never || echo "sweep $ca")" "$rec" "$loss"
		echo "        $ids"
	done <"$outdir/drops.tsv"
fi
have=()
for f in "$outdir"/fat.restarts.tsv "$outdir"/mesh.restarts.tsv; do [ -s "$f" ] && have+=("$f"); done
if [ ${#have[@]} -gt 0 ]; then
	echo
	echo "== restarts (seed $((seed + 2)) fat, $((seed + 3)) mesh; restart->UP: launch of the new nanosm to its SUBNET UP line;"
	echo "   sent/read: lft_blocks_sent/read of its 'sweep 1:'; LIDs: ports whose LID differs from the baseline)"
	"$PYTHON" "$HERE/faults.py" rsummary "${have[@]}"
fi
have=()
for f in "$outdir"/nanosm.handovers.tsv "$outdir"/opensm.handovers.tsv; do [ -s "$f" ] && have+=("$f"); done
if [ ${#have[@]} -gt 0 ]; then
	echo
	echo "== handovers (seed $((seed + 4)) nanosm pair, $((seed + 5)) OpenSM pair; takeover: kill -9 of the master to the"
	echo "   survivor's SUBNET UP line, standbys poll every 1 s and take over after 3 misses; handover: launch of"
	echo "   the better SM to its SUBNET UP line; LIDs: ports whose LID differs from the baseline)"
	"$PYTHON" "$HERE/faults.py" hsummary "${have[@]}"
fi
total=$(awk -v n=$(($(date +%s%N) - t_all)) 'BEGIN { printf "%.0f", n / 1e9 }')
echo
echo "== ${total}s, seed $seed${fails[*]:+; failed: ${fails[*]}}"
if [ ${#fails[@]} -gt 0 ] || [ $keep = 1 ]; then
	echo "results kept in $outdir"
else
	rm -rf "$outdir"
fi
[ ${#fails[@]} -eq 0 ]
