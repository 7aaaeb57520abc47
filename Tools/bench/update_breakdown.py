#!/usr/bin/env python3
"""Where an archive's bytes go (issue 14: an update's size), read with the vectors' independent reader.

    python3 Tools/bench/update_breakdown.py UPDATE.webarc [--per-url]

Prints the stored bytes of the body data and of each kind of page (record leaves, body leaves,
interior pages, metadata), and splits the decoded record leaves into record objects (by field)
and body-entry copies, with the digests counted apart: 32-byte SHA-256 and 16-byte MD5 values are
incompressible, so they are a floor no page compression removes. --per-url lists each record's
decoded size and its body's stored chunk bytes.
"""
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "make-vectors"))
import webarc_reader as wr  # noqa: E402


def walk(archive, ref, tree, out):
    page = archive.tree_page(ref, tree)
    out.append(page)
    for _, child in page.children:
        walk(archive, child, tree, out)


def digests_in(entry):
    """Bytes of SHA-256 and MD5 values in a body entry (its chunk entries and references included)."""
    count = 16 + 32
    for chunk in entry.chunks:
        count += 32
        for extra in (chunk.dictionary, chunk.reference, chunk.reference and chunk.reference.dictionary):
            if extra is not None:
                count += 32
    return count


def main():
    path = sys.argv[1]
    per_url = "--per-url" in sys.argv
    data = open(path, "rb").read()
    archive = wr.Archive(data)
    record_pages, body_pages = [], []
    walk(archive, archive.record_root, wr.RECORD_TREE, record_pages)
    walk(archive, archive.body_root, wr.BODY_TREE, body_pages)
    stored = Counter()
    decoded = Counter()
    for page in record_pages + body_pages:
        kind = {wr.RECORD_LEAF: "record leaves", wr.BODY_LEAF: "body leaves", wr.INTERIOR: "interior pages"}[page.type]
        stored[kind] += page.ref.stored_length
        decoded[kind] += page.ref.raw_length
    metadata = archive.metadata_page()
    stored["metadata page"] += metadata.ref.stored_length
    decoded["metadata page"] += metadata.ref.raw_length
    appendix = len(data) - archive.archive_length
    print(f"{path}: {len(data)} bytes")
    print(f"  lead + trailer: {16 + 256}; appendix: {appendix}")
    print(f"  body data: {archive.body_data_end - 16}")
    for kind in ("record leaves", "body leaves", "interior pages", "metadata page"):
        print(f"  {kind}: {stored[kind]} stored ({decoded[kind]} decoded)")
    fields = Counter()
    entry_bytes = digest_bytes = records = 0
    rows = []
    for page in record_pages:
        for record in page.records:
            records += 1
            obj = wr.parse_object(record.object)
            fields["key"] += len(record.key) + 8
            for key, (_, value) in obj.fields.items():
                fields[key] += len(value) + len(key) + 9
            fields["class"] += len(obj.class_name) + 8
            rows.append((record.key.decode(errors="replace"), len(record.object) + len(record.key) + 8))
        for entry in page.bodies:
            entry_bytes += len(entry.raw)
            digest_bytes += digests_in(entry)
    body_digests = sum(digests_in(entry) for page in body_pages for entry in page.bodies)
    print(f"  records: {records}; decoded record objects by field (key and field headers included):")
    for key, size in fields.most_common():
        print(f"    {key}: {size}")
    print(f"  body-entry copies in record leaves: {entry_bytes} decoded, {digest_bytes} of them digests")
    print(f"  digests in body leaves: {body_digests}")
    print(f"  incompressible digest floor (both trees): {digest_bytes + body_digests}")
    if per_url:
        for key, size in rows:
            print(f"    {size:6d}  {key}")


if __name__ == "__main__":
    main()
