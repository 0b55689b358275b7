#!/bin/bash
# lab: one 8-port switch, three hosts; the SM attaches at host1 - checks a (ports/LIDs), b (all-pairs routes), c (sminfo).
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
it_fabric_test lab lab.topo
