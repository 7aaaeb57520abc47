"""The full-text index of §17, written and read independently of the Swift library.

Writer side: `documents` picks a model's documents (§17.1), `analyze` gives their tokens (for the
subset of text the vectors use: ASCII words, plain text and simple HTML, each word through the
`STEMS` table), `build` lays out the pages (§17.2, Appendix C step 8).

Reader side: `SearchIndex` reads an archive's index through the reader's verified page reads,
checks every rule of §17.2 and §17.3 on the pages it reads (`corrupt-page` at the page's offset),
and answers queries given as analyzed terms (§17.4): BM25, phrases, prefixes; and suggestions.
Four versions: 1 (`Archive.search`, with position pages), 2 (`Archive.searchIndex`, since 2.3:
no positions; a phrase is checked against the text of its candidates, `stack_query`), 3
(`Archive.searchIndex3`, since 2.5: version 2 with lists of 32 postings or more block-coded) and 4
(`Archive.searchIndex4`, since 2.6: no length code in the postings, each document's in norm pages;
blocks Rice-coded).

"""

import math
import re
import struct
from dataclasses import dataclass, field

from schema import PAGE_REF_SIZE, PAGE_TARGET

SEARCH = 5                                        # the page type (§17.2)
ROOT, TERMS, POSTINGS, POSITIONS, DOCUMENTS, TITLES, NORMS = range(1, 8)
KINDS = range(1, 8)
HEAD = 8                                          # type, kind, reserved(2), childCount
VERSIONS = (1, 2, 3, 4)                           # `Writer.search` and the root's version
KEYS = {1: "search", 2: "searchIndex", 3: "searchIndex3", 4: "searchIndex4"}   # the Archive key naming each root
FEATURES = {1: 1 << 0, 2: 1 << 1, 3: 1 << 2, 4: 1 << 3}   # optionalFeatures bit (version − 1)
BLOCK, BLOCKED_FROM = 128, 32                     # version 3: postings a block; the least blocked list
WIDTH_LIMITS = (40, 33, 8)                        # version 3: widest delta, packed count, length offset
RICE_LIMITS = (40, 33)                            # version 4: deltaK, packedK at most; values < 2^40, 2^33
NORM_SPAN, MAX_NORM_SPAN = 16_384, 65_536         # version 4: documents a norm page holds, as written and at most
FEATURE_SEARCH = FEATURES[1]
PHRASE_BUDGET = 50                                # §17.4: candidates checked per layer, at least
MAX_TERM, MAX_TITLE_KEY, MAX_DOCUMENT_STRING = 64, 128, 8_192
MAX_DOCUMENTS = 1 << 40
MAX_BODY = 32 << 20
MEDIA_TYPES = ("text/html", "application/xhtml+xml", "text/plain")
K1, B, TITLE_BOOST, PREFIX_TERMS = 1.2, 0.75, 2, 64        # the boost: idfs added for a title match (2.2.1)

# Porter2 (the Snowball English stemmer) of the words of three or more letters the vectors use,
# from the algorithm's definition; a word not listed is its own stem. The Swift rebuild of the
# vectors (`SearchVectorTests`) runs the real analyzer, so a wrong entry here fails there.
STEMS = {
    "cats": "cat", "dogs": "dog", "runs": "run", "running": "run", "jumps": "jump", "jumping": "jump",
    "birds": "bird", "books": "book", "fishing": "fish", "boats": "boat", "rivers": "river",
    "maps": "map", "trees": "tree", "searching": "search", "searched": "search", "otters": "otter",
}
WORD = re.compile(r"[A-Za-z0-9]+")


class SearchError(Exception):
    """A rule of §17.2/§17.3 broken in the page at `offset` (code `corrupt-page`)."""

    def __init__(self, offset: int, message: str, code: str = "corrupt-page"):
        super().__init__(f"page at {offset}: {message}")
        self.code, self.offset, self.message = code, offset, message


# ---------------------------------------------------------------------------- integers

def leb128(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def string(data: bytes) -> bytes:
    return leb128(len(data)) + data


def length_code(n: int) -> int:
    """§17.4: a document length in one byte."""
    if n < 16:
        return n
    e = n.bit_length() - 1
    m = (n >> (e - 3)) & 7
    return min(255, 16 + 8 * (e - 4) + m)


def decode_length(c: int) -> int:
    if c < 16:
        return c
    e, m = (c - 16) // 8 + 4, (c - 16) % 8
    return (8 + m) << (e - 3)


# ---------------------------------------------------------------------------- analysis (the vectors' subset)

def fold(text: str) -> str:
    """The analyzer's folding for ASCII text: lower case (the vectors hold no other letters)."""
    if not text.isascii():
        raise ValueError(f"not ASCII: {text!r} (this implementation folds ASCII only)")
    return text.lower()


def terms_of(text: str) -> list[str]:
    """The terms of `text`, in order: its words (runs of ASCII letters and digits; a space or a
    line break separates), folded; words of three or more letters (no digit) stemmed."""
    if re.search(r"[^A-Za-z0-9 \n]", text):
        raise ValueError(f"text the vectors' analysis does not cover: {text!r}")
    out = []
    for word in WORD.findall(fold(text)):
        out.append(STEMS.get(word, word) if len(word) >= 3 and word.isalpha() else word)
    return out


def title_key(title: str) -> bytes:
    """§17.2: folded, white space runs as one space, trimmed, cut to 128 bytes (ASCII here)."""
    return " ".join(fold(title).split()).encode("ascii")[:MAX_TITLE_KEY]


def visible_text(body: bytes, mime_type: str) -> tuple[str, str]:
    """(title, text) of §17.1 for the vectors' pages: plain text (its first non-blank line and the
    whole text) or HTML of `<title>`, `head`, `style`, `script`, `nav` and block elements only."""
    text = body.decode("ascii")
    if mime_type == "text/plain":
        title = next((line.strip() for line in text.split("\n") if line.strip()), "")
        return " ".join(title.split()), text
    if "&" in text:
        raise ValueError("character references are not in the vectors' HTML subset")
    found = re.search(r"<title>(.*?)</title>", text, re.S)
    title = " ".join(found.group(1).split()) if found else ""
    for element in ("head", "style", "script", "nav"):
        text = re.sub(rf"<{element}\b.*?</{element}>", " ", text, flags=re.S)
    return title, re.sub(r"<[^>]*>", " ", text)


@dataclass
class Document:
    url: str
    title: str
    length: int
    terms: dict            # term -> (positions, inTitle)
    key: bytes


def analyze(url: str, title: str, text: str) -> Document:
    """§17.1: title tokens at 0…t−1, the text's at their position plus t + 1 (t = 0: plus 0)."""
    table: dict[str, tuple[list[int], bool]] = {}
    title_terms, text_terms = terms_of(title), terms_of(text)
    for position, term in enumerate(title_terms):
        table.setdefault(term, ([], True))[0].append(position)
    start = len(title_terms) + 1 if title_terms else 0
    for position, term in enumerate(text_terms):
        table.setdefault(term, ([], False))[0].append(start + position)
    return Document(url, title, len(title_terms) + len(text_terms), table, title_key(title))


def is_source_copy(url: str) -> bool:
    """§17.1: a URL whose path has a segment `_sources`."""
    path = url.split("?", 1)[0].split("#", 1)[0]
    after_scheme = path.split("://", 1)[-1]
    return "_sources" in after_scheme.split("/")[1:]


def indexed(status: int, mime_type: str | None, url: str, length: int) -> bool:
    return (status == 200 and mime_type in MEDIA_TYPES and length <= MAX_BODY
            and not (mime_type == "text/plain" and is_source_copy(url)))


# ---------------------------------------------------------------------------- pages (writer)

@dataclass
class Built:
    """The index laid out: pages in storage order (the root apart), and where things went, for
    crafted vectors."""
    pages: list                          # [(kind, children [indexes into pages], payload)]
    root: tuple                          # (kind, children, payload)
    term_ranges: dict = field(default_factory=dict)   # term -> (shard page index, postings range, positions range)


def build(documents: list[Document], version: int) -> Built:
    """§17.2: term shards (each after its posting and (version 1) position pages), document pages,
    title shards, (version 4) norm pages, root."""
    positions_kept = version == 1
    pages: list = []
    postings_of: dict[str, bytearray] = {}
    positions_of: dict[str, bytearray] = {}
    frequency: dict[str, int] = {}
    last: dict[str, int] = {}
    listed: dict[str, list] = {}
    for number, doc in enumerate(documents):
        for term in sorted(doc.terms, key=lambda t: t.encode()):
            positions, in_title = doc.terms[term]
            delta = number - last.get(term, 0)
            listed.setdefault(term, []).append((number, len(positions), in_title, length_code(doc.length)))
            # Version 4: the length code is the document's, in the norm pages, not the posting's.
            code = bytes([length_code(doc.length)]) if version < 4 else b""
            postings_of.setdefault(term, bytearray()).extend(
                leb128(delta) + leb128(len(positions) * 2 + (1 if in_title else 0)) + code)
            out = positions_of.setdefault(term, bytearray())
            previous = 0
            for p in (positions if positions_kept else []):
                out += leb128(p - previous)
                previous = p
            frequency[term] = frequency.get(term, 0) + 1
            last[term] = number
    if version >= 3:
        for term, postings in listed.items():
            if len(postings) >= BLOCKED_FROM:
                postings_of[term] = bytearray(blocked(postings) if version == 3 else rice_blocked(postings))
    built = Built(pages, (ROOT, [], b""))
    shard_keys: list[bytes] = []
    shard_pages: list[int] = []
    state = {"entries": bytearray(), "count": 0, "first": b"", "previous": b"", "postings": bytearray(),
             "positions": bytearray(), "posting_pages": [], "position_pages": [], "terms": []}

    def flush_full(stream: bytearray, into: list, kind: int) -> None:
        while len(stream) >= PAGE_TARGET:
            pages.append((kind, [], bytes(stream[:PAGE_TARGET])))
            into.append(len(pages) - 1)
            del stream[:PAGE_TARGET]

    def close() -> None:
        for stream, into, kind in ((state["postings"], state["posting_pages"], POSTINGS),
                                   (state["positions"], state["position_pages"], POSITIONS)):
            if stream:
                pages.append((kind, [], bytes(stream)))
                into.append(len(pages) - 1)
        counts = leb128(len(state["posting_pages"])) + leb128(len(state["position_pages"])) if positions_kept else b""
        payload = counts + leb128(state["count"]) + bytes(state["entries"])
        pages.append((TERMS, state["posting_pages"] + state["position_pages"], payload))
        shard_keys.append(state["first"])
        shard_pages.append(len(pages) - 1)
        for term in state["terms"]:
            built.term_ranges[term] = (len(pages) - 1,) + built.term_ranges[term][1:]
        state.update(entries=bytearray(), count=0, postings=bytearray(), positions=bytearray(),
                     posting_pages=[], position_pages=[], terms=[])

    for term in sorted(postings_of, key=lambda t: t.encode()):
        raw = term.encode()
        if state["count"] and len(state["entries"]) >= PAGE_TARGET:
            close()
        if state["count"] == 0:
            state["first"] = raw
        shared = 0 if state["count"] == 0 else common_prefix(state["previous"], raw)
        p, q = postings_of[term], positions_of[term]
        offset_p = sum(len(pages[i][2]) for i in state["posting_pages"]) + len(state["postings"])
        offset_q = sum(len(pages[i][2]) for i in state["position_pages"]) + len(state["positions"])
        built.term_ranges[term] = (None, (offset_p, offset_p + len(p)), (offset_q, offset_q + len(q)))
        state["terms"].append(term)
        state["entries"] += leb128(shared) + string(raw[shared:]) + leb128(frequency[term]) + leb128(len(p)) \
            + (leb128(len(q)) if positions_kept else b"")
        state["count"] += 1
        state["previous"] = raw
        state["postings"] += p
        state["positions"] += q
        flush_full(state["postings"], state["posting_pages"], POSTINGS)
        flush_full(state["positions"], state["position_pages"], POSITIONS)
    if state["count"]:
        close()

    starts, document_pages = [], []
    start = 0
    entries = [string(d.url.encode()[:MAX_DOCUMENT_STRING]) + string(d.title.encode()[:MAX_DOCUMENT_STRING])
               + leb128(d.length) for d in documents]
    while start < len(documents):
        end, size = start, 0
        while end < len(documents) and (end == start or size + len(entries[end]) <= PAGE_TARGET):
            size += len(entries[end])
            end += 1
        pages.append((DOCUMENTS, [], leb128(end - start) + b"".join(entries[start:end])))
        starts.append(start)
        document_pages.append(len(pages) - 1)
        start = end

    titles = sorted(((d.key, n) for n, d in enumerate(documents) if d.key), key=lambda e: (e[0], e[1]))
    title_keys, title_pages = [], []
    index = 0
    while index < len(titles):
        payload, count, previous = bytearray(), 0, b""
        first = titles[index][0]
        while index < len(titles) and (count == 0 or len(payload) < PAGE_TARGET):
            key, document = titles[index]
            shared = 0 if count == 0 else common_prefix(previous, key)
            payload += leb128(shared) + string(key[shared:]) + leb128(document)
            previous, count, index = key, count + 1, index + 1
        pages.append((TITLES, [], leb128(count) + bytes(payload)))
        title_keys.append(first)
        title_pages.append(len(pages) - 1)

    # Version 4: each document's length code, `NORM_SPAN` documents a page, after the title shards.
    norm_pages = []
    codes = bytes(length_code(d.length) for d in documents) if version >= 4 else b""
    for start in range(0, len(codes), NORM_SPAN):
        pages.append((NORMS, [], codes[start:start + NORM_SPAN]))
        norm_pages.append(len(pages) - 1)

    root = leb128(version) + leb128(len(documents)) + leb128(sum(d.length for d in documents))
    root += leb128(len(shard_keys)) + b"".join(string(k) for k in shard_keys)
    root += leb128(len(starts)) + b"".join(leb128(s) for s in starts)
    root += leb128(len(title_keys)) + b"".join(string(k) for k in title_keys)
    root += leb128(NORM_SPAN) if version >= 4 else b""
    built.root = (ROOT, shard_pages + document_pages + title_pages + norm_pages, root)
    return built


def blocked(postings: list) -> bytes:
    """§17.2, version 3: a list of 32 postings or more as its skip table, then its blocks of 128
    (the last: the rest), each the deltas − 1, the packed counts − 2 and the length offsets,
    bit-packed at the least widths that hold them."""
    table, blocks, previous = bytearray(), bytearray(), -1
    for start in range(0, len(postings), BLOCK):
        block = postings[start:start + BLOCK]
        least = min(p[3] for p in block)
        fields = ([p[0] - q - 1 for p, q in zip(block, [previous] + [p[0] for p in block[:-1]])],
                  [(p[1] - 1) * 2 + p[2] for p in block], [p[3] - least for p in block])
        widths = [max(values).bit_length() for values in fields]
        table += leb128(block[-1][0] - previous if previous >= 0 else block[-1][0])
        table += leb128(max(p[1] for p in block) * 2 + any(p[2] for p in block)) + bytes([least] + widths)
        bits, count = 0, 0
        for values, width in zip(fields, widths):
            for value in values:
                bits |= value << count
                count += width
        blocks += bits.to_bytes((count + 7) // 8, "little")
        previous = block[-1][0]
    return bytes(table + blocks)


def rice_blocked(postings: list) -> bytes:
    """§17.2, version 4: a list of 32 postings or more as its skip table (with each block's least
    length code, Rice parameters and byte length), then its blocks of 128, each the deltas − 1
    and the packed counts − 2 Rice-coded, padded to a byte."""
    table, blocks, previous = bytearray(), bytearray(), -1
    for start in range(0, len(postings), BLOCK):
        block = postings[start:start + BLOCK]
        runs = ([p[0] - q - 1 for p, q in zip(block, [previous] + [p[0] for p in block[:-1]])],
                [(p[1] - 1) * 2 + p[2] for p in block])
        ks = [rice_k(values, limit) for values, limit in zip(runs, RICE_LIMITS)]
        bits, count = 0, 0
        for values, k in zip(runs, ks):
            bits, count = rice(values, k, bits, count)
        coded = bits.to_bytes((count + 7) // 8, "little")
        table += leb128(block[-1][0] - previous if previous >= 0 else block[-1][0])
        table += leb128(max(p[1] for p in block) * 2 + any(p[2] for p in block))
        table += bytes([min(p[3] for p in block)] + ks) + leb128(len(coded))
        blocks += coded
        previous = block[-1][0]
    return bytes(table + blocks)


def rice_k(values: list[int], largest: int) -> int:
    """The Rice parameter in 0…`largest` whose codes of `values` take the fewest bits,
    Σ (v >> k) + 1 + k; the least on a tie, so that the same records give the same bytes."""
    return min(range(largest + 1), key=lambda k: (sum((v >> k) + 1 + k for v in values), k))


def rice(values: list[int], k: int, bits: int, count: int) -> tuple[int, int]:
    """`values` Rice-coded with `k` after the `count` bits of `bits` (bytes fill from their least
    significant bit): v >> k one bits, a zero bit, then v's k low bits, least significant first."""
    for v in values:
        q = v >> k
        bits |= ((1 << q) - 1) << count
        count += q + 1
        bits |= (v & ((1 << k) - 1)) << count
        count += k
    return bits, count


def common_prefix(a: bytes, b: bytes) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n


def page_bytes(kind: int, children: list[bytes], payload: bytes, reserved: bytes = bytes(2)) -> bytes:
    """A decoded search page: head, the children's 56-byte references, the payload."""
    return bytes([SEARCH, kind]) + reserved + struct.pack("<I", len(children)) + b"".join(children) + payload


# ---------------------------------------------------------------------------- reading

class Payload:
    """A page's payload with the checks of §17.3: every count against the bytes that remain."""

    def __init__(self, data: bytes, offset: int):
        self.data, self.at, self.offset = data, 0, offset

    def fail(self, message: str) -> SearchError:
        return SearchError(self.offset, message)

    @property
    def remaining(self) -> int:
        return len(self.data) - self.at

    def int(self, what: str) -> int:
        value = 0
        for i in range(10):
            if self.at + i >= len(self.data):
                raise self.fail(f"{what}: an integer cut short")
            byte = self.data[self.at + i]
            value |= (byte & 0x7F) << (7 * i)
            if not byte & 0x80:
                if value >= 1 << 64:
                    raise self.fail(f"{what}: an integer over 64 bits")
                self.at += i + 1
                return value
        raise self.fail(f"{what}: an integer longer than 10 bytes")

    def count(self, what: str, unit: int = 1) -> int:
        n = self.int(what)
        if n > self.remaining // unit:
            raise self.fail(f"{what} {n} past the page's end")
        return n

    def bytes(self, n: int, what: str) -> bytes:
        if n > self.remaining:
            raise self.fail(f"{what}: {n} bytes past the page's end")
        self.at += n
        return self.data[self.at - n:self.at]

    def string(self, what: str) -> bytes:
        return self.bytes(self.count(what), what)

    def end(self, what: str) -> None:
        if self.remaining:
            raise self.fail(f"{self.remaining} bytes after the {what}")


class RiceBits:
    """A version 4 block's bits, least significant first in each byte (§17.2); ValueError for a
    code past the block or its bound, or a block that does not end with its codes."""

    def __init__(self, block: bytes):
        self.bits = [(byte >> i) & 1 for byte in block for i in range(8)]
        self.at = 0

    def bit(self) -> int:
        if self.at >= len(self.bits):
            raise ValueError("a Rice code past the block's end")
        self.at += 1
        return self.bits[self.at - 1]

    def run(self, n: int, k: int, bound: int) -> list[int]:
        """`n` values Rice-coded with `k`, each below 2^`bound`."""
        out = []
        for _ in range(n):
            q = 0
            while self.bit():
                q += 1
                if q << k >= 1 << bound:
                    raise ValueError(f"a Rice value past 2^{bound}")
            low = sum(self.bit() << i for i in range(k))
            out.append(q << k | low)
        return out

    def end(self) -> None:
        """The codes end in the block's last byte, the rest of it zero bits."""
        if (self.at + 7) // 8 != len(self.bits) // 8:
            raise ValueError(f"{len(self.bits) // 8 - (self.at + 7) // 8} bytes after the codes")
        if any(self.bits[self.at:]):
            raise ValueError("a non-zero padding bit")


@dataclass
class Shard:
    entries: list            # [(term bytes, documentFrequency, postings range, positions range)]
    posting_pages: list      # [PageRef]
    position_pages: list


class SearchIndex:
    """An archive's index (`webarc_reader.Archive`), read through verified page reads."""

    def __init__(self, archive, root_ref, version: int = 1):
        self.a = archive
        self.phrases_to_check: list = []
        page = self.page(root_ref, ROOT)
        p = Payload(page.payload, page.offset)
        self.version = p.int("version")
        if self.version != version:
            raise p.fail(f"search index version {self.version}, not {version} (Archive.{KEYS[version]})")
        self.document_count = p.int("documentCount")
        if self.document_count > MAX_DOCUMENTS:
            raise p.fail(f"documentCount {self.document_count}")
        self.token_count = p.int("tokenCount")
        self.term_keys = self.keys(p, "term shard")
        self.starts = []
        for _ in range(p.count("document pages")):
            start = p.int("document page start")
            if start >= self.document_count or (start != 0 if not self.starts else start <= self.starts[-1]):
                raise p.fail(f"document page start {start} out of order")
            self.starts.append(start)
        if self.document_count and not self.starts:
            raise p.fail(f"{self.document_count} documents and no document page")
        self.title_keys = self.keys(p, "title shard")
        self.norm_span = p.int("normSpan") if self.version >= 4 else 0
        if self.version >= 4 and not 1 <= self.norm_span <= MAX_NORM_SPAN:
            raise p.fail(f"normSpan {self.norm_span}")
        p.end("root")
        s, d, g = len(self.term_keys), len(self.starts), len(self.title_keys)
        norm_count = -(-self.document_count // self.norm_span) if self.norm_span else 0
        if len(page.search_children) != s + d + g + norm_count:
            raise p.fail(f"{len(page.search_children)} children for {s + d + g + norm_count} pages")
        self.shard_refs = page.search_children[:s]
        self.document_refs = page.search_children[s:s + d]
        self.title_refs = page.search_children[s + d:s + d + g]
        self.norm_refs = page.search_children[s + d + g:]
        self.norm_pages: dict[int, bytes] = {}
        self.root_offset = page.offset

    @staticmethod
    def open(archive) -> "SearchIndex | None":
        """The archive's index, or None when its metadata names none (§17)."""
        from webarc_reader import WebarcError, parse_ref
        meta = archive.metadata()
        named = [(version, key) for version, key in KEYS.items() if key in meta.fields]
        offset = archive.metadata_ref.offset
        if not named:
            return None
        if len(named) > 1:
            raise WebarcError("corrupt-index", offset, f"page at {offset}: more than one index key")
        version, key = named[0]
        value = meta.fields[key][1]
        if len(value) != PAGE_REF_SIZE:
            raise WebarcError("corrupt-index", offset, f"page at {offset}: Archive.{key} of {len(value)} bytes")
        return SearchIndex(archive, parse_ref(value), version)

    def page(self, ref, kind: int):
        """A verified search page of `kind` (§5.1; height 0; the core's head checks in the reader)."""
        page = self.a.read_page(ref)
        if page.type != SEARCH or ref.height != 0 or page.kind != kind:
            raise SearchError(ref.offset, f"a page of type {page.type} kind {page.kind} height {ref.height} "
                                          f"where a search page of kind {kind} belongs")
        if kind in (POSTINGS, POSITIONS, DOCUMENTS, TITLES, NORMS) and page.search_children:
            raise SearchError(ref.offset, f"a search page of kind {kind} with children")
        return page

    @staticmethod
    def keys(p: Payload, what: str) -> list[bytes]:
        keys = []
        for _ in range(p.count(f"{what} keys")):
            key = p.string(f"{what} key")
            if keys and not keys[-1] < key:
                raise p.fail(f"{what} keys out of order")
            keys.append(key)
        return keys

    # shards -------------------------------------------------------------------------
    def shard(self, number: int) -> Shard:
        ref = self.shard_refs[number]
        page = self.page(ref, TERMS)
        p = Payload(page.payload, page.offset)
        if self.version == 1:
            posting_count, position_count = p.int("P"), p.int("Q")
        else:                                        # version 2: every child a posting page
            posting_count, position_count = len(page.search_children), 0
        if posting_count + position_count != len(page.search_children):
            raise p.fail(f"{posting_count} + {position_count} stream pages for {len(page.search_children)} children")
        posting_pages = page.search_children[:posting_count]
        position_pages = page.search_children[posting_count:]
        posting_bytes = sum(r.raw_length - HEAD for r in posting_pages)
        position_bytes = sum(r.raw_length - HEAD for r in position_pages)
        count = p.count("T", 6 if self.version == 1 else 5)
        if count < 1:
            raise p.fail("a term shard with no terms")
        entries, previous, posting_end, position_end = [], b"", 0, 0
        for i in range(count):
            shared = p.int("shared")
            if shared > len(previous) or (i == 0 and shared != 0):
                raise p.fail(f"term {i}: shared {shared} past the previous term")
            term = previous[:shared] + p.string("suffix")
            if not 1 <= len(term) <= MAX_TERM:
                raise p.fail(f"a term of {len(term)} bytes")
            if i == 0 and term != self.term_keys[number]:
                raise p.fail("the shard's first term is not the root's key for it")
            if i > 0 and not previous < term:
                raise p.fail(f"terms out of order at {term!r}")
            df = p.int("documentFrequency")
            if not 1 <= df <= self.document_count:
                raise p.fail(f"documentFrequency {df} of {self.document_count} documents")
            postings_length = p.int("postingsLength")
            positions_length = p.int("positionsLength") if self.version == 1 else 0
            least = least_postings(self.version, df)
            if postings_length < least:
                raise p.fail(f"postingsLength {postings_length} under {least} for {df} postings")
            entries.append((term, df, (posting_end, posting_end + postings_length),
                            (position_end, position_end + positions_length)))
            posting_end += postings_length
            position_end += positions_length
            previous = term
        p.end("terms")
        if posting_end != posting_bytes or position_end != position_bytes:
            raise p.fail(f"the terms' streams ({posting_end}, {position_end} bytes) are not the pages' "
                         f"({posting_bytes}, {position_bytes})")
        return Shard(entries, posting_pages, position_pages)

    def stream(self, refs: list, span: tuple[int, int], kind: int) -> tuple[bytes, list[tuple[int, int]]]:
        """The bytes `span` of the stream `refs`' payloads make, and (stream start, page offset) of each page read."""
        out, starts, at = bytearray(), [], 0
        for ref in refs:
            length = ref.raw_length - HEAD
            if at + length > span[0] and at < span[1]:
                page = self.page(ref, kind)
                starts.append((at, page.offset))
                out += page.payload[max(0, span[0] - at):span[1] - at]
            at += length
        return bytes(out), starts

    def postings(self, shard: Shard, entry) -> list[tuple[int, int, bool, int]]:
        """(document, frequency, inTitle, lengthCode) of each posting; a rule broken: the page holding it."""
        data, starts = self.stream(shard.posting_pages, entry[2], POSTINGS)
        def fail(at: int, message: str) -> SearchError:
            offset = next(o for s, o in reversed(starts) if s <= entry[2][0] + at)
            return SearchError(offset, f"postings of {entry[0]!r}: {message}")
        p = Payload(data, 0)
        if self.version >= 3 and entry[1] >= BLOCKED_FROM:
            blocks = self.blocked_postings if self.version == 3 else self.rice_postings
            return blocks(data, entry[1], fail)
        out, document = [], -1
        for i in range(entry[1]):
            at = p.at
            try:
                delta, packed = p.int("delta"), p.int("packed")
                code = p.bytes(1, "lengthCode")[0] if self.version < 4 else None
            except SearchError:
                raise fail(at, "cut short") from None
            if i > 0 and delta < 1:
                raise fail(at, "a document delta of 0")
            document = delta if i == 0 else document + delta
            if document >= self.document_count or packed >> 1 < 1:
                raise fail(at, f"document {document} of {self.document_count}, or frequency {packed >> 1}")
            # Version 4: the document's length code, from its norm page.
            out.append((document, packed >> 1, bool(packed & 1), self.norm(document) if code is None else code))
        if p.remaining:
            raise fail(p.at, f"{p.remaining} bytes after the postings")
        return out

    def skip_table(self, data: bytes, df: int, fail, rice: bool) -> tuple[int, list]:
        """§17.2: a blocked list's skip table (version 3: widths; version 4, `rice`: Rice parameters
        and block lengths), each entry checked; (where the blocks start, [(last document, maxPacked,
        minLengthCode, widths or parameters, postings, block bytes)])."""
        p = Payload(data, 0)
        count = -(-df // BLOCK)
        skips, previous = [], -1
        for i in range(count):
            at = p.at
            try:
                delta, packed = p.int("lastDelta"), p.int("maxPacked")
                least, *params = p.bytes(3 if rice else 4, "skip entry")
                length = p.int("blockLength") if rice else None
            except SearchError:
                raise fail(at, "skip table cut short") from None
            if i > 0 and delta < 1:
                raise fail(at, "a last-document delta of 0")
            last = delta if i == 0 else previous + delta
            size = BLOCK if i < count - 1 else df - BLOCK * (count - 1)
            if last >= self.document_count or last - previous < size or packed >> 1 < 1 or packed >> 1 >= 1 << 32:
                raise fail(at, f"block {i}: last document {last}, or largest count {packed >> 1}")
            if rice and (any(k > limit for k, limit in zip(params, RICE_LIMITS)) or length < 1):
                raise fail(at, f"block {i}: Rice parameters {params}, or a length of {length} bytes")
            if not rice and any(w > limit for w, limit in zip(params, WIDTH_LIMITS)):
                raise fail(at, f"block {i}: field widths {params}")
            skips.append((last, packed, least, params, size, length if rice else (size * sum(params) + 7) // 8))
            previous = last
        return p.at, skips

    def blocked_postings(self, data: bytes, df: int, fail) -> list[tuple[int, int, bool, int]]:
        """§17.2, version 3: the skip table, then every block, each checked against its entry."""
        at, skips = self.skip_table(data, df, fail, rice=False)
        out, previous = [], -1
        for i, (last, packed, least, widths, size, length) in enumerate(skips):
            if at + length > len(data):
                raise fail(at, f"block {i} past the list's end")
            bits, shift = int.from_bytes(data[at:at + length], "little"), 0
            fields = []
            for width in widths:
                fields.append([(bits >> (shift + width * k)) & ((1 << width) - 1) for k in range(size)])
                shift += width * size
            documents = []
            for delta in fields[0]:
                previous += delta + 1
                documents.append(previous)
            codes = [least + offset for offset in fields[2]]
            if (documents[-1] != last or max(fields[1]) // 2 + 1 != packed >> 1
                    or any(v & 1 for v in fields[1]) != bool(packed & 1) or max(codes) > 255 or min(codes) != least
                    or [max(values).bit_length() for values in fields] != widths):
                raise fail(at, f"block {i} does not match its skip entry")
            out += [(d, v // 2 + 1, bool(v & 1), c) for d, v, c in zip(documents, fields[1], codes)]
            at += length
        if at != len(data):
            raise fail(at, f"{len(data) - at} bytes after the blocks")
        return out

    def rice_postings(self, data: bytes, df: int, fail) -> list[tuple[int, int, bool, int]]:
        """§17.2, version 4: the skip table, then every block Rice-decoded, each checked against its
        entry (its least length code against the norm pages)."""
        at, skips = self.skip_table(data, df, fail, rice=True)
        out, previous = [], -1
        for i, (last, packed, least, ks, size, length) in enumerate(skips):
            if at + length > len(data):
                raise fail(at, f"block {i} past the list's end")
            bits = RiceBits(data[at:at + length])
            try:
                runs = [bits.run(size, k, limit) for k, limit in zip(ks, RICE_LIMITS)]
                bits.end()
            except ValueError as e:
                raise fail(at, f"block {i}: {e}") from None
            documents = []
            for delta in runs[0]:
                previous += delta + 1
                documents.append(previous)
            if (documents[-1] != last or max(runs[1]) // 2 + 1 != packed >> 1
                    or any(v & 1 for v in runs[1]) != bool(packed & 1)):
                raise fail(at, f"block {i} does not match its skip entry")
            codes = [self.norm(d) for d in documents]
            if min(codes) != least:
                raise fail(at, f"block {i}: least length code {min(codes)}, its skip entry's {least}")
            out += [(d, v // 2 + 1, bool(v & 1), c) for d, v, c in zip(documents, runs[1], codes)]
            at += length
        if at != len(data):
            raise fail(at, f"{len(data) - at} bytes after the blocks")
        return out

    def positions(self, shard: Shard, entry, postings) -> list[list[int]]:
        data, starts = self.stream(shard.position_pages, entry[3], POSITIONS)
        def fail(at: int, message: str) -> SearchError:
            offset = next(o for s, o in reversed(starts) if s <= entry[3][0] + at) if starts else self.root_offset
            return SearchError(offset, f"positions of {entry[0]!r}: {message}")
        p = Payload(data, 0)
        out = []
        for _, frequency, _, _ in postings:
            at, position, found = p.at, 0, []
            for i in range(frequency):
                try:
                    delta = p.int("position")
                except SearchError:
                    raise fail(at, "cut short") from None
                position = delta if i == 0 else position + delta
                found.append(position)
            out.append(found)
        if p.remaining:
            raise fail(p.at, f"{p.remaining} bytes after the positions")
        return out

    def lookup(self, term: bytes):
        number = shard_for(term, self.term_keys)
        if number is None:
            return None
        shard = self.shard(number)
        return next(((shard, e) for e in shard.entries if e[0] == term), None)

    # documents and titles -----------------------------------------------------------
    def document_page(self, number: int) -> list[tuple[str, str, int]]:
        ref = self.document_refs[number]
        page = self.page(ref, DOCUMENTS)
        p = Payload(page.payload, page.offset)
        count = p.count("N", 3)
        end = self.starts[number + 1] if number + 1 < len(self.starts) else self.document_count
        if count < 1 or count != end - self.starts[number]:
            raise p.fail(f"{count} documents where the root gives {end - self.starts[number]}")
        out = []
        for _ in range(count):
            url, title = p.string("url"), p.string("title")
            if len(url) > MAX_DOCUMENT_STRING or len(title) > MAX_DOCUMENT_STRING:
                raise p.fail("a URL or title over 8 192 bytes")
            try:
                out.append((url.decode("utf-8"), title.decode("utf-8"), p.int("length")))
            except UnicodeDecodeError:
                raise p.fail("a URL or title that is not UTF-8") from None
        p.end("documents")
        return out

    def norms(self, number: int) -> bytes:
        """§17.2, version 4: the length codes norm page `number` holds, one byte a document (read once)."""
        if number not in self.norm_pages:
            page = self.page(self.norm_refs[number], NORMS)
            start = number * self.norm_span
            count = min(start + self.norm_span, self.document_count) - start
            if len(page.payload) != count:
                raise SearchError(page.offset, f"a norm page of {len(page.payload)} bytes for {count} documents")
            self.norm_pages[number] = page.payload
        return self.norm_pages[number]

    def norm(self, document: int) -> int:
        """Document `document`'s length code (version 4)."""
        return self.norms(document // self.norm_span)[document % self.norm_span]

    def document(self, n: int) -> tuple[str, str, int]:
        number = shard_for_int(n, self.starts)
        return self.document_page(number)[n - self.starts[number]]

    def titles(self, number: int) -> list[tuple[bytes, int]]:
        ref = self.title_refs[number]
        page = self.page(ref, TITLES)
        p = Payload(page.payload, page.offset)
        count = p.count("N", 3)
        if count < 1:
            raise p.fail("a title shard with no titles")
        out, previous = [], None
        for i in range(count):
            shared = p.int("shared")
            if shared > (len(previous[0]) if previous else 0):
                raise p.fail(f"title {i}: shared {shared} past the previous key")
            key = (previous[0][:shared] if previous else b"") + p.string("suffix")
            document = p.int("document")
            if document >= self.document_count or len(key) > MAX_TITLE_KEY:
                raise p.fail(f"title document {document} of {self.document_count}, or a key of {len(key)} bytes")
            if i == 0 and key != self.title_keys[number]:
                raise p.fail("the shard's first key is not the root's key for it")
            if previous is not None and not previous < (key, document):
                raise p.fail(f"title keys out of order at {key!r}")
            previous = (key, document)
            out.append(previous)
        p.end("titles")
        return out

    def read_all(self) -> None:
        """Reads and checks every page of the index: each shard with each term's postings and
        positions, each document page, each title shard, each norm page (each length code the
        code of its document's length, a check §17.2 allows)."""
        for number in range(len(self.shard_refs)):
            shard = self.shard(number)
            for entry in shard.entries:
                postings = self.postings(shard, entry)
                if self.version == 1:
                    self.positions(shard, entry, postings)
        for number in range(len(self.document_refs)):
            for n, (_, _, length) in enumerate(self.document_page(number), self.starts[number]):
                if self.version >= 4 and self.norm(n) != length_code(length):
                    raise SearchError(self.norm_refs[n // self.norm_span].offset,
                                      f"document {n}: length code {self.norm(n)}, of length {length}")
        for number in range(len(self.title_refs)):
            self.titles(number)
        for number in range(len(self.norm_refs)):
            self.norms(number)

    # queries (§17.4) ----------------------------------------------------------------
    def weight(self, posting, df: int) -> float:
        n = self.document_count
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        f = posting[1]
        dl = decode_length(posting[3])
        avgdl = max(1, self.token_count / n) if n else 1
        return idf * f * (K1 + 1) / (f + K1 * (1 - B + B * dl / avgdl)) + (TITLE_BOOST * idf if posting[2] else 0)

    def expand(self, prefix: bytes) -> list:
        """The first 64 terms, in term order, that start with `prefix`, from at most four shards."""
        found, number, read = [], shard_for(prefix, self.term_keys) or 0, 0
        while number < len(self.term_keys) and read < 4 and len(found) < PREFIX_TERMS:
            if read and not self.term_keys[number].startswith(prefix):
                break
            shard = self.shard(number)
            read += 1
            matching = [e for e in shard.entries if e[0].startswith(prefix)]
            found += [(shard, e) for e in matching][:PREFIX_TERMS - len(found)]
            if shard.entries and not shard.entries[-1][0].startswith(prefix) and shard.entries[-1][0] > prefix:
                break
            number += 1
        return found

    def clause_scores(self, clause) -> dict[int, float]:
        kind, value = clause
        if kind == "word":
            hit = self.lookup(value.encode())
            if hit is None:
                return {}
            return {p[0]: self.weight(p, hit[1][1]) for p in self.postings(*hit)}
        if kind == "prefix":
            scores: dict[int, float] = {}
            terms = self.expand(value.encode())
            # A word typed past its stem (2.2.1): a prefix of a-z only, cut by one to three bytes,
            # at least four long, each a whole term.
            raw = value.encode()
            if re.fullmatch(rb"[a-z]+", raw):
                for n in range(len(raw) - 1, max(3, len(raw) - 4), -1):
                    hit = self.lookup(raw[:n])
                    if hit is not None and all(e[0] != raw[:n] for _, e in terms):
                        terms.append(hit)
            for shard, entry in terms:
                for p in self.postings(shard, entry):
                    scores[p[0]] = max(scores.get(p[0], 0.0), self.weight(p, entry[1]))
            return scores
        lists = []
        for term in value:
            hit = self.lookup(term.encode())
            if hit is None:
                return {}
            postings = self.postings(*hit)
            lists.append((postings, self.positions(*hit, postings) if self.version == 1 else None, hit[1][1]))
        if self.version != 1:
            # Version 2: the documents with every term; `stack_query` checks their text in rank order.
            common = set.intersection(*(set(p[0] for p in l[0]) for l in lists))
            if len(value) > 1:
                self.phrases_to_check.append(value)
            return {d: sum(self.weight(next(p for p in l[0] if p[0] == d), l[2]) for l in lists) for d in common}
        scores = {}
        for document in set.intersection(*(set(p[0] for p in l[0]) for l in lists)):
            found = [dict(zip((p[0] for p in l[0]), l[1]))[document] for l in lists]
            if any(all(start + i in found[i] for i in range(1, len(found))) for start in found[0]):
                scores[document] = sum(self.weight(next(p for p in l[0] if p[0] == document), l[2]) for l in lists)
        return scores

    def query(self, clauses: list) -> list[tuple[int, float]]:
        """Documents matching every clause, (document, score) by score descending then document; of
        version 2, a phrase's by its terms alone (the phrases left to check: `phrases_to_check`)."""
        self.phrases_to_check = []
        total: dict[int, float] | None = None
        for clause in clauses:
            scores = self.clause_scores(clause)
            total = scores if total is None else {d: s + scores[d] for d, s in total.items() if d in scores}
        return sorted((total or {}).items(), key=lambda e: (-e[1], e[0]))

    def suggest(self, typed: str) -> list[tuple[bytes, int]]:
        """§17.4: title entries whose key starts with the typed text's title key, in key order;
        none for an empty key."""
        wanted = title_key(typed)
        if not wanted:
            return []
        out = []
        for number in range(shard_for(wanted, self.title_keys) or 0, len(self.title_keys)):
            entries = [e for e in self.titles(number) if e[0].startswith(wanted)]
            out += entries
            if self.title_keys[number] > wanted and not entries:
                break
        return out


def least_postings(version: int, df: int) -> int:
    """§17.2: the least `postingsLength` of `df` postings: 3 bytes a posting (2 in version 4, no
    length code); a list of 32 or more, blocked since version 3, 6 bytes a block (7 in version 4)."""
    if version >= 3 and df >= BLOCKED_FROM:
        return (6 if version == 3 else 7) * -(-df // BLOCK)
    return 2 * df if version >= 4 else 3 * df


def shard_for(key: bytes, keys: list[bytes]) -> int | None:
    """The last shard whose first key is ≤ `key`."""
    found = None
    for i, k in enumerate(keys):
        if k <= key:
            found = i
    return found


def shard_for_int(n: int, starts: list[int]) -> int:
    return max(i for i, s in enumerate(starts) if s <= n)


def shows(archive, bases: list, url: str, phrases: list) -> bool:
    """§17.4, version 2: whether the page at `url` shows each phrase (its terms at consecutive
    positions of its title's tokens or of its text's), read from its body as §17.1 reads it."""
    from webarc_reader import body_ref, ref_key
    found = archive.lookup("GET", url)
    if found is None or found[0].class_name != "Response":
        return False
    obj, leaf = found
    key = ref_key(*body_ref(obj))
    entry = next((b for b in leaf.bodies if b.key == key), None) or archive.find_body(key)
    body = archive.read_body(entry, leaf, bases)
    title, text = visible_text(body, obj.fields["mimeType"][1].decode())

    def holds(phrase: list, tokens: list) -> bool:
        return any(tokens[i:i + len(phrase)] == phrase for i in range(len(tokens)))
    parts = (terms_of(title), terms_of(text))
    return all(any(holds(phrase, tokens) for tokens in parts) for phrase in phrases)


def unshadowed(layers: list, answer) -> list[tuple[int, int, object, str]]:
    """§17.4 Layers: each layer's index answers (`answer(index)` gives (document, value) pairs); a
    document of a layer is left out when a layer above holds a record for its URL's key.
    (layer, document, value, url) of the rest."""
    out = []
    for number, (_, index) in enumerate(layers):
        for document, value in (answer(index) if index is not None else []):
            url = index.document(document)[0]
            if not any(upper.lookup("GET", url) is not None for upper, _ in layers[:number]):
                out.append((number, document, value, url))
    return out


def layer_hits(archive, index, bases: list, shadowed, clauses: list, limit: int = 100) -> list:
    """(document, score, url) of one layer's answer, best first, at most `limit`, leaving out a
    document whose URL `shadowed` says a layer above holds. Of version 2, a phrase's candidates are
    checked in rank order (§17.4): until `limit` show the phrases, at most max(50, `limit`) read
    (`bases`: the archives below, for bodies stored there)."""
    ranked, phrases = index.query(clauses), index.phrases_to_check
    budget, out = max(PHRASE_BUDGET, limit), []
    for document, score in ranked:
        if len(out) == limit:
            break
        url = index.document(document)[0]
        if shadowed(url):
            continue
        if phrases:
            if budget == 0:
                break
            budget -= 1
            if not shows(archive, bases, url, phrases):
                continue
        out.append((document, score, url))
    return out


def stack_query(layers: list, clauses: list, limit: int = 100) -> list[tuple[float, int, int, str]]:
    """(score, layer, document, url) over a stack, at most `limit` of each layer (`layer_hits`), by
    score descending, then layer (nearest first), then document."""
    found = []
    for number, (archive, index) in enumerate(layers):
        if index is None:
            continue
        def shadowed(url: str) -> bool:
            return any(upper.lookup("GET", url) is not None for upper, _ in layers[:number])
        hits = layer_hits(archive, index, [a for a, _ in layers[number + 1:]], shadowed, clauses, limit)
        found += [(score, number, document, url) for document, score, url in hits]
    return sorted(found, key=lambda e: (-e[0], e[1], e[2]))


def stack_suggest(layers: list, typed: str) -> list[tuple[bytes, int, int, str]]:
    """Suggestions over a stack: (key, layer, document, url) by key, then layer, then document."""
    found = unshadowed(layers, lambda index: [(d, key) for key, d in index.suggest(typed)])
    return sorted(((key, n, d, url) for n, d, key, url in found), key=lambda e: (e[0], e[1], e[2]))
