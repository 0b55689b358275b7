#!/bin/bash
# score: nanosm's routes are at least as good as OpenSM's on the same fabric,
# engine by engine, as the switches really hold them.
#
# For each engine E (default: ftree, then updn) on fattree64.topo:
#   1. fresh ibsim, OpenSM -R E: SUBNET UP, then ibnetdiscover + dump_fts
#      through the harness's clients; the engine OpenSM really used is read
#      from its log ("<engine> tables configured on all switches": OpenSM
#      falls back to minhop silently when E refuses the fabric); stop.
#   2. fresh ibsim, nanosm -R E: the same captures, the engine from its
#      SUBNET UP line ("engine=E"); stop.
#   3. nanosm-route TOPO --lfts DUMP --json on each capture (each on its own
#      ibnetdiscover: the two SMs hand out different LIDs).
# Asserts, per engine: both routing gates pass; both runs scored the fabric
# of the file (switch count) and the same endpoints and links; every shift is
# evaluated; nanosm's shift all-to-all worst max link load <= OpenSM's; its
# edge forwarding index max <= OpenSM's, on switch-to-switch links and on
# all links.  A table of both runs is printed either way.
#
# Knobs (defaults are the test):
#   SCORE_FABRIC=ring.topo     another bundled fabric
#   SCORE_ENGINES="minhop updn ftree"
#   SCORE_ASSERT=0             report only: print the table, assert nothing,
#                              and record a nanosm that does not come up with E
#                              (engine or gate refusing the fabric) as "refused"
#                              instead of failing
#   SCORE_OUT=DIR              keep the JSON reports there (SM-E.json, rows.tsv)
#   NANOSM_ROUTE=path          the scorer (default build/bin/nanosm-route)
# NANOSM_ARGS is replaced by "-R E" for the nanosm runs.
. "$(dirname "$0")/lib.sh"

[ "$SM" = nanosm ] || { it_init score; it_skip "compares nanosm with OpenSM: SM=nanosm only"; }

SCORE_FABRIC=${SCORE_FABRIC:-fattree64.topo}
SCORE_ENGINES=${SCORE_ENGINES:-ftree updn}
SCORE_ASSERT=${SCORE_ASSERT:-1}
SCORE_UP_TIMEOUT=${SCORE_UP_TIMEOUT:-20}
ROUTE=${NANOSM_ROUTE:-$REPO/build/bin/nanosm-route}

it_init score
fabric_file "$SCORE_FABRIC"
[ -x "$ROUTE" ] || it_fail "nanosm-route not found: $ROUTE (run make first)"
OPENSM_BIN=$(command -v opensm) || it_fail "opensm not installed"
D=$IT_SCRATCH/score
mkdir -p "$D" "$D/bin"
ROWS=$D/rows.tsv # engine  SM  engine used  JSON report (in $D; - if none)
: >"$ROWS"

# score_capture TAG: ibnetdiscover and dump_fts of the running fabric.
score_capture() {
	run_tool "$D/$1.ibnd.txt" ibnetdiscover
	run_tool "$D/$1.fts.txt" dump_fts
}

# score_route TAG: nanosm-route on TAG's captures into TAG.json; exit 0 (gate
# pass) and 1 (gate fail) both give a report, anything else is an error.
score_route() {
	local rc
	"$ROUTE" "$D/$1.ibnd.txt" --lfts "$D/$1.fts.txt" --json >"$D/$1.json" 2>"$D/$1.route.err"
	rc=$?
	[ -s "$D/$1.route.err" ] && sed "s/^/[$IT_NAME]    $1: nanosm-route: /" "$D/$1.route.err"
	if [ $rc -gt 1 ]; then
		IT_LAST_OUT=$D/$1.route.err
		it_fail "nanosm-route failed (status $rc) on the $1 captures"
	fi
}

# score_opensm E: OpenSM -R E through a wrapper first in PATH, so the
# harness's sm_start (which knows no OpenSM routing option) runs it.
score_opensm() {
	local e=$1 used SM=opensm PATH="$D/bin:$PATH"
	printf '#!/bin/sh\nexec "%s" -R "%s" "$@"\n' "$OPENSM_BIN" "$e" >"$D/bin/opensm"
	chmod +x "$D/bin/opensm"
	it_step "$e: OpenSM -R $e"
	sim_start "$IT_FABRIC"
	sm_start
	sm_wait_up "$SCORE_UP_TIMEOUT"
	score_capture "opensm-$e"
	used=$(grep -oE 'osm_ucast_mgr_process: [[:alnum:]_-]+ tables configured' "$SM_OSMLOG" |
		tail -n 1 | awk '{ print $2 }')
	[ -n "$used" ] || it_fail "OpenSM's log does not say which routing engine configured the tables"
	if [ "$used" != "$e" ]; then
		it_log "   OpenSM fell back from $e to $used:"
		grep -E "ERR|$e|[Ff]all|fat-tree|root" "$SM_OSMLOG" |
			grep -vE 'Activate|tables configured' | head -n 4 | sed -E "s/^[A-Z][a-z]{2} [ 0-9]{2} [0-9:]+ [0-9]+ \[[0-9A-F]+\] 0x[0-9a-f]+ -> //; s/^/[$IT_NAME]      /"
	fi
	sm_stop
	sim_stop
	score_route "opensm-$e"
	printf '%s\topensm\t%s\t%s\n' "$e" "$used" "opensm-$e.json" >>"$ROWS"
}

score_nanosm() {
	# shellcheck disable=SC2034 # NANOSM_ARGS: read by sm_start
	local e=$1 used why NANOSM_ARGS="-R $1"
	it_step "$e: nanosm -R $e"
	sim_start "$IT_FABRIC"
	sm_start
	# the first sweep either comes up or fails (an engine refusing the
	# fabric, or the gate refusing its tables): wait for whichever comes first
	sm_wait 'SUBNET UP|NSM-E100' "$SCORE_UP_TIMEOUT" ||
		it_fail "nanosm -R $e: neither SUBNET UP nor a failed sweep within ${SCORE_UP_TIMEOUT}s"
	if ! grep -q 'SUBNET UP' "$SM_LOG"; then
		why=$(grep -m1 -E 'NSM-E40[0-3]' "$SM_LOG" | sed 's/^.*NSM-/NSM-/' | cut -c1-240)
		[ "$SCORE_ASSERT" = 0 ] || it_fail "nanosm -R $e does not come up: $why"
		it_log "   nanosm -R $e does not come up: $why"
		sm_stop
		sim_stop
		printf '%s\tnanosm\trefused\t-\n' "$e" >>"$ROWS"
		return
	fi
	sm_wait_up "$SCORE_UP_TIMEOUT"
	used=$(grep -m1 -oE 'SUBNET UP: .* engine=[^ ]+' "$SM_LOG" | sed 's/.*engine=//')
	[ "$SCORE_ASSERT" = 0 ] || [ "$used" = "$e" ] ||
		it_fail "nanosm -R $e came up with engine '${used:-?}'"
	# the engine's note (roots found, links routed around), if it has one
	grep -m1 -E "nanosm: routing engine $e: " "$SM_LOG" |
		sed -E "s/^.*routing engine /[$IT_NAME]    nanosm note: /"
	score_capture "nanosm-$e"
	sm_stop
	sim_stop
	score_route "nanosm-$e"
	printf '%s\tnanosm\t%s\t%s\n' "$e" "$used" "nanosm-$e.json" >>"$ROWS"
}

for e in $SCORE_ENGINES; do
	score_opensm "$e"
	score_nanosm "$e"
done

if [ -n "${SCORE_OUT:-}" ]; then
	if ! mkdir -p "$SCORE_OUT" || ! cp "$D"/*.json "$ROWS" "$SCORE_OUT"/; then
		it_fail "cannot copy the reports to $SCORE_OUT"
	fi
fi

it_step "scores (${SCORE_FABRIC}; nanosm-route --json, default shifts and bisections)"
IT_LAST_OUT=$D/compare.out
"$PYTHON" - "$ROWS" "$(fabric_nodes "$IT_FABRIC" sw | wc -l)" "$SCORE_ASSERT" >"$D/compare.out" 2>&1 <<'EOF'
import json, os, sys

rows_file, n_switches, do_assert = sys.argv[1], int(sys.argv[2]), sys.argv[3] != "0"
rows = []
for line in open(rows_file):
    engine, sm, used, path = line.rstrip("\n").split("\t")
    rows.append((engine, sm, used, json.load(open(os.path.join(os.path.dirname(rows_file), path))) if path != "-" else None))

hdr = "%-7s %-7s %-8s %-5s %-17s %-14s %-14s %s" % (
    "engine", "SM", "used", "gate", "shift worst/mean", "EFI sw max/cv", "EFI all max/cv",
    "EBB mean [95% CI]")
print(hdr)
print("-" * len(hdr))
for engine, sm, used, d in rows:
    if d is None:
        print("%-7s %-7s %-8s %s" % (engine, sm, used, "(no SUBNET UP: engine refused the fabric)"))
        continue
    b = d["bisection"]
    print("%-7s %-7s %-8s %-5s %-17s %-14s %-14s %.4f [%.4f, %.4f]" % (
        engine, sm, used, "PASS" if d["gate"]["pass"] else "FAIL",
        "%d / %.3f" % (d["shift"]["worst_load"], d["shift"]["mean_load"]),
        "%d / %.3f" % (d["efi"]["switch"]["max"], d["efi"]["switch"]["cv"]),
        "%d / %.3f" % (d["efi"]["all"]["max"], d["efi"]["all"]["cv"]),
        b["mean"], b["ci95_low"], b["ci95_high"]))

if not do_assert:
    sys.exit(0)
bad = []
for engine in dict.fromkeys(r[0] for r in rows):
    got = {sm: (used, d) for e, sm, used, d in rows if e == engine}
    o, n = got["opensm"][1], got["nanosm"][1]
    for sm, d in (("opensm", o), ("nanosm", n)):
        g = d["gate"]
        if not g["pass"]:
            bad.append("%s/%s: routing gate fails (unreachable %d, loops %d, bad ports %d, "
                       "credit loop %s): %s" % (engine, sm, g["unreachable"], g["loops"],
                       g["bad_ports"], "yes" if g["credit_loop"] else "no", g["first"]))
        if d["fabric"]["switches"] != n_switches:
            bad.append("%s/%s: scored %d switches, the fabric file has %d"
                       % (engine, sm, d["fabric"]["switches"], n_switches))
        if d["shift"]["evaluated"] != d["shift"]["total"]:
            bad.append("%s/%s: only %d of %d shifts evaluated"
                       % (engine, sm, d["shift"]["evaluated"], d["shift"]["total"]))
    for key in ("switches", "endpoints", "directed_links"):
        if o["fabric"][key] != n["fabric"][key]:
            bad.append("%s: the two runs saw different fabrics: %s %d (OpenSM) vs %d (nanosm)"
                       % (engine, key, o["fabric"][key], n["fabric"][key]))
    checks = [("shift all-to-all worst max link load", lambda d: d["shift"]["worst_load"]),
              ("EFI max, switch links", lambda d: d["efi"]["switch"]["max"]),
              ("EFI max, all links", lambda d: d["efi"]["all"]["max"])]
    for what, get in checks:
        if get(n) > get(o):
            bad.append("%s: nanosm's %s %s > OpenSM's %s (OpenSM used %s)"
                       % (engine, what, get(n), get(o), got["opensm"][0]))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
EOF
rc=$?
sed "s/^/[$IT_NAME]    /" "$D/compare.out"
if [ $rc -ne 0 ]; then
	# every SM and ibsim has stopped cleanly by now: their logs are no help
	IT_LAST_OUT='' SM_LOG='' SM_OSMLOG='' SIM_LOG=''
	it_fail "nanosm scores worse than OpenSM, or a run is unusable (see above)"
fi
it_pass
