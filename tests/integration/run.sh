#!/bin/bash
# tests/integration/run.sh - run the ibsim integration tests.
#
#   tests/integration/run.sh                 # all tests, SM=nanosm
#   SM=opensm tests/integration/run.sh       # same checks against OpenSM
#   tests/integration/run.sh lab restart     # a subset (names or t_*.sh files)
#   tests/integration/run.sh -v              # print every test's full output
#
# Prints one PASS/FAIL/SKIP line per test (failures followed by the test's
# output), then a final line "N passed, M failed".  Exit status is non-zero
# if any test failed.  Every test bounds its own waits; run.sh additionally
# bounds each test (TEST_TIMEOUT, default 180 s) and afterwards checks that
# no process started by the tests is still alive.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ALL_TESTS="lab ibsim twosw fattree64 ring restart killrestart resweep engines degraded score verify verify_split reload ctl reconf sa partitions ipoib mkey standby ops silent simlab nosim vl vlsp operator ping monitor perfreset ftreevl sacrowd"
TEST_TIMEOUT=${TEST_TIMEOUT:-180}
VERBOSE=${IT_VERBOSE_RUN:-0}
export SM=${SM:-nanosm}
export IT_RUN_TAG=$$
scratch_prefix="${TMPDIR:-/tmp}/nanosm-it.${IT_RUN_TAG}."

tests=()
for a in "$@"; do
	case $a in
	-v | --verbose) VERBOSE=1 ;;
	-h | --help) sed -n '2,14p' "$0"; exit 0 ;;
	*) a=${a##*/}; a=${a#t_}; tests+=("${a%.sh}") ;;
	esac
done
[ ${#tests[@]} -gt 0 ] || read -r -a tests <<<"$ALL_TESTS"

logdir=$(mktemp -d "${TMPDIR:-/tmp}/nanosm-it-logs.XXXXXX") || exit 1
trap 'rm -rf "$logdir"' EXIT

if [ "$SM" = nanosm ]; then
	sm_desc="nanosm (${NANOSM:-$REPO/build/bin/nanosm})"
else
	sm_desc=$SM
fi
echo "== nanosm integration tests under ibsim: SM=$sm_desc, ${#tests[@]} tests"

# processes still running in one of this run's scratch dirs (ibsim, SMs and
# diag clients all run with cwd = <scratch>/run) - found by PID, not by name
leftovers() {
	local c pid d
	for c in /proc/[0-9]*/cwd; do
		pid=${c#/proc/}
		pid=${pid%/cwd}
		d=$(readlink "$c" 2>/dev/null) || continue
		case $d in
		"$scratch_prefix"*) echo "$pid" ;;
		esac
	done
}

pass=0 fail=0 skip=0
failed=() skipped=()
t_start=$(date +%s%N)
for t in "${tests[@]}"; do
	script=$HERE/t_$t.sh
	log=$logdir/$t.log
	if [ ! -f "$script" ]; then
		printf 'FAIL  %-10s (no such test: %s)\n' "$t" "$script"
		fail=$((fail + 1)); failed+=("$t")
		continue
	fi
	s=$(date +%s%N)
	# timeout signals the whole process group of the test (its ibsim, SM
	# and clients included); the test's EXIT trap cleans up on SIGTERM.
	timeout -k 10 "$TEST_TIMEOUT" bash "$script" >"$log" 2>&1
	rc=$?
	secs=$(awk -v n=$(($(date +%s%N) - s)) 'BEGIN { printf "%.1f", n / 1e9 }')
	case $rc in
	0) st=PASS; pass=$((pass + 1)) ;;
	77) st=SKIP; skip=$((skip + 1)); skipped+=("$t") ;;
	124 | 137) st=FAIL; fail=$((fail + 1)); failed+=("$t")
		echo "[$t] FAIL: test exceeded ${TEST_TIMEOUT}s (killed by run.sh)" >>"$log" ;;
	*) st=FAIL; fail=$((fail + 1)); failed+=("$t") ;;
	esac
	note=
	[ $st = SKIP ] && note=" - $(grep -m1 -o 'SKIP: .*' "$log" | cut -c7-)"
	printf '%s  %-10s (%ss)%s\n' "$st" "$t" "$secs" "$note"
	if [ $st = FAIL ] || [ "$VERBOSE" = 1 ]; then
		sed 's/^/    | /' "$log"
	fi
done

# nothing may outlive the tests
left=$(leftovers)
if [ -n "$left" ]; then
	echo "FAIL  leftover processes from this run:"
	for p in $left; do
		echo "    | $(tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null) (pid $p) - killing"
		kill -KILL "$p" 2>/dev/null
	done
	fail=$((fail + 1)); failed+=("leftovers")
fi
strays=$(find "$REPO" -maxdepth 3 -type d -name 'sys-[0-9]*' 2>/dev/null)
if [ -n "$strays" ]; then
	echo "note: umad2sim sys-<pid> dirs in the repo (a client run outside a scratch dir?):"
	echo "$strays" | sed 's/^/    | /'
fi

total=$(awk -v n=$(($(date +%s%N) - t_start)) 'BEGIN { printf "%.1f", n / 1e9 }')
echo "== SM=$SM, ${total}s total${failed[*]:+; failed: ${failed[*]}}${skipped[*]:+; skipped: ${skipped[*]}}"
[ $skip -gt 0 ] && echo "$skip skipped"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
