"""An independent webarc 2.1 reader and verifier (spec §4 to §13), plus the JSON dump of the vectors.

`Archive(data)` opens an archive as §4.3 says: the lead and the trailer, in
that order of checks, nothing else. A failure raises `WebarcError` with an
Appendix A code and the byte offset Appendix A names.

- `Archive.lookup(method, url)` follows Appendix B (verified reads).
- `Archive.verify(bases, trusted)` runs the §11.3 checks and returns every
  `Problem` (empty when the archive is valid); warnings go to `.warnings`.
- `check_trust(archive, trusted, now, state)` is §12.4.
- `Stack([top, base, ...])` checks `bad-base` and looks keys up across layers (§13).
- `Archive.dump(bases)` is the dump of Spec/vectors/README.md (valid archives only).
"""

import base64
import hashlib
import struct
import time
from dataclasses import dataclass, field

import ed25519
import lz4block
import zstdblock
import search_index
from canonical import BadURL, ascii_upper, canonical_key
from schema import (APPENDIX_MAGIC, BODY_LEAF, BODY_TREE, BOOL, CHUNK_ENTRY_SIZE, CLASSES, DELTA, DICTIONARY_SIZE,
                    END_MAGIC, FEATURE_DELTA, FEATURE_DICTIONARY, FEATURE_GROUPED, FEATURE_LAYER, MAX_GROUP, SLICE, ZSTD, FIXED_LENGTH, INTERIOR, LEAD_MAGIC,
                    LZ4, LZ4_DICT, MAJOR, MAX_APPENDIX, MAX_BODY, MAX_CHUNK, MAX_COUNT, MAX_HEIGHT, MAX_NESTING,
                    MAX_PAGE, MAX_RATIO, METADATA, NESTED_CLASS, OBJECT, OBJECT_LIST, PAGE_REF_SIZE, RAW,
                    RECORD_CLASSES, RECORD_LEAF, RECORD_TREE, REDIRECT_STATUSES, SIGNATURE_BLOCK,
                    SIGNATURE_BLOCK_LENGTH, SIGNATURE_DOMAIN, STRING, STRING_LIST, SUPPORTED_FEATURES, TRAILER_MAGIC,
                    LISTED_ORIGINS, key_origin, saturating)


class WebarcError(Exception):
    def __init__(self, code: str, offset: int | None, message: str):
        super().__init__(f"{code} at {offset}: {message}")
        self.code, self.offset, self.message = code, offset, message


@dataclass
class Problem:
    check: str           # the §11.3 check name
    code: str            # Appendix A code
    offset: int | None
    message: str


# ---------------------------------------------------------------------------- parsed structures

@dataclass
class PageRef:
    offset: int
    stored_length: int
    raw_length: int
    codec: int
    height: int
    digest: bytes


@dataclass
class ChunkEntry:
    offset: int
    stored_length: int
    raw_length: int
    codec: int
    layer: int
    digest: bytes
    dictionary: "ChunkEntry | None" = None     # a codec-2 entry's dictionary reference
    reference: "ChunkEntry | None" = None      # a codec-3 entry's reference


@dataclass
class BodyEntry:
    md5: bytes
    variant: int
    flags: int
    length: int
    sha256: bytes
    chunks: list[ChunkEntry]
    raw: bytes           # the entry's encoded bytes (copies are compared byte for byte)
    slice_start: int | None = None    # a slice's sliceStart (flags bit 0, §6.3), else None

    @property
    def key(self) -> bytes:
        return self.md5 + struct.pack(">I", self.variant)


@dataclass
class RecordEntry:
    key: bytes
    object: bytes


@dataclass
class Page:
    ref: PageRef
    type: int
    tree: int = 0                                             # interior pages
    children: list = field(default_factory=list)              # interior: [(key, PageRef)]
    records: list = field(default_factory=list)               # record leaf: [RecordEntry]
    bodies: list = field(default_factory=list)                # record leaf copies / body leaf: [BodyEntry]
    object: bytes = b""                                       # metadata
    kind: int = 0                                             # search page (§17.2)
    search_children: list = field(default_factory=list)       # search page: [PageRef]
    payload: bytes = b""                                      # search page

    @property
    def offset(self) -> int:
        return self.ref.offset


@dataclass
class Object:
    class_name: str
    fields: dict         # key -> (type, value bytes)


class PageError(Exception):
    """A violation found inside a decoded page: its code and the position in the decoded page."""

    def __init__(self, code: str, position: int, message: str):
        super().__init__(message)
        self.code, self.position, self.message = code, position, message


class Cursor:
    """Reads a decoded page; every length is checked against the bytes that remain (§10)."""

    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def take(self, n: int, what: str) -> bytes:
        if n > len(self.data) - self.at:
            raise PageError("corrupt-page", self.at, f"{what}: {n} bytes, {len(self.data) - self.at} remain")
        out = self.data[self.at:self.at + n]
        self.at += n
        return out

    def u8(self, what: str) -> int:
        return self.take(1, what)[0]

    def u32(self, what: str) -> int:
        return struct.unpack("<I", self.take(4, what))[0]

    def u64(self, what: str) -> int:
        return struct.unpack("<Q", self.take(8, what))[0]

    def end(self, what: str) -> None:
        if self.at != len(self.data):
            raise PageError("corrupt-page", self.at, f"{what}: {len(self.data) - self.at} bytes after the last entry")


def parse_ref(raw: bytes) -> PageRef:
    offset, stored, raw_length, codec, height = struct.unpack_from("<QIIBB", raw, 0)
    return PageRef(offset, stored, raw_length, codec, height, raw[24:56])


def parse_chunk(raw: bytes) -> ChunkEntry:
    offset, stored, raw_length, codec, layer = struct.unpack_from("<QIIBB", raw, 0)
    return ChunkEntry(offset, stored, raw_length, codec, layer, raw[24:56])


def parse_body_entry(c: Cursor) -> BodyEntry:
    start = c.at
    md5 = c.take(16, "body entry md5")
    variant, flags = c.u32("variant"), c.u32("flags")
    length = c.u64("length")
    sha = c.take(32, "body entry sha256")
    count = c.u32("chunkCount")
    slice_start = c.u32("sliceStart") if flags & SLICE else None
    if count * CHUNK_ENTRY_SIZE > len(c.data) - c.at:
        raise PageError("corrupt-page", c.at - 4, f"chunkCount {count}: more chunk entries than the page holds")
    chunks = []
    for _ in range(count):
        chunk = parse_chunk(c.take(CHUNK_ENTRY_SIZE, "chunk entry"))
        if chunk.codec == LZ4_DICT:
            chunk.dictionary = parse_chunk(c.take(CHUNK_ENTRY_SIZE, "dictionary reference"))
        if chunk.codec == DELTA:
            reference = chunk.reference = parse_chunk(c.take(CHUNK_ENTRY_SIZE, "delta reference"))
            if reference.codec == LZ4_DICT:
                reference.dictionary = parse_chunk(c.take(CHUNK_ENTRY_SIZE, "dictionary reference"))
        chunks.append(chunk)
    return BodyEntry(md5, variant, flags, length, sha, chunks, c.data[start:c.at], slice_start)


def parse_page(ref: PageRef, raw: bytes) -> Page:
    """§5.2 to §5.4: the structure of a decoded page (objects are parsed later, §7)."""
    c = Cursor(raw)
    kind = c.u8("type")
    page = Page(ref, kind)
    if kind == INTERIOR:
        page.tree = c.u8("tree")
        c.take(2, "reserved")
        count = c.u32("count")
        if count == 0:
            raise PageError("corrupt-page", 4, "interior page with count 0")
        for _ in range(count):
            key = c.take(c.u32("keyLength"), "key")
            page.children.append((key, parse_ref(c.take(PAGE_REF_SIZE, "child reference"))))
        c.end("interior page")
    elif kind == RECORD_LEAF:
        c.take(3, "reserved")
        count, body_count = c.u32("count"), c.u32("bodyCount")
        for _ in range(count):
            key = c.take(c.u32("keyLength"), "key")
            page.records.append(RecordEntry(key, c.take(c.u32("objectLength"), "object")))
        for _ in range(body_count):
            page.bodies.append(parse_body_entry(c))
        c.end("record leaf")
    elif kind == BODY_LEAF:
        c.take(3, "reserved")
        for _ in range(c.u32("count")):
            page.bodies.append(parse_body_entry(c))
        c.end("body leaf")
    elif kind == METADATA:
        c.take(3, "reserved")
        page.object = c.take(c.u32("objectLength"), "object")
        c.end("metadata page")
    elif kind == search_index.SEARCH:
        # §17.2: the core parses the head (a known kind, child references of height 0); the
        # payload is the search module's.
        page.kind = c.u8("kind")
        if page.kind not in search_index.KINDS:
            raise PageError("corrupt-page", 1, f"unknown search page kind {page.kind}")
        c.take(2, "reserved")
        count = c.u32("childCount")
        if count > (len(raw) - 8) // PAGE_REF_SIZE:
            raise PageError("corrupt-page", 4, f"childCount {count} past the page's end")
        for i in range(count):
            child = parse_ref(c.take(PAGE_REF_SIZE, "child reference"))
            if child.height != 0:
                raise PageError("corrupt-page", 8 + PAGE_REF_SIZE * i, f"a search child of height {child.height}")
            page.children.append((b"", child))
            page.search_children.append(child)
        page.payload = raw[c.at:]
    else:
        raise PageError("corrupt-page", 0, f"unknown page type {kind}")
    return page


def child_positions(raw: bytes) -> list[int]:
    """Positions of the child references in a decoded interior page (already parsed)."""
    if raw[0] == search_index.SEARCH:
        return [8 + PAGE_REF_SIZE * i for i in range(struct.unpack_from("<I", raw, 4)[0])]
    if raw[0] != INTERIOR:
        return []
    out, at = [], 8
    for _ in range(struct.unpack_from("<I", raw, 4)[0]):
        at += 4 + struct.unpack_from("<I", raw, at)[0]
        out.append(at)
        at += PAGE_REF_SIZE
    return out


# ---------------------------------------------------------------------------- objects (§7)

class ObjectError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


def utf8(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ObjectError("corrupt-index", f"{what} is not valid UTF-8") from None


def object_class(data: bytes) -> str:
    """The class name of an encoded object."""
    if len(data) < 4 or struct.unpack_from("<I", data)[0] > len(data) - 4:
        raise ObjectError("corrupt-index", "object shorter than its class name")
    return utf8(data[4:4 + struct.unpack_from("<I", data)[0]], "class name")


def parse_object(data: bytes, depth: int = 1) -> Object:
    """§7.1 layout; then, for a known class, the types and values of its known keys and its required
    keys. Unknown keys are skipped; nested objects are parsed at `depth` + 1 (at most 4)."""
    if depth > MAX_NESTING:
        raise ObjectError("corrupt-index", f"object nested {depth} deep (at most {MAX_NESTING})")
    at, n = 0, len(data)

    def take(k: int, what: str) -> bytes:
        nonlocal at
        if k > n - at:
            raise ObjectError("corrupt-index", f"{what}: {k} bytes, {n - at} remain in the object")
        out = data[at:at + k]
        at += k
        return out

    def u32(what: str) -> int:
        return struct.unpack("<I", take(4, what))[0]

    class_name = utf8(take(u32("classLength"), "class"), "class name")
    count = u32("fieldCount")
    fields = {}
    for _ in range(count):
        key_bytes = take(u32("keyLength"), "key")
        key = utf8(key_bytes, "key")
        ftype = take(1, "type")[0]
        value = take(u32("length"), f"value of {key!r}")
        if key in fields:
            raise ObjectError("duplicate-key", f"key {key!r} repeats in a {class_name}")
        fields[key] = (ftype, value)
    if at != n:
        raise ObjectError("corrupt-index", f"{n - at} bytes after the last field of a {class_name}")
    obj = Object(class_name, fields)
    if class_name in CLASSES:
        check_fields(obj, depth)
    return obj


def check_fields(obj: Object, depth: int) -> None:
    """§7.1/§7.3: a known key has its type, its length, a well-formed value; required keys are present."""
    schema = CLASSES[obj.class_name]
    for key, (ftype, value) in obj.fields.items():
        if key not in schema:
            continue
        want, _ = schema[key]
        if ftype != want:
            raise ObjectError("corrupt-index", f"{obj.class_name}.{key}: type {ftype}, not {want}")
        if want in FIXED_LENGTH and len(value) != FIXED_LENGTH[want]:
            raise ObjectError("corrupt-index", f"{obj.class_name}.{key}: length {len(value)}")
        if want == BOOL and value[0] > 1:
            raise ObjectError("corrupt-index", f"{obj.class_name}.{key}: bool {value[0]}")
        if want == STRING:
            utf8(value, f"{obj.class_name}.{key}")
        if want == STRING_LIST:
            items = string_list(value, f"{obj.class_name}.{key}")
            if key in ("headers", "metadata") and len(items) % 2:
                raise ObjectError("corrupt-index", f"{obj.class_name}.{key}: odd count {len(items)}")
        if want == OBJECT:
            nested = parse_object(value, depth + 1)
            if nested.class_name != NESTED_CLASS[key]:
                raise ObjectError("corrupt-index", f"{obj.class_name}.{key}: class {nested.class_name}")
        if want == OBJECT_LIST:
            for item in object_list(value, f"{obj.class_name}.{key}"):
                nested = parse_object(item, depth + 1)
                if nested.class_name != NESTED_CLASS[key]:
                    raise ObjectError("corrupt-index", f"{obj.class_name}.{key}: class {nested.class_name}")
    for key, (_, required) in schema.items():
        if required and key not in obj.fields:
            raise ObjectError("corrupt-index", f"{obj.class_name} without required key {key!r}")
    if obj.class_name == "Response" and not 100 <= uint(obj, "status") <= 599:
        raise ObjectError("corrupt-index", f"Response status {uint(obj, 'status')}")
    if obj.class_name == "Base" and len(obj.fields["digest"][1]) != 32:
        raise ObjectError("corrupt-index", "Base digest is not 32 bytes")
    if obj.class_name == "Target" and "bodyData" in obj.fields and len(obj.fields["bodyData"][1]) != 32:
        raise ObjectError("corrupt-index", "Target bodyData is not 32 bytes")
    if obj.class_name == "Writer":
        check_writer(obj)


def check_writer(obj: Object) -> None:
    """§7.3 `Writer`, wherever it is read: a level over 12, a dictionary interval over 2^31 - 1, a
    Zstandard level outside 1 to 22, an `order` that is not pairs of LEB128 integers with lengths of
    at least 1 (§13.2): corrupt-index. Levels 0 and 2 are read; unknown `anchors` and
    `dictionaryPlacement` values are read (a tool that writes again refuses them)."""
    if uint(obj, "level") > 12 or uint(obj, "dictionaryInterval") > (1 << 31) - 1:
        raise ObjectError("corrupt-index", f"Writer level {uint(obj, 'level')} or dictionary interval "
                          f"{uint(obj, 'dictionaryInterval')} out of range")
    if "zstdLevel" in obj.fields and not 1 <= uint(obj, "zstdLevel") <= 22:
        raise ObjectError("corrupt-index", f"Writer zstdLevel {uint(obj, 'zstdLevel')} is not 1 to 22")
    if "groups" in obj.fields and not (65_536 <= uint(obj, "groups") <= MAX_GROUP
                                       and uint(obj, "dictionaryInterval") == 0):
        raise ObjectError("corrupt-index", f"Writer groups {uint(obj, 'groups')} is not 65536 to {MAX_GROUP} "
                          "with dictionary interval 0")
    if "order" in obj.fields:
        try:
            runs = order_runs(obj.fields["order"][1])
        except ValueError as e:
            raise ObjectError("corrupt-index", f"Writer order: {e}") from None
        if any(length < 1 for _, length in runs):
            raise ObjectError("corrupt-index", "Writer order: a run of length 0")


def string_list(value: bytes, what: str) -> list[str]:
    return [utf8(item, what) for item in length_prefixed(value, what)]


def object_list(value: bytes, what: str) -> list[bytes]:
    return length_prefixed(value, what)


def length_prefixed(value: bytes, what: str) -> list[bytes]:
    if len(value) < 4:
        raise ObjectError("corrupt-index", f"{what}: list shorter than its count")
    count, at, out = struct.unpack_from("<I", value)[0], 4, []
    for _ in range(count):
        if len(value) - at < 4:
            raise ObjectError("corrupt-index", f"{what}: list does not fill its value")
        length = struct.unpack_from("<I", value, at)[0]
        at += 4
        if length > len(value) - at:
            raise ObjectError("corrupt-index", f"{what}: list item past its value")
        out.append(value[at:at + length])
        at += length
    if at != len(value):
        raise ObjectError("corrupt-index", f"{what}: list does not fill its value")
    return out


def uint(obj: Object, key: str) -> int:
    return struct.unpack("<Q", obj.fields[key][1])[0]


def date(obj: Object, key: str) -> int:
    return struct.unpack("<q", obj.fields[key][1])[0]


def text(obj: Object, key: str) -> str:
    return obj.fields[key][1].decode("utf-8")


def nested(obj: Object, key: str) -> Object:
    return parse_object(obj.fields[key][1], 2)


def pairs(obj: Object, key: str) -> list[list[str]]:
    if key not in obj.fields:
        return []
    items = string_list(obj.fields[key][1], key)
    return [[items[i], items[i + 1]] for i in range(0, len(items), 2)]


def body_ref(obj: Object) -> tuple[bytes, int]:
    value = obj.fields["body"][1]
    return value[:16], struct.unpack_from("<I", value, 16)[0]


def ref_key(md5: bytes, variant: int) -> bytes:
    return md5 + struct.pack(">I", variant)


# ---------------------------------------------------------------------------- the archive

class Archive:
    # ------------------------------------------------------------------ open (§4.3)

    def __init__(self, data: bytes, supported_features: int = SUPPORTED_FEATURES):
        self.data = data
        self.supported = supported_features
        self.warnings: list[str] = []
        self._pages: dict[int, Page] = {}
        self._open()

    def _open(self) -> None:
        d, n = self.data, len(self.data)
        if n == 0:
            raise WebarcError("empty", 0, "the file is 0 bytes")
        if n < 8 or d[:8] != LEAD_MAGIC:
            raise WebarcError("not-an-archive", 0, "no webarc magic")
        if n < 16:
            raise WebarcError("truncated", n, f"the file is {n} bytes, the lead needs 16")
        self.lead_major, self.lead_minor = struct.unpack_from("<HH", d, 8)
        if self.lead_major != MAJOR:
            raise WebarcError("unsupported-version", 8, f"archive format {self.lead_major} is "
                              f"{'newer' if self.lead_major > MAJOR else 'older'} than this reader (reads {MAJOR}.x)")
        if n < 16 + 256:
            raise WebarcError("truncated", n, f"the file is {n} bytes, shorter than a lead and a trailer")
        self.appendix_offset = None
        if d[-8:] == END_MAGIC:
            end = n
        elif d[-8:] == APPENDIX_MAGIC:
            length = struct.unpack_from("<Q", d, n - 16)[0]
            if length < 16 or length > MAX_APPENDIX or length > n - 272:
                raise WebarcError("bad-appendix", n - 16, f"appendixLength {length} (file {n} bytes)")
            end = n - length
            self.appendix_offset = end
        else:
            raise WebarcError("truncated", n, "the file ends with neither the trailer's nor the appendix's end magic")
        t = end - 256
        self.trailer_offset = t
        if d[t:t + 8] != TRAILER_MAGIC or d[t + 248:t + 256] != END_MAGIC:
            raise WebarcError("truncated", n, f"no trailer magic at {t}")
        if hashlib.sha256(d[t:t + 240]).digest()[:8] != d[t + 240:t + 248]:
            raise WebarcError("trailer-checksum", t + 240, "trailerCheck mismatch")
        (self.major, self.minor, self.flags, self.required, self.optional, self.archive_length,
         self.body_data_end, self.record_count, self.body_count) = struct.unpack_from("<HHIQQQQQQ", d, t + 8)
        if self.major != MAJOR:
            raise WebarcError("bad-trailer", t + 8, f"trailer majorVersion {self.major}")
        if self.minor != self.lead_minor:
            raise WebarcError("bad-trailer", t + 10, f"trailer minorVersion {self.minor}, lead {self.lead_minor}")
        unknown = self.required & ~self.supported
        if unknown:
            bit = (unknown & -unknown).bit_length() - 1
            raise WebarcError("unsupported-feature", t + 16, f"required feature bit {bit}")
        if self.archive_length != end:
            raise WebarcError("bad-trailer", t + 32, f"archiveLength {self.archive_length}, archive ends at {end}")
        if not 16 <= self.body_data_end <= self.archive_length - 256:
            raise WebarcError("bad-trailer", t + 40, f"bodyDataEnd {self.body_data_end}")
        self.metadata_ref = parse_ref(d[t + 64:t + 120])
        self.record_root = parse_ref(d[t + 120:t + 176])
        self.body_root = parse_ref(d[t + 176:t + 232])
        for at, ref in ((t + 64, self.metadata_ref), (t + 120, self.record_root), (t + 176, self.body_root)):
            problem = self.ref_problem(ref)
            if problem:
                raise WebarcError("bad-trailer", at, f"page reference: {problem[1]}")
        if self.record_count > MAX_COUNT:
            raise WebarcError("bad-trailer", t + 48, f"recordCount {self.record_count}")
        if self.body_count > MAX_COUNT:
            raise WebarcError("bad-trailer", t + 56, f"bodyCount {self.body_count}")
        self.archive_digest = hashlib.sha256(d[t:t + 256]).digest()

    @property
    def page_area(self) -> tuple[int, int]:
        return self.body_data_end, self.archive_length - 256

    def ref_problem(self, ref: PageRef) -> tuple[str, str] | None:
        """§5.1 and §10: (code, message) when a page reference breaks a rule, else None."""
        lo, hi = self.page_area
        if not 1 <= ref.stored_length <= MAX_PAGE or not 1 <= ref.raw_length <= MAX_PAGE:
            return "corrupt-page", f"lengths {ref.stored_length}/{ref.raw_length} out of 1..{MAX_PAGE}"
        if ref.codec not in (RAW, LZ4):
            return "corrupt-page", f"page codec {ref.codec}"
        if ref.codec == RAW and ref.stored_length != ref.raw_length:
            return "corrupt-page", "raw page with storedLength != rawLength"
        if ref.codec == LZ4 and ref.stored_length > ref.raw_length + ref.raw_length // 255 + 16:
            return "corrupt-page", "storedLength over the LZ4 bound"
        if not (lo <= ref.offset and ref.offset + ref.stored_length <= hi):
            return "corrupt-page", f"extent [{ref.offset}, {ref.offset + ref.stored_length}) outside the page area [{lo}, {hi})"
        if ref.codec == LZ4 and ref.raw_length > MAX_RATIO * ref.stored_length:
            return "amplification", f"page decodes {ref.raw_length} bytes from {ref.stored_length}"
        return None

    # ------------------------------------------------------------------ pages (§5)

    def read_page(self, ref: PageRef) -> Page:
        """A verified read: bounds, digest before decoding, decode, parse. Cached by offset."""
        cached = self._pages.get(ref.offset)
        if cached is not None and cached.ref == ref:
            return cached
        problem = self.ref_problem(ref)
        if problem:
            raise WebarcError(problem[0], ref.offset, f"page at {ref.offset}: {problem[1]}")
        stored = self.data[ref.offset:ref.offset + ref.stored_length]
        if hashlib.sha256(stored).digest() != ref.digest:
            raise WebarcError("page-digest", ref.offset, f"page at {ref.offset}: SHA-256 mismatch")
        raw = stored if ref.codec == RAW else lz4block.decompress(stored, ref.raw_length)
        if raw is None:
            raise WebarcError("corrupt-page", ref.offset, f"page at {ref.offset}: LZ4 block does not decode to {ref.raw_length} bytes")
        try:
            page = parse_page(ref, raw)
            for position, (_, child) in zip(child_positions(raw), page.children):
                problem = self.ref_problem(child)
                if problem and problem[0] == "corrupt-page":      # named at the parent (§5.1)
                    raise PageError("corrupt-page", position, f"child reference: {problem[1]}")
        except PageError as e:
            raise WebarcError(e.code, ref.offset, f"page at {ref.offset}, byte {e.position}: {e.message}") from None
        self._pages[ref.offset] = page
        return page

    def tree_page(self, ref: PageRef, tree: int) -> Page:
        """A page of a tree, of the type its height calls for (§5, §8)."""
        if ref.height > MAX_HEIGHT:
            raise WebarcError("corrupt-page", ref.offset, f"page at {ref.offset}: height {ref.height} over {MAX_HEIGHT}")
        page = self.read_page(ref)
        leaf = RECORD_LEAF if tree == RECORD_TREE else BODY_LEAF
        if ref.height == 0 and page.type != leaf:
            raise WebarcError("corrupt-page", ref.offset, f"page at {ref.offset}: type {page.type} where a type-{leaf} leaf belongs")
        if ref.height > 0 and (page.type != INTERIOR or page.tree != tree):
            raise WebarcError("corrupt-page", ref.offset,
                              f"page at {ref.offset}: type {page.type} tree {page.tree} where an interior page of tree {tree} belongs")
        return page

    def metadata_page(self) -> Page:
        page = self.read_page(self.metadata_ref)
        if page.type != METADATA or self.metadata_ref.height != 0:
            raise WebarcError("corrupt-page", page.offset, f"page at {page.offset}: type {page.type} where the metadata page belongs")
        return page

    def metadata(self) -> Object:
        page = self.metadata_page()
        try:
            obj = parse_object(page.object)
        except ObjectError as e:
            raise WebarcError(e.code, page.offset, f"page at {page.offset}: {e.message}") from None
        if obj.class_name != "Archive":
            raise WebarcError("corrupt-index", page.offset, f"page at {page.offset}: metadata object of class {obj.class_name}")
        return obj

    def bases(self) -> list[tuple[bytes, int, str | None]]:
        """Archive.bases: (digest, archiveLength, name) nearest first."""
        obj = self.metadata()
        out = []
        if "bases" in obj.fields:
            for item in object_list(obj.fields["bases"][1], "bases"):
                base = parse_object(item, 2)
                out.append((base.fields["digest"][1], uint(base, "archiveLength"),
                            text(base, "name") if "name" in base.fields else None))
        return out

    # ------------------------------------------------------------------ lookup (§8, Appendix B)

    def leaf_for(self, key: bytes, root: PageRef, tree: int) -> Page | None:
        page = self.tree_page(root, tree)
        while page.type == INTERIOR:
            chosen = None
            for k, child in page.children:
                if k <= key:
                    chosen = child
            if chosen is None:
                return None
            page = self.tree_page(chosen, tree)
        return page

    def lookup_key(self, key: bytes) -> tuple[Object, Page] | None:
        """The first entry with `key` whose class this reader knows, with its leaf."""
        leaf = self.leaf_for(key, self.record_root, RECORD_TREE)
        if leaf is None:
            return None
        for entry in leaf.records:
            if entry.key == key:
                try:
                    if object_class(entry.object) not in RECORD_CLASSES:
                        continue
                    return parse_object(entry.object), leaf
                except ObjectError as e:
                    raise WebarcError(e.code, leaf.offset, f"page at {leaf.offset}: {e.message}") from None
        return None

    def lookup(self, method: str, url: str) -> tuple[Object, Page] | None:
        return self.lookup_key(canonical_key(method, url).encode("utf-8"))

    def body_entries_with_md5(self, md5: bytes) -> list[BodyEntry]:
        out = []
        for page in self.leaves(self.body_root, BODY_TREE):
            out += [b for b in page.bodies if b.md5 == md5]
        return out

    def find_body(self, key: bytes) -> BodyEntry | None:
        leaf = self.leaf_for(key, self.body_root, BODY_TREE)
        if leaf is None:
            return None
        return next((b for b in leaf.bodies if b.key == key), None)

    def leaves(self, root: PageRef, tree: int) -> list[Page]:
        page = self.tree_page(root, tree)
        if page.type != INTERIOR:
            return [page]
        return [leaf for _, child in page.children for leaf in self.leaves(child, tree)]

    # ------------------------------------------------------------------ bodies (§6)

    def chunk_bytes(self, c: ChunkEntry, bases: list["Archive"], group: bool = False) -> bytes:
        """A verified chunk: bounds, decode, SHA-256 (§6.2, §11.2). `bases` are this archive's
        bases, nearest first (chunk layer n is bases[n - 1]). `group`: a slice's chunk (§6.3)."""
        source = self
        if c.layer:
            if c.layer > len(bases):
                raise WebarcError("corrupt-index", c.offset, f"chunk at {c.offset}: layer {c.layer}, no such base")
            source = bases[c.layer - 1]
        if c.codec not in (RAW, LZ4, LZ4_DICT, DELTA, ZSTD):
            raise WebarcError("unsupported-codec", c.offset, f"chunk codec {c.codec}")
        if group and c.codec not in (RAW, LZ4, ZSTD):
            raise WebarcError("corrupt-index", c.offset, f"a slice's chunk of codec {c.codec}")
        if c.codec == DELTA:
            r = c.reference
            if r.codec not in (RAW, LZ4, LZ4_DICT):
                raise WebarcError("corrupt-index", c.offset, f"delta reference of codec {r.codec}")
            if not 1 <= r.raw_length <= MAX_CHUNK:
                raise WebarcError("corrupt-index", c.offset, f"delta reference rawLength {r.raw_length}")
        problem = chunk_problem(c, source.body_data_end, MAX_GROUP if group else MAX_CHUNK)
        if problem:
            raise WebarcError(problem[0], c.offset, problem[1])
        stored = source.data[c.offset:c.offset + c.stored_length]
        if c.codec == RAW:
            raw = stored
        elif c.codec == LZ4:
            raw = lz4block.decompress(stored, c.raw_length)
        elif c.codec == LZ4_DICT:
            d = c.dictionary
            if d.codec not in (RAW, LZ4):
                raise WebarcError("corrupt-index", c.offset, f"dictionary reference of codec {d.codec}")
            dictionary = self.chunk_bytes(d, bases)
            raw = lz4block.decompress(stored, c.raw_length, dictionary[-DICTIONARY_SIZE:])
        elif c.codec == ZSTD:
            why = zstdblock.frame_problem(stored, c.raw_length)
            raw = zstdblock.decode(stored, c.raw_length, b"") if why is None else None
            if raw is None:
                raise WebarcError("corrupt-chunk", c.offset,
                                  f"chunk at {c.offset}: {why or f'the Zstandard frame does not decode to {c.raw_length} bytes'}")
        else:
            reference = self.chunk_bytes(c.reference, bases)         # verified by its own digest first
            why = zstdblock.frame_problem(stored, c.raw_length)
            if why is None and reference.startswith(zstdblock.DICTIONARY_MAGIC):
                why = "the reference starts with the Zstandard dictionary magic"
            raw = zstdblock.decode(stored, c.raw_length, reference) if why is None else None
            if raw is None:
                raise WebarcError("corrupt-chunk", c.offset,
                                  f"chunk at {c.offset}: {why or f'the Zstandard frame does not decode to {c.raw_length} bytes'}")
        if raw is None:
            raise WebarcError("corrupt-chunk", c.offset, f"chunk at {c.offset}: LZ4 block does not decode to {c.raw_length} bytes")
        if hashlib.sha256(raw).digest() != c.digest:
            raise WebarcError("chunk-digest", c.offset, f"chunk at {c.offset}: SHA-256 mismatch")
        return raw

    def body_bytes(self, entry: BodyEntry, bases: list["Archive"] | None = None) -> bytes:
        if entry.slice_start is not None:
            problem = slice_problem(entry)
            if problem:
                raise WebarcError("corrupt-index", entry.chunks[0].offset if entry.chunks else 0, problem)
            group = self.group_bytes(entry.chunks[0], bases or [])
            return group[entry.slice_start:entry.slice_start + entry.length]
        return b"".join(self.chunk_bytes(c, bases or []) for c in entry.chunks)

    def group_bytes(self, c: ChunkEntry, bases: list["Archive"]) -> bytes:
        """A slice's chunk, verified once and kept (§6.3: a reader MAY keep a decoded group)."""
        cache = self.__dict__.setdefault("_groups", {})
        key = (c.offset, c.stored_length, c.raw_length, c.codec, c.layer, c.digest)
        if key not in cache:
            cache[key] = self.chunk_bytes(c, bases, group=True)
        return cache[key]

    def read_body(self, entry: BodyEntry, page: Page, bases: list["Archive"] | None = None) -> bytes:
        """A body read lazily through the entry `page` holds (§11.2): a problem Appendix A names at "the
        page's offset" names that page (a record leaf, for the copy a lookup found)."""
        try:
            return self.body_bytes(entry, bases)
        except WebarcError as e:
            if e.code in ("corrupt-index", "unsupported-codec"):
                raise WebarcError(e.code, page.offset, f"page at {page.offset}: {e.message}") from None
            raise

    # ------------------------------------------------------------------ verify (§11.3)

    def verify(self, bases: list["Archive"] | None = None, trusted: list[bytes] | None = None,
               now: int | None = None) -> list[Problem]:
        """Every problem, check by check in §11.3 order, each check's problems in file-offset order.
        `bases`: the update's bases, nearest first (chunks in them are read there); without them,
        chunks of other layers are not checked (a warning says so)."""
        v = _Verifier(self, bases, trusted, now)
        return v.run()

    # ------------------------------------------------------------------ appendix (§12)

    def appendix_blocks(self) -> list[tuple[int, bytes]]:
        """(type, data) of each block; raises bad-appendix when the blocks do not fill the appendix."""
        if self.appendix_offset is None:
            return []
        d, n = self.data, len(self.data)
        at, end, out = self.appendix_offset, n - 16, []
        while at < end:
            if end - at < 8:
                raise WebarcError("bad-appendix", n - 16, f"block header at {at} cut by appendixLength")
            kind, length = struct.unpack_from("<II", d, at)
            if length > end - at - 8:
                raise WebarcError("bad-appendix", n - 16, f"block at {at} runs past appendixLength")
            data = d[at + 8:at + 8 + length]
            if kind == SIGNATURE_BLOCK and length != SIGNATURE_BLOCK_LENGTH:
                raise WebarcError("bad-appendix", n - 16, f"signature block at {at} of length {length}")
            out.append((kind, data))
            at += 8 + length
        return out

    # ------------------------------------------------------------------ dump (Spec/vectors/README.md)

    def dump(self, bases: list["Archive"] | None = None) -> dict:
        """What a reader reads from the archive, in the vectors' JSON shape (valid archives only)."""
        bases = bases or []
        t = self.trailer_offset
        trailer = {
            "majorVersion": self.major, "minorVersion": self.minor, "flags": self.flags,
            "requiredFeatures": self.required, "optionalFeatures": self.optional,
            "archiveLength": self.archive_length, "bodyDataEnd": self.body_data_end,
            "recordCount": self.record_count, "bodyCount": self.body_count,
            "metadata": dump_ref(self.metadata_ref), "recordRoot": dump_ref(self.record_root),
            "bodyRoot": dump_ref(self.body_root),
            "trailerCheck": self.data[t + 240:t + 248].hex(), "archiveDigest": self.archive_digest.hex(),
        }
        records = []
        for leaf in self.leaves(self.record_root, RECORD_TREE):
            copies = {b.key: b for b in leaf.bodies}
            for entry in leaf.records:
                if object_class(entry.object) in RECORD_CLASSES:
                    records.append(self.dump_record(entry, copies, bases))
        bodies = [dump_body(b) for leaf in self.leaves(self.body_root, BODY_TREE) for b in leaf.bodies]
        return {"formatVersion": f"{self.major}.{self.minor}", "trailer": trailer,
                "archive": dump_archive(self.metadata()), "records": records, "bodies": bodies,
                "appendix": [dump_block(kind, data) for kind, data in self.appendix_blocks()]}

    def dump_record(self, entry: RecordEntry, copies: dict, bases: list["Archive"]) -> dict:
        obj = parse_object(entry.object)
        request = nested(obj, "request")
        out = {"kind": obj.class_name.lower(), "key": entry.key.decode("utf-8"),
               "method": ascii_upper(text(request, "method")), "url": text(request, "url"),
               "requestHeaders": pairs(request, "headers")}
        if obj.class_name in ("Response", "Redirect"):
            out["status"] = uint(obj, "status")
            out["headers"] = pairs(obj, "headers")
        if obj.class_name == "Response":
            for key in ("reason", "mimeType", "textEncoding"):
                if key in obj.fields:
                    out[key] = text(obj, key)
            md5, variant = body_ref(obj)
            out["bodyMD5"], out["bodyVariant"], out["bodyLength"] = md5.hex(), variant, uint(obj, "bodyLength")
            out["body"] = base64.b64encode(self.body_bytes(copies[ref_key(md5, variant)], bases)).decode("ascii")
        if obj.class_name == "Redirect":
            out["target"] = text(obj, "target")
        if "captureDate" in obj.fields:
            out["captureDate"] = date(obj, "captureDate")
        return out


def slice_problem(b: BodyEntry) -> str | None:
    """§6.3: why a slice breaks its rules (one chunk, a length of at least 1, inside its chunk), or None."""
    if len(b.chunks) != 1:
        return f"a slice with {len(b.chunks)} chunk entries"
    if b.length < 1:
        return "a slice of length 0"
    if b.slice_start + b.length > b.chunks[0].raw_length:
        return f"slice [{b.slice_start}, {b.slice_start + b.length}) past its chunk's {b.chunks[0].raw_length} bytes"
    return None


def chunk_problem(c: ChunkEntry, body_data_end: int, max_raw: int = MAX_CHUNK) -> tuple[str, str] | None:
    """§6.2 bounds of a chunk entry whose codec is known: (code, message) or None; `max_raw` is
    2 MiB for a slice's chunk (§6.3)."""
    if not 1 <= c.raw_length <= max_raw:
        return "corrupt-index", f"chunk rawLength {c.raw_length}"
    if c.stored_length < 1:
        return "corrupt-index", "chunk storedLength 0"
    if c.codec == RAW and c.stored_length != c.raw_length:
        return "corrupt-index", "raw chunk with storedLength != rawLength"
    if c.codec in (LZ4, LZ4_DICT) and c.stored_length > c.raw_length + c.raw_length // 255 + 16:
        return "corrupt-index", "chunk storedLength over the LZ4 bound"
    if c.codec in (DELTA, ZSTD) and c.stored_length >= c.raw_length:
        return "corrupt-index", f"delta chunk storedLength {c.stored_length} not below rawLength {c.raw_length}"
    if not (16 <= c.offset and c.offset + c.stored_length <= body_data_end):
        return "corrupt-index", f"chunk extent [{c.offset}, {c.offset + c.stored_length}) outside the body data"
    if c.codec in (LZ4, LZ4_DICT, ZSTD) and c.raw_length > MAX_RATIO * c.stored_length:
        return "amplification", f"chunk at {c.offset} decodes {c.raw_length} bytes from {c.stored_length}"
    if c.codec == DELTA and c.raw_length > MAX_RATIO * c.stored_length + c.reference.raw_length:
        return "amplification", (f"delta chunk at {c.offset} decodes {c.raw_length} bytes from {c.stored_length} "
                                 f"and a {c.reference.raw_length}-byte reference")
    return None


# ---------------------------------------------------------------------------- the verifier

class _Verifier:
    CHECKS = ("pages", "trees", "objects", "chunks", "body-digests", "layout", "references", "redirects", "totals",
              "appendix")

    def __init__(self, archive: Archive, bases, trusted, now):
        self.a, self.bases, self.trusted, self.now = archive, bases, trusted, now
        self.problems: list[Problem] = []
        self.check = ""
        # filled by `pages`
        self.record_pages: list[tuple[Page, int]] = []     # (page, depth-first order)
        self.body_pages: list[Page] = []
        self.refs: list[PageRef] = []                      # every page reference met (extents)
        self.incomplete = {RECORD_TREE: False, BODY_TREE: False}
        self.visited: set[tuple] = set()                   # pages read by `pages` (§3: a page named twice is read once)
        self.metadata: Page | None = None
        self.objects: dict[tuple[int, int], Object] = {}   # (leaf offset, index) -> parsed object
        self.body_ok: dict[bytes, bytes] = {}              # body key -> body bytes (chunks verified)
        self.chunk_failed = False

    def report(self, code: str, offset: int | None, message: str) -> None:
        self.problems.append(Problem(self.check, code, offset, message))

    def run(self) -> list[Problem]:
        for name in self.CHECKS:
            self.check = name
            start = len(self.problems)
            getattr(self, "check_" + name.replace("-", "_"))()
            self.problems[start:] = sorted(self.problems[start:], key=lambda p: -1 if p.offset is None else p.offset)
        return self.problems

    # pages ------------------------------------------------------------------
    def check_pages(self) -> None:
        a = self.a
        self.refs.append(a.metadata_ref)
        try:
            self.metadata = a.metadata_page()
        except WebarcError as e:
            self.report(e.code, e.offset, e.message)
        if self.metadata is not None:
            self.walk_search()
        for tree, root in ((BODY_TREE, a.body_root), (RECORD_TREE, a.record_root)):
            self.refs.append(root)
            self.walk(root, tree, is_root=True)

    def walk_search(self) -> None:
        """§17, §11.3: optional feature bit 0 set exactly when the metadata has `search`, bit 1
        exactly when it has `searchIndex` (2.3), bit 2 when it has `searchIndex3` (2.5), bit 3 when
        it has `searchIndex4` (2.6), at most one of them (`corrupt-index` at the metadata page);
        every page of the index read (digest, codec, head) once, each an extent; the root of kind 1;
        a norm page (kind 7) only in an index of version 4, the kind being unknown to the others."""
        a = self.a
        try:
            meta = a.metadata()
        except WebarcError:
            return                                                  # reported by `objects`
        value = None
        for version, key in search_index.KEYS.items():
            named = meta.fields.get(key, (None, None))[1]
            if (named is not None) != bool(a.optional & search_index.FEATURES[version]):
                self.report("corrupt-index", a.metadata_ref.offset,
                            f"page at {a.metadata_ref.offset}: optional feature bit {version - 1} "
                            f"{'without' if named is None else 'clear with'} Archive.{key}")
            if named is not None and value is not None:
                self.report("corrupt-index", a.metadata_ref.offset,
                            f"page at {a.metadata_ref.offset}: more than one index key")
            if named is not None:
                value, name, version_named = named, key, version
        if value is None:
            return
        if len(value) != PAGE_REF_SIZE:
            self.report("corrupt-index", a.metadata_ref.offset, f"page at {a.metadata_ref.offset}: Archive.{name} "
                        f"of {len(value)} bytes")
            return
        root = parse_ref(value)
        self.refs.append(root)
        pending = [root]
        while pending:
            ref = pending.pop()
            name = (ref.offset, ref.stored_length, ref.raw_length, ref.codec, ref.height, ref.digest)
            if name in self.visited:
                continue
            self.visited.add(name)
            try:
                if ref.height != 0:
                    raise WebarcError("corrupt-page", ref.offset, f"page at {ref.offset}: a search page of height {ref.height}")
                page = a.read_page(ref)
                if page.type != search_index.SEARCH or (ref == root and page.kind != search_index.ROOT) \
                        or (page.kind == search_index.NORMS and version_named != 4):
                    raise WebarcError("corrupt-page", ref.offset, f"page at {ref.offset}: type {page.type} kind "
                                      f"{page.kind} where a search page belongs")
            except WebarcError as e:
                self.report(e.code, e.offset, e.message)
                continue
            for child in reversed(page.search_children):
                self.refs.append(child)
                pending.append(child)

    def walk(self, ref: PageRef, tree: int, is_root: bool = False) -> None:
        name = (ref.offset, ref.stored_length, ref.raw_length, ref.codec, ref.height, ref.digest)
        if name in self.visited:
            return                                  # its second name is an extent (`layout`: shared-extent)
        self.visited.add(name)
        try:
            page = self.a.tree_page(ref, tree)
        except WebarcError as e:
            self.report(e.code, e.offset, e.message)
            self.incomplete[tree] = True
            return
        if page.type == INTERIOR:
            for _, child in page.children:
                self.refs.append(child)
                if child.height + 1 != ref.height:
                    self.incomplete[tree] = True     # reported by `trees`
                    continue
                self.walk(child, tree)
            return
        if not is_root and not (page.records if tree == RECORD_TREE else page.bodies):
            self.report("corrupt-page", page.offset, f"page at {page.offset}: an empty leaf that is not the root")
        if tree == RECORD_TREE:
            self.record_pages.append((page, len(self.record_pages)))
        else:
            self.body_pages.append(page)

    # trees ------------------------------------------------------------------
    def check_trees(self) -> None:
        a = self.a
        for tree, root in ((RECORD_TREE, a.record_root), (BODY_TREE, a.body_root)):
            self.tree_structure(root, tree)
        # keys ascend across each tree
        previous = None
        for page, _ in self.record_pages:
            keys = [r.key for r in page.records]
            if any(keys[i] > keys[i + 1] for i in range(len(keys) - 1)):
                self.report("corrupt-index", page.offset, f"page at {page.offset}: record keys out of order")
            if keys and previous is not None and not previous < keys[0]:
                self.report("corrupt-index", page.offset, f"page at {page.offset}: first key not after the previous leaf's last")
            if keys:
                previous = keys[-1]
            body_keys = [b.key for b in page.bodies]
            if any(body_keys[i] >= body_keys[i + 1] for i in range(len(body_keys) - 1)):
                self.report("corrupt-index", page.offset, f"page at {page.offset}: body entries out of order")
        previous = None
        for page in self.body_pages:
            keys = [b.key for b in page.bodies]
            if any(keys[i] >= keys[i + 1] for i in range(len(keys) - 1)) or \
                    (keys and previous is not None and not previous < keys[0]):
                self.report("corrupt-index", page.offset, f"page at {page.offset}: body keys out of order")
            if keys:
                previous = keys[-1]
        # copies in record leaves equal the body tree's entries
        if not self.incomplete[BODY_TREE]:
            tree_entries = {b.key: b for p in self.body_pages for b in p.bodies}
            for page, _ in self.record_pages:
                for b in page.bodies:
                    if b.key in tree_entries and tree_entries[b.key].raw != b.raw:
                        self.report("corrupt-index", page.offset,
                                    f"page at {page.offset}: body entry {b.md5.hex()}/{b.variant} differs from the body tree's")
        # record keys are canonical keys of their requests
        for page, _ in self.record_pages:
            for i, entry in enumerate(page.records):
                obj = self.object_at(page, i)
                if obj is None or obj.class_name not in RECORD_CLASSES:
                    continue
                try:
                    request = nested(obj, "request")
                    want = canonical_key(text(request, "method"), text(request, "url")).encode("utf-8")
                except (BadURL, ObjectError):
                    want = None
                if want != entry.key:
                    self.report("corrupt-index", page.offset,
                                f"page at {page.offset}: key {entry.key!r} is not its request's canonical key")
        # counts equal the trailer's
        t = a.trailer_offset
        if not self.incomplete[RECORD_TREE]:
            count = sum(len(p.records) for p, _ in self.record_pages)
            if count != a.record_count:
                self.report("corrupt-index", t + 48, f"recordCount {a.record_count}, the record tree holds {count}")
        if not self.incomplete[BODY_TREE]:
            count = sum(len(p.bodies) for p in self.body_pages)
            if count != a.body_count:
                self.report("corrupt-index", t + 56, f"bodyCount {a.body_count}, the body tree holds {count}")

    def tree_structure(self, ref: PageRef, tree: int) -> None:
        """Interior pages: child heights one less, keys ascending, each key its child's first key."""
        try:
            page = self.a.tree_page(ref, tree)
        except WebarcError:
            return                                          # reported by `pages`
        if page.type != INTERIOR:
            return
        keys = [k for k, _ in page.children]
        if any(keys[i] >= keys[i + 1] for i in range(len(keys) - 1)):
            self.report("corrupt-index", page.offset, f"page at {page.offset}: interior keys out of order")
        for key, child in page.children:
            if child.height + 1 != ref.height:
                self.report("corrupt-index", page.offset, f"page at {page.offset}: child of height {child.height} under height {ref.height}")
                continue
            first = self.first_key(child, tree)
            if first is not None and first != key:
                self.report("corrupt-index", page.offset, f"page at {page.offset}: key {key!r} is not its child's first key")
            self.tree_structure(child, tree)

    def first_key(self, ref: PageRef, tree: int) -> bytes | None:
        try:
            page = self.a.tree_page(ref, tree)
        except WebarcError:
            return None
        if page.type == INTERIOR:
            return page.children[0][0]
        items = page.records if tree == RECORD_TREE else page.bodies
        return items[0].key if items else None

    def object_at(self, page: Page, i: int) -> Object | None:
        """The parsed object of a record entry (None when it does not parse: `objects` reports it)."""
        key = (page.offset, i)
        if key not in self.objects:
            try:
                self.objects[key] = parse_object(page.records[i].object)
            except ObjectError:
                self.objects[key] = None
        return self.objects[key]

    # objects ----------------------------------------------------------------
    def check_objects(self) -> None:
        if self.metadata is not None:
            try:
                self.a.metadata()
            except WebarcError as e:
                self.report(e.code, e.offset, e.message)
        for page, _ in self.record_pages:
            for entry in page.records:
                try:
                    obj = parse_object(entry.object)
                except ObjectError as e:
                    self.report(e.code, page.offset, f"page at {page.offset}: {e.message}")
                    continue
                if obj.class_name == "Tombstone" and not self.a.required & FEATURE_LAYER:
                    self.report("corrupt-index", page.offset, f"page at {page.offset}: Tombstone in an archive without the layer feature")
                elif obj.class_name in CLASSES and obj.class_name not in RECORD_CLASSES:
                    self.report("corrupt-index", page.offset, f"page at {page.offset}: a {obj.class_name} as a record")

    # chunks -----------------------------------------------------------------
    def check_chunks(self) -> None:
        a = self.a
        declared = len(a.bases()) if self.metadata is not None and self._metadata_ok() else None
        for page in self.body_pages:
            for b in page.bodies:
                self.check_body_chunks(page, b, declared)

    def _metadata_ok(self) -> bool:
        try:
            self.a.metadata()
            return True
        except WebarcError:
            return False

    def check_body_chunks(self, page: Page, b: BodyEntry, declared: int | None) -> None:
        where = f"page at {page.offset}: body {b.md5.hex()}/{b.variant}"
        if b.length > MAX_BODY:
            self.report("corrupt-index", page.offset, f"{where}: length {b.length}")
            return
        entries = []                      # (entry, role): None for a chunk, else "dictionary", "reference" or "group"
        sliced = b.slice_start is not None
        bad = False
        if sliced and not self.a.required & FEATURE_GROUPED:
            self.report("corrupt-index", page.offset, f"{where}: a slice without feature bit 3")
            bad = True
        if sliced and slice_problem(b):
            self.report("corrupt-index", page.offset, f"{where}: {slice_problem(b)}")
            bad = True
        for c in b.chunks:
            entries.append((c, "group" if sliced else None))
            if c.dictionary:
                entries.append((c.dictionary, "dictionary"))
            if c.reference:
                entries.append((c.reference, "reference"))
                if c.reference.dictionary:
                    entries.append((c.reference.dictionary, "dictionary"))
        for c, role in entries:
            if c.codec not in (RAW, LZ4, LZ4_DICT, DELTA, ZSTD):
                self.report("unsupported-codec", page.offset, f"{where}: chunk codec {c.codec}")
                bad = True
                continue
            if (role == "dictionary" and c.codec not in (RAW, LZ4)) or (role == "reference" and c.codec in (DELTA, ZSTD)) \
                    or (role == "group" and c.codec not in (RAW, LZ4, ZSTD)):
                what = {"dictionary": "dictionary reference", "reference": "delta chunk's reference",
                        "group": "slice's chunk"}[role]
                self.report("corrupt-index", page.offset, f"{where}: a {what} of codec {c.codec}")
                bad = True
                continue
            feature = {LZ4_DICT: (FEATURE_DICTIONARY, 1), DELTA: (FEATURE_DELTA, 2), ZSTD: (FEATURE_GROUPED, 3)}.get(c.codec)
            if feature and not self.a.required & feature[0]:
                self.report("corrupt-index", page.offset, f"{where}: a codec-{c.codec} chunk without feature bit {feature[1]}")
                bad = True
                continue
            if c.layer and declared is not None and c.layer > declared:
                self.report("corrupt-index", page.offset, f"{where}: chunk layer {c.layer}, {declared} bases")
                bad = True
                continue
            if c.layer == 0:
                problem = chunk_problem(c, self.a.body_data_end, MAX_GROUP if role == "group" else MAX_CHUNK)
                if problem:
                    self.report(problem[0], page.offset if problem[0] == "corrupt-index" else c.offset,
                                f"{where}: {problem[1]}")
                    bad = True
        if not sliced and sum(c.raw_length for c in b.chunks) != b.length:
            self.report("corrupt-index", page.offset, f"{where}: chunk rawLengths do not add up to length {b.length}")
            bad = True
        if bad:
            return
        if any(c.layer for c, _ in entries) and self.bases is None:
            self.a.warnings.append(f"{where}: chunks in other layers not checked (no bases given)")
            return
        out = bytearray()
        for c in b.chunks:
            try:
                # A slice's group is decoded and checked once (the reader keeps it), its slice taken.
                out += self.a.body_bytes(b, self.bases or []) if sliced else self.a.chunk_bytes(c, self.bases or [])
            except WebarcError as e:
                self.report(e.code, e.offset if e.code != "corrupt-index" else page.offset, f"{where}: {e.message}")
                return
        self.body_ok[b.key] = bytes(out)

    # body-digests -----------------------------------------------------------
    def check_body_digests(self) -> None:
        for page in self.body_pages:
            for b in page.bodies:
                data = self.body_ok.get(b.key)
                if data is None:
                    continue
                if hashlib.md5(data).digest() != b.md5 or hashlib.sha256(data).digest() != b.sha256:
                    first = b.chunks[0].offset if b.chunks else 0
                    self.report("body-digest", first, f"body {b.md5.hex()}/{b.variant}: MD5 or SHA-256 mismatch")

    # layout -----------------------------------------------------------------
    def check_layout(self) -> None:
        a = self.a
        lead_reserved = a.data[12:16]
        for i, byte in enumerate(lead_reserved):
            if byte:
                self.report("bad-layout", 12 + i, "non-zero reserved byte in the lead")
                break
        if any(p.check == "pages" for p in self.problems):
            return                                          # the page set is not known
        extents = []                                        # (offset, end)
        chunk_extents = set()
        dictionaries = []
        groups = set()                                      # a group's extent counts once (§3 rule 3)
        def inside(c):                                      # outside: reported by `chunks`
            return c.layer == 0 and c.stored_length and 16 <= c.offset and c.offset + c.stored_length <= a.body_data_end
        for page in self.body_pages:
            for b in page.bodies:
                for c in b.chunks:
                    if inside(c) and b.slice_start is not None:
                        groups.add((c.offset, c.offset + c.stored_length))
                    elif inside(c):
                        extents.append((c.offset, c.offset + c.stored_length))
                        chunk_extents.add((c.offset, c.offset + c.stored_length))
                    # references (a codec-2 entry's dictionary, a codec-3 entry's reference and its
                    # dictionary) may name any chunk's extent (§3 rule 3)
                    for r in (c.dictionary, c.reference, c.reference.dictionary if c.reference else None):
                        if r is not None and inside(r):
                            dictionaries.append((r.offset, r.offset + r.stored_length))
        extents += sorted(groups)
        chunk_extents |= groups
        extents += sorted({e for e in dictionaries if e not in chunk_extents})
        extents += [(r.offset, r.offset + r.stored_length) for r in self.refs]
        extents.sort()
        at = 16
        for start, end in extents:
            if start > at:
                self.report("bad-layout", at, f"bytes [{at}, {start}) in no extent")
            elif start < at:
                self.report("shared-extent", start, f"extent [{start}, {end}) overlaps another")
            at = max(at, end)
        if at < a.archive_length - 256:
            self.report("bad-layout", at, f"bytes [{at}, {a.archive_length - 256}) in no extent")

    # references -------------------------------------------------------------
    def check_references(self) -> None:
        tree_entries = None if self.incomplete[BODY_TREE] else {b.key: b for p in self.body_pages for b in p.bodies}
        for page, _ in self.record_pages:
            copies = {b.key: b for b in page.bodies}
            named, unknown = set(), False
            for i in range(len(page.records)):
                obj = self.object_at(page, i)
                unknown = unknown or obj is None
                if obj is None or obj.class_name != "Response":
                    continue
                key = ref_key(*body_ref(obj))
                named.add(key)
                entry = copies.get(key)
                if entry is None:
                    self.report("body-not-found", page.offset, f"page at {page.offset}: body {key.hex()} not in the page")
                if tree_entries is not None and key not in tree_entries:
                    self.report("body-not-found", page.offset, f"page at {page.offset}: body {key.hex()} not in the body tree")
                entry = entry or (tree_entries or {}).get(key)
                if entry is not None and uint(obj, "bodyLength") != entry.length:
                    self.report("corrupt-index", page.offset, f"page at {page.offset}: bodyLength {uint(obj, 'bodyLength')}, body {entry.length}")
            for key in copies:
                if key not in named and not unknown:          # an object that does not parse may name it
                    self.report("corrupt-index", page.offset, f"page at {page.offset}: body entry {key.hex()} named by no response")

    # redirects --------------------------------------------------------------
    def check_redirects(self) -> None:
        for page, _ in self.record_pages:
            for i in range(len(page.records)):
                obj = self.object_at(page, i)
                if obj is None or obj.class_name != "Redirect":
                    continue
                status = uint(obj, "status")
                if status not in REDIRECT_STATUSES:
                    self.report("corrupt-index", page.offset, f"page at {page.offset}: redirect status {status}")
                target = text(obj, "target")
                try:
                    key = canonical_key("GET", target).encode("utf-8")
                except BadURL:
                    self.report("corrupt-index", page.offset, f"page at {page.offset}: redirect target {target!r} is not absolute")
                    continue
                try:
                    found = self.a.lookup_key(key)
                except WebarcError:
                    found = None
                if found is None:
                    self.a.warnings.append(f"redirect target {target} is not in the archive")

    # totals (2.2.2) ---------------------------------------------------------
    TOTALS_FIELDS = ("responses", "redirects", "tombstones", "responseBytes", "bodyBytes", "chunks", "originCount",
                     "origins", "baseBodyResponses")

    def check_totals(self) -> None:
        """§7.3 `Totals`, when the metadata has one: equal to what the trees hold (the first field that
        differs: bad-totals at the metadata page). Skipped when a tree was not read whole or a record
        of a known class does not parse."""
        if self.metadata is None or self.incomplete[RECORD_TREE] or self.incomplete[BODY_TREE]:
            return
        try:
            meta = self.a.metadata()
        except WebarcError:
            return
        if "totals" not in meta.fields:
            return
        stored = dump_totals(parse_object(meta.fields["totals"][1], 2))
        counts = {"Response": 0, "Redirect": 0, "Tombstone": 0}
        response_bytes, base_bodies, origins = 0, 0, set()
        for page, _ in self.record_pages:
            copies = {b.key: b for b in page.bodies}
            for i, entry in enumerate(page.records):
                obj = self.object_at(page, i)
                if obj is None:
                    return
                if obj.class_name not in RECORD_CLASSES:
                    continue
                counts[obj.class_name] += 1
                if obj.class_name == "Response":
                    response_bytes += uint(obj, "bodyLength")
                    copy = copies.get(ref_key(*body_ref(obj)))
                    base_bodies += copy is not None and all(c.layer > 0 for c in copy.chunks)
                origin = key_origin(entry.key.decode("utf-8", errors="replace"))
                if origin is not None:
                    origins.add(origin)
        bodies = [b for p in self.body_pages for b in p.bodies]
        walked = {"responses": counts["Response"], "redirects": counts["Redirect"], "tombstones": counts["Tombstone"],
                  "responseBytes": saturating(response_bytes), "bodyBytes": saturating(sum(b.length for b in bodies)),
                  "chunks": sum(len(b.chunks) for b in bodies), "originCount": len(origins),
                  "origins": sorted(origins, key=lambda o: o.encode("utf-8"))[:LISTED_ORIGINS]}
        if "bases" in meta.fields:
            walked["baseBodyResponses"] = base_bodies
        for key in self.TOTALS_FIELDS:
            if stored.get(key, [] if key == "origins" else None) != walked.get(key, [] if key == "origins" else None):
                self.report("bad-totals", self.a.metadata_ref.offset,
                            f"metadata page at {self.a.metadata_ref.offset}: Totals.{key} is {stored.get(key)}, "
                            f"the trees hold {walked.get(key)}")
                return

    # appendix ---------------------------------------------------------------
    def check_appendix(self) -> None:
        try:
            self.a.appendix_blocks()
        except WebarcError as e:
            self.report(e.code, e.offset, e.message)
            return
        if self.trusted is not None:
            try:
                check_trust(self.a, self.trusted, self.now)
            except WebarcError as e:
                self.report(e.code, e.offset, e.message)


# ---------------------------------------------------------------------------- trust (§12.3, §12.4)

@dataclass
class Signature:
    key_id: bytes
    sequence: int
    created: int
    expires: int
    signature: bytes
    head: bytes          # block bytes 0-55


def signatures(archive: Archive) -> list[Signature]:
    out = []
    for kind, data in archive.appendix_blocks():
        if kind == SIGNATURE_BLOCK:
            sequence, created, expires = struct.unpack_from("<Qqq", data, 8)
            out.append(Signature(data[:8], sequence, created, expires, data[56:120], data[:56]))
    return out


def key_id(public: bytes) -> bytes:
    return hashlib.sha256(public).digest()[:8]


def parse_public_key(text_: str) -> bytes:
    """§12.3: `webarc-ed25519-public BASE64 KEYID\\n`; raises ValueError when it does not parse or match."""
    if not text_.endswith("\n") or text_.count("\n") != 1:
        raise ValueError("a key file is one line ending with LF")
    parts = text_[:-1].split(" ")
    if len(parts) != 3 or parts[0] != "webarc-ed25519-public":
        raise ValueError("not a webarc public key")
    public = base64.b64decode(parts[1], validate=True)
    if len(public) != 32 or key_id(public).hex() != parts[2]:
        raise ValueError("key ID does not match the key")
    return public


def parse_private_key(text_: str) -> bytes:
    """§12.3: `webarc-ed25519-private BASE64-SEED KEYID\\n` -> the 32-byte seed."""
    if not text_.endswith("\n") or text_.count("\n") != 1:
        raise ValueError("a key file is one line ending with LF")
    parts = text_[:-1].split(" ")
    if len(parts) != 3 or parts[0] != "webarc-ed25519-private":
        raise ValueError("not a webarc private key")
    seed = base64.b64decode(parts[1], validate=True)
    if len(seed) != 32 or key_id(ed25519.public_key(seed)).hex() != parts[2]:
        raise ValueError("key ID does not match the key")
    return seed


def check_trust(archive: Archive, trusted: list[bytes], now: int | None = None,
                state: dict | None = None) -> Signature:
    """§12.4: the accepted signature, or WebarcError at archiveLength. `state` (keyID -> (sequence,
    archive digest)) is the rollback memory of a reader that keeps one; it is updated on success."""
    if now is None:
        now = int(time.time() * 1000)
    at = archive.archive_length
    sigs = signatures(archive)
    if not sigs:
        raise WebarcError("unsigned", at, "no signature block")
    keys = {key_id(k): k for k in trusted}
    mine = [s for s in sigs if s.key_id in keys]
    if not mine:
        raise WebarcError("untrusted-key", at, "no signature by a trusted key")
    verified = [s for s in mine
                if ed25519.verify(keys[s.key_id], signed_message(archive.archive_digest, s.head), s.signature)]
    if not verified:
        raise WebarcError("bad-signature", at, "a trusted key's signature does not verify")
    current = [s for s in verified if s.expires == 0 or s.expires > now]
    if not current:
        raise WebarcError("expired", at, "the trusted signature has expired")
    accepted = current[0]
    if state is not None:
        # Every signature of a trusted key that verifies, expired or not, is checked against its key's
        # record; then each key records the highest sequence among them, unless it recorded it already.
        for s in verified:
            seen = state.get(s.key_id)
            if seen is not None and (s.sequence < seen[0] or (s.sequence == seen[0] and archive.archive_digest != seen[1])):
                raise WebarcError("rolled-back", at, f"sequence {s.sequence}, already accepted {seen[0]}")
        for kid in {s.key_id for s in verified}:
            highest = max(s.sequence for s in verified if s.key_id == kid)
            if kid not in state or highest > state[kid][0]:
                state[kid] = (highest, archive.archive_digest)
    return accepted


def signed_message(digest: bytes, head: bytes) -> bytes:
    return SIGNATURE_DOMAIN + digest + head + bytes(8)


# ---------------------------------------------------------------------------- layers (§13)

class Stack:
    """Archives read stacked, top first; raises bad-base when the archives below an update are not
    exactly its bases, in order."""

    def __init__(self, archives: list[Archive]):
        self.archives = archives
        for i, a in enumerate(archives):
            below = [(b.archive_digest, b.archive_length) for b in archives[i + 1:]]
            declared = [(digest, length) for digest, length, _ in a.bases()]
            if declared and declared != below:
                raise WebarcError("bad-base", None, f"layer {i}: its bases are not the archives below it")

    def lookup(self, method: str, url: str) -> tuple[int, Object] | None:
        """(layer, object) of the first layer with an entry for the key; a Tombstone means not found."""
        key = canonical_key(method, url).encode("utf-8")
        for i, a in enumerate(self.archives):
            found = a.lookup_key(key)
            if found is not None:
                obj = found[0]
                return None if obj.class_name == "Tombstone" else (i, obj)
        return None

    def listing(self) -> list[tuple[str, int, str]]:
        """The merged view: (key, layer, class) per key from the topmost layer that has it, tombstones omitted."""
        seen, out = set(), []
        for i, a in enumerate(self.archives):
            for leaf in a.leaves(a.record_root, RECORD_TREE):
                for entry in leaf.records:
                    cls = object_class(entry.object)
                    if cls not in RECORD_CLASSES or entry.key in seen:
                        continue
                    seen.add(entry.key)
                    if cls != "Tombstone":
                        out.append((entry.key.decode("utf-8"), i, cls))
        return sorted(out, key=lambda e: e[0].encode("utf-8"))


# ---------------------------------------------------------------------------- dump helpers

def dump_ref(ref: PageRef) -> dict:
    return {"offset": ref.offset, "storedLength": ref.stored_length, "rawLength": ref.raw_length,
            "codec": ref.codec, "height": ref.height, "digest": ref.digest.hex()}


def dump_chunk(c: ChunkEntry) -> dict:
    out = {"offset": c.offset, "storedLength": c.stored_length, "rawLength": c.raw_length, "codec": c.codec,
           "layer": c.layer, "digest": c.digest.hex()}
    if c.dictionary is not None:
        out["dictionary"] = dump_chunk(c.dictionary)
    if c.reference is not None:
        out["reference"] = dump_chunk(c.reference)
    return out


def dump_body(b: BodyEntry) -> dict:
    out = {"md5": b.md5.hex(), "variant": b.variant, "length": b.length, "sha256": b.sha256.hex(),
           "chunks": [dump_chunk(c) for c in b.chunks]}
    if b.slice_start is not None:
        out["sliceStart"] = b.slice_start
    return out


def dump_archive(obj: Object) -> dict:
    out = {}
    if "created" in obj.fields:
        out["created"] = date(obj, "created")
    for key in ("creator", "startURL", "baseURL"):
        if key in obj.fields:
            out[key] = text(obj, key)
    if "metadata" in obj.fields:
        out["metadata"] = pairs(obj, "metadata")
    if "bases" in obj.fields:
        out["bases"] = []
        for item in object_list(obj.fields["bases"][1], "bases"):
            base = parse_object(item, 2)
            entry = {"digest": base.fields["digest"][1].hex(), "archiveLength": uint(base, "archiveLength")}
            if "name" in base.fields:
                entry["name"] = text(base, "name")
            out["bases"].append(entry)
    if "writer" in obj.fields:
        out["writer"] = dump_writer(parse_object(obj.fields["writer"][1], 2))
    if "search" in obj.fields:                                      # since 2.2 (§17)
        out["search"] = dump_ref(parse_ref(obj.fields["search"][1]))
    if "searchIndex" in obj.fields:                                 # since 2.3 (§17: index version 2)
        out["searchIndex"] = dump_ref(parse_ref(obj.fields["searchIndex"][1]))
    if "searchIndex3" in obj.fields:                                # since 2.5 (§17: index version 3)
        out["searchIndex3"] = dump_ref(parse_ref(obj.fields["searchIndex3"][1]))
    if "searchIndex4" in obj.fields:                                # since 2.6 (§17: index version 4)
        out["searchIndex4"] = dump_ref(parse_ref(obj.fields["searchIndex4"][1]))
    if "totals" in obj.fields:                                      # since 2.2.2
        out["totals"] = dump_totals(parse_object(obj.fields["totals"][1], 2))
    if "target" in obj.fields:
        target = parse_object(obj.fields["target"][1], 2)
        out["target"] = {"digest": target.fields["digest"][1].hex(), "archiveLength": uint(target, "archiveLength"),
                         "archive": dump_archive(parse_object(target.fields["archive"][1], 3))}
        if "appendix" in target.fields:
            out["target"]["appendix"] = base64.b64encode(target.fields["appendix"][1]).decode("ascii")
        if "bodyData" in target.fields:
            out["target"]["bodyData"] = target.fields["bodyData"][1].hex()
    return out


def dump_totals(totals: Object) -> dict:
    """§7.3 `Totals` (2.2.2): every field present, `origins` a list (empty when absent)."""
    out = {key: uint(totals, key) for key in
           ("responses", "redirects", "tombstones", "responseBytes", "bodyBytes", "chunks", "originCount")}
    out["origins"] = string_list(totals.fields["origins"][1], "origins") if "origins" in totals.fields else []
    if "baseBodyResponses" in totals.fields:
        out["baseBodyResponses"] = uint(totals, "baseBodyResponses")
    return out


def dump_writer(writer: Object) -> dict:
    """`Writer`: level, dictionary interval, `order` as its runs [[start, length], ...], the Zstandard
    level of Appendix C step 15 (since 2.1.1), the anchor rule of step 13 (since 2.1.5) and its
    dictionary placement (since 2.1.8), each when present."""
    out = {"level": uint(writer, "level"), "dictionaryInterval": uint(writer, "dictionaryInterval")}
    if "order" in writer.fields:
        out["order"] = order_runs(writer.fields["order"][1])
    if "zstdLevel" in writer.fields:
        out["zstdLevel"] = uint(writer, "zstdLevel")
    if "anchors" in writer.fields:                                  # Appendix C step 13's rule (2.1.5)
        out["anchors"] = uint(writer, "anchors")
    if "dictionaryPlacement" in writer.fields:                      # step 13's dictionary placement (2.1.8)
        out["dictionaryPlacement"] = uint(writer, "dictionaryPlacement")
    if "search" in writer.fields:                                   # the index rules (2.2, §17.1)
        out["search"] = uint(writer, "search")
    if "groups" in writer.fields:                                   # Appendix C step 16's limit (2.4)
        out["groups"] = uint(writer, "groups")
    return out


def read_leb128(data: bytes, at: int) -> tuple[int, int]:
    """An unsigned LEB128 integer of at most 10 bytes at `at`: (value, next position); ValueError if it is not one."""
    value = 0
    for i in range(10):
        if at + i >= len(data):
            raise ValueError("LEB128 integer cut short")
        byte = data[at + i]
        value |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            if value >= 1 << 64:
                raise ValueError("LEB128 integer over 64 bits")
            return value, at + i + 1
    raise ValueError("LEB128 integer longer than 10 bytes")


def order_runs(data: bytes) -> list[list[int]]:
    """§13.2: `Writer.order` as pairs [start, length]; ValueError when it does not parse as pairs."""
    runs, at = [], 0
    while at < len(data):
        start, at = read_leb128(data, at)
        if at >= len(data):
            raise ValueError("a run without its length")
        length, at = read_leb128(data, at)
        runs.append([start, length])
    return runs


def dump_block(kind: int, data: bytes) -> dict:
    if kind == SIGNATURE_BLOCK:
        sequence, created, expires = struct.unpack_from("<Qqq", data, 8)
        return {"type": kind, "keyID": data[:8].hex(), "sequence": sequence, "created": created,
                "expires": expires, "signature": data[56:120].hex()}
    return {"type": kind, "data": base64.b64encode(data).decode("ascii")}
