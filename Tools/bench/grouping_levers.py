#!/usr/bin/env python3
"""What grouping small bodies into shared chunks would save, against coding each body alone.

    python3 Tools/bench/grouping_levers.py FOLDER [--level 19]

Reads every file of FOLDER in sorted path order (as `webarc pack` adds them) and prints the bytes
zstd gives (needs the `zstandard` module: a venv with `pip install zstandard`) under each rule:
- each file alone (what a body costs today without a dictionary);
- groups: files of at most 256 KiB concatenated, in order, into chunks of at most 256 KiB (the
  format's chunk bound, spec §6.2) — ZIM's clusters, at webarc's chunk size;
- the same with every group but each 8th coded against the last 8th's decoded bytes as a
  raw-content dictionary (codec 3's rule: its reference must itself be an LZ4 or raw chunk);
- groups of 1 MiB and 2 MiB (libzim's cluster size): bounds for a larger chunk limit.
ZIM's own file (zimwriterfs, zstd -19 clusters) is the peer: compare with its size, which also
holds its directory and titles.
"""
import os
import sys

try:
    import zstandard
except ImportError:
    zstandard = None

CHUNK = 262_144


def files_of(root: str) -> list[bytes]:
    bodies = []
    for folder, subfolders, names in os.walk(root):
        subfolders.sort()
        for name in sorted(names):
            with open(os.path.join(folder, name), "rb") as f:
                bodies.append(f.read())
    return bodies


def grouped(bodies: list[bytes], limit: int, small: int) -> list[bytes]:
    groups, current = [], b""
    for body in bodies:
        if len(body) > small:
            groups.append(body)
            continue
        if current and len(current) + len(body) > limit:
            groups.append(current)
            current = b""
        current += body
    return groups + ([current] if current else [])


def main() -> None:
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if args else 64)
    if zstandard is None:
        sys.exit("grouping_levers: needs the zstandard module (python3 -m venv V && V/bin/pip install zstandard)")
    level = int(args[args.index("--level") + 1]) if "--level" in args else 19
    bodies = files_of(args[0])
    plain = zstandard.ZstdCompressor(level=level)

    def size(data: bytes, reference: bytes | None = None) -> int:
        if reference is None:
            return sum(len(plain.compress(data[i : i + CHUNK])) for i in range(0, len(data), CHUNK))
        dictionary = zstandard.ZstdCompressionDict(reference, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
        return len(zstandard.ZstdCompressor(level=level, dict_data=dictionary).compress(data))

    print(f"{len(bodies)} files, {sum(map(len, bodies)):,} bytes, zstd -{level}\n")
    print("| rule | bytes |")
    print("|---|---|")
    print(f"| each file alone | {sum(size(b) for b in bodies if b):,} |")
    groups = grouped(bodies, CHUNK, CHUNK)
    print(f"| groups of ≤ 256 KiB ({len(groups)}) | {sum(size(g) for g in groups):,} |")
    anchored, anchor = 0, None
    for number, group in enumerate(groups):
        if number % 8 == 0 or anchor is None or len(group) > CHUNK:
            anchored += size(group)
        else:
            anchored += size(group, anchor)
        if number % 8 == 0 and len(group) <= CHUNK:
            anchor = group
    print(f"| groups of ≤ 256 KiB, each against the last 8th | {anchored:,} |")
    for limit in (1 << 20, 2 << 20):
        big = grouped(bodies, limit, limit)
        total = sum(len(plain.compress(g)) for g in big)
        print(f"| groups of ≤ {limit >> 20} MiB ({len(big)}) | {total:,} |")


if __name__ == "__main__":
    main()
