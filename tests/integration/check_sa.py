#!/usr/bin/env python3
"""SA answers judged against the fabric, for the nanosm integration tests.

  check_sa.py records --topo IBND --client WRAPPER [--host NAME]...
      For every LID that ibnetdiscover found, ask the SA (saquery, run
      through WRAPPER from each --host attach point, default the wrapper's
      own) for the NodeRecord, the PortInfoRecord and the LinkRecord of that
      LID and compare them with ibnetdiscover's view (node GUID, type,
      description, base LID, the far end of the link); ask for the
      SMInfoRecord and ClassPortInfo; and for a PathRecord between every
      pair of CA ports (SLID/DLID/GIDs right, P_Key 0xffff, reversible).
      Prints one line per check group; exits 1 listing what differed.

saquery under ibsim sees only the first 256-byte MAD of a GetTable answer
(no RMPP), so every query here names one record (by LID, by LID/port, by
source and destination): the answers are complete.
"""

import argparse
import re
import shlex
import subprocess
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_routes import parse_ibnetdiscover  # noqa: E402


def run(client, host, args):
    cmd = shlex.split(client) + args
    env = dict(os.environ)
    if host:
        env['SIM_HOST'] = host
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=30, env=env)
    return p.returncode, p.stdout + p.stderr


def fields(text):
    """saquery dumps 'name.....value' lines; a list of dicts, one per record."""
    recs, cur = [], None
    for line in text.splitlines():
        # a record starts at an unindented "... dump:" line; indented ones
        # ("\tPortInfo dump:") are attributes inside the record
        if (line.rstrip().endswith('dump:') and not line[:1].isspace()) or \
                line.startswith('SA ClassPortInfo'):
            cur = {}
            recs.append(cur)
            continue
        m = re.match(r'^\s*([A-Za-z_0-9 /]+?):?\.{2,}\s*(.*)$', line)
        if m and cur is not None:
            cur.setdefault(m.group(1).strip(), m.group(2).strip())
    return recs


def num(v):
    v = v.split()[0]
    return int(v, 16) if v.lower().startswith('0x') else int(v)


class Checker:
    def __init__(self, a):
        self.a = a
        self.fails = []
        self.count = 0

    def sa(self, host, args):
        rc, out = run(self.a.client, host, ['saquery'] + args)
        self.count += 1
        if rc != 0:
            self.fails.append('[%s] saquery %s: exit %d: %s' % (host or 'default', ' '.join(args),
                                                               rc, out.strip()[-200:]))
            return []
        return fields(out)

    def expect(self, what, got, want):
        if got != want:
            self.fails.append('%s: got %r, want %r' % (what, got, want))


def end_ports(nodes):
    """(lid, node, port, port_guid) of every LID owner."""
    eps = []
    for n in nodes.values():
        if n.kind == 'SW':
            eps.append((n.lid, n, 0, n.portguid))
        else:
            for pn, p in sorted(n.ports.items()):
                if p['lid']:
                    eps.append((p['lid'], n, pn, p['portguid']))
    return eps


def check_nodes(c, host, nodes):
    for lid, n, pn, pguid in end_ports(nodes):
        recs = c.sa(host, ['NR', str(lid)])
        if len(recs) != 1:
            c.fails.append('NodeRecord lid %d: %d records' % (lid, len(recs)))
            continue
        r = recs[0]
        c.expect('NodeRecord lid %d node_guid' % lid, num(r.get('node_guid', '0')), n.guid)
        c.expect('NodeRecord lid %d port_guid' % lid, num(r.get('port_guid', '0')), pguid)
        c.expect('NodeRecord lid %d lid' % lid, num(r.get('lid', '0')), lid)
        c.expect('NodeRecord lid %d type' % lid, r.get('node_type'),
                 'Switch' if n.kind == 'SW' else 'Channel Adapter')
        c.expect('NodeRecord lid %d desc' % lid, r.get('NodeDescription'), n.desc)


def check_ports(c, host, nodes):
    for lid, n, pn, _ in end_ports(nodes):
        recs = c.sa(host, ['PIR', '%d/%d' % (lid, pn)])
        if len(recs) != 1:
            c.fails.append('PortInfoRecord %d/%d: %d records' % (lid, pn, len(recs)))
            continue
        r = recs[0]
        c.expect('PortInfoRecord %d/%d EndPortLid' % (lid, pn), num(r.get('EndPortLid', '0')), lid)
        c.expect('PortInfoRecord %d/%d PortNum' % (lid, pn), num(r.get('PortNum', '-1')), pn)
        c.expect('PortInfoRecord %d/%d Lid' % (lid, pn), num(r.get('Lid', '0')), lid)
        c.expect('PortInfoRecord %d/%d LinkState' % (lid, pn), r.get('LinkState'), 'Active')


def check_links(c, host, nodes):
    lid_of = {}
    for lid, n, pn, _ in end_ports(nodes):
        lid_of[n.nodeid] = lid if n.kind == 'SW' else lid_of.get(n.nodeid, lid)
    for n in nodes.values():
        for pn, p in sorted(n.ports.items()):
            src = n.lid if n.kind == 'SW' else p['lid']
            far = nodes.get(p['remote'])
            if not src or far is None:
                continue
            dst = far.lid if far.kind == 'SW' else far.ports[p['rport']]['lid']
            recs = c.sa(host, ['LR', '%d/%d' % (src, pn)])
            if len(recs) != 1:
                c.fails.append('LinkRecord %d/%d: %d records' % (src, pn, len(recs)))
                continue
            r = recs[0]
            c.expect('LinkRecord %d/%d ToLID' % (src, pn), num(r.get('ToLID', '0')), dst)
            c.expect('LinkRecord %d/%d ToPort' % (src, pn), num(r.get('ToPort', '0')), p['rport'])


def check_paths(c, host, nodes):
    cas = [(lid, n, pn, g) for lid, n, pn, g in end_ports(nodes) if n.kind != 'SW']
    for s in cas:
        for d in cas:
            if s is d:
                continue
            recs = c.sa(host, ['-p', '--src-to-dst', '%d:%d' % (s[0], d[0])])
            if not recs:
                c.fails.append('PathRecord %d->%d: none' % (s[0], d[0]))
                continue
            r = recs[0]
            c.expect('PathRecord %d->%d slid' % (s[0], d[0]), num(r.get('slid', '0')), s[0])
            c.expect('PathRecord %d->%d dlid' % (s[0], d[0]), num(r.get('dlid', '0')), d[0])
            c.expect('PathRecord %d->%d dgid' % (s[0], d[0]),
                     r.get('dgid', '').split(':')[-2:],
                     ['%x' % ((d[3] >> 16) & 0xffff), '%x' % (d[3] & 0xffff)])
            c.expect('PathRecord %d->%d pkey' % (s[0], d[0]), num(r.get('pkey', '0')), 0xffff)
            c.expect('PathRecord %d->%d reversible' % (s[0], d[0]),
                     num(r.get('num_path_revers', '0')) & 0x80, 0x80)


def check_sm(c, host, sm_guid):
    recs = c.sa(host, ['SMIR'])
    if not recs:
        c.fails.append('SMInfoRecord: none')
    else:
        r = recs[0]
        if sm_guid:
            c.expect('SMInfoRecord GUID', num(r.get('GUID', '0')), sm_guid)
        c.expect('SMInfoRecord state', num(r.get('SM State', r.get('SMState', '0'))), 3)
    recs = c.sa(host, ['-c'])
    if not recs:
        c.fails.append('ClassPortInfo: none')
    else:
        c.expect('ClassPortInfo class version', num(recs[0].get('Class version', '0')), 2)


def cmd_records(a):
    nodes = parse_ibnetdiscover(open(a.topo).read())
    c = Checker(a)
    for host in a.host or [None]:
        before = len(c.fails)
        check_nodes(c, host, nodes)
        check_ports(c, host, nodes)
        check_links(c, host, nodes)
        check_paths(c, host, nodes)
        check_sm(c, host, a.sm_guid)
        print('from %s: %d failures' % (host or 'default', len(c.fails) - before))
    print('%d saquery calls' % c.count)
    if c.fails:
        for f in c.fails[:30]:
            print('FAIL ' + f)
        return 1
    print('all SA answers agree with ibnetdiscover')
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('records')
    r.add_argument('--topo', required=True)
    r.add_argument('--client', required=True)
    r.add_argument('--host', action='append')
    r.add_argument('--sm-guid', type=lambda v: int(v, 0), default=0)
    a = ap.parse_args()
    return cmd_records(a)


if __name__ == '__main__':
    sys.exit(main())
