#!/usr/bin/env python3
"""html_check.py - the HTML view in a real browser (`make test-html`, opt-in).

    html_check.py [--keep DIR]

Draws two fabrics with `nanosm-route --draw html` (two switches with
minhop's tables, a 1,024-host 3-level tree with ftree's), opens each page
in headless Chromium through chromedriver (WebDriver over HTTP on
localhost; nothing leaves the machine), and checks, as a person would by
pointing and clicking: hovering a switch shows its GUID and LID; clicking
it lists its hosts; choosing two hosts and "show route" highlights the
switches and cables of the route the tables give, hop by hop; a page
without tables says so.  Screenshots go to DIR (--keep) or a scratch dir.
Every process started is stopped; every wait is bounded.  Exit 1 on any
failure, 2 when Chromium or chromedriver is missing.
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("NANOSM_BIN", os.path.join(ROOT, "build", "bin"))
FAILS = []


def check(ok, what):
    print(("PASS  " if ok else "FAIL  ") + what)
    if not ok:
        FAILS.append(what)


class Driver:
    """The few WebDriver commands used here, over plain HTTP."""

    def __init__(self, port):
        self.base = "http://127.0.0.1:%d" % port
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": shutil.which("chromium"),
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1600,1000",
                         "--no-first-run", "--disable-extensions"]}}}}
        self.sid = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read().decode())["value"]
        except urllib.error.HTTPError as e:
            raise RuntimeError("WebDriver %s %s: %s" % (method, path, e.read().decode()[:300]))

    def s(self, method, path, body=None):
        return self.call(method, "/session/%s%s" % (self.sid, path), body)

    def go(self, url):
        self.s("POST", "/url", {"url": url})

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css):
        return self.s("POST", "/element", {"using": "css selector", "value": css})

    def hover(self, el):
        self.s("POST", "/actions", {"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "duration": 50,
                         "origin": el,
                         "x": 0, "y": 0}]}]})
        self.s("DELETE", "/actions")

    def click(self, el):
        self.s("POST", "/element/%s/click" % list(el.values())[0], {})

    def type(self, el, text):
        eid = list(el.values())[0]
        self.s("POST", "/element/%s/clear" % eid, {})
        self.s("POST", "/element/%s/value" % eid, {"text": text})

    def screenshot(self, path):
        open(path, "wb").write(base64.b64decode(self.s("GET", "/screenshot")))

    def quit(self):
        try:
            self.s("DELETE", "")
        except Exception:
            pass


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_driver(log):
    port = free_port()
    p = subprocess.Popen([shutil.which("chromedriver"), "--port=%d" % port],
                         stdout=log, stderr=log)
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/status" % port, timeout=2)
            return p, port
        except Exception:
            time.sleep(0.2)
    p.kill()
    raise RuntimeError("chromedriver did not answer within 30 s")


def draw(out, *args):
    with open(out, "w") as f:
        subprocess.run([os.path.join(BIN, "nanosm-route")] + list(args), stdout=f, check=True,
                       timeout=120)


def hl_count(d, sel):
    return d.js("return document.querySelectorAll(arguments[0]).length", sel)


def check_twosw(d, page, shots):
    d.go("file://" + page)
    sw = d.js("return [...document.querySelectorAll('g.s[data-n]')].map(g => g.id)")
    check(len(sw) == 2, "twosw: two switch boxes (%s)" % sw)
    d.hover(d.find("#" + sw[0] + " rect"))
    tip = d.js("const t = document.getElementById('tip');"
               "return [getComputedStyle(t).display, t.textContent]")
    check(tip[0] == "block" and "GUID 0x" in tip[1] and "LID " in tip[1],
          "twosw: hovering a switch shows its GUID and LID (%r)" % tip[1][:60])
    d.click(d.find("#" + sw[0] + " text"))
    panel = d.js("const p = document.getElementById('panel');"
                 "return [getComputedStyle(p).display, p.textContent]")
    check(panel[0] == "block" and "2 hosts:" in panel[1] and "host1" in panel[1],
          "twosw: clicking sw1 lists its hosts (%r)" % panel[1][:80])
    d.type(d.find("#src"), "host1")
    d.type(d.find("#dst"), "host4")
    d.click(d.find("#go"))
    msg = d.js("return document.getElementById('msg').textContent")
    check(msg.startswith("route to LID") and "sw1" in msg and "sw2" in msg and
          msg.endswith("host4/1"), "twosw: host1 -> host4 goes sw1, sw2 (%r)" % msg)
    check(hl_count(d, "g.hl") == 4 and hl_count(d, ".c.hl") == 3,
          "twosw: the route's 4 boxes and 3 lines are highlighted (%d, %d)" %
          (hl_count(d, "g.hl"), hl_count(d, ".c.hl")))
    d.screenshot(os.path.join(shots, "twosw-route.png"))
    d.click(d.find("#clear"))
    check(hl_count(d, ".hl") == 0, "twosw: clear removes the highlight")


def check_tree(d, page, shots):
    d.go("file://" + page + "#route=host0001,host1024")
    msg = d.js("return document.getElementById('msg').textContent")
    r = d.js("return window.nanosmRoute ? window.nanosmRoute.hops.length : -1")
    check(msg.startswith("route to LID") and r == 7,
          "ft3-1k: host0001 -> host1024 crosses leaf, agg, core, agg, leaf (%d hops: %r)" %
          (r, msg[:120]))
    check(hl_count(d, "g.hl") == 5 and hl_count(d, ".c.hl") == 4,
          "ft3-1k: 5 switches and 4 cables highlighted (%d, %d)" %
          (hl_count(d, "g.hl"), hl_count(d, ".c.hl")))
    d.screenshot(os.path.join(shots, "ft3-1k-route.png"))


def check_no_tables(d, page):
    d.go("file://" + page + "#route=host1,host4")
    msg = d.js("return document.getElementById('msg').textContent")
    check(msg.startswith("NO ROUTE: no forwarding tables"),
          "a page without tables says there is no route to show (%r)" % msg)


def main():
    keep = None
    if len(sys.argv) == 3 and sys.argv[1] == "--keep":
        keep = sys.argv[2]
    if not shutil.which("chromium") or not shutil.which("chromedriver"):
        print("html_check: needs chromium and chromium-driver (make test-html installs them)")
        return 2
    tmp = tempfile.mkdtemp(prefix="nanosm-html.")
    shots = keep or tmp
    os.makedirs(shots, exist_ok=True)
    proc = None
    d = None
    try:
        twosw, tree, bare = (os.path.join(tmp, n) for n in ("twosw.html", "ft3-1k.html",
                                                             "bare.html"))
        draw(twosw, os.path.join(ROOT, "tests/fabrics/twosw.topo"), "-R", "minhop",
             "--draw", "html")
        draw(bare, os.path.join(ROOT, "tests/fabrics/twosw.topo"), "--draw", "html")
        subprocess.run([os.path.join(BIN, "nanosm-gen"), "fattree", "--levels", "3",
                        "--radix", "16", "-o", os.path.join(tmp, "ft3-1k.topo")], check=True,
                       timeout=60)
        draw(tree, os.path.join(tmp, "ft3-1k.topo"), "-R", "ftree", "--draw", "html")
        with open(os.path.join(tmp, "chromedriver.log"), "w") as log:
            proc, port = start_driver(log)
            d = Driver(port)
            check_twosw(d, twosw, shots)
            check_tree(d, tree, shots)
            check_no_tables(d, bare)
    finally:
        if d:
            d.quit()
        if proc:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d failed; screenshots: %s" % (len(FAILS), shots if keep else "(removed)"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
