#!/bin/bash
# ctl: nanosmctl against a running nanosm (--socket in the scratch dir) on
# twosw.topo, judged by the infiniband-diags tools: `status` says MASTER
# with the fabric's counts; `lids` holds exactly the (port GUID, LID, name)
# ibnetdiscover shows; `routes` between two hosts (by name and by LID) and
# to a switch equals ibtracert's path; `lfts` holds the entries dump_fts
# reads from the switches; `sweep` brings a new "sweep N:" line; usage
# errors (unknown command, wrong argument count, unknown format, with svg
# and html in the list) exit 2 without contacting the daemon (a -s path that is a
# file or directory says "not a socket"); a daemon's error exits 1, an
# absent daemon exits 2.  `topology --format svg|html` is nanosm's own
# picture, drawn by nanosmctl (the HTML with the daemon's tables, no
# external file).  `plan FILE` reads FILE in nanosmctl (a relative
# path, a pipe as /dev/stdin or <(...), which only the client can open) and
# the daemon's messages name FILE:line:col; a plan the gate would refuse
# exits 1 and still prints the plan.  Last, `topology` (json and
# dot checked for nodes/links) is loaded into a fresh ibsim: ibnetdiscover
# there prints the same fabric as on the original (LIDs ignored).
# nanosm-specific: SKIPped under SM=opensm.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

NANOSMCTL=${NANOSMCTL:-$REPO/build/bin/nanosmctl}
FABRIC=${CTL_FABRIC:-twosw.topo}

# ---------------------------------------------------------------- helpers

# ctl OUT ARGS...: nanosmctl into OUT (stderr into OUT.err); sets CTL_RC.
ctl() {
	local out=$1
	shift
	IT_LAST_OUT=$out.err
	[ "${IT_VERBOSE:-0}" = 1 ] && it_log "+ nanosmctl $*" >&2
	timeout -k 5 "$CLIENT_TIMEOUT" "$NANOSMCTL" -s "$CTL_SOCK" "$@" >"$out" 2>"$out.err"
	CTL_RC=$?
	return 0
}

# ctl_ok OUT ARGS...: nanosmctl must exit 0.
ctl_ok() {
	local out=$1
	ctl "$@"
	if [ "$CTL_RC" != 0 ]; then
		[ -s "$out" ] && cat "$out" >>"$out.err"
		it_fail "nanosmctl ${*:2} exited $CTL_RC (expected 0)"
	fi
	IT_LAST_OUT=$out
}

# ctl_expect_rc RC PATTERN OUT ARGS...: exit RC and PATTERN on stderr.
ctl_expect_rc() {
	local rc=$1 pat=$2
	shift 2
	ctl "$@"
	[ "$CTL_RC" = "$rc" ] || it_fail "nanosmctl ${*:2} exited $CTL_RC (expected $rc)"
	grep -qE -- "$pat" "$1.err" || it_fail "nanosmctl ${*:2}: stderr lacks /$pat/"
}

# same_text NAME WANT GOT: the two files must be identical.
same_text() {
	IT_LAST_OUT=$CTL_DIR/$1.diff
	diff -u "$2" "$3" >"$IT_LAST_OUT" 2>&1 || it_fail "$1: nanosmctl and the diags tool disagree"
}

# lid_of NAME: the LID nanosmctl lids gives node NAME (its first port).
lid_of() { awk -v n="$1" '{ g = $1; l = $2; $1 = $2 = ""; sub(/^  /, "") } $0 == n { print l; exit }' "$CTL_DIR/lids.txt"; }

# ---------------------------------------------------------------- phases

ctl_check_status() {
	local out=$CTL_DIR/status.txt k
	it_step "status: MASTER, $N_SW switches, $N_CA CA ports, $((N_SW + N_CA)) LIDs"
	ctl_ok "$out" status
	for k in "state: MASTER" "switches: $N_SW" "cas: $N_CA" "lids: $((N_SW + N_CA))" \
		"routing engines: .+" "last good sweep: [1-9][0-9]*, engine [a-z]+" \
		"last sweep: [1-9][0-9]* ok, took [0-9]+ ms, ended [0-9]+ s ago" \
		"sm port: 0x[0-9a-f]{16} lid [1-9][0-9]*" "uptime: [0-9]+ s" "mads: sent=[1-9]"; do
		grep -qE "^$k" "$out" || it_fail "status has no line /^$k/"
	done
	it_log "   $(grep -E '^(state|last good sweep):' "$out" | tr '\n' ' ')"
}

ctl_check_lids() {
	it_step "lids: the port GUIDs, LIDs and names ibnetdiscover shows"
	ctl_ok "$CTL_DIR/lids.txt" lids
	IT_LAST_OUT=$CTL_DIR/lids.check
	"$PYTHON" - "$CTL_DIR/ibnetdiscover.txt" "$CTL_DIR/lids.txt" >"$IT_LAST_OUT" 2>&1 <<'EOF' ||
import re, sys
want, name, swguid = {}, None, None
for line in open(sys.argv[1]):
    m = re.match(r'switchguid=0x[0-9a-f]+\(([0-9a-f]+)\)', line)
    if m:
        swguid = int(m.group(1), 16)
    m = re.match(r'Switch\s+\d+\s+"[^"]*"\s+#\s+"([^"]*)" base port 0 lid (\d+)', line)
    if m:
        want[swguid] = (int(m.group(2)), m.group(1))
    m = re.match(r'(Ca|Hca)\s+\d+\s+"[^"]*"\s+#\s+"([^"]*)"', line)
    if m:
        name = m.group(2)
    m = re.match(r'\[\d+\]\(([0-9a-f]+)\)\s.*#\s+lid (\d+) ', line)
    if m:
        want[int(m.group(1), 16)] = (int(m.group(2)), name)
got = {}
for line in open(sys.argv[2]):
    guid, lid, nm = line.rstrip('\n').split(' ', 2)
    got[int(guid, 16)] = (int(lid), nm)
for g in sorted(set(want) | set(got)):
    if want.get(g) != got.get(g):
        print('0x%016x: ibnetdiscover %s, nanosmctl %s' % (g, want.get(g), got.get(g)))
assert want == got, 'lids differ'
print('%d LIDs agree' % len(got))
EOF
		it_fail "nanosmctl lids and ibnetdiscover disagree"
	it_log "   $(cat "$IT_LAST_OUT")"
}

# routes SRC DST (names, then LIDs) == ibtracert SRCLID DSTLID
ctl_check_route() {
	local src=$1 dst=$2 sl dl t=$CTL_DIR/ibtracert.$1.$2.txt
	sl=$(lid_of "$src")
	dl=$(lid_of "$dst")
	if [ -z "$sl" ] || [ -z "$dl" ]; then
		it_fail "no LID for $src or $dst in nanosmctl lids"
	fi
	IT_LAST_OUT=$t
	sim_client ibtracert "$sl" "$dl" >"$t" 2>&1 || it_fail "ibtracert $sl $dl ($src -> $dst) failed"
	ctl_ok "$CTL_DIR/routes.$src.$dst.txt" routes "$src" "$dst"
	same_text "routes $src $dst" "$t" "$CTL_DIR/routes.$src.$dst.txt"
	ctl_ok "$CTL_DIR/routes.$sl.$dl.txt" routes "$sl" "$dl"
	same_text "routes $sl $dl" "$t" "$CTL_DIR/routes.$sl.$dl.txt"
	it_log "   $src -> $dst: $(grep -c '^\[' "$t") hop(s), same as ibtracert $sl $dl"
}

# Both dumps reduced to: per switch GUID, its LID lines (sorted by GUID).
ctl_check_lfts() {
	it_step "lfts: the entries dump_fts reads from the switches"
	ctl_ok "$CTL_DIR/lfts.txt" lfts
	run_tool "$CTL_DIR/dump_fts.txt" dump_fts
	IT_LAST_OUT=$CTL_DIR/lfts.check
	"$PYTHON" - "$CTL_DIR/dump_fts.txt" "$CTL_DIR/lfts.txt" >"$IT_LAST_OUT" 2>&1 <<'EOF' ||
import re, sys
def records(path):
    recs, cur = {}, None
    for line in open(path):
        line = line.rstrip()
        m = re.match(r'Unicast lids \[(0x[0-9a-f]+-0x[0-9a-f]+)\] of switch .* guid (0x[0-9a-f]+) \((.*)\):$', line)
        if m:
            cur = recs.setdefault(m.group(2), [m.group(1), m.group(3)])
        elif cur is not None and (re.match(r'0x[0-9a-f]{4} ', line) or 'valid lids dumped' in line):
            cur.append(line)
    return recs
a, b = records(sys.argv[1]), records(sys.argv[2])
for g in sorted(set(a) | set(b)):
    if a.get(g) != b.get(g):
        print('switch %s:\n  dump_fts  %s\n  nanosmctl %s' % (g, a.get(g), b.get(g)))
assert a == b and a, 'lfts differ'
print('%d switches, %d entries agree' % (len(a), sum(len(r) - 3 for r in a.values())))
EOF
		it_fail "nanosmctl lfts and dump_fts disagree"
	it_log "   $(cat "$IT_LAST_OUT")"
	it_step "lfts SWITCH [LIDS]: one switch's record, a LID range"
	ctl_ok "$CTL_DIR/lfts.sw1.txt" lfts sw1
	[ "$(grep -c '^Unicast lids' "$CTL_DIR/lfts.sw1.txt")" = 1 ] && grep -q '^Unicast lids .* (sw1):$' "$CTL_DIR/lfts.sw1.txt" ||
		it_fail "lfts sw1: not exactly sw1's record"
	diff <(sed -n '/(sw1):$/,/valid lids dumped/p' "$CTL_DIR/lfts.txt") "$CTL_DIR/lfts.sw1.txt" >"$CTL_DIR/lfts.sw1.diff" ||
		{ IT_LAST_OUT=$CTL_DIR/lfts.sw1.diff; it_fail "lfts sw1 differs from sw1's record in the whole dump"; }
	ctl_ok "$CTL_DIR/lfts.r.txt" lfts 2-3
	IT_LAST_OUT=$CTL_DIR/lfts.r.txt
	[ "$(grep -c '^Unicast lids' "$CTL_DIR/lfts.r.txt")" = 2 ] || it_fail "lfts 2-3: not both switches"
	[ "$(grep -cE '^0x000[23] ' "$CTL_DIR/lfts.r.txt")" = 4 ] &&
		! grep -qE '^0x000[^23] ' "$CTL_DIR/lfts.r.txt" || it_fail "lfts 2-3: other LIDs than 2 and 3"
	ctl_expect_rc 1 "^nanosmctl: lfts: no switch named 'nosuch'" "$CTL_DIR/lfts.bad.txt" lfts nosuch
}

ctl_check_errors() {
	it_step "errors: usage 2 (before connecting), daemon errors 1, no daemon 2"
	# usage errors: the same without a daemon behind -s (nothing is contacted)
	local sock
	for sock in "$CTL_SOCK" "$IT_SCRATCH/nowhere.sock"; do
		CTL_SOCK_USED=$sock
		ctl_usage 2 "^nanosmctl: unknown command 'frobnicate' \(commands: status, sweep, reload, plan, topology, lfts, lids, routes, sls, metrics, health\)" frobnicate
		ctl_usage 2 "^nanosmctl: usage: routes SRC DST" routes "$FIRST_CA"
		ctl_usage 2 "^nanosmctl: usage: routes SRC DST" routes a b c
		ctl_usage 2 "^nanosmctl: usage: status" status now
		ctl_usage 2 "^nanosmctl: usage: plan \[-v\] FILE" plan
		ctl_usage 2 "^nanosmctl: usage: plan \[-v\] FILE" plan a.yaml b.yaml
		ctl_usage 2 "^nanosmctl: lids: unknown option '--all'" lids --all
		ctl_usage 2 "^nanosmctl: unknown topology format 'png' \(ibnetdiscover, json, dot, svg or html\)" topology png
		ctl_usage 2 "^nanosmctl: unknown topology format 'png' \(ibnetdiscover, json, dot, svg or html\)" topology --format png
	done
	ctl_expect_rc 1 "^nanosmctl: no node named 'nobody'" "$CTL_DIR/nobody.txt" routes "$FIRST_CA" nobody
	# nanosm's own picture (tools/draw): no Graphviz needed
	ctl_ok "$CTL_DIR/topo.svg" topology --format svg
	grep -q '<svg' "$CTL_DIR/topo.svg" || it_fail "topology --format svg: no <svg> in the output"
	grep -q 'class="s" id="b0"' "$CTL_DIR/topo.svg" || it_fail "topology --format svg: no switch box"
	ctl_ok "$CTL_DIR/topo.html" topology --format html
	grep -q '"lft":{"sw":{' "$CTL_DIR/topo.html" ||
		it_fail "topology --format html: the forwarding tables are not in the page"
	grep -qiE '<(script|link|img)[^>]* (src|href)=' "$CTL_DIR/topo.html" &&
		it_fail "topology --format html: the page loads an external file"
	ctl_usage 2 "^nanosmctl: topology: --expand, --expand-switch, --reference and --width are for --format svg or html" topology --expand
	ctl_expect_rc 1 "^nanosmctl: no switch named 'nosuch'" "$CTL_DIR/nosuch.txt" topology --format svg --expand-switch nosuch
	IT_LAST_OUT=$CTL_DIR/wrong-socket.txt.err
	timeout 10 "$NANOSMCTL" -s "$IT_SCRATCH/nowhere.sock" status >/dev/null 2>"$IT_LAST_OUT"
	[ $? = 2 ] || it_fail "nanosmctl with no daemon behind the socket: expected exit 2"
	grep -q "cannot reach nanosm at $IT_SCRATCH/nowhere.sock: .*(is it running? see -s)" \
		"$IT_LAST_OUT" || it_fail "nanosmctl with no daemon: unclear message"
	# a -s path that is there but no socket
	: >"$IT_SCRATCH/plain-file"
	mkdir -p "$IT_SCRATCH/a-dir"
	CTL_SOCK_USED=$IT_SCRATCH/plain-file
	ctl_usage 2 "^nanosmctl: cannot reach nanosm at $IT_SCRATCH/plain-file: it is a file, not a socket \(see -s\)" status
	CTL_SOCK_USED=$IT_SCRATCH/a-dir
	ctl_usage 2 "^nanosmctl: cannot reach nanosm at $IT_SCRATCH/a-dir: it is a directory, not a socket \(see -s\)" status
}

# ctl_usage RC PATTERN ARGS...: nanosmctl -s $CTL_SOCK_USED must exit RC
# with PATTERN on stderr and print nothing on stdout.
ctl_usage() {
	local rc=$1 pat=$2 out=$CTL_DIR/usage.txt got
	shift 2
	IT_LAST_OUT=$out.err
	timeout -k 5 "$CLIENT_TIMEOUT" "$NANOSMCTL" -s "$CTL_SOCK_USED" "$@" >"$out" 2>"$out.err"
	got=$?
	[ "$got" = "$rc" ] || it_fail "nanosmctl -s ${CTL_SOCK_USED##*/} $* exited $got (expected $rc)"
	grep -qE -- "$pat" "$out.err" || it_fail "nanosmctl -s ${CTL_SOCK_USED##*/} $*: stderr lacks /$pat/"
	[ ! -s "$out" ] || it_fail "nanosmctl $*: printed something on stdout"
}

# plan FILE: nanosmctl reads FILE (the daemon never opens it) and the
# daemon's messages name FILE as the client gave it.
ctl_check_plan() {
	local d=$CTL_DIR/plan
	it_step "plan: FILE is read by nanosmctl (relative, /dev/stdin, a private directory)"
	mkdir -p "$d/private"
	printf 'routing:\n  engine: [updn]\n' >"$d/private/updn.yaml"
	printf 'routing:\n  engine: [updn]\n  rooots: []\n' >"$d/private/typo.yaml"
	# a relative path, resolved against the client's cwd (not the daemon's)
	(cd "$d/private" && ctl_ok "$d/rel.txt" plan updn.yaml) || exit 1
	grep -q "^routing: .* -> updn" "$d/rel.txt" || it_fail "plan updn.yaml: no 'routing: ... -> updn' line"
	grep -q "^engine that would be used: updn (gate passed)" "$d/rel.txt" ||
		it_fail "plan updn.yaml: no 'engine that would be used: updn' line"
	# the daemon's parse error names the file as the client gave it
	(cd "$d/private" && ctl_expect_rc 1 "^nanosmctl: plan: typo.yaml:3:3: unknown key 'rooots'" "$d/typo.txt" plan typo.yaml) || exit 1
	# pipes only this process can name: the daemon could never open them
	cat "$d/private/updn.yaml" | ctl_ok "$d/stdin.txt" plan /dev/stdin
	cmp -s "$d/rel.txt" "$d/stdin.txt" || { IT_LAST_OUT=$d/stdin.txt; it_fail "plan /dev/stdin differs from plan updn.yaml"; }
	ctl_ok "$d/fd.txt" plan <(cat "$d/private/updn.yaml")
	cmp -s "$d/rel.txt" "$d/fd.txt" || { IT_LAST_OUT=$d/fd.txt; it_fail "plan <(...) differs from plan updn.yaml"; }
	# unreadable or missing here: nanosmctl says so, exit 1, nothing sent
	ctl_expect_rc 1 "^nanosmctl: $d/missing.yaml: No such file or directory" "$d/missing.txt" plan "$d/missing.yaml"
	ctl_expect_rc 1 "^nanosmctl: $d: Is a directory" "$d/dir.txt" plan "$d"
	head -c $((4 * 1024 * 1024 + 1)) /dev/zero | tr '\0' '#' >"$d/huge.yaml"
	ctl_expect_rc 1 "^nanosmctl: $d/huge.yaml: too large to send \(more than 4194304 bytes" "$d/huge.txt" plan "$d/huge.yaml"
	# a plan the gate would refuse exits 1, with the plan on stdout
	printf 'routing:\n  engine: [ftree]\n' >"$d/refused.yaml"
	ctl_expect_rc 1 "^nanosmctl: plan: $d/refused.yaml would be refused: " "$d/refused.txt" plan "$d/refused.yaml"
	grep -q "^refused: " "$d/refused.txt" || { IT_LAST_OUT=$d/refused.txt; it_fail "a refused plan does not print the plan"; }
	it_log "   $(head -n 2 "$d/refused.txt" | tail -n 1)"
}

ctl_check_sweep() {
	local last
	last=$(grep -hoE '(^|[^0-9A-Za-z_])sweep [0-9]+:' "$SM_LOG" | tail -n 1 | grep -oE '[0-9]+')
	[ -n "$last" ] || it_fail "no 'sweep N:' line in the SM log"
	it_step "sweep: a new 'sweep $((last + 1)):' line follows (last was $last)"
	ctl_ok "$CTL_DIR/sweep.txt" sweep
	grep -qx "sweep requested" "$CTL_DIR/sweep.txt" || it_fail "sweep: no 'sweep requested'"
	sm_wait "(^|[^0-9A-Za-z_])sweep $((last + 1)):" 30 ||
		it_fail "no 'sweep $((last + 1)):' line within 30 s of nanosmctl sweep"
	it_log "   $(grep -hoE "sweep $((last + 1)): [a-z]+ switches=[0-9]+ cas=[0-9]+" "$SM_LOG" | head -n 1)"
}

ctl_check_formats() {
	local links
	links=$("$PYTHON" -c '
import re, sys
print(sum(1 for l in open(sys.argv[1]) if re.match(r"\[\d+\]", l)) // 2)' "$CTL_DIR/ibnetdiscover.txt")
	it_step "topology json / dot: $((N_SW + N_CA)) nodes, $links links"
	ctl_ok "$CTL_DIR/topo.json" topology --format json
	IT_LAST_OUT=$CTL_DIR/topo.json.check
	"$PYTHON" - "$CTL_DIR/topo.json" "$((N_SW + N_CA))" "$links" >"$IT_LAST_OUT" 2>&1 <<'EOF' ||
import json, sys
doc = json.load(open(sys.argv[1]))
assert len(doc['nodes']) == int(sys.argv[2]), len(doc['nodes'])
assert len(doc['links']) == int(sys.argv[3]), len(doc['links'])
for n in doc['nodes']:
    assert set(n) >= {'guid', 'type', 'desc', 'name', 'ports', 'lid'}, n
    assert n['lid'] > 0, n
EOF
		it_fail "topology --format json is wrong"
	ctl_ok "$CTL_DIR/topo.dot" topology --format dot
	[ "$(grep -c ' -- ' "$CTL_DIR/topo.dot")" = "$links" ] ||
		it_fail "topology --format dot: not $links edges"
	[ "$(grep -c 'shape=box' "$CTL_DIR/topo.dot")" = "$N_SW" ] ||
		it_fail "topology --format dot: not $N_SW boxes"
}

# The ibnetdiscover-format topology in a fresh ibsim: the same fabric.
ctl_check_topology_reload() {
	local host id
	it_step "topology: loaded into a fresh ibsim, ibnetdiscover shows the same fabric"
	ctl_ok "$CTL_DIR/topology.txt" topology
	host=$SIM_HOST_DEFAULT
	sm_stop
	[ ! -e "$CTL_SOCK" ] || it_fail "the socket file is still there after the SM stopped"
	ctl_expect_rc 2 "cannot reach nanosm" "$CTL_DIR/stopped.txt" status
	# attach the new sim where the old one was: the id of the CA named $host
	id=$(awk -v n="# \"$host\"" '/^(Ca|Hca)[ \t]/ && index($0, n) { split($0, q, "\""); print q[2]; exit }' \
		"$CTL_DIR/topology.txt")
	[ -n "$id" ] || it_fail "no CA \"$host\" in the topology nanosmctl printed"
	sim_start "$CTL_DIR/topology.txt" "$id"
	run_tool "$CTL_DIR/ibnetdiscover.reloaded.txt" ibnetdiscover
	sed -E '/generated on/d; s/lid [0-9]+/lid L/g' "$CTL_DIR/ibnetdiscover.txt" >"$CTL_DIR/ibnd.a"
	sed -E '/generated on/d; s/lid [0-9]+/lid L/g' "$CTL_DIR/ibnetdiscover.reloaded.txt" >"$CTL_DIR/ibnd.b"
	same_text "topology reloaded into ibsim" "$CTL_DIR/ibnd.a" "$CTL_DIR/ibnd.b"
	it_log "   $(grep -cE '^(Switch|Ca|Hca)' "$CTL_DIR/ibnd.b") nodes, $(grep -c '^\[' "$CTL_DIR/ibnd.b") port lines identical"
}

# ---------------------------------------------------------------- main

it_init ctl
[ "$SM" = nanosm ] || it_skip "the control socket is nanosm's; SM=$SM"
[ -x "$NANOSMCTL" ] || it_fail "nanosmctl not built: $NANOSMCTL (run make)"
CTL_SOCK=$IT_SCRATCH/ctl.sock
CTL_DIR=$IT_SCRATCH/ctl
mkdir -p "$CTL_DIR"
NANOSM_ARGS="${NANOSM_ARGS:-} --socket $CTL_SOCK"
fabric_file "$FABRIC"
N_SW=$(fabric_nodes "$IT_FABRIC" sw | wc -l)
N_CA=$(fabric_nodes "$IT_FABRIC" ca | wc -l) # each bundled host has one cabled port
sim_start "$IT_FABRIC"
sm_start --sweep-interval 600
sm_wait_up
wait_ports_ok 30
[ -S "$CTL_SOCK" ] || it_fail "no control socket at $CTL_SOCK (nanosm --socket)"
[ "$(stat -c %a "$CTL_SOCK")" = 600 ] || it_fail "control socket mode $(stat -c %a "$CTL_SOCK"), expected 600"
run_tool "$CTL_DIR/ibnetdiscover.txt" ibnetdiscover

ctl_check_status
ctl_check_lids
it_step "routes: the paths ibtracert follows"
FIRST_CA=$(fabric_nodes "$IT_FABRIC" ca | head -n 1)
LAST_CA=$(fabric_nodes "$IT_FABRIC" ca | tail -n 1)
LAST_SW=$(fabric_nodes "$IT_FABRIC" sw | tail -n 1)
ctl_check_route "$FIRST_CA" "$LAST_CA"
ctl_check_route "$LAST_CA" "$FIRST_CA"
ctl_check_route "$FIRST_CA" "$LAST_SW"
ctl_check_lfts
ctl_check_errors
ctl_check_plan
ctl_check_sweep
ctl_check_formats
ctl_check_topology_reload
it_pass
