#!/bin/bash
# tests/demo.sh - watch nanosm bring up a small simulated InfiniBand fabric.
#
# Run by `make demo` after the build (or directly: tests/demo.sh).
# Nothing here needs an HCA: ibsim simulates the fabric and every program
# talks to it through the umad2sim LD_PRELOAD shim.  SM=opensm runs the same
# demo with OpenSM, for comparison.  Everything started is stopped at the end.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/integration/lib.sh"

heading() { printf '\n\033[1m=== %s\033[0m\n' "$*"; }
[ -t 1 ] || heading() { printf '\n=== %s\n' "$*"; }
indent() { sed 's/^/    /'; }

it_init demo
fabric_file lab.topo

heading "1. The fabric: ${IT_FABRIC#"$REPO"/}"
echo "One 8-port switch (lab-sw) with three hosts cabled to ports 1-3:"
grep -vE '^[[:space:]]*(#|$|vendid|devid|sysimgguid|caguid|switchguid)' "$IT_FABRIC" | indent
sim_start "$IT_FABRIC"

heading "2. Before any subnet manager: links are up but not ACTIVE, no LIDs"
sim_client iblinkinfo --switches-only 2>/dev/null | indent

heading "3. Start the subnet manager ($SM) on host1 and wait for SUBNET UP"
sm_start
sm_wait_up
sleep 0.5 # let the first sweep's summary lines land
echo "Its output so far:"
grep -v '^# ' "$SM_LOG" | indent

heading "4. The topology as the diag tools see it now (ibnetdiscover)"
d=$IT_SCRATCH/chk
mkdir -p "$d"
run_tool "$d/ibnetdiscover.txt" ibnetdiscover
grep -vE '^(#|vendid|devid|sysimgguid)|^$' "$d/ibnetdiscover.txt" | indent
echo "Link states (iblinkinfo):"
sim_client iblinkinfo --switches-only 2>/dev/null | indent

heading "5. A path through the switch: ibtracert host1 -> host3"
lid_of() { awk -v n="$1" '$3 == n || $3 == n "/1" { print $2; exit }' "$d/lids.txt"; }
"$PYTHON" "$IT_LIB_DIR/check_routes.py" lids --topo "$d/ibnetdiscover.txt" >"$d/lids.txt"
h1=$(lid_of host1)
h3=$(lid_of host3)
if [ -z "$h1" ] || [ -z "$h3" ]; then it_fail "could not find the LIDs of host1/host3"; fi
echo "host1 has LID $h1, host3 has LID $h3:"
IT_LAST_OUT=$d/tracert.txt
sim_client ibtracert "$h1" "$h3" >"$d/tracert.txt" 2>&1 || it_fail "ibtracert $h1 $h3 failed"
indent <"$d/tracert.txt"

heading "6. Every host reaches every host: forwarding tables (dump_fts) walked for all pairs"
check_ports
check_routes

heading "7. Who is the master SM? (sminfo)"
sim_client sminfo 2>/dev/null | indent
check_sminfo

heading "8. Ask the Subnet Administrator, as IPoIB and rdma_cm do (saquery from host3)"
echo "A PathRecord host3 -> host1 (what rdma_cm resolves before connecting):"
sim_client --host host3 saquery -p --src-to-dst "$h3:$h1" 2>/dev/null |
	grep -E 'dlid|slid|pkey|mtu|rate' | indent
echo "Multicast groups (the IPoIB broadcast group of the default partition):"
sim_client --host host3 saquery -g 2>/dev/null | grep -E 'MGID|Mlid|Mtu|pkey' | indent

heading "9. SIMULATED: nanosm-ping from host1 to every host, through the simulated verbs layer"
echo "No RDMA hardware here: ${VSIM#"$REPO"/} (a test double) stands in for"
echo "libibverbs, and packets follow the LFTs nanosm programmed in ibsim's switches."
echo "The verdicts are real; the times are not (local sockets, not a link)."
[ -r "$VSIM" ] || it_fail "${VSIM#"$REPO"/} not built (run make)"
port=$((20000 + ($$ % 2000) * 8))
targets=()
for h in host1 host2 host3; do
	vsim_server "$h" "$port" "$d/ping-server.$h.log"
	targets+=("127.0.0.1:$port")
	echo "server on $h (lid $VSIM_SERVER_LID), TCP port $port"
	port=$((port + 1))
done
IT_LAST_OUT=$d/ping.txt
for mode in --ud --rc; do
	vsim_client host1 "$NANOSM_PING" "$mode" -n 100 "${targets[@]}" >"$d/ping.txt" 2>&1 ||
		it_fail "nanosm-ping $mode: a path failed"
	sed 's/^/[simulated] /' "$d/ping.txt" | indent
done

heading "10. Stop the SM (SIGTERM) and the simulator"
sm_stop
sim_stop
echo "Done - everything started by this demo has been stopped and its scratch dir removed."
