#!/bin/bash
# mkey: nanosm -f POLICY with an M_Key, protect 2 and a lease on the lab
# fabric.  ibsim neither stores nor checks M_Keys, so this cannot show
# protection; it shows that SMPs carrying the key work, that the ports
# which keep no M_Key are reported once each (NSM-W313) and then left
# alone (sweeps 2 and 3 quiet: port_sets=0), and that a policy file with
# keys open to others is warned about (NSM-W603).
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

it_init mkey
[ "$SM" = nanosm ] || it_skip "nanosm's policy keys only; SM=$SM"
fabric_file lab.topo
pol=$IT_SCRATCH/nanosm.yaml
cat >"$pol" <<EOT
sm:
  m_key: 0x5ec2e7000000c0de
  m_key_protect: 2
  m_key_lease: 60
  sm_key: 0x5ec2e7000000beef
EOT
chmod 644 "$pol"
export NANOSM_ARGS="-f $pol"
sim_start "$IT_FABRIC"
sm_start --sweep-interval 1
sm_wait_up
sm_sweep_to 3

it_step "a key file open to others is warned about"
grep -q "NSM-W603 $pol holds M_Key/SM_Key secrets" "$SM_LOG" || it_fail "no NSM-W603 for mode 644"
grep -q 5ec2e7 "$SM_LOG" && it_fail "a key shows in the log"

it_step "ibsim's ports keep no M_Key: NSM-W313 once per port"
n=$(grep -c 'NSM-W313 ' "$SM_LOG")
u=$(grep -o 'NSM-W313 port [0-9a-fx]*/[0-9]*' "$SM_LOG" | sort -u | wc -l)
[ "$n" -gt 0 ] || it_fail "no NSM-W313 although ibsim keeps no M_Key"
[ "$n" = "$u" ] || it_fail "NSM-W313 repeated for a port ($n lines, $u ports)"

it_step "sweeps 2 and 3 are quiet"
for s in 2 3; do
	line=$(grep -hE "(^|[^0-9A-Za-z_])sweep $s:" "$SM_LOG" | head -n 1)
	echo "$line" | grep -qE '(^|[[:space:]])port_sets=0([[:space:]]|$)' ||
		it_fail "sweep $s is not quiet: $line"
done
check_routes
sm_stop
it_pass
