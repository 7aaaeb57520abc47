#!/usr/bin/env python3
"""Recreate the binary assets of Tools/sample-site (the recipe for its fixtures).

    python3 Tools/make-sample-site-assets.py

img/photo.png: a 120x72 RGB "photo" (sky, sun, two mountain ranges, a lake) with seeded film
grain, written with zlib + struct only, so it is byte-for-byte reproducible and barely
compressible (about 20 KB), like a real photograph.

fonts/site-sans.woff: DejaVu Sans (Debian fonts-dejavu-core) subset to Latin-1 and a few
typographic marks. Rebuilt only when fontTools is importable (pip install fonttools); the
license is in fonts/LICENSE.txt.
"""
import math
import os
import random
import struct
import subprocess
import sys
import zlib

SITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sample-site")
WIDTH, HEIGHT, GRAIN = 120, 72, 4


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def pixel(px: int, py: int) -> tuple:
    # The scene is drawn on a 200x120 canvas scaled to the image size.
    x, y = px * 200 / WIDTH, py * 120 / HEIGHT
    t = y / 120
    # Sky: deep blue at the top to warm orange at the horizon.
    r, g, b = 40 + 200 * t, 70 + 110 * t, 140 - 40 * t
    # Sun with a soft halo.
    d = math.hypot(x - 140, y - 52)
    if d < 14:
        r, g, b = 255, 236, 170
    elif d < 40:
        k = (40 - d) / 26 * 0.6
        r, g, b = r + (255 - r) * k, g + (210 - g) * k, b + (150 - b) * k
    far = 62 + 10 * math.sin(x / 17) + 6 * math.sin(x / 7 + 1)
    near = 78 + 12 * math.sin(x / 29 + 2) + 4 * math.sin(x / 5)
    if y > 92:  # lake, mirroring the sky darker
        m = 2 * 92 - y
        r, g, b = 30 + 90 * (m / 120), 60 + 70 * (m / 120), 110 + 20 * (m / 120)
        if abs(x - 140) < 12 - (y - 92) / 3 and int(y) % 3:  # the sun's glitter on the water
            r, g, b = r + 110, g + 90, b + 40
    elif y > near:
        r, g, b = 34, 62, 48
    elif y > far:
        r, g, b = 88, 92, 120
    return r, g, b


def make_photo(path: str) -> None:
    rng = random.Random(20240601)
    rows = bytearray()
    for y in range(HEIGHT):
        rows.append(0)  # filter type None for every scanline
        for x in range(WIDTH):
            for c in pixel(x, y):
                rows.append(max(0, min(255, int(c + rng.gauss(0, GRAIN)))))
    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(bytes(rows), 9))
    png += chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)
    print(f"{path}: {len(png)} bytes")


def make_font(path: str) -> None:
    try:
        import fontTools  # noqa: F401
    except ImportError:
        print(f"{path}: kept (fontTools not installed)")
        return
    subprocess.run([
        sys.executable, "-m", "fontTools.subset",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "--unicodes=U+0020-007E,U+00A0-00FF,U+2013-2014,U+2018-2019,U+201C-201D,U+2022,U+2026,U+2190,U+2192,U+20AC",
        "--flavor=woff", "--no-hinting", "--desubroutinize", "--layout-features=kern,liga",
        "--name-IDs=*", f"--output-file={path}",
    ], check=True)
    print(f"{path}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    make_photo(os.path.join(SITE, "img", "photo.png"))
    make_font(os.path.join(SITE, "fonts", "site-sans.woff"))
