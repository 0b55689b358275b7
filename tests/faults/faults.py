#!/usr/bin/env python3
"""Helpers for the nanosm fault suite (tests/faults/).

The judging is done by tests/integration/check_routes.py (imported, not
copied): this file adds what a fabric in flux needs.

  faults.py plan --fabric FILE --seed S --flaps N --sm-host NODE [--double P]
      a reproducible list of link flaps, one per line (tab separated):
        FLAP  WHAT  UNLINK_CMDS  RELINK_CMDS  DOWN
      WHAT is e.g. "sw-sw leaf3[10]-spine2[3] + sw-ca leaf5[2]-host34[1]",
      *_CMDS are ibsim console lines joined by ';', DOWN the links taken
      down ("node:port-node:port" joined by ',').  Never the SM host's own
      cable.  A flap takes one link down, or two (probability P).

  faults.py evcheck --fabric FILE --sm-host NODE --down DOWN --topo IBND
                    --linkinfo LL --fts DUMP_FTS --baseline LIDS [--client W]
      the check after one event: (a) check_routes.py ports (every linked
      port Active, LIDs unique and non-zero), (b) check_routes.py routes
      (every discovered CA reaches every discovered CA and switch through the
      LFTs), and (e) the expectation: the nodes and links ibnetdiscover sees
      from the SM host are exactly the fabric file minus the DOWN links,
      restricted to what is still connected to the SM host (an unlinked CA
      must be absent, everything else present), and every LID equals the
      baseline LID of that port GUID.

  faults.py measure --log SMLOG --t0 MS --off0 B --offc B --offe B
      from nanosm's log between byte offsets: the reconvergence time (ms
      from t0, epoch ms of the console command, to the last "sweep N: ok"
      line before offc, where the passing check started), the MADs of every
      sweep between off0 and offe, the sweep count, whether a trap line came
      first.  Prints "conv_ms mads sweeps failed_sweeps trap".

  faults.py summary RESULTS.tsv...
      the figures: events survived, reconvergence time and MADs per event
      (median, max), by fabric and by event kind.

  faults.py rplan --seed S --restarts N
      a reproducible list of kill -9 restarts (restarts.sh), one per line:
        IDX  KIND  WINDOW  FRAC
      KIND: "up" (kill FRAC x 1 s after SUBNET UP), "sweep" (kill FRAC x
      the calibrated start-up time into the first sweep of a nanosm started
      on the programmed fabric) or "fresh" (the same, on a fabric just
      power-cycled: ibsim restarted, nothing programmed, --window 1).

  faults.py hplan --seed S --handovers M
      the kill delays of the handover campaign (handover.sh): one line
        IDX  DELAY_MS
      the master is killed DELAY_MS after the event before was judged
      (0..999 ms: anywhere in the standby's 1 s poll period).

  faults.py logtime --log SMLOG --t0 MS --pattern ERE [--off B]
      ms from t0 (epoch ms) to the timestamp of the first line matching
      ERE after byte offset B; "-" when there is none.

  faults.py lidcmp BASELINE NOW
      compares two check_routes.py lids outputs by port GUID: prints
      "CHANGED MISSING" (ports whose LID differs, ports of the baseline
      absent now) and one line per difference; exit 1 if any.

  faults.py rsummary RESULTS.tsv... | hsummary RESULTS.tsv...
      the figures of the restart and the handover campaigns.
"""

import argparse
import datetime
import os
import random
import re
import statistics
import sys
from collections import deque

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'integration'))
import check_routes  # noqa: E402  (tests/integration/check_routes.py)

# ------------------------------------------------------------------ fabric file


def read_fabric(path):
    """-> (kinds {node: 'SW'|'CA'}, links [((a, pa), (b, pb)) sorted])."""
    kinds = {}
    cur = None
    with open(path) as f:
        for line in f:
            m = check_routes.FAB_HDR_RE.match(line)
            if m:
                cur = m.group(3)
                kinds[cur] = 'SW' if m.group(1) == 'Switch' else 'CA'
    _nsw, _nca, links = check_routes.parse_fabric_file(path)
    return kinds, sorted(links)


def link_str(link):
    (a, pa), (b, pb) = link
    return '%s:%d-%s:%d' % (a, pa, b, pb)


def parse_down(s):
    out = set()
    for item in filter(None, (s or '').split(',')):
        m = re.match(r'^(.+):(\d+)-(.+):(\d+)$', item)
        if not m:
            raise SystemExit('bad --down item %r' % item)
        out.add(tuple(sorted([(m.group(1), int(m.group(2))), (m.group(3), int(m.group(4)))])))
    return out


def component(kinds, links, start):
    adj = {}
    for (a, _pa), (b, _pb) in links:
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    seen = {start}
    q = deque([start])
    while q:
        u = q.popleft()
        for v in adj.get(u, []):
            if v not in seen:
                seen.add(v)
                q.append(v)
    return seen


# ------------------------------------------------------------------ plan

def cmd_plan(a):
    kinds, links = read_fabric(a.fabric)
    rng = random.Random(a.seed)
    swsw = [l for l in links if kinds[l[0][0]] == 'SW' and kinds[l[1][0]] == 'SW']
    swca = [l for l in links if (kinds[l[0][0]] == 'SW') != (kinds[l[1][0]] == 'SW')
            and a.sm_host not in (l[0][0], l[1][0])]
    if not swsw and not swca:
        raise SystemExit('no links to flap in %s' % a.fabric)
    for i in range(1, a.flaps + 1):
        n = 2 if rng.random() < a.double else 1
        chosen = []
        while len(chosen) < n:
            pool = swsw if (swsw and (not swca or rng.random() < 0.5)) else swca
            l = rng.choice(pool)
            if l not in chosen:
                chosen.append(l)
        what, un, re_, down = [], [], [], []
        for l in chosen:
            # the end the console command names: either, at random
            end = l[rng.randrange(2)]
            kind = 'sw-sw' if l in swsw else 'sw-ca'
            sw_first = sorted(l, key=lambda e: kinds[e[0]] != 'SW')
            what.append('%s %s[%d]-%s[%d]' % (kind, sw_first[0][0], sw_first[0][1],
                                               sw_first[1][0], sw_first[1][1]))
            un.append('Unlink "%s"[%d]' % end)
            re_.append('ReLink "%s"[%d]' % end)
            down.append(link_str(l))
        print('\t'.join([str(i), ' + '.join(what), ';'.join(un), ';'.join(re_), ','.join(down)]))
    return 0


# ------------------------------------------------------------------ evcheck

def expect_check(a, nodes):
    """(e): discovered nodes/links == fabric minus DOWN, SM host's component;
    LIDs == baseline.  Returns a list of problems and a summary."""
    kinds, links = read_fabric(a.fabric)
    down = parse_down(a.down)
    unknown = down - set(links)
    problems = ['DOWN link %s is not in the fabric file' % link_str(l) for l in sorted(unknown)]
    up = [l for l in links if l not in down]
    comp = component(kinds, up, a.sm_host)
    want_links = {l for l in up if l[0][0] in comp}
    byid = {n.nodeid: n for n in nodes.values()}
    seen_names = {}
    for n in nodes.values():
        if n.desc in seen_names:
            problems.append('two discovered nodes named %r' % n.desc)
        seen_names[n.desc] = n
    got_links = set()
    for n in nodes.values():
        for pn, p in n.ports.items():
            r = byid.get(p['remote'])
            if r is not None:
                got_links.add(tuple(sorted([(n.desc, pn), (r.desc, p['rport'])])))
    missing = sorted(comp - set(seen_names))
    extra = sorted(set(seen_names) - comp)
    if missing:
        problems.append('expected but not discovered: ' + ' '.join(missing))
    if extra:
        problems.append('discovered but expected unreachable: ' + ' '.join(extra))
    for l in sorted(want_links - got_links):
        problems.append('link %s expected up, not discovered' % link_str(l))
    for l in sorted(got_links - want_links):
        problems.append('link %s discovered, expected down' % link_str(l))
    # LIDs against the baseline (port GUID -> LID)
    base = {}
    with open(a.baseline) as f:
        for line in f:
            w = line.split()
            if len(w) >= 3:
                base[int(w[0], 16)] = (int(w[1]), w[2])
    nlid = 0
    for name, lids, n, p in check_routes.endports(nodes):
        guid = n.portguid if n.kind == 'SW' else n.ports[p]['portguid']
        lid = lids[0] if lids else 0
        if guid in base:
            nlid += 1
            if base[guid][0] != lid:
                problems.append('LID of %s (port GUID 0x%016x) changed: %d -> %d'
                                % (name, guid, base[guid][0], lid))
        else:
            problems.append('%s (port GUID 0x%x) not in the baseline' % (name, guid or 0))
    gone = sorted(n for n in set(kinds) - comp if kinds[n] == 'CA')
    summary = ('%d nodes, %d links as expected, %d LIDs as in the baseline; '
               'CAs expected unreachable: %s' % (len(seen_names), len(got_links), nlid,
                                                 ' '.join(gone) if gone else 'none'))
    return problems, summary


def cmd_evcheck(a):
    rc = 0
    ns = argparse.Namespace(topo=a.topo, linkinfo=a.linkinfo, fabric=None)
    if check_routes.cmd_ports(ns):
        rc = 1
    ns = argparse.Namespace(topo=a.topo, fts=a.fts, client=a.client, spot_pairs=None,
                            ca_only=False, require_minhop=False)
    if check_routes.cmd_routes(ns):
        rc = 1
    nodes = check_routes.parse_ibnetdiscover(open(a.topo).read())
    problems, summary = expect_check(a, nodes)
    if problems:
        print('expect: FAILED - ' + summary)
        check_routes.fail_list('problems', problems)
        rc = 1
    else:
        print('expect: OK - ' + summary)
    return rc


# ------------------------------------------------------------------ measure

SWEEP_RE = re.compile(r'^(\d\d):(\d\d):(\d\d)\.(\d{3}) .*\bsweep (\d+): (ok|failed) .*\bmads_sent=(\d+)')
TRAP_RE = re.compile(r'^\S+ nanosm: trap [0-9]+ from LID')


OSM_TIME_RE = re.compile(r'^[A-Z][a-z]{2} +\d+ (\d\d):(\d\d):(\d\d) (\d{6}) ')


def log_ms(line, t0):
    """epoch ms of a log line's HH:MM:SS.mmm (local time), on t0's day; an
    OpenSM log line ("Nov 22 05:20:11 123456 [...]") too."""
    m = re.match(r'^(\d\d):(\d\d):(\d\d)\.(\d{3})', line)
    us = None
    if not m:
        m = OSM_TIME_RE.match(line)
        if not m:
            return None
        us = int(m.group(4))
    day = datetime.datetime.fromtimestamp(t0 / 1000.0)
    t = day.replace(hour=int(m.group(1)), minute=int(m.group(2)), second=int(m.group(3)),
                    microsecond=int(m.group(4)) * 1000 if us is None else us)
    ms = int(t.timestamp() * 1000)
    if ms < t0 - 12 * 3600 * 1000:      # crossed midnight
        ms += 24 * 3600 * 1000
    return ms


def cmd_measure(a):
    with open(a.log, 'rb') as f:
        f.seek(a.off0)
        conv_part = f.read(max(0, a.offc - a.off0)).decode(errors='replace')
        rest = f.read(max(0, a.offe - a.offc)).decode(errors='replace')
    conv = None
    mads = sweeps = failed = 0
    trap = 'no'
    first_sweep_seen = False
    for part, is_conv in ((conv_part, True), (rest, False)):
        for line in part.splitlines():
            if TRAP_RE.match(line) and not first_sweep_seen:
                trap = 'yes'
            m = SWEEP_RE.match(line)
            if not m:
                continue
            first_sweep_seen = True
            sweeps += 1
            mads += int(m.group(7))
            if m.group(6) == 'failed':
                failed += 1
            elif is_conv:
                conv = log_ms(line, a.t0) - a.t0
    print('%s %d %d %d %s' % ('-' if conv is None else conv, mads, sweeps, failed, trap))
    return 0


# ------------------------------------------------------------------ summary

def pct(vals, q):
    s = sorted(vals)
    if not s:
        return None
    k = (len(s) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def fmt(v, unit=''):
    if v is None:
        return '-'
    return ('%d' % round(v)) + unit


def cmd_summary(a):
    rows = []
    for path in a.results:
        with open(path) as f:
            for line in f:
                if line.startswith('#') or not line.strip():
                    continue
                w = line.rstrip('\n').split('\t')
                # fabric flap event kind what conv_ms mads sweeps failed trap status
                rows.append(dict(fabric=w[0], flap=w[1], event=w[2], kind=w[3], what=w[4],
                                 conv=None if w[5] == '-' else int(w[5]), mads=int(w[6]),
                                 sweeps=int(w[7]), failed=int(w[8]), trap=w[9], status=w[10]))
    if not rows:
        print('no events recorded')
        return 1
    groups = []
    for fab in sorted({r['fabric'] for r in rows}, key=lambda x: [r['fabric'] for r in rows].index(x)):
        fr = [r for r in rows if r['fabric'] == fab]
        groups.append((fab, 'all', fr))
        for ev in ('unlink', 'relink'):
            for kind in ('sw-sw', 'sw-ca', 'double'):
                g = [r for r in fr if r['event'] == ev and r['kind'] == kind]
                if g:
                    groups.append((fab, '%s %s' % (ev, kind), g))
    if len({r['fabric'] for r in rows}) > 1:
        groups.append(('all', 'all', rows))
    hdr = '%-12s %-15s %7s %9s %9s %9s %8s %8s %7s %7s' % (
        'fabric', 'events', 'survived', 'conv med', 'conv p90', 'conv max',
        'MADs med', 'MADs max', 'sweeps', 'no trap')
    print(hdr)
    print('-' * len(hdr))
    for fab, label, g in groups:
        ok = [r for r in g if r['status'] == 'ok']
        conv = [r['conv'] for r in ok if r['conv'] is not None]
        mads = [r['mads'] for r in ok]
        print('%-12s %-15s %4d/%-4d %7s %9s %9s %8s %8s %7.1f %7d' % (
            fab, label, len(ok), len(g), fmt(pct(conv, 0.5), 'ms'), fmt(pct(conv, 0.9), 'ms'),
            fmt(max(conv) if conv else None, 'ms'), fmt(pct(mads, 0.5)),
            fmt(max(mads) if mads else None),
            statistics.mean(r['sweeps'] for r in g), sum(1 for r in g if r['trap'] != 'yes')))
    bad = [r for r in rows if r['status'] != 'ok']
    if bad:
        print('\nevents that failed:')
        for r in bad:
            print('  %s flap %s %s (%s): %s' % (r['fabric'], r['flap'], r['event'], r['what'], r['status']))
    return 0


# ------------------------------------------------------------------ restarts

def cmd_rplan(a):
    rng = random.Random(a.seed)
    for i in range(1, a.restarts + 1):
        r = rng.random()
        kind = 'up' if r < 0.4 else ('sweep' if r < 0.75 else 'fresh')
        window = 1 if kind == 'fresh' or rng.random() < 0.5 else 16
        print('%d\t%s\t%d\t%.3f' % (i, kind, window, rng.random()))
    return 0


def cmd_hplan(a):
    rng = random.Random(a.seed)
    for i in range(1, a.handovers + 1):
        print("%d\t%d" % (i, rng.randrange(1000)))
    return 0


def cmd_logtime(a):
    rx = re.compile(a.pattern)
    with open(a.log, 'rb') as f:
        f.seek(a.off)
        for line in f.read().decode(errors='replace').splitlines():
            if rx.search(line):
                ms = log_ms(line, a.t0)
                if ms is not None:
                    print(ms - a.t0)
                    return 0
    print('-')
    return 0


def read_lids(path):
    out = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 3:
                out[w[0]] = (int(w[1]), w[2])
    return out


def cmd_lidcmp(a):
    base, now = read_lids(a.baseline), read_lids(a.now)
    changed = [(g, base[g], now[g]) for g in sorted(base) if g in now and now[g][0] != base[g][0]]
    missing = [g for g in sorted(base) if g not in now]
    print('%d %d' % (len(changed), len(missing)))
    for g, b, n in changed:
        print('  LID of %s (%s) changed: %d -> %d' % (b[1], g, b[0], n[0]))
    for g in missing:
        print('  %s (%s) missing' % (base[g][1], g))
    return 1 if changed or missing else 0


def read_tsv(paths, fields):
    rows = []
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.startswith('#') or not line.strip():
                    continue
                rows.append(dict(zip(fields, line.rstrip('\n').split('\t'))))
    return rows


def nums(rows, key):
    return [int(r[key]) for r in rows if r.get(key, '-') not in ('-', '')]


def mmm(vals, unit=''):
    """median / p90 / max"""
    if not vals:
        return '-'
    return '%s / %s / %s' % (fmt(pct(vals, 0.5), unit), fmt(pct(vals, 0.9), unit),
                             fmt(max(vals), unit))


RESTART_FIELDS = ('fabric', 'idx', 'kind', 'window', 'frac', 'delay', 'landed', 'up_ms',
                  'sent', 'read', 'changed', 'status')


def cmd_rsummary(a):
    rows = read_tsv(a.results, RESTART_FIELDS)
    if not rows:
        print('no restarts recorded')
        return 1
    hdr = '%-12s %-14s %8s %-22s %-13s %-13s %5s' % (
        'fabric', 'killed', 'survived', 'restart->UP med/p90/max', 'sent med/max',
        'read med', 'LIDs')
    print(hdr)
    print('-' * len(hdr))
    fabs = []
    for r in rows:
        if r['fabric'] not in fabs:
            fabs.append(r['fabric'])
    groups = []
    for fab in fabs:
        fr = [r for r in rows if r['fabric'] == fab]
        groups.append((fab, 'all', fr))
        for landed in ('after UP', 'before UP'):
            g = [r for r in fr if (r['landed'] == 'up') == (landed == 'after UP')]
            if g:
                groups.append((fab, landed, g))
    if len(fabs) > 1:
        groups.append(('all', 'all', rows))
    for fab, label, g in groups:
        ok = [r for r in g if r['status'] == 'ok']
        sent = nums(g, 'sent')
        print('%-12s %-14s %4d/%-4d %-22s %-13s %-13s %5d' % (
            fab, label, len(ok), len(g), mmm(nums(g, 'up_ms'), 'ms'),
            '-' if not sent else '%s / %d' % (fmt(pct(sent, 0.5)), max(sent)),
            fmt(pct(nums(g, 'read'), 0.5)), sum(nums(g, 'changed'))))
    where = {}
    for r in rows:
        where[r['landed']] = where.get(r['landed'], 0) + 1
    print('kills landed (from the killed nanosm\'s last log line): ' +
          ', '.join('%s %d' % (k, where[k]) for k in ('start', 'discover', 'configure', 'push', 'up')
                    if k in where))
    bad = [r for r in rows if r['status'] != 'ok']
    if bad:
        print('\nrestarts that failed:')
        for r in bad:
            print('  %s %s %s (window %s, landed %s): %s' % (r['fabric'], r['idx'], r['kind'],
                                                          r['window'], r['landed'], r['status']))
    return 0


HANDOVER_FIELDS = ('pair', 'idx', 'path', 'killed', 'new_master', 'takeover_ms', 'handover_ms',
                   'changed', 'status', 'lft_sent')


def lft_sums(rows):
    """lft_blocks_sent per event: "12", "12+12" (two masters in one event)."""
    out = []
    for r in rows:
        parts = [p for p in r.get('lft_sent', '-').split('+') if p.isdigit()]
        if parts:
            out.append(sum(int(p) for p in parts))
    return out


def cmd_hsummary(a):
    rows = read_tsv(a.results, HANDOVER_FIELDS)
    if not rows:
        print('no handovers recorded')
        return 1
    hdr = '%-16s %-22s %8s %-26s %-24s %-12s %5s' % (
        'pair', 'events', 'survived', 'takeover med/p90/max', 'handover med/p90/max',
        'lft sent m/M', 'LIDs')
    print(hdr)
    print('-' * len(hdr))
    pairs = []
    for r in rows:
        if r['pair'] not in pairs:
            pairs.append(r['pair'])
    for pair in pairs:
        pr = [r for r in rows if r['pair'] == pair]
        groups = [('all', pr)]
        for path in sorted({r['path'] for r in pr}):
            groups.append((path, [r for r in pr if r['path'] == path]))
        for label, g in groups:
            ok = [r for r in g if r['status'] == 'ok']
            lft = lft_sums(g)
            print('%-16s %-22s %4d/%-4d %-26s %-24s %-12s %5d' % (
                pair, label, len(ok), len(g), mmm(nums(g, 'takeover_ms'), 'ms'),
                mmm(nums(g, 'handover_ms'), 'ms'),
                '-' if not lft else '%s / %d' % (fmt(pct(lft, 0.5)), max(lft)),
                sum(nums(g, 'changed'))))
    bad = [r for r in rows if r['status'] != 'ok']
    if bad:
        print('\nhandovers that failed:')
        for r in bad:
            print('  %s %s (%s, killed %s): %s' % (r['pair'], r['idx'], r['path'], r['killed'],
                                                r['status']))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    sub = ap.add_subparsers(dest='cmd')
    p = sub.add_parser('plan')
    p.add_argument('--fabric', required=True)
    p.add_argument('--seed', type=int, required=True)
    p.add_argument('--flaps', type=int, required=True)
    p.add_argument('--sm-host', required=True)
    p.add_argument('--double', type=float, default=0.25)
    p = sub.add_parser('evcheck')
    p.add_argument('--fabric', required=True)
    p.add_argument('--sm-host', required=True)
    p.add_argument('--down', default='')
    p.add_argument('--topo', required=True)
    p.add_argument('--linkinfo', required=True)
    p.add_argument('--fts', required=True)
    p.add_argument('--baseline', required=True)
    p.add_argument('--client')
    p = sub.add_parser('measure')
    p.add_argument('--log', required=True)
    p.add_argument('--t0', type=int, required=True)
    p.add_argument('--off0', type=int, required=True)
    p.add_argument('--offc', type=int, required=True)
    p.add_argument('--offe', type=int, required=True)
    p = sub.add_parser('summary')
    p.add_argument('results', nargs='+')
    p = sub.add_parser('rplan')
    p.add_argument('--seed', type=int, required=True)
    p.add_argument('--restarts', type=int, required=True)
    p = sub.add_parser('hplan')
    p.add_argument('--seed', type=int, required=True)
    p.add_argument('--handovers', type=int, required=True)
    p = sub.add_parser('logtime')
    p.add_argument('--log', required=True)
    p.add_argument('--t0', type=int, required=True)
    p.add_argument('--pattern', required=True)
    p.add_argument('--off', type=int, default=0)
    p = sub.add_parser('lidcmp')
    p.add_argument('baseline')
    p.add_argument('now')
    p = sub.add_parser('rsummary')
    p.add_argument('results', nargs='+')
    p = sub.add_parser('hsummary')
    p.add_argument('results', nargs='+')
    a = ap.parse_args()
    fn = {'plan': cmd_plan, 'evcheck': cmd_evcheck, 'measure': cmd_measure,
          'summary': cmd_summary, 'rplan': cmd_rplan, 'hplan': cmd_hplan,
          'logtime': cmd_logtime, 'lidcmp': cmd_lidcmp, 'rsummary': cmd_rsummary,
          'hsummary': cmd_hsummary}.get(a.cmd)
    if not fn:
        ap.print_help()
        return 2
    return fn(a)


if __name__ == '__main__':
    sys.exit(main())
