#!/bin/sh
# run.sh - golden tests for nanosm-route: run it on checked-in fabrics and
# LFT samples and diff what a user sees (report, JSON, LFT dump, warnings,
# exit status) against the expected files in this directory.
#
#   tests/route/run.sh            compare; exit 1 on any difference
#   tests/route/run.sh --update   rewrite the expected files (review the diff!)
#   NANOSM_ROUTE=path/to/nanosm-route tests/route/run.sh   another binary
#
# Expected files: NAME.txt / NAME.json (stdout), NAME.err (stderr; absent =
# must be empty), NAME.lfts (a --dump-lfts file).  Runs from the repo root,
# so the paths printed in reports are stable.
set -u

cd "$(dirname "$0")/../.." || exit 2
ROUTE=${NANOSM_ROUTE:-build/bin/nanosm-route}
DIR=tests/route
S=$DIR/samples
UPDATE=0
[ "${1:-}" = --update ] && UPDATE=1

if [ ! -x "$ROUTE" ]; then
	echo "run.sh: $ROUTE not found (run make first)" >&2
	exit 2
fi
TMP=$(mktemp -d /tmp/nanosm-route-golden.XXXXXX) || exit 2
trap 'rm -rf "$TMP"' EXIT
FAILED=0
PASSED=0

# same EXPECTED ACTUAL: diff one file; with --update, take the actual one.
same() {
	if [ $UPDATE = 1 ]; then
		if [ -s "$2" ] || [ -e "$1" ]; then
			if [ -s "$2" ]; then cp "$2" "$1"; else rm -f "$1"; fi
		fi
		return 0
	fi
	if [ ! -e "$1" ]; then
		[ -s "$2" ] || return 0
		echo "  unexpected output (no $1):"
		sed 's/^/    /' "$2"
		return 1
	fi
	diff -u "$1" "$2" | sed 's/^/    /'
	cmp -s "$1" "$2"
}

# case NAME EXT RC ARGS...: run nanosm-route ARGS, expect exit status RC,
# stdout = NAME.EXT, stderr = NAME.err; "@DUMP@" in ARGS is a scratch file
# compared with NAME.lfts.
case_() {
	name=$1 ext=$2 want=$3 ok=1
	shift 3
	dump=$TMP/$name.lfts
	args=
	for a in "$@"; do
		[ "$a" = @DUMP@ ] && a=$dump
		args="$args '$a'"
	done
	eval "\"$ROUTE\" $args" >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	if [ $rc != "$want" ] && [ $UPDATE = 0 ]; then
		echo "  exit status $rc, want $want"
		ok=0
	fi
	same "$DIR/$name.$ext" "$TMP/$name.out" || ok=0
	same "$DIR/$name.err" "$TMP/$name.err" || ok=0
	[ -e "$dump" ] && { same "$DIR/$name.lfts" "$dump" || ok=0; }
	if [ $ok = 1 ]; then
		PASSED=$((PASSED + 1))
		echo "PASS  $name"
	else
		FAILED=$((FAILED + 1))
		echo "FAIL  $name: $ROUTE$args"
	fi
}

# nanosm's own engine on an ibsim net file (LIDs assigned in fabric order)
case_ twosw-minhop txt 0 tests/fabrics/twosw.topo -R minhop
case_ twosw-minhop-json json 0 tests/fabrics/twosw.topo -R minhop --json --dump-lfts @DUMP@
case_ lab-minhop txt 0 tests/fabrics/lab.topo
# the VL-layered engine on a small random mesh (minhop has a credit loop
# there): the virtual-lane lines, per VL in the JSON
case_ mesh8-vlsp txt 0 $S/mesh8.topo -R vlsp
case_ mesh8-vlsp-json json 0 $S/mesh8.topo -R vlsp --json
# ports with VL0 only: still deadlock-free, on VL0 (up-star/down-star where needed)
case_ mesh8-vlsp-1vl txt 0 $S/mesh8.topo -R vlsp --vl-cap 1
# OpenSM's tables captured under ibsim, scored on the ibnetdiscover dump
case_ twosw-opensm txt 0 $S/twosw.ibnetdiscover --lfts $S/twosw.opensm-lfts.dump
case_ twosw-dump_fts-json json 0 $S/twosw.ibnetdiscover --lfts $S/twosw.dump_fts --format dump_fts --json
case_ ring-opensm txt 1 $S/ring.ibnetdiscover --lfts $S/ring.opensm-lfts.dump --bisections 100
# dump_fts' skipped block: a warning, and LID 64 counts as dropped
case_ twosw64-dump_fts txt 1 $S/twosw64.ibnetdiscover --lfts $S/twosw64.dump_fts --shifts 1 --bisections 10
# pictures (tools/draw): the lab with its hosts and port numbers; two
# switches with a bundle of two cables, as HTML with the minhop tables; a
# degraded 3-level tree against the intact one (a missing switch, missing
# cables), one leaf's hosts expanded
case_ lab-draw svg 0 tests/fabrics/lab.topo --draw svg
case_ twosw-draw html 0 tests/fabrics/twosw.topo -R minhop --draw html
case_ ft3k4-degraded-draw svg 0 tests/fabrics/ft3k4-degraded.topo --draw svg --reference $S/ft3k4.topo --expand-switch pod1-leaf1
case_ err-draw-format txt 2 tests/fabrics/lab.topo --draw png
case_ err-draw-switch txt 2 tests/fabrics/lab.topo --draw svg --expand-switch nosuch
# input errors: exit 2, the message names the file (and line)
case_ err-no-lids txt 2 tests/fabrics/twosw.topo --lfts $S/twosw.dump_fts
case_ err-wrong-topology txt 2 $S/ring.ibnetdiscover --lfts $S/twosw.opensm-lfts.dump
# a dump that cannot be written: exit 2, the file named
case_ err-dump-full txt 2 tests/fabrics/twosw.topo -R minhop --dump-lfts /dev/full

# picture_ NAME SVG: render SVG with rsvg-convert (librsvg, an outsider) and
# judge the picture: size, aspect, ink, no overlapping texts.
picture_() {
	if ! command -v rsvg-convert >/dev/null; then
		FAILED=$((FAILED + 1))
		echo "FAIL  $1: rsvg-convert not installed (librsvg2-bin; make deps)"
		return
	fi
	if rsvg-convert "$2" -o "$TMP/$1.png" 2>"$TMP/$1.rsvg" &&
		python3 "$DIR/check_picture.py" "$2" "$TMP/$1.png" >"$TMP/$1.check"; then
		PASSED=$((PASSED + 1))
		echo "PASS  $1 ($(sed 's/^[^:]*: //' "$TMP/$1.check" | head -n 1))"
	else
		FAILED=$((FAILED + 1))
		echo "FAIL  $1"
		sed 's/^/    /' "$TMP/$1.rsvg" "$TMP/$1.check"
	fi
}

# dump_stream_: --dump-lfts writes one switch at a time: a 1,024-host
# 3-level tree (30 MB of dump) is dumped with less than a quarter of the
# dump's size added to the peak RSS of routing it alone (/usr/bin/time's
# %M; a whole dump built in memory adds at least its size, under ASan
# too, whose quarantine is turned off here: it would count every buffer
# freed); one record per switch.
dump_stream_() {
	dsan=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0
	topo=$TMP/ft3-1024.topo lfts=$TMP/ft3-1024.lfts why="" rss0="" rss1="" size=0
	if ! "$GEN" fattree --levels 3 --cas 1024 -o "$topo"; then
		why="nanosm-gen failed"
	elif ! ASAN_OPTIONS=$dsan /usr/bin/time -f %M -o "$TMP/ds.rss0" "$ROUTE" "$topo" >/dev/null 2>"$TMP/ds.err"; then
		why="routing it failed: $(head -c 300 "$TMP/ds.err")"
	elif ! ASAN_OPTIONS=$dsan /usr/bin/time -f %M -o "$TMP/ds.rss1" "$ROUTE" "$topo" --dump-lfts "$lfts" \
		>/dev/null 2>"$TMP/ds.err"; then
		why="--dump-lfts failed: $(head -c 300 "$TMP/ds.err")"
	else
		rss0=$(tail -n 1 "$TMP/ds.rss0") rss1=$(tail -n 1 "$TMP/ds.rss1")
		size=$(($(wc -c <"$lfts") / 1024))
	fi
	if [ -n "$why" ]; then
		:
	elif [ "$size" -lt 16384 ]; then
		why="the dump ($size KB) is too small to tell: proves nothing"
	elif [ $((rss1 - rss0)) -ge $((size / 4)) ]; then
		why="the dump added $((rss1 - rss0)) KB to the peak RSS ($rss0 -> $rss1 KB) for $size KB of dump"
	elif [ "$(grep -c 'valid lids dumped$' "$lfts")" != "$(grep -c '^Switch' "$topo")" ]; then
		why="not one record per switch"
	fi
	if [ -z "$why" ]; then
		PASSED=$((PASSED + 1))
		echo "PASS  dump-stream ($size KB of dump, peak RSS $rss0 -> $rss1 KB)"
	else
		FAILED=$((FAILED + 1))
		echo "FAIL  dump-stream: $why"
	fi
}

# the pictures above, and a 1,024-host 3-level tree (320 switches) drawn
# as a new user would: `nanosm-gen fattree --levels 3 --radix 16`
if [ $UPDATE = 0 ]; then
	picture_ lab-draw.png $DIR/lab-draw.svg
	picture_ ft3k4-degraded-draw.png $DIR/ft3k4-degraded-draw.svg
	GEN=${NANOSM_GEN:-$(dirname "$ROUTE")/nanosm-gen}
	if "$GEN" fattree --levels 3 --radix 16 -o "$TMP/ft3-1k.topo" &&
		"$ROUTE" "$TMP/ft3-1k.topo" --draw svg >"$TMP/ft3-1k.svg"; then
		picture_ ft3-1k-draw.png "$TMP/ft3-1k.svg"
	else
		FAILED=$((FAILED + 1))
		echo "FAIL  ft3-1k-draw.png: could not generate or draw the tree"
	fi
	dump_stream_
fi

echo "$PASSED passed, $FAILED failed"
[ $FAILED = 0 ]
