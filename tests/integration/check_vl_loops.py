#!/usr/bin/env python3
"""Credit loops per virtual lane, rebuilt from outside the SM.

  check_vl_loops.py loops --topo IBND --fts DUMP_FTS --sls SLS
                          [--sl2vl TABLES] [--client WRAPPER] [--all-sl0]

For every line "SLID DLID SL" of SLS (`nanosmctl sls`: every CA port LID
to every other LID), start at the CA port that owns SLID and follow the
LFTs (DUMP_FTS, `dump_fts` output; the LID it skips is re-read with
smpdump through WRAPPER, as check_routes.py does) to DLID.  Each hop
leaves a port on a virtual lane: the source CA port's SLtoVL table maps
the SL to the VL of the first cable, and each switch's table for (the
port the packet came in on, the port it leaves by) maps it for the next
one.  A channel is (node, out port, VL); consecutive channels of a path
are a dependency.  A cycle of dependencies on one VL is a credit loop
(a possible deadlock): the check fails and names it, GUIDs and ports.

  TABLES   `smpquery sl2vl LID` of every CA port and `smpquery sl2vl LID
           OUT` of every switch for every out port the paths use, run
           one after the other into one file (each answer starts with
           "# SL2VL table: Lid N").  Without it, SL s rides VL s at every
           hop (nanosm's convention).
  --all-sl0  every path on SL 0, whatever SLS says: a control, the same
           routes without their VLs (shortest paths on a ring close a
           cycle there).

Also checked: SLS covers every (CA port LID, other end-port LID) pair of
the fabric exactly once, and every path reaches its destination.  Exit
status: 0 no credit loop, 1 a credit loop, 2 anything else wrong (a pair
missing, a black hole, a table missing).

  check_vl_loops.py queries --topo IBND
      print the smpquery arguments that read every table TABLES needs:
      "LID" for every CA port, "LID OUT" for every cabled switch port.

  check_vl_loops.py tables --topo IBND --sl2vl TABLES --vls N
      the tables read back are the ones planned for N VLs: SL s -> VL s
      for s < N, every other SL -> VL 0, on every CA port and every switch
      pair of cabled ports (in port 0, the switch itself, included; in !=
      out); prints how many tables that is.  Exit status 0 or 1.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_routes as cr  # noqa: E402 - the parsers of check (b)

SL2VL_HDR = re.compile(r'^# SL2VL table: Lid (\d+)')
SL2VL_ROW = re.compile(r'^ports: in\s+(\d+), out\s+(\d+):\s*\|(.*)\|\s*$')


def parse_sl2vl(text):
    """{(lid, in port, out port): [VL of SL 0..15]} from smpquery sl2vl."""
    tables = {}
    lid = None
    for line in text.splitlines():
        m = SL2VL_HDR.match(line)
        if m:
            lid = int(m.group(1))
            continue
        m = SL2VL_ROW.match(line.strip())
        if m and lid is not None:
            vls = [int(v) for v in m.group(3).split('|')]
            if len(vls) == 16:
                tables[(lid, int(m.group(1)), int(m.group(2)))] = vls
    return tables


def parse_sls(text):
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        w = line.split()
        if len(w) != 3 or not all(x.isdigit() for x in w):
            raise ValueError('sls line %d is not "SLID DLID SL": %r' % (n, line))
        rows.append(tuple(int(x) for x in w))
    return rows


class Fabric:
    """The discovered fabric, its LFTs and SLtoVL tables."""

    def __init__(self, a, errors, notes):
        self.nodes = cr.parse_ibnetdiscover(open(a.topo).read())
        sws = [n for n in self.nodes.values() if n.kind == 'SW']
        self.lft = cr.load_lfts(sws, cr.parse_dump_fts(open(a.fts).read()), a.client,
                                errors, notes)
        self.tables = parse_sl2vl(open(a.sl2vl).read()) if a.sl2vl else None
        self.owner = {}  # LID -> (node, port)
        for _name, lids, n, p in cr.endports(self.nodes):
            for lid in lids:
                if lid:
                    self.owner[lid] = (n, p)

    def name(self, node, port):
        return '0x%016x (%s) port %d' % (node.guid or 0, node.desc, port)

    def vl(self, node, pin, pout, sl):
        """The VL a packet on sl leaves node's port pout on (pin: the port
        it came in on; a CA port's own table for the first hop)."""
        if self.tables is None:
            return sl
        lid = node.lid if node.kind == 'SW' else node.ports[pout]['lid']
        key = (lid, pin, pout) if node.kind == 'SW' else (lid, 0, 0)
        if key not in self.tables:
            raise LookupError('no SLtoVL table for %s in %d out %d (LID %d)'
                              % (node.desc, pin, pout, lid))
        return self.tables[key][sl]

    def walk(self, slid, dlid, sl):
        """The channels (node, out port, VL) from slid to dlid, or raise."""
        node, port = self.owner[slid]
        chans = [(node.nodeid, port, self.vl(node, 0, port, sl))]
        far = node.ports.get(port)
        while True:
            if far is None or far['remote'] not in self.nodes:
                raise LookupError('%s -> LID %d: port %d of %s is not cabled'
                                  % (slid, dlid, port, node.desc))
            node, pin = self.nodes[far['remote']], far['rport']
            if node.kind != 'SW':
                if self.owner.get(dlid) != (node, pin):
                    raise LookupError('%d -> %d: delivered to %s' % (slid, dlid, node.desc))
                return chans
            table, _top = self.lft[node.nodeid]
            port = table.get(dlid)
            if port == 0 and self.owner.get(dlid, (None,))[0] is node:
                return chans
            if not isinstance(port, int) or port == 0 or port not in node.ports:
                raise LookupError('%d -> %d: no way on at %s (LFT entry %s)'
                                  % (slid, dlid, node.desc, port))
            if len(chans) > len(self.nodes):
                raise LookupError('%d -> %d: loop through %s' % (slid, dlid, node.desc))
            chans.append((node.nodeid, port, self.vl(node, pin, port, sl)))
            far = node.ports[port]


def want_pairs(fab):
    """Every (CA port LID, other end-port LID) pair sls must list."""
    cas = [lid for lid, (n, _p) in fab.owner.items() if n.kind == 'CA']
    return {(s, d) for s in cas for d in fab.owner if fab.owner[d] != fab.owner[s]}


def find_cycle(deps):
    """A cycle of the graph {channel: set(next channels)}, or None."""
    color = {}
    for root in sorted(deps):
        if root in color:
            continue
        color[root] = 1
        stack = [(root, iter(sorted(deps[root])))]
        while stack:
            c, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                color[c] = 2
                stack.pop()
            elif color.get(nxt) == 1:
                path = [x for x, _ in stack]
                return path[path.index(nxt):] + [nxt]
            elif nxt not in color:
                color[nxt] = 1
                stack.append((nxt, iter(sorted(deps.get(nxt, ())))))
    return None


def cmd_queries(a):
    nodes = cr.parse_ibnetdiscover(open(a.topo).read())
    for n in sorted(nodes.values(), key=lambda n: n.guid or 0):
        for pn, p in sorted(n.ports.items()):
            print('%d' % p['lid'] if n.kind == 'CA' else '%d %d' % (n.lid, pn))
    return 0


def planned_row(vls):
    return [s if s < vls else 0 for s in range(16)]


def cmd_tables(a):
    nodes = cr.parse_ibnetdiscover(open(a.topo).read())
    tables = parse_sl2vl(open(a.sl2vl).read())
    want = planned_row(a.vls)
    bad, n_ca, n_pairs = [], 0, 0

    def check(what, key):
        got = tables.get(key)
        if got != want:
            bad.append('%s holds %s, planned %s' % (what, got or 'no table', want))

    for n in sorted(nodes.values(), key=lambda n: n.guid or 0):
        if n.kind == 'CA':
            for pn, p in sorted(n.ports.items()):
                check('%s port %d (LID %d)' % (n.desc, pn, p['lid']), (p['lid'], 0, 0))
                n_ca += 1
            continue
        for out in sorted(n.ports):
            for pin in [0] + sorted(n.ports):
                if pin != out:
                    check('%s in %d out %d (LID %d)' % (n.desc, pin, out, n.lid),
                          (n.lid, pin, out))
                    n_pairs += 1
    what = ('%d tables: %d CA ports, %d switch port pairs, SL s -> VL s for s < %d, the rest VL 0'
            % (n_ca + n_pairs, n_ca, n_pairs, a.vls))
    if bad or not n_ca:
        print('sl2vl: FAILED - ' + what)
        cr.fail_list('not as planned', bad)
        return 1
    print('sl2vl: OK - ' + what)
    return 0


def cmd_loops(a):
    errors, notes = [], []
    fab = Fabric(a, errors, notes)
    rows = parse_sls(open(a.sls).read())
    seen = {(s, d) for s, d, _sl in rows}
    want = want_pairs(fab)
    if len(seen) != len(rows):
        errors.append('sls lists %d pairs more than once' % (len(rows) - len(seen)))
    missing, extra = sorted(want - seen), sorted(seen - want)
    if missing:
        errors.append('sls misses %d pairs, e.g. %s' % (len(missing), missing[:3]))
    if extra:
        errors.append('sls lists %d pairs that are no CA port LID to another LID, e.g. %s'
                      % (len(extra), extra[:3]))

    deps = {}
    paths = {}
    for s, d, sl in rows:
        if (s, d) not in want:
            continue
        try:
            chans = fab.walk(s, d, 0 if a.all_sl0 else sl)
        except (LookupError, KeyError) as e:
            errors.append(str(e))
            continue
        paths[chans[0][2]] = paths.get(chans[0][2], 0) + 1
        for c in chans:
            deps.setdefault(c, set())
        for x, y in zip(chans, chans[1:]):
            deps[x].add(y)

    for n in notes:
        print('  note: ' + n)
    if errors:
        print('vl-loops: FAILED - %d problems' % len(errors))
        cr.fail_list('problems', errors)
        return 2
    per_vl = {}
    for c, nxt in deps.items():
        ch, dp = per_vl.get(c[2], (0, 0))
        per_vl[c[2]] = (ch + 1, dp + len(nxt))
    vls = ', '.join('VL %d: %d paths start on it, %d channels, %d dependencies'
                    % (v, paths.get(v, 0), ch, dp) for v, (ch, dp) in sorted(per_vl.items()))
    what = '%d paths%s (%s)' % (len(rows), ' all on SL 0' if a.all_sl0 else '', vls)
    cyc = find_cycle(deps)
    if cyc:
        on = {v for _n, _p, v in cyc}
        where = 'on VL %d' % cyc[0][2] if len(on) == 1 else 'across VLs %s' % sorted(on)
        print('vl-loops: FAILED - credit loop %s: %s; %s'
              % (where, ' -> '.join('%s VL %d' % (fab.name(fab.nodes[n], p), v)
                                    for n, p, v in cyc), what))
        return 1
    print('vl-loops: OK - %s; no cycle on any VL' % what)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    sub = ap.add_subparsers(dest='cmd')
    p = sub.add_parser('loops')
    p.add_argument('--topo', required=True)
    p.add_argument('--fts', required=True)
    p.add_argument('--sls', required=True)
    p.add_argument('--sl2vl')
    p.add_argument('--client')
    p.add_argument('--all-sl0', action='store_true')
    p = sub.add_parser('queries')
    p.add_argument('--topo', required=True)
    p = sub.add_parser('tables')
    p.add_argument('--topo', required=True)
    p.add_argument('--sl2vl', required=True)
    p.add_argument('--vls', type=int, required=True)
    a = ap.parse_args()
    cmds = {'loops': cmd_loops, 'queries': cmd_queries, 'tables': cmd_tables}
    if a.cmd not in cmds:
        ap.print_help()
        return 2
    return cmds[a.cmd](a)


if __name__ == '__main__':
    sys.exit(main())
