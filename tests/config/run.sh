#!/bin/sh
# run.sh - golden tests of the YAML policy (config/): every NAME.yaml here
# must print as NAME.ok (the canonical form of a valid file, or the exact
# error line of a broken one; names start with ok- or bad- accordingly), and
# config/examples/NAME.yaml as example-NAME.ok.  The comparison itself lives
# in tests/unit/test_policy.c (also part of `make unit`); this script builds
# that suite alone, with its own main, and runs it.
#
#   tests/config/run.sh            compare; exit 1 on any difference
#   tests/config/run.sh --update   rewrite the .ok files (review the diff!)
#   SANITIZE=1 tests/config/run.sh with AddressSanitizer + UBSan
#   CC=clang tests/config/run.sh   another compiler
set -u

cd "$(dirname "$0")/../.." || exit 2
CC=${CC:-cc}
CFLAGS="-std=gnu11 -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -D_GNU_SOURCE -I. -O1 -g"
if [ "${SANITIZE:-0}" = 1 ]; then
	CFLAGS="$CFLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
fi
if [ "${1:-}" = --update ]; then
	export NANOSM_GOLDEN_UPDATE=1
elif [ $# -gt 0 ]; then
	sed -n '2,13s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
TMP=$(mktemp -d /tmp/nanosm-config-golden.XXXXXX) || exit 2
trap 'rm -rf "$TMP"' EXIT

# The suite links config/ and the routing engine table (engine names come
# from route_engine_find).  The engines' objects go into an archive, so
# the linker takes only what the table needs - nothing of sm/.
mkdir -p "$TMP/obj" || exit 2
for src in routing/*.c mad/smp.c mad/text.c; do
	# shellcheck disable=SC2086
	$CC $CFLAGS -c -o "$TMP/obj/$(echo "$src" | tr / _).o" "$src" || exit 2
done
ar rcs "$TMP/libcore.a" "$TMP"/obj/*.o || exit 2
# shellcheck disable=SC2086
$CC $CFLAGS -DTEST_POLICY_MAIN -o "$TMP/test-policy" tests/unit/test_policy.c config/*.c \
	"$TMP/libcore.a" -lyaml -libmad -lcunit || exit 2
"$TMP/test-policy" || exit 1
if [ "${NANOSM_GOLDEN_UPDATE:-}" = 1 ]; then
	echo "run.sh: .ok files rewritten; review with git diff tests/config" >&2
fi
