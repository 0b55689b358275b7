#!/bin/bash
# reload: nanosm -f POLICY on the ring; SIGHUP re-reads the policy into a
# fresh struct, routes the last good fabric with it and runs the gate
# before anything is pushed.  A broken file and a policy whose routes fail
# the gate (min-hop on a ring: credit loop) are refused with the old tables
# left untouched on the switches (dump_fts before == after); a good change
# (priority) takes effect (sminfo shows it).  A static LID changed by
# `nanosmctl reload` is applied by the next sweep: the port holds the new
# LID (smpquery, ibnetdiscover), dump_fts routes it and not the old one, the
# SA answers with it (saquery NodeRecord, PathRecord; none to the old), one
# log line says so; plan and the answer name what waits for a restart.  A
# static LID another port holds is refused, naming both.  A file emptied
# by mistake is refused (SIGHUP and nanosmctl) unless `reload --force`,
# whose answer names the sections it drops.
. "$(dirname "$0")/lib.sh"

it_init reload
[ "$SM" = nanosm ] || it_skip "nanosm's policy reload only"
fabric_file ring.topo
pol=$IT_SCRATCH/nanosm.yaml
h3=0x0002c90300a00231 # host3's port (on sw2), renamed store3 by the policy
write_policy() { # ENGINE PRIORITY [STATIC_LID [WINDOW]]
	cat >"$pol" <<EOT
sm:
  priority: $2
  window: ${4:-16}
routing:
  engine: [$1]
lids:
  static:
    - {guid: $h3, lid: ${3:-0x30}}
node_names:
  0x0002c90300a00230: store3
EOT
}
write_policy updn 0
export NANOSM_ARGS="-f $pol"
sim_start "$IT_FABRIC"
sm_start --sweep-interval 300
sm_wait_up
grep -q 'SUBNET UP: .*engine=updn ' "$SM_LOG" || it_fail "not up with updn"
d=$IT_SCRATCH/chk
mkdir -p "$d"
run_tool "$d/fts.before" dump_fts

it_step "a policy whose routes fail the gate is refused"
write_policy minhop 0
kill -HUP "$SM_PID"
sm_wait 'NSM-E600 reload .* refused: the new routing fails the gate: .*credit loop' 10 ||
	it_fail "min-hop on the ring was not refused by the gate"
it_step "a broken file is refused with file:line:column"
printf 'sm:\n  priority: 3\nrouting:\n  engin: [updn]\n' >"$pol"
kill -HUP "$SM_PID"
sm_wait "NSM-E600 reload .* refused: .*nanosm.yaml:4:3: unknown key 'engin'" 10 ||
	it_fail "a broken policy was not refused with its position"
sleep 1
run_tool "$d/fts.after" dump_fts
diff -u "$d/fts.before" "$d/fts.after" >"$d/fts.diff" ||
	{ IT_LAST_OUT=$d/fts.diff; it_fail "LFTs changed after refused reloads"; }
kill -0 "$SM_PID" 2>/dev/null || it_fail "nanosm died on a refused reload"

it_step "a good change takes effect"
write_policy updn,minhop 5
kill -HUP "$SM_PID"
sm_wait 'reloaded .* \(routing updn,minhop: engine updn wins; EBB' 10 || it_fail "the good policy was not reloaded"
run_tool "$d/sminfo" sminfo
grep -q 'priority 5' "$d/sminfo" || { IT_LAST_OUT=$d/sminfo; it_fail "sminfo does not show priority 5"; }
check_routes

NANOSMCTL=$REPO/build/bin/nanosmctl
ctl() { # OUT ARGS...: nanosmctl into OUT (stderr OUT.err); CTL_RC its status
	local out=$1
	shift
	IT_LAST_OUT=$out.err
	timeout -k 5 "$CLIENT_TIMEOUT" "$NANOSMCTL" -s "$IT_SCRATCH/nanosm.$SM_GEN.sock" "$@" \
		>"$out" 2>"$out.err"
	CTL_RC=$?
}
expect_in() { # FILE PATTERN WHAT
	grep -qE -- "$2" "$1" || { IT_LAST_OUT=$1; it_fail "$3"; }
}
# the LID ibnetdiscover shows for NODE's port 1 ('[1](guid) ... # lid N ...'
# under its 'Ca ... # "NODE"' line)
ibnd_lid() {
	awk -v n="# \"$1\"" '/^Ca/ && index($0, n) { ca = 1; next }
		ca && /^\[1\]/ { for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1); exit } }
		/^$/ { ca = 0 }' "$2"
}
# the number of the last "sweep N:" line
last_sweep() { grep -oE '(^|[^0-9A-Za-z_])sweep [0-9]+:' "$SM_LOG" | tail -n 1 | grep -oE '[0-9]+'; }

it_step "the static LID of the start is in force"
run_tool "$d/ibnd.start" ibnetdiscover
[ "$(ibnd_lid host3 "$d/ibnd.start")" = 48 ] ||
	{ IT_LAST_OUT=$d/ibnd.start; it_fail "host3 does not hold its static LID 0x30 (48)"; }

it_step "plan and reload of a changed static LID (and a restart-only setting)"
# 0x41, not 0x40: dump_fts and ibroute do not show the LID at
# LinearFDBTop when it opens a 64-LID block (0x40 as the top is routed --
# smpquery reaches it -- but not printed)
write_policy updn,minhop 5 0x41 32
ctl "$d/plan.txt" plan "$pol"
[ "$CTL_RC" = 0 ] || it_fail "plan exited $CTL_RC"
expect_in "$d/plan.txt" "lids.static: ~ $h3 0x0030 -> 0x0041" "plan does not list the static LID change"
expect_in "$d/plan.txt" "^port $h3/1 \(store3\): static LID 0x0030 -> 0x0041 at the next sweep$" \
	"plan does not say the port moves at the next sweep"
expect_in "$d/plan.txt" "^takes effect at restart: sm.window$" "plan does not say sm.window waits for a restart"
n=$(last_sweep)
ctl "$d/reload.txt" reload
[ "$CTL_RC" = 0 ] || it_fail "reload of a changed static LID exited $CTL_RC"
expect_in "$d/reload.txt" "^port $h3/1 \(store3\): static LID 0x0030 -> 0x0041 at the next sweep$" \
	"the reload answer does not name the static LID move"
expect_in "$d/reload.txt" "^takes effect at restart: sm.window$" \
	"the reload answer does not say sm.window waits for a restart"
sm_wait "port $h3/1 \(store3\): static LID 0x0030 -> 0x0041 \(policy reload\); LID 0x0030 is free" 20 ||
	it_fail "no log line for the static LID move"
sm_wait "(^|[^0-9A-Za-z_])sweep $((n + 1)): ok" 20 || it_fail "no good sweep after the reload"
sim_client smpquery portinfo 65 1 >"$d/pi.65" 2>&1 ||
	{ IT_LAST_OUT=$d/pi.65; it_fail "smpquery portinfo 65 1 failed: nothing answers at LID 0x41"; }
expect_in "$d/pi.65" "^Lid:\.+65$" "the port at LID 0x41 does not say Lid 65"
run_tool "$d/ibnd.moved" ibnetdiscover
[ "$(ibnd_lid host3 "$d/ibnd.moved")" = 65 ] ||
	{ IT_LAST_OUT=$d/ibnd.moved; it_fail "ibnetdiscover: host3 does not hold LID 0x41 (65)"; }
run_tool "$d/fts.moved" dump_fts
[ "$(grep -c "^0x0041 .*portguid $h3: 'host3'" "$d/fts.moved")" = 4 ] ||
	{ IT_LAST_OUT=$d/fts.moved; it_fail "dump_fts: not every switch routes LID 0x41 to host3"; }
if grep -q '^0x0030 ' "$d/fts.moved"; then
	IT_LAST_OUT=$d/fts.moved
	it_fail "dump_fts: the old LID 0x30 is still routed"
fi
# the SA answers with the new LID: host3's NodeRecord, a path to it
# (saquery under ibsim sees only the first MAD of a GetTable: ask by LID)
run_tool "$d/nr.moved" saquery NR 65
expect_in "$d/nr.moved" "port_guid\.+$h3$" "saquery NR 65: not host3's port"
run_tool "$d/pr.moved" saquery -p --src-to-dst 1:65
expect_in "$d/pr.moved" "dlid\.+65$" "saquery: no PathRecord to LID 65"
sim_client saquery -p --src-to-dst 1:48 >"$d/pr.old" 2>&1
if grep -q 'PathRecord dump' "$d/pr.old"; then
	IT_LAST_OUT=$d/pr.old
	it_fail "saquery: a PathRecord to the old LID 48"
fi
rm -f "$d/ibnetdiscover.txt"
check_routes

it_step "a static LID another port holds is refused, naming both"
h4lid=$(ibnd_lid host4 "$d/ibnd.moved")
write_policy updn,minhop 5 "$h4lid" 32
ctl "$d/taken.txt" reload
[ "$CTL_RC" = 1 ] || it_fail "a reload onto host4's LID exited $CTL_RC (expected 1)"
expect_in "$d/taken.txt.err" "static LID 0x$(printf %04x "$h4lid") for port $h3/1 \(store3\) is in use by port 0x0002c90300a00241/1 \(host4\)" \
	"the refusal does not name both ports"
sm_wait 'NSM-E600 reload refused \(nanosmctl\): static LID' 10 || it_fail "the refusal was not logged"

it_step "an emptied file is refused (SIGHUP, nanosmctl) unless --force"
printf '# emptied by mistake\n' >"$pol"
kill -HUP "$SM_PID"
sm_wait "NSM-E600 reload of .* refused: .*nanosm.yaml holds no settings" 10 ||
	it_fail "SIGHUP of an empty file was not refused"
ctl "$d/empty.plan" plan "$pol"
expect_in "$d/empty.plan" "^refused: .*nanosm.yaml holds no settings" "plan does not say an empty file would be refused"
ctl "$d/empty.txt" reload
[ "$CTL_RC" = 1 ] || it_fail "reload of an empty file exited $CTL_RC (expected 1)"
expect_in "$d/empty.txt.err" "holds no settings .*drops all 1 node_names, 1 lids.static.*reload --force" \
	"the refusal of an empty file does not say what it would drop and how to force it"
run_tool "$d/sminfo.kept" sminfo
expect_in "$d/sminfo.kept" 'priority 5' "a refused empty file changed the priority"
ctl "$d/forced.txt" reload --force
[ "$CTL_RC" = 0 ] || it_fail "reload --force of an empty file exited $CTL_RC"
expect_in "$d/forced.txt" "^drops all 1 node_names, 1 lids.static$" "the forced reload does not name what it drops"
expect_in "$d/forced.txt" "^takes effect at restart: sm.window$" "the forced reload does not name sm.window"
sm_wait "NSM-W620 reload of .*nanosm.yaml drops all 1 node_names, 1 lids.static" 10 ||
	it_fail "the forced reload's drops were not logged"
run_tool "$d/sminfo.forced" sminfo
expect_in "$d/sminfo.forced" 'priority 0' "the forced empty file did not put the defaults in force"
sm_stop
it_pass
