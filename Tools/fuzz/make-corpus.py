#!/usr/bin/env python3
"""Makes the seed corpora of Tools/fuzz/Corpus from committed files.

- FuzzArchive: the valid vectors of Spec/vectors/valid (small ones) as they are, and two small
  grouped archives (spec §6.3 slices, 2.4) written here by Tools/make-vectors' writer: groups of
  LZ4 and of Zstandard frames (codec 4); FuzzArchivePages gets them too.
- FuzzArchivePages: the same vectors as FuzzArchivePages reads them (see
  Sources/FuzzSupport/PageArchive.swift): a 16-byte header, the body data, then each page decoded,
  metadata, record root and body root first; an interior page's and a search page's child
  references, and the metadata's search reference, carry the index of the child's piece in their
  offset field.
- FuzzURLKey: the URLs of Spec/vectors/canonical-urls.json (other methods as "METHOD\nURL").
- FuzzHTTPRequest: a few Range headers, each after its 8-byte body length; then whole requests
  (Range, If-Range, If-None-Match, If-Modified-Since) with the stored ETag, Last-Modified and
  Content-Type, one value a line.
- FuzzHTML: a few snippets of markup that link scanners get wrong.
- FuzzCompactUpdate: the compact update vectors over delta-base (Spec/vectors/compact/).
- FuzzRemoteResponse: response heads of a range server (the opening tail, a later range, a
  changed file, an empty file) and a few bare Content-Range values.
- FuzzSigningFiles: the test keys of Spec/vectors/keys, and rollback states of test1 older,
  newer, equal to and conflicting with the vector signed.webarc (sequence 7).
- FuzzWARC, FuzzHAR, FuzzWebArchive, FuzzWACZ: `webarc export` of the site vector (WARC also
  gunzipped; the WACZ also re-zipped as py-wacz zips, its JSON members deflated), when a built
  `webarc` is given with --webarc.
- FuzzSearchIndex: search pages (spec §17.2) as FuzzSearchIndex reads them: a line of queries,
  then the pages decoded, the root first, each child reference's offset field the index of the
  child's piece (the root is 1). From the search vectors of 16 KiB at most, valid and invalid (with
  queries and a suggestion of search.index.json), `search-blocks-v3` too; `search-blocks-v4`, its
  records with an index of version 4 (Rice-coded blocks, norm pages; spec 2.6) written here by
  Tools/make-vectors' writer; and, when a built `webarc` is given with --webarc, from
  `webarc pack` of a small site written here, each also split into two term shards, document
  pages and title shards.
- FuzzZim: warc2zim `H/` entries (a response, a redirect, a revisit, a resource) and an HTML page
  with warc2zim's inserts, as they are and in a ZIM written here with one uncompressed cluster
  (so that mutations reach the blob offsets and the blobs); `webarc export --format zim
  --no-index` of the site vector (webarc-zim beside the given webarc), and zimwriterfs -j of the
  site vector unpacked (when zim-tools is installed).

Usage: Tools/fuzz/make-corpus.py [--webarc PATH]. Pages are decoded with the independent Python
LZ4 of Tools/make-vectors.
"""
import argparse
import base64
import gzip
import io
import json
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tools", "make-vectors"))
import lz4block  # noqa: E402

SEPARATOR = b"\xfePAGE\xff"
# The lines of the blocked-list seeds (`search-blocks-v3`, `-v4`): words of two blocks and of one,
# with rare words, a phrase, prefixes, a suggestion.
BLOCKS_QUERIES = ["otters", "fishing otters", "w77 otters", '"river 5"', "fish* w129", "riv*", "otters w3", "river 12"]
VECTORS = os.path.join(ROOT, "Spec", "vectors", "valid")
MAX_SEED = 16 * 1024


def ref(raw: bytes):
    offset, stored, raw_length, codec, height = struct.unpack_from("<QIIBB", raw, 0)
    return offset, stored, raw_length, codec, height


def page_input(data: bytes) -> bytes:
    trailer = data[-256:]
    if trailer[:8] != b"\x89WEBARCT":
        raise ValueError("has an appendix or no trailer")
    minor = struct.unpack_from("<H", trailer, 10)[0]
    features, = struct.unpack_from("<Q", trailer, 16)
    body_end, records, bodies = struct.unpack_from("<QQQ", trailer, 40)
    refs = [trailer[64 + 56 * i:120 + 56 * i] for i in range(3)]

    pages = []  # decoded bytes, in piece order
    index_of = {}

    def load(reference: bytes) -> int:
        offset, stored, raw_length, codec, _ = ref(reference)
        if offset in index_of:
            return index_of[offset]
        block = data[offset:offset + stored]
        raw = block if codec == 0 else lz4block.decompress(block, raw_length)
        index_of[offset] = len(pages)
        pages.append(bytearray(raw))
        return index_of[offset]

    for reference in refs:
        load(reference)
    search = search_field(pages[0])
    if search is not None:  # the metadata's search reference names the index root's piece
        struct.pack_into("<Q", pages[0], search, load(bytes(pages[0][search:search + 56])) + 2)
    at = 0
    while at < len(pages):  # breadth first; children are loaded after their parent
        raw = pages[at]
        if raw[0] == 1:
            position = 8
            for _ in range(struct.unpack_from("<I", raw, 4)[0]):
                position += 4 + struct.unpack_from("<I", raw, position)[0]
                child = load(bytes(raw[position:position + 56]))
                struct.pack_into("<Q", raw, position, child + 2)
                position += 56
        elif raw[0] == 5:
            for number in range(struct.unpack_from("<I", raw, 4)[0]):
                position = 8 + 56 * number
                struct.pack_into("<Q", raw, position, load(bytes(raw[position:position + 56])) + 2)
        at += 1
    optional, = struct.unpack_from("<Q", trailer, 24)
    # The frame's header has one byte for it: bits past the eighth (newer-minor's unknown bit 9)
    # cannot be framed, and a reader ignores unknown optional bits anyway.
    optional &= 0xFF
    header = struct.pack("<BBBBIIB", features, minor, ref(refs[1])[4], ref(refs[2])[4], records, bodies, optional)
    header = header.ljust(16, b"\0")
    return SEPARATOR.join([header, data[16:body_end]] + [bytes(p) for p in pages])


def search_field(metadata: bytes):
    """Where the metadata page's Archive object holds its `search` reference (index version 1), its
    `searchIndex` reference (version 2, format 2.3), its `searchIndex3` one (version 3, 2.5) or its
    `searchIndex4` one (version 4, 2.6), or None."""
    position = 8 + 4 + struct.unpack_from("<I", metadata, 8)[0]  # past the class name
    fields, = struct.unpack_from("<I", metadata, position)
    position += 4
    for _ in range(fields):
        key_length, = struct.unpack_from("<I", metadata, position)
        key = metadata[position + 4:position + 4 + key_length]
        position += 4 + key_length
        length, = struct.unpack_from("<I", metadata, position + 1)
        if key in (b"search", b"searchIndex", b"searchIndex3", b"searchIndex4") and length == 56:
            return position + 5
        position += 5 + length
    return None


def search_input(data: bytes, queries: list) -> bytes:
    """The search pages of an archive with an index, as FuzzSearchIndex reads them."""
    trailer = data[-256:]
    offset, stored, raw_length, codec, _ = ref(trailer[64:120])
    block = data[offset:offset + stored]
    metadata = block if codec == 0 else lz4block.decompress(block, raw_length)
    field = search_field(metadata)
    if field is None:
        raise ValueError("no search index")
    root = metadata[field:field + 56]
    pages = []
    index_of = {}

    def load(reference: bytes) -> int:
        offset, stored, raw_length, codec, _ = ref(reference)
        if offset not in index_of:
            block = data[offset:offset + stored]
            index_of[offset] = len(pages) + 1
            pages.append(bytearray(block if codec == 0 else lz4block.decompress(block, raw_length)))
        return index_of[offset]

    load(root)
    at = 0
    while at < len(pages):  # breadth first; children are loaded after their parent
        raw = pages[at]
        for number in range(struct.unpack_from("<I", raw, 4)[0]):
            position = 8 + 56 * number
            struct.pack_into("<Q", raw, position, load(bytes(raw[position:position + 56])))
        at += 1
    return SEPARATOR.join(["\n".join(queries).encode()] + [bytes(page) for page in pages])


def leb(value: int) -> bytes:
    out = bytearray()
    while True:
        out.append(value & 0x7F | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


class Payload:
    """Reads a search page's payload: LEB128 integers and length-prefixed strings."""

    def __init__(self, page: bytes):
        self.data = page
        self.at = 8 + 56 * struct.unpack_from("<I", page, 4)[0]

    def int(self) -> int:
        value, shift = 0, 0
        while True:
            byte = self.data[self.at]
            self.at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    def string(self) -> bytes:
        length = self.int()
        self.at += length
        return self.data[self.at - length:self.at]


def search_page(kind: int, children: list, payload: bytes) -> bytes:
    """A search page naming pieces `children` (PageArchive rewrites the rest of each reference)."""
    return bytes([5, kind, 0, 0]) + struct.pack("<I", len(children)) + b"".join(
        struct.pack("<Q", child).ljust(56, b"\0") for child in children) + payload


def front_coded(entries: list) -> bytes:
    """(key, rest) pairs as a shard holds them: shared prefix length, suffix, then the rest."""
    out, previous = bytearray(), b""
    for key, rest in entries:
        shared = len(os.path.commonprefix([previous, key]))
        out += leb(shared) + leb(len(key) - shared) + key[shared:] + rest
        previous = key
    return bytes(out)


def split_search(seed: bytes):
    """A one-shard index of version 1 (a FuzzSearchIndex input) as two term shards, two document
    pages and two title shards, so that seeds reach the readers' walks across shards and pages;
    None for any other index."""
    pieces = seed.split(SEPARATOR)
    root = Payload(pieces[1])
    children = [struct.unpack_from("<Q", pieces[1], 8 + 56 * n)[0] for n in range(struct.unpack_from("<I", pieces[1], 4)[0])]
    if root.int() != 1 or len(children) != 3:
        return None  # a later index version, or more than one shard: left to the vectors' seeds
    documents, tokens = root.int(), root.int()
    shard_page, document_page, title_page = (pieces[child] for child in children)
    shard = Payload(shard_page)
    streams = [pieces[struct.unpack_from("<Q", shard_page, 8 + 56 * n)[0]] for n in range(2)]
    postings, positions = (stream[8:] for stream in streams)
    assert shard.int() == 1 and shard.int() == 1
    terms, previous = [], b""
    for _ in range(shard.int()):
        shared = shard.int()
        previous = previous[:shared] + shard.string()
        terms.append((previous, shard.int(), shard.int(), shard.int()))
    documents_in = Payload(document_page)
    entries = [(documents_in.string(), documents_in.string(), documents_in.int()) for _ in range(documents_in.int())]
    titles_in = Payload(title_page)
    titles, previous = [], b""
    for _ in range(titles_in.int()):
        shared = titles_in.int()
        previous = previous[:shared] + titles_in.string()
        titles.append((previous, titles_in.int()))
    half_terms, half_documents = len(terms) // 2, len(entries) // 2
    half_titles = next(n for n in range(len(titles) // 2, len(titles)) if titles[n][0] != titles[n - 1][0])
    # Pieces: 1 root, 2-3 term shards, 4-5 document pages, 6-7 title shards, 8-11 the shards' streams.
    pages, posting_at, position_at = [], 0, 0
    for number, part in enumerate([terms[:half_terms], terms[half_terms:]]):
        posting_length = sum(term[2] for term in part)
        position_length = sum(term[3] for term in part)
        payload = leb(1) + leb(1) + leb(len(part)) + front_coded(
            [(term, leb(df) + leb(p) + leb(q)) for term, df, p, q in part])
        pages.append(search_page(2, [8 + 2 * number, 9 + 2 * number], payload))
        pages.append(search_page(3, [], postings[posting_at:posting_at + posting_length]))
        pages.append(search_page(4, [], positions[position_at:position_at + position_length]))
        posting_at += posting_length
        position_at += position_length
    shards, streams = pages[0::3], [page for n, page in enumerate(pages) if n % 3]
    document_pages = [search_page(5, [], leb(len(part)) + b"".join(
        leb(len(url)) + url + leb(len(title)) + title + leb(length) for url, title, length in part))
        for part in (entries[:half_documents], entries[half_documents:])]
    title_pages = [search_page(6, [], leb(len(part)) + front_coded([(key, leb(document)) for key, document in part]))
                   for part in (titles[:half_titles], titles[half_titles:])]
    keys = [terms[0][0], terms[half_terms][0]]
    title_keys = [titles[0][0], titles[half_titles][0]]
    payload = (leb(1) + leb(documents) + leb(tokens) + leb(2) + b"".join(leb(len(k)) + k for k in keys)
               + leb(2) + leb(0) + leb(half_documents) + leb(2) + b"".join(leb(len(k)) + k for k in title_keys))
    new_root = search_page(1, list(range(2, 8)), payload)
    return SEPARATOR.join([pieces[0], new_root] + shards + document_pages + title_pages + streams)


def search_site(folder: str) -> None:
    """A few small pages whose words, phrases, prefixes and titles the seeds' queries find."""
    pages = {
        "index.html": "<title>Tide tables</title><h1>Tide tables</h1><p>The spring tide rises twice a day; "
                      "tables of the tide list high water and low water.</p>",
        "harbour.html": "<title>Harbour guide</title><nav>Home</nav><p>The harbour master keeps the tide "
                        "tables. Boats moor in the inner harbour at high water.</p>",
        "fish.html": "<title>Fish of the estuary</title><p>Salmon, sea trout and eels run up the estuary "
                     "with the spring tide. Ébène, naïve café, 東京 and straße fold too.</p>",
        "notes.txt": "Field notes\nLow water at dawn; the salmon waited for the tide.\n",
    }
    for name, text in pages.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as out:
            out.write(text if name.endswith(".txt") else f"<!DOCTYPE html><html><body>{text}</body></html>")


def split_leaves(pieces: list) -> list:
    """The single-leaf trees of a page input split into two leaves under an interior root each,
    so that the seeds hold interior pages (height 1) too."""
    header, body_data, metadata, record_leaf, body_leaf = pieces[:5]
    assert record_leaf[0] == 2 and body_leaf[0] == 3 and len(pieces) == 5

    def body_entries(raw: bytes, at: int, count: int) -> tuple:
        entries = []
        for _ in range(count):
            start = at
            at += 16 + 4 + 4 + 8 + 32
            chunks = struct.unpack_from("<I", raw, at)[0]
            at += 4
            for _ in range(chunks):
                at += 56 * (2 if raw[at + 16] == 2 else 1)
            entries.append(raw[start:at])
        return entries, at

    count, body_count = struct.unpack_from("<II", record_leaf, 4)
    at, records = 12, []
    for _ in range(count):
        key_length = struct.unpack_from("<I", record_leaf, at)[0]
        key = record_leaf[at + 4:at + 4 + key_length]
        at += 4 + key_length
        object_length = struct.unpack_from("<I", record_leaf, at)[0]
        records.append((key, record_leaf[at - 4 - key_length:at + 4 + object_length]))
        at += 4 + object_length
    bodies, _ = body_entries(record_leaf, at, body_count)
    leaf_bodies, _ = body_entries(body_leaf, 8, struct.unpack_from("<I", body_leaf, 4)[0])
    half = len(records) // 2
    while 0 < half < len(records) and records[half][0] == records[half - 1][0]:
        half += 1
    if not 0 < half < len(records) or len(leaf_bodies) < 2:
        return []

    def record_page(part: list) -> bytes:
        used = [b for b in bodies if any(b[:20] in entry for _, entry in part)]
        return struct.pack("<B3xII", 2, len(part), len(used)) + b"".join(e for _, e in part) + b"".join(used)

    def interior(tree: int, children: list) -> bytes:
        out = struct.pack("<BBxxI", 1, tree, len(children))
        for key, index in children:
            out += struct.pack("<I", len(key)) + key + struct.pack("<QIIBB6x", index, 0, 0, 0, 0) + bytes(32)
        return out

    bhalf = len(leaf_bodies) // 2
    body_pages = [struct.pack("<B3xI", 3, len(part)) + b"".join(part) for part in (leaf_bodies[:bhalf], leaf_bodies[bhalf:])]
    # pieces: 2 metadata, 3 record root, 4 body root, 5-6 record leaves, 7-8 body leaves
    record_root = interior(1, [(records[0][0], 5), (records[half][0], 6)])
    body_root = interior(2, [(leaf_bodies[0][:16] + leaf_bodies[0][16:20][::-1], 7),
                             (leaf_bodies[bhalf][:16] + leaf_bodies[bhalf][16:20][::-1], 8)])
    header = bytearray(header)
    header[2] = header[3] = 1
    return [bytes(header), body_data, metadata, record_root, body_root,
            record_page(records[:half]), record_page(records[half:])] + body_pages


def write(target: str, name: str, data: bytes) -> None:
    folder = os.path.join(HERE, "Corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as out:
        out.write(data)


def grouped_seeds() -> None:
    """Two small grouped archives (the grouped vectors are over the seed size): six short pages in
    groups of at most 65 536 bytes, coded with LZ4 (`grouped-small-lz4`) and as Zstandard frames."""
    import webarc_writer
    records = [{"kind": "response", "method": "GET", "url": f"https://example.com/{n}.html", "status": 200,
                "headers": [["Content-Type", "text/html"]], "mimeType": "text/html",
                "body": base64.b64encode((f"<p>page {n}: " + "grouped bodies share a chunk. " * (20 + n)).encode()).decode()}
               for n in range(6)]
    for name, writer in (("grouped-small", {"groups": 65_536, "zstdLevel": 3}),
                         ("grouped-small-lz4", {"groups": 65_536})):
        data = webarc_writer.write({"archive": {}, "writer": writer, "records": records})
        assert len(data) <= MAX_SEED, name
        write("FuzzArchive", name + ".webarc", data)
        write("FuzzArchivePages", name + ".pages", page_input(data))


def search_blocks_v4() -> None:
    """`search-blocks-v3`'s records with an index of version 4, whose lists of 32 postings or more
    are Rice-coded (no vector of version 4 with blocks is small enough to be a seed)."""
    import valid_vectors
    import webarc_writer
    data = webarc_writer.write(dict(valid_vectors.search_blocks_v3(), writer={"search": 4}))
    write("FuzzSearchIndex", "search-blocks-v4.pages", search_input(data, BLOCKS_QUERIES))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--webarc", help="a built webarc binary, for the importers' seeds")
    args = parser.parse_args()
    grouped_seeds()
    for name in sorted(os.listdir(VECTORS)):
        if not name.endswith(".webarc"):
            continue
        data = open(os.path.join(VECTORS, name), "rb").read()
        if len(data) <= MAX_SEED:
            write("FuzzArchive", name, data)
        try:
            pages = page_input(data)
        except ValueError as error:
            print(f"{name}: skipped for FuzzArchivePages ({error})")
            continue
        if len(pages) <= MAX_SEED:
            write("FuzzArchivePages", name.replace(".webarc", ".pages"), pages)
        if name in ("site.webarc", "collision.webarc"):
            split = split_leaves(pages.split(SEPARATOR))
            if split:
                write("FuzzArchivePages", name.replace(".webarc", "-interior.pages"), SEPARATOR.join(split))
    search_queries = json.load(open(os.path.join(VECTORS, "search.index.json")))
    # The eight lines the target reads: the phrases and prefixes, a word, a suggestion's text.
    texts = [query["text"] for query in search_queries["queries"]]
    queries = [text for text in texts if "*" in text or '"' in text][:6] + [texts[0]]
    queries += [search_queries["suggestions"][0]["text"]]
    for folder in (VECTORS, os.path.join(ROOT, "Spec", "vectors", "invalid")):
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            # `search-blocks-v3` (block-coded postings) is larger: its pages alone are a small seed.
            small = os.path.getsize(path) <= (4 * MAX_SEED if name == "search-blocks-v3.webarc" else MAX_SEED)
            if name.startswith("search") and name.endswith(".webarc") and small:
                try:
                    seed = search_input(open(path, "rb").read(),
                                        BLOCKS_QUERIES if name == "search-blocks-v3.webarc" else queries)
                except ValueError as error:
                    print(f"{name}: skipped for FuzzSearchIndex ({error})")
                    continue
                write("FuzzSearchIndex", name.replace(".webarc", ".pages"), seed)
    search_blocks_v4()
    cases = json.load(open(os.path.join(ROOT, "Spec", "vectors", "canonical-urls.json")))["cases"]
    for number, case in enumerate(cases):
        text = case["url"] if case["method"] == "GET" else f"{case['method']}\n{case['url']}"
        write("FuzzURLKey", f"case-{number:02}.txt", text.encode())
    ranges = [(1000, "bytes=0-499"), (1000, "bytes=-500"), (1000, "bytes=500-"), (10, "bytes=5-2"), (0, "bytes=0-0"),
              (2**64 - 1, "bytes=18446744073709551614-"), (100, "bytes=1-2,3-4"), (100, " Bytes = 7 - 9 ")]
    for number, (length, header) in enumerate(ranges):
        write("FuzzHTTPRequest", f"range-{number}.bin", struct.pack("<Q", length) + header.encode())
    date, later = "Tue, 01 Oct 2024 10:00:00 GMT", "Wed, 02 Oct 2024 10:00:00 GMT"
    tag = '"3ae51e45f53ca02870d913352eb85812"'  # the body tag FuzzHTTPRequest gives every input
    requests = [
        (1000, ["bytes=0-99", tag, "", "", '"stored"', date, "text/HTML; charset=\"UTF-8\""]),
        (1000, ["bytes=-10", date, "", later, "", date, "application/octet-stream"]),
        (1000, ["", "", f'"x", W/{tag}', date, "", date, "multipart/form-data; boundary=a; charset=latin1"]),
        (1000, ["bytes=5-", 'W/"stored"', "*", "", 'W/"stored"', "", ";charset=utf-8"]),
        (0, ["bytes=0-0", '"other"', '"stored", "x"', "Sun, 06 Nov 1994 08:49:37 GMT", '"stored"', "Sun, 31 Feb 1994 25:61:61 GMT", " Text/Plain ;"]),
    ]
    for number, (length, lines) in enumerate(requests):
        write("FuzzHTTPRequest", f"request-{number}.bin", struct.pack("<Q", length) + "\n".join(lines).encode())
    snippets = [
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><link rel=stylesheet href=css/site.css></head>"
        "<body class=x><p>a &amp; b <a href='docs/guide.html'>g</a></p></body></html>",
        "<base href=https://a.test/><img src='i.png' srcset=\"a.png 1x, b.png 2x\" style=\"background:url(bg.png)\">",
        "<!-- <a href=x> --><!--><!---><?xml?></ a></><![CDATA[x]]>",
        "<script>document.write('<img src=x>')</script ><style>@import 'a.css'; p{b:url( \"c.png\" )}</style>",
        "<meta http-equiv=refresh content=\"0; url=javascript:alert(1)\"><a href=x HREF=y =z b/c=d",
        "<title>a<b></TITLE><textarea></textarea><a title='unterminated",
    ]
    for number, snippet in enumerate(snippets):
        write("FuzzHTML", f"snippet-{number}.html", snippet.encode())
    compact = os.path.join(ROOT, "Spec", "vectors", "compact")
    write("FuzzCompactUpdate", "delta.webarcu", open(os.path.join(compact, "valid", "delta.webarcu"), "rb").read())
    for name in sorted(os.listdir(os.path.join(compact, "invalid"))):
        if name.endswith(".webarcu") and name != "wrong-base.webarcu":         # the others go over delta-base
            write("FuzzCompactUpdate", name, open(os.path.join(compact, "invalid", name), "rb").read())
    heads = {
        "tail": f"Content-Range: bytes 16200-16383/16384\nETag: \"abc\"\nLast-Modified: {date}\nContent-Length: 184\n\n"
                "Content-Range: bytes 0-15/16384\nETag: \"abc\"\nLast-Modified: {date}\n",
        "changed": f"content-range: bytes 0-15/16384\netag: W/\"abc\"\nlast-modified: {date}\n\n"
                   f"Content-Range: bytes 16-31/16385\nETag: \"def\"\nLast-Modified: {later}\n",
        "empty-file": "Content-Range: bytes */0\nLast-Modified: x\n\nContent-Range: bytes */16384\n",
        "unknown-total": "Content-Range: bytes 90-99/*\n\nContent-Range: Bytes  0-0/1 \nETag:\n",
        "bare-ranges": "bytes 0-9/100\nbytes 9-0/100\nbytes 0-100/100\nitems 0-1/2\nbytes */*\nbytes 5-5/6",
    }
    for name, head in heads.items():
        write("FuzzRemoteResponse", f"{name}.txt", head.encode())
    keys = os.path.join(ROOT, "Spec", "vectors", "keys")
    for name in ("test1.pub", "test1.key", "test2.key"):
        write("FuzzSigningFiles", name, open(os.path.join(keys, name), "rb").read())
    key_id = open(os.path.join(keys, "test1.pub")).read().split()[2]
    signed = json.load(open(os.path.join(VECTORS, "signed.json")))
    digest = signed["trailer"]["archiveDigest"]
    assert signed["appendix"][0]["keyID"] == key_id and signed["appendix"][0]["sequence"] == 7
    for name, sequence, state_digest in [("older", 3, digest), ("same", 7, digest), ("conflicting", 7, "0" * 64),
                                         ("newer", 9, digest)]:
        write("FuzzSigningFiles", f"state-{name}.state", f"{key_id} {sequence} {state_digest}\n".encode())
    blobs = warc2zim_blobs()
    for name, blob in blobs:
        write("FuzzZim", name, blob)
    write("FuzzZim", "warc2zim-blobs.zim", plain_zim(blobs))
    if args.webarc:
        with tempfile.TemporaryDirectory() as work:
            site = os.path.join(VECTORS, "site.webarc")
            for fmt, target, out in [("warc", "FuzzWARC", "site.warc.gz"), ("har", "FuzzHAR", "site.har"),
                                     ("webarchive", "FuzzWebArchive", "site.webarchive"), ("wacz", "FuzzWACZ", "site.wacz")]:
                path = os.path.join(work, out)
                subprocess.run([args.webarc, "export", site, "--format", fmt, "-o", path], check=True)
                data = open(path, "rb").read()
                write(target, out, data)
                if fmt == "warc":
                    write(target, "site.warc", gzip.decompress(data))
                if fmt == "wacz":
                    write(target, "site-deflated.wacz", rezipped(path))
            folder = os.path.join(work, "search-site")
            os.makedirs(folder)
            search_site(folder)
            path = os.path.join(work, "search.webarc")
            subprocess.run([args.webarc, "pack", folder, "-o", path, "-q"], check=True)
            data = open(path, "rb").read()
            for name, queries in [("words", ["tide", "tide tables", "salmon water"]),
                                  ("phrases", ['"high water"', '"tide tables" harbour', '"spring tide" salmon']),
                                  ("prefixes", ["harb*", "ta* tide", "est* sal*", "cafe", "東京", "strasse"]),
                                  ("titles", ["Tide", "harbour g", "fi", "field notes"])]:
                write("FuzzSearchIndex", f"{name}.pages", search_input(data, queries))
                split = split_search(search_input(data, queries))
                if split is not None:
                    write("FuzzSearchIndex", f"{name}-split.pages", split)
                else:
                    print(f"{name}-split.pages: kept (pack writes an index this splitter does not read)")
            path = os.path.join(work, "site.zim")
            subprocess.run([args.webarc, "export", site, "--format", "zim", "--no-index", "-q", "-o", path], check=True)
            write("FuzzZim", "site.zim", open(path, "rb").read())
            if shutil.which("zimwriterfs"):
                folder = os.path.join(work, "site")
                subprocess.run([args.webarc, "unpack", site, "-o", folder, "-q"], check=True)
                open(os.path.join(folder, "illustration.png"), "wb").write(flat_png())
                first = sorted(name for name in os.listdir(folder) if name.endswith(".html"))[0]
                path = os.path.join(work, "zimwriterfs.zim")
                subprocess.run(["zimwriterfs", "-j", "-w", first, "-I", "illustration.png", "-l", "eng", "-t", "site", "-d", "seed",
                                "-c", "webarc", "-p", "webarc", "-n", "site", folder, path], check=True, stdout=subprocess.DEVNULL)
                write("FuzzZim", "zimwriterfs.zim", open(path, "rb").read())


def warc2zim_blobs():
    """`H/` entries as warc2zim 1.x stores them (a WARC header, then the HTTP header block) and a
    page with the inserts it puts after `<head>` and before `</head>`, as (seed name, bytes)."""
    def head(url, http, kind="response", extra=""):
        return ("WARC/1.0\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:1>\r\nWARC-Date: 2024-05-01T10:00:00Z\r\n"
                "WARC-Target-URI: %s\r\n%sContent-Length: 999\r\n\r\n%s" % (kind, url, extra, http)).encode()
    check = ("<head><script>\n// No SW Fallback check: hit if loaded via direct link (no SW installed or not "
             "supported)\nif (!window._WBWombat) {\n}\n</script>")
    css = '\n<link type="text/css" href="https://warc2zim.kiwix.app/custom.css" rel="Stylesheet" />\n</head>'
    page = "<!doctype html><html>" + check + "<title>Example</title>" + css + "<body><a href=/old>old</a></body></html>"
    return [
        ("h-response.bin", head("https://example.com/", "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                                "Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\nContent-Length: 10\r\n\r\n")),
        ("h-redirect.bin", head("http://example.com/old", "HTTP/1.1 301 Moved Permanently\r\nLocation: ../new?a=b\r\n"
                                "Content-Length: 0\r\n\r\n")),
        ("h-revisit.bin", head("https://example.com/again.css", "HTTP/1.1 200 OK\r\nContent-Type: text/css\r\n\r\n",
                               kind="revisit", extra="WARC-Refers-To-Target-URI: <https://example.com/style.css>\r\n")),
        ("h-resource.bin", head("urn:x:resource", "", kind="resource")),
        ("page.html", page.encode()),
    ]


def plain_zim(blobs):
    """A ZIM of the `H/` blobs in one uncompressed cluster: the header, mime list, dirents, path
    pointer list, title index (titles are the paths), cluster pointer list and MD5 checksum as
    libzim lays them out."""
    mimes = b"application/warc-headers\0text/html\0\0"
    dirents = []
    for number, (name, _) in enumerate(blobs):
        mime = 1 if name.endswith(".html") else 0
        dirents.append(struct.pack("<HBcIII", mime, 0, b"H", 0, 0, number) + ("example.com/%s" % name).encode() + b"\0\0")
    offsets = [4 * (len(blobs) + 1)]
    for _, blob in blobs:
        offsets.append(offsets[-1] + len(blob))
    cluster = b"\x01" + struct.pack("<%dI" % len(offsets), *offsets) + b"".join(blob for _, blob in blobs)
    mime_at = 80
    dirent_at = mime_at + len(mimes)
    starts = [dirent_at + sum(len(d) for d in dirents[:number]) for number in range(len(dirents))]
    # The path pointer list is in path order; blob numbers keep the cluster's order.
    positions = [start for _, start in sorted(zip((name for name, _ in blobs), starts))]
    path_at = dirent_at + sum(len(d) for d in dirents)
    title_at = path_at + 8 * len(dirents)
    cluster_list_at = title_at + 4 * len(dirents)
    cluster_at = cluster_list_at + 8
    checksum_at = cluster_at + len(cluster)
    header = struct.pack("<IHH16sIIQQQQIIQ", 0x044D495A, 6, 1, b"webarc-fuzz-seed", len(dirents), 1, path_at,
                         title_at, cluster_list_at, mime_at, 0xFFFFFFFF, 0xFFFFFFFF, checksum_at)
    body = (header + mimes + b"".join(dirents) + struct.pack("<%dQ" % len(positions), *positions)
            + struct.pack("<%dI" % len(dirents), *range(len(dirents))) + struct.pack("<Q", cluster_at) + cluster)
    return body + hashlib.md5(body).digest()


def flat_png():
    """A 48 × 48 PNG of one colour, as zimwriterfs wants for the illustration."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\0" + b"\x2e\x6d\xa4" * 48 for _ in range(48))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 48, 48, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def rezipped(path):
    """The WACZ at `path` zipped again as py-wacz zips: JSON and JSONL members deflated."""
    out = io.BytesIO()
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            deflate = info.filename.endswith((".json", ".jsonl"))
            target.writestr(info, source.read(info), compress_type=zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED)
    return out.getvalue()


if __name__ == "__main__":
    main()
