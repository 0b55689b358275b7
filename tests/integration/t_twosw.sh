#!/bin/bash
# twosw: two switches joined by two parallel links, four hosts - checks a, b, c.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
it_fabric_test twosw twosw.topo
