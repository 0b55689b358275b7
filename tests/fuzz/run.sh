#!/bin/sh
# run.sh - run the libFuzzer targets built by `make fuzz-build` (see
# docs/fuzzing.md).  Each target fuzzes a copy of its checked-in corpus
# (tests/fuzz/corpus/NAME/ -> $FUZZ_BUILD/corpus/NAME/, which keeps what
# the runs add); a crash, leak, timeout or sanitizer report fails the run
# and leaves the input in $FUZZ_BUILD/artifacts/NAME/.
#
#   tests/fuzz/run.sh SECONDS [NAME...]          fuzz each target SECONDS
#   tests/fuzz/run.sh --smoke SECONDS [NAME...]  replay tests/fuzz/regress/NAME/,
#                                                then fuzz SECONDS on a scratch copy
#   tests/fuzz/run.sh --check-cc CC              exit 0 when CC links libFuzzer
#
# NAME defaults to every tests/fuzz/fuzz_NAME.c.  Targets run one at a
# time, one process each.  FUZZ_ARGS adds libFuzzer flags.
set -u

cd "$(dirname "$0")/../.." || exit 2
FUZZ_BUILD=${FUZZ_BUILD:-build/fuzz}

check_cc() {
	command -v "$1" >/dev/null 2>&1 || return 1
	t=$(mktemp -d /tmp/nanosm-fuzz-cc.XXXXXX) || return 1
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
		>"$t/t.c"
	"$1" -fsanitize=fuzzer,address,undefined -o "$t/t" "$t/t.c" >/dev/null 2>&1
	rc=$?
	rm -rf "$t"
	return $rc
}

# One libFuzzer run: $1 name, $2 seconds, $3 corpus dir.  Prints a summary.
fuzz_one() {
	name=$1 secs=$2 corpus=$3
	bin=$FUZZ_BUILD/bin/fuzz_$name
	art=$FUZZ_BUILD/artifacts/$name
	log=$FUZZ_BUILD/logs/$name.log
	mkdir -p "$art" "$FUZZ_BUILD/logs" "$corpus" || return 2
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
		-max_len=8192 -print_final_stats=1 -artifact_prefix="$art/" ${FUZZ_ARGS:-} \
		"$corpus" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	last=$(grep -aE '^#[0-9]+' "$log" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	files=$(find "$corpus" -type f | wc -l)
	if [ $rc -ne 0 ]; then
		echo "fuzz $name: FAILED after ${execs:-?} runs (exit $rc); see $log, input in $art/"
		grep -aE '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -n 5
		return 1
	fi
	echo "fuzz $name: ${secs}s, ${execs:-?} runs, ${rate:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}, corpus $files files; ok"
}

# Replay every kept crash input of $1 once; they must all pass now.
replay_one() {
	name=$1
	dir=tests/fuzz/regress/$name
	[ -d "$dir" ] || return 0
	set -- "$dir"/*
	[ -e "$1" ] || return 0
	log=$FUZZ_BUILD/logs/$name.regress.log
	mkdir -p "$FUZZ_BUILD/logs" || return 2
	if ! "$FUZZ_BUILD/bin/fuzz_$name" -runs=1 "$@" >"$log" 2>&1; then
		echo "fuzz $name: regression input FAILED; see $log"
		return 1
	fi
	echo "fuzz $name: $# regression inputs replayed; ok"
}

smoke=0
case ${1:-} in
--check-cc)
	check_cc "${2:-clang}"
	exit $?
	;;
--smoke)
	smoke=1
	shift
	;;
esac
[ $# -ge 1 ] || { sed -n '2,15s/^# \{0,1\}//p' "$0" >&2; exit 2; }
secs=$1
shift
if [ $# -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do
		n=${f#tests/fuzz/fuzz_}
		set -- "$@" "${n%.c}"
	done
fi

fail=0
for name in "$@"; do
	if [ ! -x "$FUZZ_BUILD/bin/fuzz_$name" ]; then
		echo "fuzz $name: $FUZZ_BUILD/bin/fuzz_$name not built (make fuzz-build)"
		fail=1
		continue
	fi
	if [ $smoke = 1 ]; then
		replay_one "$name" || fail=1
		corpus=$(mktemp -d /tmp/nanosm-fuzz-$name.XXXXXX) || exit 2
	else
		corpus=$FUZZ_BUILD/corpus/$name
	fi
	mkdir -p "$corpus"
	if [ -d "tests/fuzz/corpus/$name" ]; then
		cp -p "tests/fuzz/corpus/$name"/* "$corpus"/ 2>/dev/null
	fi
	fuzz_one "$name" "$secs" "$corpus" || fail=1
	[ $smoke = 1 ] && rm -rf "$corpus"
done
exit $fail
