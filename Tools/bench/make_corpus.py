#!/usr/bin/env python3
"""Builds the pack-bench corpora reproducibly: the same inputs give the same bytes.

    make_corpus.py pydocs DEST   Debian's python3.11-doc, symlinks resolved (1065 files, 64 MiB)
    make_corpus.py multi DEST    4 releases of pydocs (3.11.0 to 3.11.3: each release changes the
                                 version string in a fixed 2 % of its pages, so most pages are
                                 equal across releases and the others nearly so) plus the Sphinx,
                                 Django, Flask and Jinja docs (Debian packages sphinx-doc,
                                 python-django-doc, python-flask-doc, python-jinja2-doc)
    make_corpus.py big DEST      multi plus 4614 media-like files of pseudo-random bytes (seeded,
                                 incompressible, 8 KiB to 16 MiB, a third of them copies of an
                                 earlier one): about 10 000 files, 1 GiB, half incompressible

DEST must not exist. Only the standard library is used; pseudo-random bytes come from
random.Random seeded per file, so every run writes the same files.
"""

import hashlib
import os
import random
import shutil
import sys

PYDOCS = "/usr/share/doc/python3.11/html"
OTHER_DOCS = {
    "sphinx": "/usr/share/doc/sphinx-doc/html",
    "django": "/usr/share/doc/python-django-doc/html",
    "flask": "/usr/share/doc/python-flask-doc/html",
    "jinja": "/usr/share/doc/python-jinja2-doc/html",
}
RELEASES = 4
CHANGED_PER_RELEASE = 2  # percent of pages whose version string changes in each release
MEDIA_FILES = 4614
MEDIA_SEED = 11


def copy_tree(source: str, dest: str) -> None:
    """A copy with symlinks resolved, as `cp -rL` makes it."""
    shutil.copytree(source, dest, symlinks=False)


def release(source: str, dest: str, number: int) -> None:
    """Release `number` (0 is the original): pages picked by a hash of their path and the release
    get the version string 3.11.<number>, so later releases differ from earlier ones in a few pages."""
    copy_tree(source, dest)
    if number == 0:
        return
    for folder, _, files in os.walk(dest):
        for name in sorted(files):
            if not name.endswith(".html"):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, dest)
            changed = [r for r in range(1, number + 1)
                       if hashlib.sha256(f"{r}/{relative}".encode()).digest()[0] * 100 // 256 < CHANGED_PER_RELEASE]
            if not changed:
                continue
            with open(path, "rb") as f:
                data = f.read()
            data = data.replace(b"3.11.", b"3.11.%d." % changed[-1])
            with open(path, "wb") as f:
                f.write(data)


def multi(dest: str) -> None:
    os.makedirs(dest)
    for number in range(RELEASES):
        release(PYDOCS, os.path.join(dest, f"python-3.11.{number}"), number)
    for name, source in OTHER_DOCS.items():
        copy_tree(source, os.path.join(dest, name))


def media(dest: str) -> None:
    """Pseudo-random files, sizes log-uniform from 8 KiB to 512 KiB, every 250th 8 to 16 MiB (streamed
    by the packer); every third file a copy of an earlier one."""
    rng = random.Random(MEDIA_SEED)
    made: list[str] = []
    for index in range(MEDIA_FILES):
        folder = os.path.join(dest, "media", f"{index // 100:03d}")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"m{index:05d}.{('jpg', 'png', 'mp4', 'woff2')[index % 4]}")
        size = int(8192 * 64 ** rng.random()) if index % 250 else rng.randrange(8 << 20, 16 << 20)
        if index % 3 == 2 and made:
            shutil.copyfile(made[rng.randrange(len(made))], path)
        else:
            with open(path, "wb") as f:
                f.write(random.Random(index).randbytes(size))
            made.append(path)


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("pydocs", "multi", "big"):
        print(__doc__.strip(), file=sys.stderr)
        return 64
    kind, dest = sys.argv[1], sys.argv[2]
    if os.path.exists(dest):
        print(f"make_corpus: error: {dest} exists", file=sys.stderr)
        return 73
    if kind == "pydocs":
        copy_tree(PYDOCS, dest)
    elif kind == "multi":
        multi(dest)
    else:
        multi(dest)
        media(dest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
