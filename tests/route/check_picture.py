#!/usr/bin/env python3
"""check_picture.py - does a picture of the fabric read well?  (tests/route/run.sh)

    check_picture.py SVG PNG [--max-width PX] [--min-ink F]

PNG is SVG rendered by rsvg-convert (librsvg, the outsider here).  Checks:
the PNG's size is the SVG's and within --max-width; the aspect ratio is
between 1:6 and 6:1 (not a strip); at least --min-ink of the pixels are
not white (something was drawn); and no two texts overlap: every <text>
of the SVG gets its box from its position, anchor, font size and the
monospace advance (0.61 em), and no two boxes may intersect.
Prints one line per problem and exits 1 when there is any.
"""
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"
ADVANCE = 0.61  # DejaVu Sans Mono: 0.602 em per character


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB/RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s: not a PNG" % path)
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if depth != 8 or ctype not in (2, 6):
        raise ValueError("%s: PNG colour type %d depth %d not handled" % (path, ctype, depth))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def ink(w, h, bpp, rows):
    """Fraction of pixels that are not (nearly) white."""
    dark = 0
    for line in rows:
        for x in range(0, w * bpp, bpp):
            if line[x] < 235 or line[x + 1] < 235 or line[x + 2] < 235:
                dark += 1
    return dark / float(w * h)


def text_boxes(root):
    """(x0, y0, x1, y1, text) of every <text>, legend offsets applied."""
    boxes = []

    def walk(el, dx, dy, size):
        m = re.match(r"translate\(([-\d.]+),([-\d.]+)\)", el.get("transform", ""))
        if m:
            dx, dy = dx + float(m.group(1)), dy + float(m.group(2))
        size = float(el.get("font-size", size))
        if el.tag == NS + "text":
            s = "".join(el.itertext())
            w = len(s) * size * ADVANCE
            x = float(el.get("x", 0)) + dx
            y = float(el.get("y", 0)) + dy
            if el.get("text-anchor") == "middle":
                x -= w / 2
            boxes.append((x, y - size * 0.8, x + w, y + size * 0.2, s))
            return
        for c in el:
            if c.tag != NS + "title":
                walk(c, dx, dy, size)

    walk(root, 0.0, 0.0, 11.0)
    return boxes


def overlaps(boxes):
    """Pairs of texts whose boxes intersect (a sweep over x)."""
    out = []
    order = sorted(boxes)
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            if b[0] >= a[2]:
                break
            if a[1] < b[3] and b[1] < a[3] and a[0] < b[2]:
                out.append((a[4], b[4]))
    return out


def main():
    args = sys.argv[1:]
    max_w, min_ink = 2400, 0.02
    if "--max-width" in args:
        i = args.index("--max-width")
        max_w = int(args[i + 1])
        del args[i:i + 2]
    if "--min-ink" in args:
        i = args.index("--min-ink")
        min_ink = float(args[i + 1])
        del args[i:i + 2]
    svg_path, png_path = args
    root = ET.parse(svg_path).getroot()
    sw, sh = float(root.get("width")), float(root.get("height"))
    w, h, bpp, rows = png_pixels(png_path)
    bad = []
    if (w, h) != (round(sw), round(sh)):
        bad.append("PNG is %dx%d, the SVG says %gx%g" % (w, h, sw, sh))
    if w > max_w:
        bad.append("%d px wide, more than %d" % (w, max_w))
    if not (1 / 6.0 <= w / float(h) <= 6.0):
        bad.append("aspect ratio %d:%d is a strip" % (w, h))
    f = ink(w, h, bpp, rows)
    if f < min_ink:
        bad.append("only %.1f%% of the pixels are drawn on" % (100 * f))
    boxes = text_boxes(root)
    for a, b in overlaps(boxes):
        bad.append("texts overlap: %r and %r" % (a, b))
    print("%s: %dx%d px, %.1f%% ink, %d texts, %d problems" % (svg_path, w, h, 100 * f,
                                                               len(boxes), len(bad)))
    for b in bad[:20]:
        print("  " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
