#!/usr/bin/env python3
"""ca_loops.py IBNETDISCOVER LFTS: is there a credit loop among the routes
between CA ports alone, all on one VL?  Prints "no" or "yes: <cycle>".

nanosm's gate (routing/check.c) also counts routes between a CA and a
switch's own LID; an engine that keeps only CA-to-CA data traffic free of
cycles (OpenSM's nue on one VL does) fails the gate but passes this.  A
bench helper (tests/bench/routing_compare.sh), not a test.  LFTS: a
dump_fts / nanosm-route --dump-lfts file or OpenSM's opensm-lfts.dump.
"""
import re
import sys


def read_topo(path):
    """Switch port links and the CA LIDs with their switch, from ibnetdiscover."""
    node, kind, links, ca_lids = None, {}, {}, []
    for line in open(path):
        m = re.match(r'(Switch|Ca)\s+\d+\s+"([^"]+)"', line)
        if m:
            node, kind[m.group(2)] = m.group(2), m.group(1)
            continue
        m = re.match(r'\[(\d+)\](?:\([0-9a-f]+\))?\s+"([^"]+)"\[(\d+)\]', line)
        if not m or node is None:
            continue
        links[(node, int(m.group(1)))] = m.group(2)
        lid = re.search(r'#.*?lid (\d+)', line)
        if kind[node] == 'Ca' and lid:
            ca_lids.append((int(lid.group(1)), m.group(2)))
    return kind, links, ca_lids


def read_lfts(path):
    lft, cur = {}, None
    for line in open(path):
        if line.startswith('Unicast lids'):
            m = re.search(r'guid 0x([0-9a-f]+)', line)
            cur = 'S-' + m.group(1).rjust(16, '0') if m else None
            lft[cur] = {}
            continue
        m = re.match(r'0x([0-9a-f]+)\s+(\d+)\s', line)
        if m and cur:
            lft[cur][int(m.group(1), 16)] = int(m.group(2))
    return lft


def dependencies(kind, links, ca_lids, lft):
    """Channel (switch, out port) -> the channels a CA-to-CA route turns into."""
    deps = {}
    for dlid, _ in ca_lids:
        for slid, sw in ca_lids:
            prev, hops = None, 0
            while slid != dlid and hops < 64:
                port = lft.get(sw, {}).get(dlid)
                nxt = links.get((sw, port))
                if nxt is None:
                    break  # unrouted: the gate's business, not this check's
                if prev is not None:
                    deps.setdefault(prev, set()).add((sw, port))
                if kind.get(nxt) != 'Switch':
                    break
                prev, sw, hops = (sw, port), nxt, hops + 1
    return deps


def find_cycle(deps):
    state = {}
    for root in deps:
        if root in state:
            continue
        stack, path = [(root, iter(deps.get(root, ())))], [root]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):]
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(deps.get(nxt, ()))))
                path.append(nxt)
    return None


def main():
    kind, links, ca_lids = read_topo(sys.argv[1])
    cycle = find_cycle(dependencies(kind, links, ca_lids, read_lfts(sys.argv[2])))
    print("yes: " + " -> ".join("%s/%d" % c for c in cycle) if cycle else "no")


if __name__ == '__main__':
    main()
