#!/usr/bin/env python3
"""ftree_degraded.py - ftree on degraded fat trees (docs/routing.md, ftree).

Not a test (never part of `make test`): generates fat trees with
build/bin/nanosm-gen, damages them (cables, or a whole core or aggregation
switch: its block and every cable to it deleted from the .topo file), scores
each with `nanosm-route -R ENGINE --json` and prints one row per tree and
damage: gate passes, EBB (worst seed and mean, and as a fraction of the
intact tree's), shift worst load (worst seed), the VLs each seed's tables use
(`vls.used`, 1 without SLs) and their sum, and the same for a second
engine when --compare is given (e.g. minhop on 2-level trees).

  tests/bench/ftree_degraded.py --levels 3 --radix 8 16 --seeds 10
  tests/bench/ftree_degraded.py --levels 2 --radix 16 --damage miss1 miss2 \
      --compare minhop
  tests/bench/ftree_degraded.py --levels 3 --radix 32 --seeds 3 --bisections 20

Damage: miss1 / miss2 = --missing-links 1% / 2% of the inter-switch cables
(at least 1); core / agg = one random core / aggregation switch gone (2-level
trees: spine / leaf-to-spine cables of one spine gone is `core`); missN =
--missing-links N.  Everything runs in a scratch directory (--keep to keep).
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def gen(args, path, radix, extra):
    cmd = [os.path.join(args.bin, "nanosm-gen"), "fattree", "--levels", str(args.levels),
           "--radix", str(radix), "-o", path] + extra
    subprocess.run(cmd, check=True)


def cables(path):
    with open(path) as f:
        m = re.search(r"(\d+) switch-switch links", f.read(4096))
    return int(m.group(1))


def drop_switch(src, dst, name):
    """Copy src to dst without the switch `name`: its block and its cables."""
    out, skip = [], False
    with open(src) as f:
        blocks = f.read().split("\n\n")
    for b in blocks:
        if re.search(r'^Switch\s+\d+\s+"%s"' % re.escape(name), b, re.M):
            continue
        lines = [l for l in b.split("\n") if '"%s"[' % name not in l]
        out.append("\n".join(lines))
    with open(dst, "w") as f:
        f.write("\n\n".join(out))


def switch_names(path, pattern):
    with open(path) as f:
        return re.findall(r'^Switch\s+\d+\s+"(%s)"' % pattern, f.read(), re.M)


def score(args, topo, engine):
    cmd = [os.path.join(args.bin, "nanosm-route"), topo, "-R", engine, "--json",
           "--shifts", str(args.shifts), "--bisections", str(args.bisections)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 2:
        return {"pass": False, "ebb": 0.0, "shift": 0, "vls": 0, "why": p.stderr.strip()[:120]}
    d = json.loads(p.stdout)
    g = d["gate"]
    return {"pass": g["pass"], "ebb": d["bisection"]["mean"], "shift": d["shift"]["worst_load"],
            "vls": d.get("vls", {}).get("used", 1), "why": g["first"][:120]}


def fabric(args, tmp, radix, damage, seed):
    path = os.path.join(tmp, "k%d-%s-s%d.topo" % (radix, damage, seed))
    if damage == "intact":
        gen(args, path, radix, [])
        return path
    m = re.fullmatch(r"miss(\d+)(%?)", damage)
    if damage in ("miss1", "miss2"):
        full = os.path.join(tmp, "k%d-intact-s1.topo" % radix)
        n = max(1, cables(full) * int(damage[4:]) // 100)
        gen(args, path, radix, ["--missing-links", str(n), "--seed", str(seed)])
        return path
    if m:
        gen(args, path, radix, ["--missing-links", m.group(1), "--seed", str(seed)])
        return path
    full = os.path.join(tmp, "k%d-intact-s1.topo" % radix)
    pat = {("core", 3): r"core\d+", ("agg", 3): r"pod\d+-agg\d+",
           ("core", 2): r"spine\d+"}.get((damage, args.levels))
    if not pat:
        sys.exit("damage %s: not for %d-level trees" % (damage, args.levels))
    names = switch_names(full, pat)
    drop_switch(full, path, random.Random(seed).choice(names))
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--levels", type=int, default=3)
    ap.add_argument("--radix", type=int, nargs="+", default=[8, 16])
    ap.add_argument("--damage", nargs="+", default=["miss1", "miss2", "core", "agg"])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--engine", default="ftree")
    ap.add_argument("--compare", default=None)
    ap.add_argument("--shifts", type=int, default=256)
    ap.add_argument("--bisections", type=int, default=100)
    ap.add_argument("--bin", default=os.path.join(REPO, "build", "bin"))
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ftree-degraded.")
    engines = [args.engine] + ([args.compare] if args.compare else [])
    print("| tree | damage | engine | gate pass | EBB worst / mean (x intact) | shift worst |"
          " VLs per seed (all) |%s" % (" shift <= %s's |" % args.compare if args.compare else ""))
    print("|---|---|---|---:|---|---:|---|%s" % ("---:|" if args.compare else ""))
    try:
        for radix in args.radix:
            intact = fabric(args, tmp, radix, "intact", 1)
            base = score(args, intact, args.engine)
            print("| k%d | none | %s | %s | %.4f | %d | %d |" % (radix, args.engine,
                  "1/1" if base["pass"] else "0/1", base["ebb"], base["shift"], base["vls"]))
            sys.stdout.flush()
            for damage in args.damage:
                rows = {e: [] for e in engines}
                for seed in range(1, args.seeds + 1):
                    topo = fabric(args, tmp, radix, damage, seed)
                    for e in engines:
                        r = score(args, topo, e)
                        rows[e].append(r)
                        if args.verbose and not r["pass"]:
                            print("  k%d %s seed %d %s: %s" % (radix, damage, seed, e, r["why"]))
                for e in engines:
                    rs = rows[e]
                    ok = [r for r in rs if r["pass"]]
                    ebb = [r["ebb"] for r in rs]
                    cmp = ""
                    if args.compare:
                        cmp = " %d/%d |" % (sum(a["shift"] <= b["shift"] for a, b in
                                                zip(rs, rows[args.compare])), len(rs)) \
                            if e == args.engine else " |"
                    vls = [r["vls"] for r in rs]
                    print("| k%d | %s | %s | %d/%d | %.4f / %.4f (%.2f / %.2f) | %d | %s (%d) |%s" % (
                        radix, damage, e, len(ok), len(rs), min(ebb), sum(ebb) / len(ebb),
                        min(ebb) / base["ebb"], sum(ebb) / len(ebb) / base["ebb"],
                        max(r["shift"] for r in rs), " ".join(map(str, vls)), sum(vls), cmp))
                sys.stdout.flush()
    finally:
        if args.keep:
            print("kept %s" % tmp)
        else:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
