#!/bin/bash
# verify_split: nanosm-verify compares with what should be there.  On
# twosw.topo (two switches joined by two cables), nanosm writes the topology
# of its SUBNET UP beside its guid2lid; nanosm-verify against it says every
# path ok and everything there (exit 0).  Then both inter-switch cables are
# pulled (ibsim Unlink) and nanosm re-routes the half it still reaches.
# From a host on either side nanosm-verify must now fail (exit 1) although
# every path it can still walk is ok: the switch and the hosts of the other
# side named as missing, the two cables named as down with both ends, each
# problem once, no "black hole ... port 255".  The same with --topo and an
# ibnetdiscover dump taken before the split, and in --json.  nanosm must
# not overwrite its file with the split fabric.  With the cables back,
# everything is ok again.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

VERIFY=${NANOSM_VERIFY:-$REPO/build/bin/nanosm-verify}
SW1=0x0002c90300b00101
SW2=0x0002c90300b00102

# vs_run HOST NAME ARGS...: nanosm-verify at HOST into $VS_DIR/NAME.txt
# (stderr in NAME.txt.err); sets VS_RC and VS_OUT.
vs_run() {
	local host=$1
	VS_OUT=$VS_DIR/$2.txt
	shift 2
	IT_LAST_OUT=$VS_OUT
	sim_client --host "$host" "$VERIFY" "$@" >"$VS_OUT" 2>"$VS_OUT.err"
	VS_RC=$?
	[ -s "$VS_OUT.err" ] && cat "$VS_OUT.err" >>"$VS_OUT"
	return 0
}

# vs_once PATTERN WHAT: exactly one line of $VS_OUT matches PATTERN (ERE).
vs_once() {
	local n
	n=$(grep -cE -- "$1" "$VS_OUT")
	[ "$n" = 1 ] || it_fail "$2: $n lines match '$1' (want exactly 1)"
}

# vs_ok HOST NAME ARGS...: every path ok, everything there, exit 0.
vs_ok() {
	local host=$1
	vs_run "$@"
	[ "$VS_RC" = 0 ] || it_fail "nanosm-verify from $host ($2) exited $VS_RC, expected 0"
	grep -qx '6 paths ok, 0 failed' "$VS_OUT" || it_fail "$2 from $host: not '6 paths ok, 0 failed'"
	grep -qE '^expected topology \(.*\): 6 nodes, 6 cables, all there$' "$VS_OUT" ||
		it_fail "$2 from $host: the expected topology is not all there"
	it_log "   $2 from $host: $(tail -n 1 "$VS_OUT" | sed 's/.*): //')"
}

# vs_split HOST NAME NEAR FAR NEARSW FARSW FARHOSTS...: after the split, from
# HOST (on NEAR's side): exit 1, 3 paths ok, the far switch and hosts
# missing, both cables down with both ends, nothing twice, no black hole.
vs_split() {
	local host=$1 name=$2 near=$3 far=$4 nearsw=$5 farsw=$6 h p
	shift 6
	vs_run "$host" "$name" --topo "$VS_TOPO"
	[ "$VS_RC" = 1 ] || it_fail "$name from $host: exit $VS_RC, expected 1 (the fabric is split)"
	grep -qx '3 paths ok, 0 failed' "$VS_OUT" || it_fail "$name from $host: not '3 paths ok, 0 failed'"
	vs_once "^MISSING switch \"$far\" \{$farsw\} lid [0-9]+: not reached$" "$name: switch $far"
	for h in "$@"; do
		vs_once "^MISSING ca \"$h\" \{0x[0-9a-f]{16}\} port 1 \(port GUID 0x[0-9a-f]{16}, lid [0-9]+\): not reached$" \
			"$name: host $h"
	done
	for p in 7 8; do
		vs_once "^DOWN    cable switch \"($near|$far)\" \{($nearsw|$farsw)\} port $p <-> switch \"($near|$far)\" \{($nearsw|$farsw)\} port $p: port $p of \"$near\" is (Polling|Disabled|Sleep) \(DOWN\)$" \
			"$name: cable $near/$p - $far/$p"
		grep -qE "^DOWN    cable switch \"$near\" .* <-> switch \"$far\" |^DOWN    cable switch \"$far\" .* <-> switch \"$near\" " "$VS_OUT" ||
			it_fail "$name: a down cable does not name both $near and $far"
	done
	[ "$(grep -cE '^(MISSING|DOWN|MOVED|CHANGED|NEW) ' "$VS_OUT")" = 7 ] ||
		it_fail "$name: not exactly 7 problems (1 switch, 2 hosts, 2 cables down, 2 cables behind)"
	[ -z "$(grep -E '^(MISSING|DOWN|MOVED|CHANGED) ' "$VS_OUT" | sort | uniq -d)" ] ||
		it_fail "$name: a problem is reported twice"
	! grep -qE 'black hole|port 255|NSV-W011' "$VS_OUT" ||
		it_fail "$name: a black hole, port 255 or failed Get reported on the split"
	grep -qx "expected topology ($VS_TOPO): 6 nodes, 6 cables; 1 switch missing, 2 hosts missing, 2 cables down, 2 cables missing" "$VS_OUT" ||
		it_fail "$name: wrong closing line"
	it_log "   $name from $host: exit 1; $(grep -cE '^(MISSING|DOWN) ' "$VS_OUT") problems, e.g. $(grep -m1 '^DOWN' "$VS_OUT" | cut -c1-120)..."
}

it_init verify_split
[ "$SM" = nanosm ] || it_skip "the topology file is nanosm's (other SMs: --topo, covered by t_verify)"
[ -x "$VERIFY" ] || it_fail "nanosm-verify not built (run make)"
fabric_file twosw.topo
VS_DIR=$IT_SCRATCH/verify
mkdir -p "$VS_DIR"
sim_start "$IT_FABRIC" host1
sm_start
sm_wait_up
wait_ports_ok 30

it_step "nanosm wrote the topology of its SUBNET UP beside its guid2lid"
VS_TOPO=$SM_TOPOLOGY
IT_LAST_OUT=$SM_LOG
sm_wait 'topology of sweep [0-9]+ \(6 nodes\) written to ' 10 || it_fail "no 'topology ... written' line"
[ -s "$VS_TOPO" ] || it_fail "no topology file at $VS_TOPO"
IT_LAST_OUT=$VS_TOPO
head -n 1 "$VS_TOPO" | grep -qE '^# nanosm: the subnet brought up at sweep [0-9]+ \(complete\), ' ||
	it_fail "the topology file does not start with nanosm's note"
for n in host1 host2 host3 host4 sw1 sw2; do
	grep -qE "# \"$n\"" "$VS_TOPO" || it_fail "$n is not in the topology file"
done
[ -z "$(find "${VS_TOPO%/*}" -name '*.tmp')" ] || it_fail "a temporary file was left beside $VS_TOPO"
cp "$VS_TOPO" "$VS_DIR/topology.at-up"
run_tool "$VS_DIR/ibnetdiscover.txt" ibnetdiscover

it_step "whole fabric: nanosm-verify against it, and against a dump"
vs_ok host2 whole --topo "$VS_TOPO"
vs_ok host3 whole.dump --topo "$VS_DIR/ibnetdiscover.txt"
vs_run host2 unchecked --topo none
[ "$VS_RC" = 0 ] || it_fail "--topo none: exit $VS_RC, expected 0"
grep -qx 'expected topology: not checked (--topo none): only what is reachable was verified' "$VS_OUT" ||
	it_fail "--topo none: the report does not say completeness was not checked"
vs_run host2 nofile --topo "$VS_DIR/no-such-file"
[ "$VS_RC" = 2 ] || it_fail "--topo of a missing file: exit $VS_RC, expected 2"
grep -q 'NSV-E003' "$VS_OUT" || it_fail "--topo of a missing file: no NSV-E003"

it_step "both cables between sw1 and sw2 pulled"
sim_cmd 'Unlink "sw1"[7]'
sim_cmd 'Unlink "sw1"[8]'
IT_LAST_OUT=$SM_LOG
sm_wait "node gone: 0x0002c90300a00140" 60 || it_fail "nanosm did not see host4 go"
sm_wait "node gone: 0x0002c90300a00130" 10 || it_fail "nanosm did not see host3 go"
# the routes of the near half are pushed in the sweep that logs the change
sm_wait "sweep [0-9]+: ok switches=1 cas=2" 30 || it_fail "no sweep of the near half"
cmp -s "$VS_TOPO" "$VS_DIR/topology.at-up" || {
	IT_LAST_OUT=$VS_TOPO
	it_fail "nanosm rewrote its topology file with the split fabric"
}

it_step "from each side: missing switch, hosts and cables named, exit 1"
vs_split host1 split.host1 sw1 sw2 "$SW1" "$SW2" host3 host4
vs_split host4 split.host4 sw2 sw1 "$SW2" "$SW1" host1 host2
VS_TOPO_SAVED=$VS_TOPO
VS_TOPO=$VS_DIR/ibnetdiscover.txt
vs_split host2 split.dump sw1 sw2 "$SW1" "$SW2" host3 host4
VS_TOPO=$VS_TOPO_SAVED

it_step "--json: the same problems"
vs_run host1 split.json --json --topo "$VS_TOPO"
[ "$VS_RC" = 1 ] || it_fail "--json on the split: exit $VS_RC, expected 1"
IT_LAST_OUT=$VS_DIR/json.check
"$PYTHON" - "$VS_DIR/split.json.txt" >"$IT_LAST_OUT" 2>&1 <<'EOF' || it_fail "--json on the split wrong"
import collections, json, sys
text = open(sys.argv[1]).read()
doc = json.loads(text[:text.rindex('}') + 1])
ex = doc['expected']
assert ex['checked'] and ex['nodes'] == 6 and ex['cables'] == 6, ex
assert ex['failures'] == 7, ex['failures']
kinds = collections.Counter(g['kind'] for g in ex['gaps'])
assert kinds == {'node missing': 1, 'host missing': 2, 'cable down': 2, 'cable missing': 2}, kinds
for g in ex['gaps']:
    if g['kind'] == 'cable down':
        assert {g['at']['name'], g['to']['name']} == {'sw1', 'sw2'}, g
        assert g['at']['port'] == g['to']['port'] and g['at']['port'] in (7, 8), g
assert doc['ok'] == 3 and doc['failed'] == 0
EOF

it_step "cables back: all there again"
sim_cmd 'ReLink "sw1"[7]'
sim_cmd 'ReLink "sw1"[8]'
IT_LAST_OUT=$SM_LOG
sm_wait "node new: 0x0002c90300a00140" 60 || it_fail "nanosm did not see host4 come back"
wait_ports_ok 30
vs_ok host1 back --topo "$VS_TOPO"
sm_stop
it_pass
