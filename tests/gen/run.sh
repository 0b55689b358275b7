#!/bin/sh
# run.sh - tests of nanosm-gen (`make gen`): golden files for small fabrics
# of every shape option that has one, the error messages, and properties
# checked on generated fabrics with nanosm-route (switch, CA and cable
# counts from the shape's formula; a grid's diameter as max switch hops;
# the same seed gives the same file, another seed another file).
#
#   tests/gen/run.sh            compare; exit 1 on any difference
#   tests/gen/run.sh --update   rewrite the golden files (review the diff!)
#   NANOSM_GEN=... NANOSM_ROUTE=... tests/gen/run.sh   other binaries
#
# Golden files: NAME.topo (stdout; exit status 0) or NAME.err (stderr of a
# refused command; exit status 2).
set -u

cd "$(dirname "$0")/../.." || exit 2
GEN=${NANOSM_GEN:-build/bin/nanosm-gen}
ROUTE=${NANOSM_ROUTE:-build/bin/nanosm-route}
DIR=tests/gen
UPDATE=0
[ "${1:-}" = --update ] && UPDATE=1
for b in "$GEN" "$ROUTE"; do
	[ -x "$b" ] || { echo "run.sh: $b not found (run make first)" >&2; exit 2; }
done
TMP=$(mktemp -d /tmp/nanosm-gen-test.XXXXXX) || exit 2
trap 'rm -rf "$TMP"' EXIT
FAILED=0
PASSED=0

pass() { PASSED=$((PASSED + 1)); echo "PASS  $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL  $1: $2"; }

# golden NAME EXT RC ARGS...: nanosm-gen ARGS must exit RC and print
# NAME.EXT (stdout for .topo, stderr for .err).
golden() {
	name=$1 ext=$2 want=$3
	shift 3
	"$GEN" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$ext" = err ] && cp "$TMP/err" "$TMP/got" || cp "$TMP/out" "$TMP/got"
	if [ $UPDATE = 1 ]; then
		cp "$TMP/got" "$DIR/$name.$ext"
		pass "$name (updated)"
		return
	fi
	if [ $rc != "$want" ]; then
		fail "$name" "nanosm-gen $* exited $rc, want $want: $(head -c 300 "$TMP/err")"
	elif [ "$ext" = topo ] && [ -s "$TMP/err" ]; then
		fail "$name" "unexpected stderr: $(head -c 300 "$TMP/err")"
	elif ! diff -u "$DIR/$name.$ext" "$TMP/got" >"$TMP/diff"; then
		sed 's/^/    /' "$TMP/diff" | head -n 40
		fail "$name" "nanosm-gen $* differs from $DIR/$name.$ext"
	else
		pass "$name"
	fi
}

# 2-D torus (pins the output the 3-D code must not change) and 3-D shapes;
# sizes of 2 give parallel cables in a torus, a single one in a mesh
golden torus-3x2 topo 0 torus --x 3 --y 2 --hosts 1
golden torus-2x2x2 topo 0 torus --x 2 --y 2 --z 2 --hosts 1
golden torus-3x2x2 topo 0 torus --x 3 --y 2 --z 2 --hosts 1
golden mesh-3x2x2 topo 0 mesh --x 3 --y 2 --z 2 --hosts 2
golden mesh-3x1 topo 0 mesh --x 3 --y 1
# whole switches gone: by default only switches without hosts; host1's never
golden ft3-k4-nosw2 topo 0 fattree --levels 3 --radix 4 --missing-switches 2 --seed 7
golden ft2-k6-nosw1-miss1 topo 0 fattree --levels 2 --radix 6 --missing-switches 1 \
	--missing-links 1 --seed 3
golden torus-3x3-nosw2-lose topo 0 torus --x 3 --y 3 --missing-switches 2 --lose-hosts --seed 2
# refusals
golden err-torus-size1 err 2 torus --x 1 --y 2
golden err-mesh-both err 2 mesh --x 2 --y 2 --switches 4
golden err-mesh-one err 2 mesh --x 1 --y 1
golden err-nosw-disconnect err 2 fattree --levels 2 --radix 4 --missing-switches 2
golden err-nosw-hosts err 2 torus --x 3 --y 3 --missing-switches 1
golden err-lose-alone err 2 ring --switches 4 --lose-hosts

# header NAME FILE SWITCHES CAS LINKS: the counts line of a generated file
header() {
	got=$(sed -n 2p "$2" | awk '{ print $2, $4, $6 }')
	if [ "$got" = "$3 $4 $5" ]; then
		return 0
	fi
	fail "$1" "header says switches CAs links = '$got', want '$3 $4 $5'"
	return 1
}

# route NAME FILE SWITCHES CAS HOPS: nanosm-route reads FILE and, with
# minhop (shortest paths; credit loops not checked: a torus has them),
# routes every pair over that many switches and endpoints; the longest
# route is HOPS switch hops ("-": not checked)
route() {
	"$ROUTE" "$2" -R minhop --no-credit-loops --json --shifts 0 --bisections 0 \
		>"$TMP/r.json" 2>"$TMP/r.err" || {
		fail "$1" "nanosm-route -R minhop on it: $(head -c 300 "$TMP/r.err")"
		return 1
	}
	got=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
f, p = r["fabric"], r["pairs"]
print(f["switches"], f["endpoints"], "all" if p["routed"] == p["total"] else "not-all",
      p["hops_max"] if sys.argv[2] != "-" else "-")' "$TMP/r.json" "$5" 2>&1)
	[ "$got" = "$3 $4 all $5" ] && return 0
	fail "$1" "nanosm-route sees switches endpoints routed max-hops = '$got', want '$3 $4 all $5'"
	return 1
}

# grid NAME SHAPE X Y Z H: counts from the formula, diameter as max hops
grid() {
	name=$1 shape=$2 x=$3 y=$4 z=$5 h=$6
	f=$TMP/$name.topo
	zarg=
	[ "$z" = 1 ] || zarg="--z $z"
	# shellcheck disable=SC2086 # zarg: zero or two words
	"$GEN" "$shape" --x "$x" --y "$y" $zarg --hosts "$h" -o "$f" || {
		fail "$name" "nanosm-gen failed"
		return
	}
	sw=$((x * y * z))
	if [ "$shape" = torus ]; then
		# every switch one cable per dimension of size >= 2; half the size
		links=0 diam=0
		for d in $x $y $z; do
			[ "$d" -ge 2 ] && links=$((links + sw)) && diam=$((diam + d / 2))
		done
	else
		links=$(((x - 1) * y * z + x * (y - 1) * z + x * y * (z - 1)))
		diam=$((x - 1 + y - 1 + z - 1))
	fi
	header "$name" "$f" "$sw" $((sw * h)) "$links" && route "$name" "$f" "$sw" $((sw * h)) "$diam" &&
		pass "$name"
}
# a full tree large enough that its node array is grown (realloc'd) many
# times: every node printed, every cable from both ends
f=$TMP/k16.topo
"$GEN" fattree --levels 3 --radix 16 -o "$f" && header prop-ft3-k16 "$f" 320 1024 2048 &&
	route prop-ft3-k16 "$f" 320 1024 4 && pass prop-ft3-k16
f=$TMP/k16n.topo
"$GEN" fattree --levels 3 --radix 16 --missing-switches 2 --seed 9 -o "$f" &&
	header prop-ft3-k16-nosw2 "$f" 318 1024 2016 && route prop-ft3-k16-nosw2 "$f" 318 1024 - &&
	pass prop-ft3-k16-nosw2

grid prop-torus-4x4x3 torus 4 4 3 2
grid prop-torus-5x3x2 torus 5 3 2 1
grid prop-torus-6x5 torus 6 5 1 1
grid prop-mesh-4x4x3 mesh 4 4 3 2
grid prop-mesh-5x1x3 mesh 5 1 3 1

# missing switches on a 3-level tree: the counts drop by exactly N switches
# and their cables, no host is lost, the names are listed, every pair
# is routed; same seed same file, another seed another set
f=$TMP/nosw-5.topo
"$GEN" fattree --levels 3 --radix 8 --missing-switches 3 --missing-links 4 --seed 5 -o "$f" &&
	"$GEN" fattree --levels 3 --radix 8 --missing-switches 3 --missing-links 4 --seed 5 -o "$TMP/again.topo" &&
	"$GEN" fattree --levels 3 --radix 8 --missing-switches 3 --missing-links 4 --seed 6 -o "$TMP/other.topo"
"$GEN" fattree --levels 3 --radix 8 -o "$TMP/full.topo"
removed=$(sed -n 's/^# removed switches (3, with their cables): //p' "$f")
# cables of the full tree with an end on a removed switch
cut=$(python3 - "$TMP/full.topo" $removed <<'PY'
import re, sys
gone, node, cables = set(sys.argv[2:]), None, set()
for line in open(sys.argv[1]):
    m = re.match(r'(Switch|Hca)\s+\d+\s+"([^"]+)"', line)
    if m:
        node = m.group(2)
        continue
    m = re.match(r'\[(\d+)\]\s+"([^"]+)"\[(\d+)\]', line)
    if m and (node in gone or m.group(2) in gone):
        cables.add(frozenset([(node, m.group(1)), (m.group(2), m.group(3))]))
print(len(cables))
PY
)
if [ "$(echo "$removed" | wc -w)" != 3 ]; then
	fail prop-nosw "no '# removed switches (3, ...)' line naming 3 switches"
elif grep -q "\"$(echo "$removed" | cut -d' ' -f1)\"" "$f"; then
	fail prop-nosw "removed switch $(echo "$removed" | cut -d' ' -f1) still in the file"
elif ! cmp -s "$f" "$TMP/again.topo"; then
	fail prop-nosw "the same seed gave two different files"
elif cmp -s "$f" "$TMP/other.topo"; then
	fail prop-nosw "seeds 5 and 6 gave the same file"
elif header prop-nosw "$f" 77 128 $((256 - cut - 4)) &&
	route prop-nosw "$f" 77 128 -; then
	pass prop-nosw
fi

echo "nanosm-gen tests: $PASSED passed, $FAILED failed"
[ $FAILED = 0 ]
