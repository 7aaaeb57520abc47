#!/usr/bin/env python3
"""How much each candidate writer rule would save on an archive's size (issue 11: default size).

    python3 Tools/bench/size_levers.py ARCHIVE.webarc TAR.lz4 [--quick]

ARCHIVE is a default `webarc pack` (level 1, dictionary interval 32, local-minimum anchors) of a corpus and TAR.lz4 its
`tar -cf - -C DIR . | lz4 -1` peer. The bodies are read back with the vectors' independent reader
in the order they were stored (insertion order) and coded again, with the system liblz4 the Swift
writer links, under each rule; every row prints the body data it gives, the archive's size with
the rest of the archive (pages, lead, trailer) as stored, and that size ÷ tar.lz4. A row marked
"not allowed" breaks random access (a dictionary reference must be codec 0 or 1, §6.2) and is
there as a bound. Extra CPU is the C time the rule adds (dictionary training, page coding), to be
compared with `webarc pack`'s own CPU on the same corpus. --quick leaves out the slow rows.
"""
import ctypes
import hashlib
import os
import re
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "make-vectors"))
import lz4block as lz4  # noqa: E402
import webarc_reader as wr  # noqa: E402
import webarc_writer as ww  # noqa: E402

CHUNK = 262_144
WINDOW = 65_536
TRAINED_TYPES_MIN_BODIES = 32      # a media type gets a trained dictionary when it has this many bodies

_zstd = ctypes.CDLL("libzstd.so.1")
_size = ctypes.c_size_t


class FastCoverParams(ctypes.Structure):
    """ZDICT_fastCover_params_t (zdict.h, static-linking-only section; exported by libzstd.so.1)."""
    _fields_ = [("k", ctypes.c_uint), ("d", ctypes.c_uint), ("f", ctypes.c_uint), ("steps", ctypes.c_uint),
                ("nbThreads", ctypes.c_uint), ("splitPoint", ctypes.c_double), ("accel", ctypes.c_uint),
                ("shrinkDict", ctypes.c_uint), ("shrinkDictMaxRegression", ctypes.c_uint),
                ("compressionLevel", ctypes.c_int), ("notificationLevel", ctypes.c_uint), ("dictID", ctypes.c_uint)]


_zstd.ZDICT_trainFromBuffer.argtypes = [ctypes.c_char_p, _size, ctypes.c_char_p, ctypes.POINTER(_size), ctypes.c_uint]
_zstd.ZDICT_trainFromBuffer.restype = _size
_zstd.ZDICT_trainFromBuffer_fastCover.argtypes = [ctypes.c_char_p, _size, ctypes.c_char_p, ctypes.POINTER(_size),
                                                  ctypes.c_uint, FastCoverParams]
_zstd.ZDICT_trainFromBuffer_fastCover.restype = _size
_zstd.ZDICT_isError.argtypes = [_size]
_zstd.ZDICT_isError.restype = ctypes.c_uint
_lz4 = lz4._lib
_lz4.LZ4_compress_HC.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]


def train(samples: list[bytes], fast_cover: dict | None) -> bytes:
    """The last 64 KiB of a Zstandard dictionary trained on `samples`: its raw content, usable by LZ4."""
    joined = b"".join(samples)
    sizes = (_size * len(samples))(*map(len, samples))
    capacity = 70_000
    out = ctypes.create_string_buffer(capacity)
    if fast_cover is None:
        n = _zstd.ZDICT_trainFromBuffer(out, capacity, joined, sizes, len(samples))
    else:
        n = _zstd.ZDICT_trainFromBuffer_fastCover(out, capacity, joined, sizes, len(samples),
                                                  FastCoverParams(splitPoint=1.0, **fast_cover))
    if _zstd.ZDICT_isError(n):
        raise RuntimeError("ZDICT training failed")
    return out.raw[:n][-WINDOW:]


def code(raw: bytes, dictionary: bytes | None) -> tuple[int, int]:
    """Stored bytes and codec of one chunk at level 1 (§6.3; codec 2 with a dictionary)."""
    block = lz4.compress_with_dict(raw, dictionary) if dictionary else lz4.compress(raw)
    return (len(raw), 0) if len(block) >= len(raw) else (len(block), 2 if dictionary else 1)


def chunks(body: bytes) -> list[bytes]:
    return [body[i:i + CHUNK] for i in range(0, len(body), CHUNK)]


def code_body(body: bytes, first: bytes | None, later_dictionaries: bool = False) -> tuple[int, int]:
    """A body's stored bytes with `first` as chunk 0's dictionary; the codec of its last chunk.
    later_dictionaries: chunk i > 0 against chunk i − 1's last 64 KiB when that chunk is codec 0 or 1."""
    total, codec, raw_after, parts = 0, None, False, chunks(body)
    for i, part in enumerate(parts):
        if raw_after:
            total, codec = total + len(part), 0
            continue
        dictionary = first if i == 0 else (parts[i - 1][-WINDOW:] if later_dictionaries and codec in (0, 1) else None)
        n, codec = code(part, dictionary)
        total += n
        raw_after = codec == 0
    return total, codec


def anchors(bodies, interval, group=lambda meta: "", first_bytes=False, later_dictionaries=False):
    """Appendix C step 13, with anchors counted within `group` (e.g. a media type) and, with
    first_bytes, the anchor's first 64 KiB as the dictionary (needs an anchor chunked at 64 KiB)."""
    total, current, positions = 0, {}, Counter()
    for meta, body in bodies:
        key = group(meta)
        is_anchor = positions[key] % interval == 0
        positions[key] += 1
        n, _ = code_body(body, None if is_anchor else current.get(key), later_dictionaries)
        total += n
        if is_anchor:
            current[key] = body[:WINDOW] if first_bytes else chunks(body)[-1][-WINDOW:]
    return total


def keyed(bodies, interval, seed="", lengths=True, offset=None):
    """Appendix C step 13's keyed rule (2.1.5): position 0, ⌊3n/2⌋ after the previous anchor, or a
    candidate ⌊3n/4⌋ after it (8 192 to 65 536 bytes, with `lengths`; key SHA-256 a multiple of
    ⌊n/8⌋, the key prefixed with `seed` to see the spread). With `offset`, every n-th counting from
    it instead. Positions are the stored bodies' (a model: duplicates take none here)."""
    total, current, last = 0, None, 0
    for position, (meta, body) in enumerate(bodies):
        if offset is not None:
            is_anchor = position % interval == offset % interval or position == 0
        else:
            digest = int.from_bytes(hashlib.sha256((seed + meta[0]).encode()).digest()[:8], "big")
            candidate = (not lengths or 8192 <= len(body) <= 65536) and digest % max(1, interval // 8) == 0
            gap = position - last
            is_anchor = position == 0 or gap >= interval * 3 // 2 or (gap >= interval * 3 // 4 and candidate)
        n, _ = code_body(body, None if is_anchor else current)
        total += n
        if is_anchor:
            current, last = chunks(body)[-1][-WINDOW:] if body else None, position
    return total


def local_minimum(bodies, interval, seed=""):
    """Appendix C step 13's local-minimum rule (2.1.7), the reference writer's plan, with the keys
    prefixed with `seed` to see the spread. Positions are the stored bodies' (a model)."""
    plan = ww.local_minimum_anchors([(seed + meta[0], len(body)) for meta, body in bodies], interval)
    total, current = 0, None
    for position, ((_, body), anchor) in enumerate(zip(bodies, plan)):
        is_anchor = anchor == position
        total += code_body(body, None if is_anchor else current)[0]
        if is_anchor:
            current = chunks(body)[-1][-WINDOW:] if body else None
    return total


def chained(bodies):
    """Not allowed: each chunk against the 64 KiB stored before it, as `tar | lz4` sees it."""
    total, history = 0, b""
    for _, body in bodies:
        for part in chunks(body):
            total += code(part, history or None)[0]
            history = (history + part)[-WINDOW:]
    return total


def trained(bodies, select, fast_cover):
    """A dictionary chunk per media type with enough bodies, trained on `select(bodies of the type)`;
    every body of such a type codes chunk 0 against it, no anchors. Returns (body data, train CPU s)."""
    by_type = Counter(meta[1] for meta, _ in bodies)
    started = time.process_time()
    dictionaries = {t: train(select([b for m, b in bodies if m[1] == t]), fast_cover)
                    for t, n in by_type.items() if n >= TRAINED_TYPES_MIN_BODIES}
    cpu = time.process_time() - started
    total = sum(code(d, None)[0] for d in dictionaries.values())       # the dictionary chunks
    total += sum(code_body(body, dictionaries.get(meta[1]))[0] for meta, body in bodies)
    return total, cpu


def pages(data: bytes, archive) -> list[tuple[int, bytes]]:
    """(type, decoded bytes) of every tree page."""
    out = []

    def walk(ref, tree):
        page = archive.tree_page(ref, tree)
        stored = data[ref.offset:ref.offset + ref.stored_length]
        out.append((page.type, stored if ref.codec == 0 else lz4.decompress(stored, ref.raw_length)))
        for _, child in page.children:
            walk(child, tree)
    walk(archive.record_root, wr.RECORD_TREE)
    walk(archive.body_root, wr.BODY_TREE)
    return out


def hc(raw: bytes, level: int) -> int:
    capacity = lz4.compress_bound(len(raw))
    out = ctypes.create_string_buffer(capacity)
    return min(len(raw), _lz4.LZ4_compress_HC(raw, out, len(raw), capacity, level))


def load(data: bytes, archive):
    """Bodies in storage order, each with (key, media type) of the first record naming it."""
    return [(meta, archive.body_bytes(entry)) for meta, entry in stored_entries(archive)]


def stored_entries(archive):
    """Body entries in storage order (the writer's insertion order), each with (key, media type)
    of the first record naming it; `anchor_churn.py` reads its keys and lengths from here too."""
    entries = {e.key: e for leaf in archive.leaves(archive.body_root, wr.BODY_TREE) for e in leaf.bodies}
    meta = {}
    for leaf in archive.leaves(archive.record_root, wr.RECORD_TREE):
        for record in leaf.records:
            obj = wr.parse_object(record.object)
            if "body" in obj.fields:
                media = wr.text(obj, "mimeType") if "mimeType" in obj.fields else ""
                meta.setdefault(wr.ref_key(*wr.body_ref(obj)), (record.key.decode(errors="replace"), media))
    stored = sorted((e for e in entries.values() if e.chunks), key=lambda e: e.chunks[0].offset)
    return [(meta.get(e.key, ("", "")), e) for e in stored]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    data = open(args[0], "rb").read()
    peer = os.path.getsize(args[1])
    archive = wr.Archive(data)
    rest = len(data) - (archive.body_data_end - 16)
    bodies = load(data, archive)

    def row(name, body_data, saved_in_pages=0, cpu=None):
        size = body_data + rest - saved_in_pages
        extra = " | —" if cpu is None else f" | {cpu * 1000:.0f} ms"
        print(f"| {name} | {body_data} | {size} | {size / peer:.4f}{extra} |", flush=True)

    print(f"{args[0]}: {len(data)} bytes, body data {archive.body_data_end - 16}, rest {rest}; "
          f"{os.path.basename(args[1])}: {peer} bytes; {len(bodies)} stored bodies\n")
    print("| rule | body data | archive | ÷ tar.lz4 | extra CPU |\n|---|---|---|---|---|")
    row("as stored (step 13, interval 32, `webarc pack`'s anchors)", archive.body_data_end - 16)
    row("model of step 13, every 32nd (before 2.1.5)", anchors(bodies, 32))
    row("no dictionaries", anchors(bodies, 1))
    for n in (16, 24, 64):
        row(f"interval {n}", anchors(bodies, n))
    by_type = lambda meta: meta[1]  # noqa: E731
    row("anchors per media type, interval 16", anchors(bodies, 16, by_type))
    row("anchors per media type, interval 16, anchor's first 64 KiB", anchors(bodies, 16, by_type, first_bytes=True))
    row("anchors per directory, interval 16", anchors(bodies, 16, lambda meta: meta[0].rsplit("/", 1)[0]))
    row("interval 32, later chunks against the previous chunk", anchors(bodies, 32, later_dictionaries=True))
    row("interval 32, bodies ordered by media type then key",
        anchors(sorted(bodies, key=lambda mb: (mb[0][1], mb[0][0])), 32))
    for offset in (8, 16, 24):
        row(f"every 32nd counted from {offset}", keyed(bodies, 32, offset=offset))
    row("keyed (2.1.5), interval 32", keyed(bodies, 32))
    for seed in ("", "1", "2"):
        row(f"local minimum (2.1.7, `webarc pack`), interval 32, salted {seed!r}", local_minimum(bodies, 32, seed))
    for seed in ("1", "2"):
        row(f"keyed, key hashes salted {seed!r} (the spread)", keyed(bodies, 32, seed=seed))
        row(f"keyed without the length condition, salted {seed!r}", keyed(bodies, 32, seed=seed, lengths=False))
    row("not allowed: chained, each chunk against the 64 KiB before it", chained(bodies))
    configs = [("every 8th body's first 16 KiB, fastCover k 1000 d 8 f 16",
                lambda xs: [x[:16384] for x in xs[::8]], dict(k=1000, d=8, f=16, accel=1)),
               ("every 4th body's first 16 KiB, fastCover k 1000 d 8 f 18 accel 4",
                lambda xs: [x[:16384] for x in xs[::4]], dict(k=1000, d=8, f=18, accel=4)),
               ("first 64 bodies' first 16 KiB, fastCover k 1000 d 8 f 16",
                lambda xs: [x[:16384] for x in xs[:64]], dict(k=1000, d=8, f=16, accel=1))]
    if not quick:
        configs.append(("every body's first 64 KiB, ZDICT_trainFromBuffer defaults",
                        lambda xs: [x[:WINDOW] for x in xs], None))
    best = None
    for name, select, params in configs:
        body_data, cpu = trained(bodies, select, params)
        row(f"trained dictionary per media type ({name})", body_data, cpu=cpu)
        if params is not None and params.get("accel") == 4:
            best = (body_data, cpu)
    tree_pages = pages(data, archive)
    fast = sum(min(len(lz4.compress(raw)), len(raw)) for _, raw in tree_pages)
    for level in (3, 9):
        started = time.process_time()
        coded = sum(hc(raw, level) for _, raw in tree_pages)
        row(f"tree pages at LZ4HC {level}", archive.body_data_end - 16, fast - coded, time.process_time() - started)
    etag = re.compile(rb'\x04\x00\x00\x00ETag"\x00\x00\x00"[0-9a-f]{32}"')
    records = [raw for kind, raw in tree_pages if kind == wr.RECORD_LEAF]
    without = sum(len(lz4.compress(etag.sub(b"", raw))) for raw in records)
    row("record leaves without pack's ETag header", archive.body_data_end - 16,
        sum(len(lz4.compress(raw)) for raw in records) - without)
    started = time.process_time()
    saved = fast - sum(hc(raw, 3) for _, raw in tree_pages)
    hc_cpu = time.process_time() - started
    row("trained (every 4th, accel 4) + tree pages at LZ4HC 3", best[0], saved, best[1] + hc_cpu)


if __name__ == "__main__":
    main()
