#!/bin/bash
# ring: ring of four switches with hosts - checks a (ports/LIDs), b (all-pairs routes), c (sminfo).
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
it_fabric_test ring ring.topo
