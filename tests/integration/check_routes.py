#!/usr/bin/env python3
"""Independent fabric checks for the nanosm integration tests.

The SM's own claims are never trusted: everything here is parsed from the
output of the infiniband-diags tools run against ibsim.

  check_routes.py ports  --topo IBND --linkinfo LINKINFO [--fabric FILE]
      (a) every linked port is ACTIVE/LinkUp, every LID is non-zero and
      unique, and (with --fabric) every node/link of the fabric file was
      discovered.
        IBND      output of `ibnetdiscover` (default, full format)
        LINKINFO  output of `iblinkinfo -l`

  check_routes.py routes --topo IBND --fts DUMP_FTS [--client WRAPPER]
                         [--spot-pairs OUT] [--ca-only] [--require-minhop]
      (b) for EVERY source CA port and EVERY destination LID (all other CA
      ports and, unless --ca-only, every switch), start at the switch the
      source is cabled to and follow the LFT entries hop by hop until the
      packet is delivered; report black holes (no/invalid entry, unlinked
      out port, DLID above LinearFDBTop), loops and misdeliveries.
        DUMP_FTS  output of `dump_fts`
        WRAPPER   a command prefix that runs a diag tool against the same
                  ibsim (lib.sh writes one); used to re-read, with smpdump,
                  the LFT block dump_fts skips (see below).
        --spot-pairs OUT  write a few "SRCLID DSTLID SRCNAME DSTNAME" lines
                  for ibtracert spot checks.

  check_routes.py lids --topo IBND
      print "PORTGUID LID NAME" for every end port (switch port 0 and CA
      ports), sorted by GUID - used to compare LIDs across SM restarts.

dump_fts quirk: it reads LFT blocks 0 .. ALIGN(top,64)/64 - 1 where top is
the switch's LinearFDBTop.  When top is a non-zero multiple of 64 the block
holding LID `top` itself is never read, so that one LID is missing from the
dump (and would look like a black hole).  We detect that case (header range
"[0x0-0x40]" etc. without an entry for the top LID) and re-read that block
with `smpdump -D <dr path> 0x19 <top/64>` through --client.  Without
--client the LID is reported as "unverifiable" and counts as a failure.
"""

import argparse
import re
import shlex
import subprocess
import sys
from collections import Counter, deque

# ------------------------------------------------------------------ parsers

HDR_RE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([^"]+)"\s*(?:#\s*"([^"]*)"(.*))?$')
# "[1]	"H-0000000000100003"[1](100004) 		# "Hca2" lid 4 4xSDR"        (switch)
# "[1](10000a) 	"S-0000000000200001"[2]		# lid 6 lmc 0 "Switch2" lid 3" (CA)
PORT_RE = re.compile(
    r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s*"([^"]+)"\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s*(?:#(.*))?$')


def id_guid(nodeid):
    """ibnetdiscover node ids look like S-0002c90200412345 / H-... / R-..."""
    m = re.match(r'^[SHR]-([0-9a-fA-F]+)$', nodeid)
    return int(m.group(1), 16) if m else None


class Node:
    def __init__(self, kind, nports, nodeid, desc):
        self.kind = kind            # 'SW' or 'CA' (routers count as CA here)
        self.nports = nports
        self.nodeid = nodeid
        self.desc = desc or nodeid
        self.guid = id_guid(nodeid)
        self.lid = 0                # switch: port 0 LID
        self.lmc = 0
        self.portguid = None        # switch: port 0 GUID
        self.ports = {}             # port -> dict(remote=nodeid, rport, lid, lmc, portguid)

    def __repr__(self):
        return '%s %s' % (self.kind, self.desc)


def parse_ibnetdiscover(text):
    """Return {nodeid: Node} from default-format ibnetdiscover output."""
    nodes = {}
    cur = None
    pending_guid = None
    pending_portguid = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            cur = None
            continue
        m = re.match(r'^(switchguid|caguid|rtguid)=0x([0-9a-fA-F]+)(?:\(([0-9a-fA-F]+)\))?', line)
        if m:
            pending_guid = int(m.group(2), 16)
            pending_portguid = int(m.group(3), 16) if m.group(3) else None
            continue
        if line.startswith('#'):
            continue
        m = HDR_RE.match(line)
        if m:
            kind = 'SW' if m.group(1) == 'Switch' else 'CA'
            cur = Node(kind, int(m.group(2)), m.group(3), m.group(4))
            if pending_guid is not None:
                cur.guid = pending_guid
            rest = m.group(5) or ''
            if kind == 'SW':
                cur.portguid = pending_portguid or cur.guid
                lm = re.search(r'\blid (\d+)', rest)
                cur.lid = int(lm.group(1)) if lm else 0
                lm = re.search(r'\blmc (\d+)', rest)
                cur.lmc = int(lm.group(1)) if lm else 0
            nodes[cur.nodeid] = cur
            pending_guid = pending_portguid = None
            continue
        m = PORT_RE.match(line)
        if m and cur is not None:
            port = int(m.group(1))
            comment = m.group(6) or ''
            p = {'remote': m.group(3), 'rport': int(m.group(4)), 'lid': None,
                 'lmc': 0, 'portguid': int(m.group(2), 16) if m.group(2) else None}
            if cur.kind == 'CA':
                # own LID comes first: '# lid 6 lmc 0 "Switch2" lid 3 4xSDR'
                lm = re.match(r'\s*lid (\d+)(?: lmc (\d+))?', comment)
                if lm:
                    p['lid'] = int(lm.group(1))
                    p['lmc'] = int(lm.group(2) or 0)
                else:
                    p['lid'] = 0
            cur.ports[port] = p
    return nodes


# iblinkinfo -l:
# 0x...0a "      Hca4"  6  1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>  0x...01  3  2[  ] "Switch2" (...)
# 0x...01 "   Switch2"  3  4[  ] ==(                Down/ Polling)==>             [  ] "" ( )
LINK_RE = re.compile(
    r'^0x([0-9a-fA-F]+)\s+"\s*(.*?)"\s+(\d+)\s+(\d+)\[[^\]]*\]\s+==\((.*?)\)==>\s*'
    r'(?:0x([0-9a-fA-F]+)\s+(\d+)\s+(\d+)\[)?')


def parse_linkinfo(text):
    """Return list of dicts (guid, desc, lid, port, state, phys, rguid, rport)."""
    out = []
    for line in text.splitlines():
        m = LINK_RE.match(line.strip())
        if not m:
            continue
        inner = m.group(5)
        sm = re.search(r'(\S+)/\s*(\S+)\s*$', inner)
        out.append({
            'guid': int(m.group(1), 16), 'desc': m.group(2), 'lid': int(m.group(3)),
            'port': int(m.group(4)),
            'state': sm.group(1) if sm else '?', 'phys': sm.group(2) if sm else '?',
            'rguid': int(m.group(6), 16) if m.group(6) else None,
            'rport': int(m.group(8)) if m.group(8) else None,
        })
    return out


FAB_HDR_RE = re.compile(r'^\s*(Switch|Hca|Ca|Rt)\s+(\d+)\s+"([^"]+)"')
FAB_PORT_RE = re.compile(r'^\s*\[(\d+)\][^"]*"([^"]+)"\s*\[(\d+)\]')


def parse_fabric_file(path):
    """ibsim fabric file -> (switch count, CA count, set of links)."""
    nsw = nca = 0
    links = set()
    cur = None
    with open(path) as f:
        for line in f:
            m = FAB_HDR_RE.match(line)
            if m:
                cur = m.group(3)
                if m.group(1) == 'Switch':
                    nsw += 1
                else:
                    nca += 1
                continue
            m = FAB_PORT_RE.match(line)
            if m and cur:
                a = (cur, int(m.group(1)))
                b = (m.group(2), int(m.group(3)))
                links.add(tuple(sorted([a, b])))
    return nsw, nca, links


def parse_dump_fts(text):
    """Return {switch guid: dict(path, start, end, lft={lid: port})}."""
    sws = {}
    cur = None
    hdr = re.compile(r'^Unicast lids \[0x([0-9a-fA-F]+)-0x([0-9a-fA-F]+)\] of switch (.*?) '
                     r'guid 0x([0-9a-fA-F]+) \((.*)\):\s*$')
    ent = re.compile(r'^0x([0-9a-fA-F]+)\s+(\d+)\b')
    for line in text.splitlines():
        m = hdr.match(line.strip())
        if m:
            path = None
            pm = re.search(r'DR path slid \d+; dlid \d+; ([0-9,]+)', m.group(3))
            if pm:
                path = pm.group(1)
            cur = {'start': int(m.group(1), 16), 'end': int(m.group(2), 16),
                   'path': path, 'desc': m.group(5), 'lft': {}, 'reread': []}
            sws[int(m.group(4), 16)] = cur
            continue
        m = ent.match(line.strip())
        if m and cur is not None:
            cur['lft'][int(m.group(1), 16)] = int(m.group(2))
    return sws


def smpdump_lft_block(client, path, block):
    """Read one LFT block (64 entries) by direct route via smpdump."""
    cmd = shlex.split(client) + ['smpdump', '-D', path, '0x19', str(block)]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=60)
    data = []
    for line in res.stdout.splitlines():
        words = line.split()
        if words and all(re.fullmatch(r'[0-9a-fA-F]{4}', w) for w in words):
            for w in words:
                data += [int(w[:2], 16), int(w[2:], 16)]
    if len(data) < 64:
        raise RuntimeError('smpdump %s failed (rc %d): %s' %
                           (' '.join(cmd[-4:]), res.returncode, res.stdout.strip()[-300:]))
    return data[:64]


# ------------------------------------------------------------------ helpers

def load_lfts(switches, fts, client, errors, notes):
    """{switch nodeid: ({lid: port}, LinearFDBTop)} from parse_dump_fts
    output, with the LID dump_fts skips (see the module doc) re-read by
    smpdump through client; problems go to errors, re-reads to notes."""
    lft = {}
    for n in switches:
        t = fts.get(n.guid)
        if t is None:
            errors.append('switch %s (guid 0x%x) missing from dump_fts' % (n.desc, n.guid))
            lft[n.nodeid] = ({}, 0)
            continue
        top = t['end']
        if top and top % 64 == 0 and top not in t['lft']:
            if client and t['path']:
                try:
                    blk = smpdump_lft_block(client, t['path'], top // 64)
                    port = blk[top % 64]
                    if port <= n.nports:
                        t['lft'][top] = port
                    notes.append('%s: LID %d (LinearFDBTop, multiple of 64) re-read with smpdump: port %d'
                                 % (n.desc, top, port))
                except Exception as e:  # noqa: BLE001 - report, don't crash
                    errors.append('%s: re-reading LFT block %d failed: %s' % (n.desc, top // 64, e))
            else:
                t['lft'][top] = 'unverifiable'
                notes.append('%s: LID %d not dumped by dump_fts (block-skip quirk) and no --client'
                             % (n.desc, top))
        lft[n.nodeid] = (t['lft'], top)
    return lft


def endports(nodes):
    """Every addressable end port: (name, lids, node, port)."""
    eps = []
    for n in nodes.values():
        if n.kind == 'SW':
            eps.append((n.desc, list(range(n.lid, n.lid + (1 << n.lmc))), n, 0))
        else:
            for pn, p in sorted(n.ports.items()):
                lid = p['lid'] or 0
                eps.append(('%s/%d' % (n.desc, pn) if len(n.ports) > 1 else n.desc,
                            list(range(lid, lid + (1 << p['lmc']))), n, pn))
    return eps


def fail_list(title, items, limit=15):
    print('  %s: %d' % (title, len(items)))
    for it in items[:limit]:
        print('    - ' + it)
    if len(items) > limit:
        print('    ... and %d more' % (len(items) - limit))


# ------------------------------------------------------------------ checks

def cmd_ports(a):
    nodes = parse_ibnetdiscover(open(a.topo).read())
    links = parse_linkinfo(open(a.linkinfo).read())
    errors = []
    sws = [n for n in nodes.values() if n.kind == 'SW']
    cas = [n for n in nodes.values() if n.kind == 'CA']
    if not nodes:
        print('ports: ibnetdiscover output has no nodes')
        return 1

    # LIDs: non-zero, unique (ranges with LMC must not overlap)
    owner = {}
    for name, lids, _n, _p in endports(nodes):
        if not lids or lids[0] == 0:
            errors.append('LID 0 on %s' % name)
            continue
        for lid in lids:
            if lid >= 0xC000:
                errors.append('LID 0x%x of %s is not unicast' % (lid, name))
            if lid in owner:
                errors.append('LID %d shared by %s and %s' % (lid, owner[lid], name))
            else:
                owner[lid] = name

    # port states: every port with a peer must be Active/LinkUp
    linked = [l for l in links if l['rguid'] is not None]
    bad = ['%s port %d: %s/%s' % (l['desc'], l['port'], l['state'], l['phys'])
           for l in linked if l['state'] != 'Active' or l['phys'] != 'LinkUp']
    errors += bad
    if not links:
        errors.append('iblinkinfo output has no ports')

    # discovered topology agrees with ibnetdiscover and the fabric file
    ibnd_ends = sum(len(n.ports) for n in nodes.values())
    if len(linked) != ibnd_ends:
        errors.append('iblinkinfo shows %d linked ports, ibnetdiscover %d' % (len(linked), ibnd_ends))
    if a.fabric:
        fsw, fca, flinks = parse_fabric_file(a.fabric)
        if (fsw, fca) != (len(sws), len(cas)):
            errors.append('fabric file has %d switches/%d CAs, discovered %d/%d'
                          % (fsw, fca, len(sws), len(cas)))
        if 2 * len(flinks) != ibnd_ends:
            errors.append('fabric file has %d links, discovered %d' % (len(flinks), ibnd_ends // 2))

    lids = sorted(owner)
    summary = ('%d switches, %d CAs, %d linked ports, %d LIDs (%s)'
               % (len(sws), len(cas), len(linked), len(lids),
                  '%d..%d' % (lids[0], lids[-1]) if lids else 'none'))
    if errors:
        print('ports: FAILED - ' + summary)
        fail_list('problems', errors)
        return 1
    print('ports: OK - %s; all linked ports Active/LinkUp, LIDs non-zero and unique%s'
          % (summary, ', matches fabric file' if a.fabric else ''))
    return 0


def cmd_routes(a):
    nodes = parse_ibnetdiscover(open(a.topo).read())
    fts = parse_dump_fts(open(a.fts).read())
    byguid = {n.guid: n for n in nodes.values() if n.kind == 'SW'}
    errors = []
    notes = []

    lft = load_lfts(byguid.values(), fts, a.client, errors, notes)

    eps = endports(nodes)
    lid_owner = {}
    for name, lids, n, p in eps:
        for lid in lids:
            lid_owner[lid] = (name, n, p)
    srcs = [(name, lids, n, p) for name, lids, n, p in eps if n.kind == 'CA']
    dsts = [e for e in eps if e[2].kind == 'CA' or not a.ca_only]

    # shortest switch-hop distances for the (informational) minimal-route check
    def bfs(start):
        dist = {start: 0}
        q = deque([start])
        while q:
            u = q.popleft()
            for p in nodes[u].ports.values():
                v = p['remote']
                if v in nodes and nodes[v].kind == 'SW' and v not in dist:
                    dist[v] = dist[u] + 1
                    q.append(v)
        return dist
    swdist = {n.nodeid: bfs(n.nodeid) for n in nodes.values() if n.kind == 'SW'}

    def attach_switch(node, port):
        """switch nodeid a CA port is cabled to (or None)"""
        p = node.ports.get(port)
        if p and p['remote'] in nodes and nodes[p['remote']].kind == 'SW':
            return p['remote']
        return None

    hops_hist = Counter()
    nonmin = []
    blackholes, loops, misdeliver = [], [], []
    pairs = ca_pairs = 0
    for sname, slids, snode, sport in srcs:
        first = attach_switch(snode, sport)
        for dname, dlids, dnode, dport in dsts:
            if dnode is snode and dport == sport:
                continue
            if not dlids or dlids[0] == 0:
                errors.append('%s -> %s: destination has no LID' % (sname, dname))
                continue
            for dlid in dlids:
                pairs += 1
                if dnode.kind == 'CA':
                    ca_pairs += 1
                what = '%s -> %s (lid %d)' % (sname, dname, dlid)
                if first is None:
                    p = snode.ports.get(sport)
                    if p and p['remote'] == dnode.nodeid:
                        hops_hist[0] += 1
                    else:
                        blackholes.append(what + ': source port not cabled to a switch')
                    continue
                sw = first
                seen = []
                path = [nodes[sw].desc]
                while True:
                    if sw in seen:
                        loops.append(what + ': loop ' + ' > '.join(path))
                        break
                    seen.append(sw)
                    table, top = lft[sw]
                    out = table.get(dlid)
                    if out == 'unverifiable':
                        blackholes.append(what + ': at %s entry unverifiable (dump_fts quirk)'
                                          % nodes[sw].desc)
                        break
                    if out is None:
                        why = ('dlid > LinearFDBTop %d' % top) if dlid > top else 'no valid LFT entry'
                        blackholes.append(what + ': black hole at %s (%s) via %s'
                                          % (nodes[sw].desc, why, ' > '.join(path)))
                        break
                    if out == 0:
                        if dnode.nodeid == sw:
                            hops_hist[len(seen)] += 1
                        else:
                            misdeliver.append(what + ': delivered to switch %s itself'
                                              % nodes[sw].desc)
                        break
                    p = nodes[sw].ports.get(out)
                    if p is None or p['remote'] not in nodes:
                        blackholes.append(what + ': %s forwards to unlinked port %d'
                                          % (nodes[sw].desc, out))
                        break
                    nxt = nodes[p['remote']]
                    path.append('%d:%s' % (out, nxt.desc))
                    if nxt.kind == 'CA':
                        if nxt is dnode and p['rport'] == dport:
                            hops_hist[len(seen)] += 1
                            if dnode.kind == 'CA':
                                dsw = attach_switch(dnode, dport)
                                best = swdist[first].get(dsw)
                                if best is not None and len(seen) > best + 1:
                                    nonmin.append('%s: %d switch hops, minimum %d'
                                                  % (what, len(seen), best + 1))
                        else:
                            misdeliver.append(what + ': delivered to %s port %d via %s'
                                              % (nxt.desc, p['rport'], ' > '.join(path)))
                        break
                    sw = nxt.nodeid

    # spot pairs for ibtracert (CA -> CA, spread across the fabric)
    if a.spot_pairs:
        cal = [s for s in srcs if s[1] and s[1][0]]
        cand = []
        if len(cal) >= 2:
            idx = [(0, len(cal) - 1), (len(cal) - 1, 0), (1, len(cal) // 2),
                   (len(cal) // 2, len(cal) // 3)]
            for i, j in idx:
                if i != j and i < len(cal) and j < len(cal) and (i, j) not in cand:
                    cand.append((i, j))
        with open(a.spot_pairs, 'w') as f:
            for i, j in cand[:4]:
                f.write('%d %d %s %s\n' % (cal[i][1][0], cal[j][1][0],
                                           cal[i][0].replace(' ', '_'), cal[j][0].replace(' ', '_')))

    for n in notes:
        print('  note: ' + n)
    bad = errors + blackholes + loops + misdeliver
    hist = ', '.join('%d:%d' % kv for kv in sorted(hops_hist.items()))
    summary = ('%d source CAs x %d destinations: %d (src,dlid) pairs checked (%d CA->CA, %d CA->switch); '
               'switch hops histogram {%s}' % (len(srcs), len(dsts), pairs, ca_pairs,
                                                pairs - ca_pairs, hist))
    if nonmin:
        msg = '%d CA->CA routes longer than the shortest path' % len(nonmin)
        if a.require_minhop:
            bad.append(msg)
        fail_list('non-minimal routes (info)', nonmin, 5)
    if bad:
        print('routes: FAILED - ' + summary)
        if errors:
            fail_list('errors', errors)
        if blackholes:
            fail_list('black holes', blackholes)
        if loops:
            fail_list('loops', loops)
        if misdeliver:
            fail_list('misdelivered', misdeliver)
        if nonmin and a.require_minhop:
            print('  ' + msg)
        return 1
    if pairs == 0:
        print('routes: FAILED - nothing to check (no CA ports with LIDs?)')
        return 1
    print('routes: OK - ' + summary + '; no black holes, no loops')
    return 0


def cmd_lids(a):
    nodes = parse_ibnetdiscover(open(a.topo).read())
    rows = []
    for name, lids, n, p in endports(nodes):
        guid = n.portguid if n.kind == 'SW' else n.ports[p]['portguid']
        rows.append((guid or 0, lids[0] if lids else 0, name))
    for guid, lid, name in sorted(rows):
        print('0x%016x %d %s' % (guid, lid, name.replace(' ', '_')))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    sub = ap.add_subparsers(dest='cmd')
    p = sub.add_parser('ports')
    p.add_argument('--topo', required=True)
    p.add_argument('--linkinfo', required=True)
    p.add_argument('--fabric')
    p = sub.add_parser('routes')
    p.add_argument('--topo', required=True)
    p.add_argument('--fts', required=True)
    p.add_argument('--client')
    p.add_argument('--spot-pairs')
    p.add_argument('--ca-only', action='store_true')
    p.add_argument('--require-minhop', action='store_true')
    p = sub.add_parser('lids')
    p.add_argument('--topo', required=True)
    a = ap.parse_args()
    if a.cmd == 'ports':
        return cmd_ports(a)
    if a.cmd == 'routes':
        return cmd_routes(a)
    if a.cmd == 'lids':
        return cmd_lids(a)
    ap.print_help()
    return 2


if __name__ == '__main__':
    sys.exit(main())
