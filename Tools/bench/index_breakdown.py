#!/usr/bin/env python3
"""Where a search index's bytes go, by page kind (spec §17.2), and what zstd would make of them.

    python3 Tools/bench/index_breakdown.py ARCHIVE.webarc [ARCHIVE_WITHOUT_INDEX.webarc]

Reads the index with the vectors' independent reader (every page verified), and prints, for each
page kind (root, term shards, postings, positions, documents, titles, norms), the stored bytes (LZ4 pages
as written), the decoded bytes, and, when the `zstandard` module is importable (e.g. a venv with
`pip install zstandard`), the bytes zstd -19 gives each page alone: a bound on what a page codec
alone would save. With the same archive packed `--no-search`, it also prints the index as a share
of that archive (the issue's "≤ 10 % of the archive").
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "make-vectors"))
import search_index as si  # noqa: E402
import webarc_reader as wr  # noqa: E402

try:
    import zstandard
except ImportError:
    zstandard = None


def main() -> None:
    if len(sys.argv) not in (2, 3) or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 64)
    with open(sys.argv[1], "rb") as f:
        archive = wr.Archive(f.read())
    index = si.SearchIndex.open(archive)
    if index is None:
        sys.exit(f"index_breakdown: {sys.argv[1]} has no search index")
    kinds: dict[str, list] = {}

    def read(ref, kind: str):
        page = archive.read_page(ref)
        kinds.setdefault(kind, []).append((ref.stored_length, ref.raw_length, page.payload))
        return page

    read(wr.parse_ref(archive.metadata().fields[si.KEYS[index.version]][1]), "root")
    for ref in index.shard_refs:
        shard = read(ref, "term shards")
        payload = si.Payload(shard.payload, shard.offset)
        # Version 2 (format 2.3) has no position pages: every child holds postings.
        postings = payload.int("P") if index.version == 1 else len(shard.search_children)
        for child in shard.search_children[:postings]:
            read(child, "postings")
        for child in shard.search_children[postings:]:
            read(child, "positions")
    for ref in index.document_refs:
        read(ref, "documents")
    for ref in index.title_refs:
        read(ref, "titles")
    for ref in index.norm_refs:            # version 4 (format 2.6): each document's length code
        read(ref, "norms")

    print("| kind | pages | stored | decoded | zstd -19 per page |")
    print("|---|---|---|---|---|")
    total = 0
    for kind, pages in kinds.items():
        stored = sum(p[0] for p in pages)
        total += stored
        zstd = "n/a"
        if zstandard is not None:
            compressor = zstandard.ZstdCompressor(level=19)
            zstd = f"{sum(len(compressor.compress(p[2])) for p in pages if p[2]):,}"
        print(f"| {kind} | {len(pages)} | {stored:,} | {sum(p[1] for p in pages):,} | {zstd} |")
    print(f"| all | {sum(len(p) for p in kinds.values())} | {total:,} | | |")
    if len(sys.argv) == 3:
        plain = os.path.getsize(sys.argv[2])
        print(f"\nindex = {100 * total / plain:.1f} % of the archive without it ({plain:,} B)")


if __name__ == "__main__":
    main()
