#!/bin/bash
# fattree64: two-level fat tree with 64 hosts - checks a (ports/LIDs), b (all-pairs routes), c (sminfo).
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
it_fabric_test fattree64 fattree64.topo
