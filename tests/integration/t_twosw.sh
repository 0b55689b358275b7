#!/bin/bash
# twosw: two switches joined by two parallel links, four hosts - checks a, b, c.
. "$(dirname "$0")/lib.sh"
it_fabric_test twosw twosw.topo
