#!/bin/bash
# verify: nanosm-verify, run from several hosts (first, middle, last CA) of
# lab.topo and fattree64.topo once the SM (any SM: SM=opensm too) is up,
# reports every LID reached ("N paths ok, 0 failed", exit 0) and the
# expected topology all there (nanosm's file of its SUBNET UP; with OpenSM
# an ibnetdiscover dump), its traces equal ibtracert's, and --topo /
# --json / --lids agree.  Then nanosm-smpset
# plants a black hole behind the SM's back (one switch's LFT entry for one
# CA's LID pointed at an uncabled port) and nanosm-verify must report exactly
# that destination failed, naming the switch, and exit 1, from every source
# whose route crosses that switch - and all ok from the others.  ibtracert
# is the judge of which sources are affected.  Restoring the entry makes
# every path ok again.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

VERIFY=${NANOSM_VERIFY:-$REPO/build/bin/nanosm-verify}
SMPSET=${NANOSM_SMPSET:-$REPO/build/bin/nanosm-smpset}

# ---------------------------------------------------------------- helpers

# vt_run HOST OUT ARGS...: nanosm-verify at HOST into OUT (stderr OUT.err);
# sets VT_RC.  Never fails by itself.  Without --topo in ARGS it compares
# with $VT_EXPECT (never the machine's /var/lib/nanosm/topology).
vt_run() {
	local host=$1 out=$2 expect=()
	shift 2
	[[ " $* " == *" --topo "* ]] || expect=(--topo "$VT_EXPECT")
	IT_LAST_OUT=$out
	sim_client --host "$host" "$VERIFY" "${expect[@]}" "$@" >"$out" 2>"$out.err"
	VT_RC=$?
	[ -s "$out.err" ] && cat "$out.err" >>"$out"
	return 0
}

# vt_expect_ok HOST NAME ARGS...: every one of VT_NLIDS paths ok, exit 0.
vt_expect_ok() {
	local host=$1 out=$VT_DIR/$2.txt
	shift 2
	vt_run "$host" "$out" "$@"
	[ "$VT_RC" = 0 ] || it_fail "nanosm-verify $* from $host exited $VT_RC (expected 0)"
	grep -qx "$VT_NLIDS paths ok, 0 failed" "$out" ||
		it_fail "nanosm-verify $* from $host: no '$VT_NLIDS paths ok, 0 failed' line"
	grep -qE "^expected topology \(.*\): $VT_NLIDS nodes, [0-9]+ cables, all there\$" "$out" ||
		it_fail "nanosm-verify $* from $host: the expected topology is not all there"
	it_log "   from $host${*:+ ($*)}: $(grep -m1 'paths ok' "$out")"
}

# vt_lid DUMP NAME: the LID of node NAME (a CA's first cabled port, a
# switch's port 0) in an ibnetdiscover dump.
vt_lid() {
	awk -v n="\"$2\"" '
		/^Switch[ \t]/ && index($0, "# " n " ") && match($0, /base port 0 lid [0-9]+/) {
			print substr($0, RSTART + 16, RLENGTH - 16); exit }
		/^(Ca|Hca|Switch)[ \t]/ { want = /^(Ca|Hca)/ && index($0, "# " n) > 0; next }
		want && /^\[/ && match($0, /# lid [0-9]+/) { print substr($0, RSTART + 6, RLENGTH - 6); exit }' "$1"
}

# vt_free_port DUMP SWITCH: the highest port of SWITCH without a cable.
vt_free_port() {
	awk -v n="\"$2\"" '
		/^Switch[ \t]/ { want = index($0, "# " n " ") > 0; if (want) np = $2; next }
		want && /^\[/ { used[substr($1, 2, index($1, "]") - 2)] = 1 }
		want && /^$/ { want = 0 }
		END { for (p = np; p > 0; p--) if (!(p in used)) { print p; exit } }' "$1"
}

# vt_trace OUT LID: the trace nanosm-verify printed for LID, unindented.
vt_trace() {
	awk -v lid="$2" '
		/^(ok|FAILED) / { on = ($3 == lid && $2 == "lid") ; next }
		on && /^    / { sub(/^    /, ""); print }' "$1"
}

# vt_same_as_ibtracert HOST OUT SRCLID DSTLID: verify's trace == ibtracert's.
vt_same_as_ibtracert() {
	local t=$VT_DIR/ibtracert.$1.$4.txt
	IT_LAST_OUT=$t
	sim_client --host "$1" ibtracert "$3" "$4" >"$t" 2>&1 ||
		it_fail "ibtracert $3 $4 from $1 failed"
	vt_trace "$2" "$4" >"$t.verify"
	diff -u "$t" "$t.verify" >"$t.diff" || { IT_LAST_OUT=$t.diff; it_fail "trace to lid $4 from $1 differs from ibtracert"; }
}

# ---------------------------------------------------------------- phases

# All paths ok from every source; traces like ibtracert; --topo, --json.
vt_all_ok() {
	local h first=$1 last
	it_step "all paths ok from ${VT_SOURCES[*]} ($VT_NLIDS LIDs)"
	# the first with -v (every path, traced), the others as a person would
	# run it: failures and a summary only
	vt_expect_ok "$first" "ok.$first" -v
	for h in "${VT_SOURCES[@]:1}"; do
		vt_expect_ok "$h" "ok.$h"
		IT_LAST_OUT=$VT_DIR/ok.$h.txt
		grep -qE '^(ok|FAILED) ' "$IT_LAST_OUT" && it_fail "from $h without -v: paths listed"
		grep -qx "($VT_NLIDS paths ok, not listed: -v lists every path)" "$IT_LAST_OUT" ||
			it_fail "from $h without -v: no line saying the ok paths are not listed"
	done
	last=${VT_SOURCES[-1]}
	it_step "traces equal ibtracert's; --topo, --json, --lids"
	for h in "${VT_TRACE_DSTS[@]}"; do
		vt_same_as_ibtracert "$first" "$VT_DIR/ok.$first.txt" "$(vt_lid "$VT_DUMP" "$first")" \
			"$(vt_lid "$VT_DUMP" "$h")"
	done
	it_log "   ${#VT_TRACE_DSTS[@]} traces from $first identical to ibtracert"
	vt_expect_ok "$last" topo --topo "$VT_DUMP"
	vt_run "$last" "$VT_DIR/json.txt" --json
	IT_LAST_OUT=$VT_DIR/json.check
	"$PYTHON" - "$VT_DIR/json.txt" "$VT_NLIDS" >"$IT_LAST_OUT" 2>&1 <<'EOF' || it_fail "--json output wrong"
import json, sys
text = open(sys.argv[1]).read()
doc = json.loads(text[:text.rindex('}') + 1])
n = int(sys.argv[2])
assert doc['ok'] == n and doc['failed'] == 0, (doc['ok'], doc['failed'])
assert len(doc['destinations']) == n
assert all(d['ok'] and d['responder_matches'] and d['path']['result'] == 'ok'
           for d in doc['destinations'])
assert doc['expected']['checked'] and doc['expected']['failures'] == 0, doc['expected']
EOF
	vt_run "$first" "$VT_DIR/lids.txt" --lids "$VT_VICTIM_LID"
	if [ "$VT_RC" != 0 ] || ! grep -qx '1 paths ok, 0 failed' "$VT_DIR/lids.txt"; then
		it_fail "--lids $VT_VICTIM_LID from $first: not '1 paths ok, 0 failed' / exit 0"
	fi
}

# Plant the black hole on the K-th switch of FIRST's route to the victim.
vt_plant() {
	local k=$1 first=${VT_SOURCES[0]} t=$VT_DIR/route.txt line
	IT_LAST_OUT=$t
	sim_client --host "$first" ibtracert "$(vt_lid "$VT_DUMP" "$first")" "$VT_VICTIM_LID" >"$t" 2>&1 ||
		it_fail "ibtracert to the victim failed before planting"
	# DR path = 0 + the out ports of hops 1..k; switch = hop k; its entry = out port of hop k+1
	line=$(awk -v k="$k" '/^\[/ { i++; out[i] = substr($1, 2, length($1) - 2)
			if (i == k && match($0, /"[^"]*"$/)) name = substr($0, RSTART + 1, RLENGTH - 2) }
		END { dr = "0"; for (j = 1; j <= k; j++) dr = dr "," out[j]; print dr "|" name "|" out[k + 1] }' "$t")
	IFS='|' read -r VT_DR VT_SWITCH VT_ORIG <<<"$line"
	if [ -z "$VT_SWITCH" ] || [ -z "$VT_ORIG" ]; then
		it_fail "could not read hop $k of the route to the victim"
	fi
	VT_BAD=$(vt_free_port "$VT_DUMP" "$VT_SWITCH")
	[ -n "$VT_BAD" ] || it_fail "no uncabled port on $VT_SWITCH"
	it_step "black hole: $VT_SWITCH (DR $VT_DR) sends lid $VT_VICTIM_LID ($VT_VICTIM) to uncabled port $VT_BAD instead of $VT_ORIG"
	IT_LAST_OUT=$VT_DIR/smpset.txt
	sim_client --host "$first" "$SMPSET" --lft "$VT_DR" "$VT_VICTIM_LID" "$VT_BAD" >"$IT_LAST_OUT" 2>&1 ||
		it_fail "nanosm-smpset failed"
	it_log "   $(cat "$IT_LAST_OUT")"
}

# One source after planting: ibtracert says whether its route crosses the
# black hole; nanosm-verify must say the same, for the victim only.
vt_source_after() {
	local h=$1 out=$VT_DIR/bh.$1.txt src
	src=$(vt_lid "$VT_DUMP" "$h")
	if sim_client --host "$h" ibtracert "$src" "$VT_VICTIM_LID" >"$VT_DIR/judge.$h.txt" 2>&1; then
		vt_expect_ok "$h" "bh.$h"
		VT_UNAFFECTED=$((VT_UNAFFECTED + 1))
		return
	fi
	vt_run "$h" "$out"
	[ "$VT_RC" = 1 ] || it_fail "from $h (route crosses the black hole): exit $VT_RC, expected 1"
	grep -qx "$((VT_NLIDS - 1)) paths ok, 1 failed" "$out" ||
		it_fail "from $h: no '$((VT_NLIDS - 1)) paths ok, 1 failed' line"
	[ "$(grep -c '^FAILED ' "$out")" = 1 ] ||
		it_fail "from $h: more than one FAILED line"
	grep -qE "^FAILED lid $VT_VICTIM_LID -> ca \"$VT_VICTIM\" port 1: forward path: black hole at switch \"$VT_SWITCH\" \{0x[0-9a-f]{16}\} lid [0-9]+: LFT entry for lid $VT_VICTIM_LID is port $VT_BAD, which has no link; probe: no answer \(timed out\)$" "$out" ||
		it_fail "from $h: the FAILED line does not name lid $VT_VICTIM_LID and switch $VT_SWITCH port $VT_BAD"
	VT_AFFECTED=$((VT_AFFECTED + 1))
	it_log "   from $h: $(grep -m1 'paths ok' "$out"); $(grep '^FAILED' "$out" | cut -c1-110)..."
}

# The victim as source: every answer to it crosses the switch, so each
# other destination fails on its return path (lab only: one switch).
vt_victim_source() {
	local out=$VT_DIR/bh.victim.txt
	vt_run "$VT_VICTIM" "$out"
	[ "$VT_RC" = 1 ] || it_fail "from the victim $VT_VICTIM: exit $VT_RC, expected 1"
	grep -qx "1 paths ok, $((VT_NLIDS - 1)) failed" "$out" ||
		it_fail "from the victim: not '1 paths ok, $((VT_NLIDS - 1)) failed'"
	[ "$(grep -c "^FAILED .*: return path: black hole at switch \"$VT_SWITCH\" .*probe: no answer" "$out")" = $((VT_NLIDS - 1)) ] ||
		it_fail "from the victim: not every failure is a return-path black hole at $VT_SWITCH"
	it_log "   from the victim $VT_VICTIM: $(grep -m1 'paths ok' "$out"), all on the return path"
}

vt_black_hole() {
	local h
	vt_plant "$1"
	VT_AFFECTED=0 VT_UNAFFECTED=0
	for h in "${VT_SOURCES[@]}"; do
		[ "$h" = "$VT_VICTIM" ] || vt_source_after "$h"
	done
	[ "$VT_AFFECTED" -ge 1 ] || it_fail "no source was affected by the black hole"
	[ "$2" = victim ] && vt_victim_source
	vt_run "${VT_SOURCES[0]}" "$VT_DIR/bh.json" --json --lids "$VT_VICTIM_LID"
	IT_LAST_OUT=$VT_DIR/bh.json.check
	"$PYTHON" - "$VT_DIR/bh.json" "$VT_SWITCH" "$VT_BAD" "$VT_RC" >"$IT_LAST_OUT" 2>&1 <<'EOF' || it_fail "--json after planting wrong"
import json, sys
text = open(sys.argv[1]).read()
doc = json.loads(text[:text.rindex('}') + 1])
d, = doc['destinations']
assert sys.argv[4] == '1', 'exit status %s' % sys.argv[4]
assert not d['ok'] and doc['failed'] == 1
assert d['path']['result'] == 'black hole', d['path']
assert d['path']['fault']['at']['name'] == sys.argv[2], d['path']['fault']
assert d['path']['fault']['port'] == int(sys.argv[3])
assert d['probe']['result'] == 'timeout' and d['walk_and_probe_agree']
EOF
	it_log "   $VT_AFFECTED source(s) affected, $VT_UNAFFECTED not (ibtracert agrees); JSON names $VT_SWITCH port $VT_BAD"
	it_step "restore the entry (port $VT_ORIG): all paths ok again"
	IT_LAST_OUT=$VT_DIR/smpset.restore.txt
	sim_client --host "${VT_SOURCES[0]}" "$SMPSET" --lft "$VT_DR" "$VT_VICTIM_LID" "$VT_ORIG" >"$IT_LAST_OUT" 2>&1 ||
		it_fail "nanosm-smpset (restore) failed"
	vt_expect_ok "${VT_SOURCES[0]}" restored
}

# vt_case NAME FABRIC VICTIM HOP "SOURCES" "TRACE_DESTINATIONS" [victim]
vt_case() {
	(
		it_init "verify-$1"
		fabric_file "$2"
		VT_VICTIM=$3
		read -r -a VT_SOURCES <<<"$5"
		VT_NLIDS=$(($(fabric_nodes "$IT_FABRIC" sw | wc -l) + $(fabric_nodes "$IT_FABRIC" ca | wc -l)))
		VT_DIR=$IT_SCRATCH/verify
		mkdir -p "$VT_DIR"
		sim_start "$IT_FABRIC" "${VT_SOURCES[0]}"
		sm_start
		sm_wait_up
		wait_ports_ok 30
		VT_DUMP=$VT_DIR/ibnetdiscover.txt
		run_tool "$VT_DUMP" ibnetdiscover
		# what should be there: nanosm's file of its SUBNET UP, else the dump
		VT_EXPECT=${SM_TOPOLOGY:-$VT_DUMP}
		VT_VICTIM_LID=$(vt_lid "$VT_DUMP" "$VT_VICTIM")
		[ -n "$VT_VICTIM_LID" ] || it_fail "no LID for $VT_VICTIM in the ibnetdiscover dump"
		read -r -a VT_TRACE_DSTS <<<"$6"
		vt_all_ok "${VT_SOURCES[0]}"
		vt_black_hole "$4" "${7:-}"
		sm_stop
		it_pass
	) || exit 1
}

it_init verify
if [ ! -x "$VERIFY" ] || [ ! -x "$SMPSET" ]; then
	it_fail "nanosm-verify/nanosm-smpset not built (run make)"
fi
IT_LAST_OUT=$IT_SCRATCH/usage.txt
"$VERIFY" --lids 0 >"$IT_LAST_OUT" 2>&1
[ $? = 2 ] || it_fail "nanosm-verify --lids 0: expected exit status 2"
"$SMPSET" --lft 1,2 3 4 >>"$IT_LAST_OUT" 2>&1
[ $? = 2 ] || it_fail "nanosm-smpset with a DR path not starting at 0: expected exit status 2"
"$VERIFY" -g 0x0002c90300a00021 -p 1 >>"$IT_LAST_OUT" 2>&1
[ $? = 2 ] || it_fail "nanosm-verify -g with -p: expected exit status 2"
grep -q '^nanosm-verify: -g names the local port: give -g GUID or -d CA \[-p PORT\], not both$' \
	"$IT_LAST_OUT" || it_fail "nanosm-verify -g with -p: the message does not say -g excludes -p"

# lab: one switch; the victim host3 is also a source (answers to it are lost)
vt_case lab lab.topo host3 1 "host1 host2 host3" "host1 host3 lab-sw" victim
# fattree64: the black hole sits on the spine host01's route to host40 uses;
# host33 shares host40's leaf, so its route never reaches a spine
vt_case fattree64 fattree64.topo host40 2 "host01 host33 host64" \
	"host08 host09 host40 host64 leaf1 leaf8 spine4"
it_pass
