"""Compact updates (Spec/compact-update.md): the transport form of an update.

- `encode(new, stack)`: the compact update that turns the layered view of `stack` (the bases,
  nearest first) into the archive `new`.
- `decode(data, stack)`: the recipe (Spec/vectors/README.md) of the archive a compact update names,
  from its bases; `apply(data, stack)` writes it and checks it against the update's target
  (`bad-target`), as layers.apply does for an update archive.

Independent of the Swift library: written from the spec alone, on webarc_reader / webarc_writer.
"""

import base64
import bisect
import ctypes
import hashlib
import struct

import zstdblock
from canonical import canonical_key
from layers import layered_view_by_key, positions
from webarc_reader import Archive, ObjectError, Stack, WebarcError, dump_archive, parse_object, read_leb128
from webarc_writer import STRING_LIST, Field, encode_value, flatten_pairs, redirect_object, request_object, response_object, write

MAGIC = b"\x89WEBARCU"
VERSION = 2          # what this writer writes; a reader takes 1 and 2 (version 2: targetBodyData, since 2.1.6)
VERSIONS = (1, 2)
MAX_BASES = 255
MAX_SECTION = 1 << 27          # decoded bytes of a frame, and of a frame's dictionary
FRAME_LEVEL = 22

_lib = zstdblock.libzstd


class CompactError(WebarcError):
    """A compact update that breaks the spec: code `bad-compact` (or `bad-base`, `bad-target`)."""


# ---------------------------------------------------------------------------- frames

def chain_log(history: int, content: int, window: int) -> int:
    """The chain table's size for a large frame (ZstdFrame.chainLog): 2^23 entries of 4 bytes at most,
    less while the table, the history and the content would pass 40 MiB, 2^20 at least, at most window + 1."""
    room, log = (40 << 20) - history - content, 23
    while log > 20 and (4 << log) > room:
        log -= 1
    return min(log, window + 1)


def compress(data: bytes, dictionary: bytes, level: int = FRAME_LEVEL) -> bytes:
    """One frame: content size declared, no checksum, no dictionary ID, `dictionary` as raw-content prefix,
    a window covering the dictionary and the content."""
    cctx = _lib.ZSTD_createCCtx()
    try:
        _lib.ZSTD_CCtx_setParameter(cctx, 100, level)                       # ZSTD_c_compressionLevel
        _lib.ZSTD_CCtx_setParameter(cctx, 202, 0)                           # ZSTD_c_dictIDFlag
        window = max(10, (len(dictionary) + len(data) - 1).bit_length())
        if window > 23:
            _lib.ZSTD_CCtx_setParameter(cctx, 101, min(window, 27))         # ZSTD_c_windowLog
        if window >= 22:  # the match finder's tables capped, as the Swift writer does (ZstdFrame)
            _lib.ZSTD_CCtx_setParameter(cctx, 103, chain_log(len(dictionary), len(data), min(window, 27)))  # ZSTD_c_chainLog
            _lib.ZSTD_CCtx_setParameter(cctx, 102, 18)                      # ZSTD_c_hashLog
        if dictionary:
            _lib.ZSTD_CCtx_refPrefix(cctx, dictionary, len(dictionary))
        capacity = _lib.ZSTD_compressBound(len(data))
        out = ctypes.create_string_buffer(capacity)
        written = _lib.ZSTD_compress2(cctx, out, capacity, data, len(data))
    finally:
        _lib.ZSTD_freeCCtx(cctx)
    if _lib.ZSTD_isError(written):
        raise RuntimeError("ZSTD_compress2 failed")
    return out.raw[:written]


def decompress(frame: bytes, dictionary: bytes, at: int, section: str) -> bytes:
    """The frame's content, checked as the spec says before anything is allocated."""
    def bad(why):
        return CompactError("bad-compact", at, f"{section} frame at {at}: {why}")
    if len(frame) < 4 or struct.unpack_from("<I", frame)[0] != zstdblock.FRAME_MAGIC:
        raise bad("not a Zstandard frame")
    size = _lib.ZSTD_findFrameCompressedSize(frame, len(frame))
    if _lib.ZSTD_isError(size) or size != len(frame):
        raise bad("not exactly one frame")
    content = _lib.ZSTD_getFrameContentSize(frame, len(frame))
    if content >= (1 << 64) - 2:
        raise bad("no content size declared")
    if content > MAX_SECTION:
        raise bad(f"declares {content} bytes, over {MAX_SECTION}")
    if _lib.ZSTD_getDictID_fromFrame(frame, len(frame)) != 0:
        raise bad("declares a dictionary ID")
    out = ctypes.create_string_buffer(max(content, 1))
    dctx = _lib.ZSTD_createDCtx()
    try:
        _lib.ZSTD_DCtx_setParameter(dctx, 100, 27)                          # ZSTD_d_windowLogMax
        if dictionary:
            _lib.ZSTD_DCtx_refPrefix(dctx, dictionary, len(dictionary))
        produced = _lib.ZSTD_decompressDCtx(dctx, out, content, frame, len(frame))
    finally:
        _lib.ZSTD_freeDCtx(dctx)
    if _lib.ZSTD_isError(produced) or produced != content:
        raise bad("does not decode to its declared size")
    return out.raw[:content]


# ---------------------------------------------------------------------------- numbers

def leb(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)


class Reader:
    """A cursor over one decoded section; every error names the section and the position."""

    def __init__(self, data: bytes, section: str, base: int = 0, decoded: bool = True):
        self.data, self.at, self.section, self.base, self.decoded = data, 0, section, base, decoded

    def fail(self, why: str, at: int | None = None):
        """bad-compact: in a decoded section at the frame's offset (the byte named in the message), in
        the file at the byte's own offset."""
        at = self.at if at is None else at
        offset = self.base if self.decoded else self.base + at
        raise CompactError("bad-compact", offset, f"{self.section}, byte {at}: {why}")

    def number(self, bound: int, what: str) -> int:
        start = self.at
        try:
            value, self.at = read_leb128(self.data, self.at)
        except ValueError as e:
            self.fail(f"{what}: {e}", start)
        if value > bound:
            self.fail(f"{what} {value} over its bound {bound}", start)
        return value

    def take(self, n: int, what: str) -> bytes:
        if n > len(self.data) - self.at:
            self.fail(f"{what}: {n} bytes, {len(self.data) - self.at} left")
        out = self.data[self.at:self.at + n]
        self.at += n
        return out

    def object(self, what: str) -> bytes:
        """One §7.1 object: its extent from its own lengths."""
        start = self.at
        self.take(self.u32(what), what)
        for _ in range(self.u32(what)):
            self.take(self.u32(what), what)
            self.take(1, what)
            self.take(self.u32(what), what)
        return self.data[start:self.at]

    def u32(self, what: str) -> int:
        return struct.unpack("<I", self.take(4, what))[0]

    def end(self):
        if self.at != len(self.data):
            self.fail(f"{len(self.data) - self.at} bytes after the section's end")


# ---------------------------------------------------------------------------- compact records

def ascii_lower(text: str) -> str:
    return "".join(chr(ord(c) | 0x20) if "A" <= c <= "Z" else c for c in text)


def derived_headers(headers: list, body: bytes) -> list:
    """Header values the decoder recomputes become a single NUL; a value that starts with NUL gets one more."""
    etag = '"' + hashlib.md5(body).hexdigest() + '"'
    out = []
    for name, value in headers:
        if ascii_lower(name) == "content-length" and value == str(len(body)):
            value = "\0"
        elif ascii_lower(name) == "etag" and value == etag:
            value = "\0"
        elif value.startswith("\0"):
            value = "\0" + value
        out.append([name, value])
    return out


def rebuilt_headers(headers: list, body: bytes) -> list:
    out = []
    for name, value in headers:
        if value == "\0":
            if ascii_lower(name) == "content-length":
                value = str(len(body))
            elif ascii_lower(name) == "etag":
                value = '"' + hashlib.md5(body).hexdigest() + '"'
            else:
                raise ValueError(f"header {name!r}: a derived value where none is defined")
        elif value.startswith("\0"):
            value = value[1:]
        out.append([name, value])
    return out


class _NoBody:
    md5, variant, length = bytes(16), 0, 0


def compact_object(record: dict) -> bytes:
    """A recipe record's compact object: its §7.1 object without `headers`, body reference and length zero."""
    request = request_object(record)
    record = {k: v for k, v in record.items() if k != "headers"}
    if record["kind"] == "response":
        return response_object(record, request, _NoBody()).encode()
    if record["kind"] == "redirect":
        return redirect_object(record, request).encode()
    raise ValueError(f"a {record['kind']} has no compact form")


def compact_headers(record: dict) -> bytes:
    """A recipe record's compact headers: its header list, derived values NUL, as a §7.1 stringList value."""
    headers = record.get("headers", [])
    if record["kind"] == "response":
        headers = derived_headers(headers, base64.b64decode(record["body"]))
    return encode_value(Field("headers", STRING_LIST, flatten_pairs(headers)))


def compact_records(records: list[dict]) -> tuple[bytes, bytes]:
    return b"".join(compact_object(r) for r in records), b"".join(compact_headers(r) for r in records)


def object_record(data: bytes) -> dict:
    """A compact object back to a recipe record without its body (bad-compact when it is not a record)."""
    obj = parse_object(data)
    if obj.class_name not in ("Response", "Redirect"):
        raise ValueError(f"class {obj.class_name!r}, not Response or Redirect")
    request = parse_object(obj.fields["request"][1], 2)

    def text(o, k):
        return o.fields[k][1].decode("utf-8")

    def pairs(o, k):
        if k not in o.fields:
            return []
        raw, n = o.fields[k][1], struct.unpack_from("<I", o.fields[k][1])[0]
        items, at = [], 4
        for _ in range(n):
            length = struct.unpack_from("<I", raw, at)[0]
            items.append(raw[at + 4:at + 4 + length].decode("utf-8"))
            at += 4 + length
        return [[items[i], items[i + 1]] for i in range(0, len(items), 2)]
    out = {"kind": obj.class_name.lower(), "method": text(request, "method"), "url": text(request, "url")}
    if "headers" in request.fields:
        out["requestHeaders"] = pairs(request, "headers")
    out["status"] = struct.unpack("<Q", obj.fields["status"][1])[0]
    if "headers" in obj.fields:
        out["headers"] = pairs(obj, "headers")
    if obj.class_name == "Response":
        for k in ("reason", "mimeType", "textEncoding"):
            if k in obj.fields:
                out[k] = text(obj, k)
        if obj.fields["body"][1] != bytes(20) or obj.fields["bodyLength"][1] != bytes(8):
            raise ValueError("a compact Response's body reference and length must be zero")
    else:
        out["target"] = text(obj, "target")
    if "captureDate" in obj.fields:
        out["captureDate"] = struct.unpack("<q", obj.fields["captureDate"][1])[0]
    return out


def string_list(r: "Reader") -> list[str]:
    """A §7.1 stringList value: u32 count, then u32 length and UTF-8 bytes per string."""
    n = r.u32("header count")
    if n > len(r.data) - r.at:
        r.fail(f"{n} headers, {len(r.data) - r.at} bytes left")
    return [r.take(r.u32("header length"), "header").decode("utf-8") for _ in range(n)]


# ---------------------------------------------------------------------------- the base's view

class BaseView:
    """The layered view of the bases: keys in order, records numbered, each record's body bytes."""

    def __init__(self, stack: list[Archive]):
        Stack(stack)
        self.by_key = layered_view_by_key(stack)
        self.keys = sorted(self.by_key)
        self.key_index = {k: i for i, k in enumerate(self.keys)}
        self.records, self.first_record = [], []
        for k in self.keys:
            self.first_record.append(len(self.records))
            self.records.extend(self.by_key[k])

    def body(self, ordinal: int) -> bytes:
        return base64.b64decode(self.records[ordinal]["body"])

    def default_previous(self, key_ordinal: int) -> int | None:
        """The record whose body is a changed key's default previous version: its first response with a
        non-empty body."""
        start = self.first_record[key_ordinal]
        for i, r in enumerate(self.by_key[self.keys[key_ordinal]]):
            if r["kind"] == "response" and r["body"]:
                return start + i
        return None

    def key_records(self, key_ordinal: int) -> tuple[bytes, bytes]:
        """The compact objects and compact headers of a key's records."""
        return compact_records(self.by_key[self.keys[key_ordinal]])


# ---------------------------------------------------------------------------- encode

def encode(new: Archive, stack: list[Archive], first_source: int | None = None) -> bytes:
    """The compact update from the bases `stack` (nearest first) to `new`; `first_source` replaces the
    first body source (for invalid vectors)."""
    base = BaseView(stack)
    after = layered_view_by_key([new])
    new_keys = sorted(after)
    dropped = [base.key_index[k] for k in base.keys if k not in after]
    touched = [k for k in new_keys if base.by_key.get(k) != after[k]]
    first_body = {}
    for i, r in enumerate(base.records):
        if r["kind"] == "response":
            first_body.setdefault(r["body"], i)

    index = bytearray(leb(len(dropped)))
    last = -1
    for o in dropped:
        index += leb(o - last - 1)
        last = o
    index += leb(len(touched))
    dictionary_objects, dictionary_headers = bytearray(), bytearray()
    counts, objects, headers, sources, previous = bytearray(), bytearray(), bytearray(), bytearray(), bytearray()
    new_bodies: dict[str, int] = {}
    body_stream, body_previous = bytearray(), bytearray()
    last = -1
    for k in touched:
        default = None
        if k in base.key_index:
            o = base.key_index[k]
            index += leb(2 * (o - last - 1))
            last = o
            o_bytes, h_bytes = base.key_records(o)
            dictionary_objects += o_bytes
            dictionary_headers += h_bytes
            default = base.default_previous(o)
        else:
            h = bisect.bisect_left(base.keys, k) - 1
            index += leb(2 * (h + 1) + 1)
            if h >= 0:
                o_bytes, h_bytes = base.key_records(h)
                dictionary_objects += o_bytes
                dictionary_headers += h_bytes
        counts += leb(len(after[k]))
        for r in after[k]:
            objects += compact_object(r)
            headers += compact_headers(r)
            if r["kind"] != "response":
                continue
            if r["body"] in first_body:
                sources += leb(2 * first_body[r["body"]] + 1)
            elif r["body"] in new_bodies:
                sources += leb(2 * new_bodies[r["body"]] + 2)
            else:
                new_bodies[r["body"]] = len(new_bodies)
                sources += leb(0)
                data = base64.b64decode(r["body"])
                prev = default
                if prev is None:
                    prev = similar(base, r, data)
                    previous += leb(1 if prev is None else prev + 2)
                else:
                    previous += leb(0)
                prev_bytes = base.body(prev) if prev is not None else b""
                body_stream += leb(len(data)) + data
                body_previous += leb(len(prev_bytes)) + prev_bytes
    if len(body_previous) > MAX_SECTION or len(body_stream) > MAX_SECTION:
        raise ValueError(f"the new bodies ({len(body_stream)} bytes) or their previous versions "
                         f"({len(body_previous)}) are over {MAX_SECTION} bytes: too large for a compact update")

    meta = new.metadata_page().object
    appendix = new.data[new.appendix_offset:] if new.appendix_offset is not None else b""
    if first_source is not None:
        _, at = read_leb128(bytes(sources), 0)
        sources = leb(first_source) + sources[at:]
    records = meta + leb(len(appendix)) + appendix + counts + objects + headers + sources + previous
    records_dictionary = stack[0].metadata_page().object + dictionary_objects + dictionary_headers
    out = bytearray(MAGIC + bytes([VERSION, len(stack)]))
    for a in stack:
        out += a.archive_digest + leb(a.archive_length)
    out += new.archive_digest + leb(new.archive_length)
    out += hashlib.sha256(new.data[16:new.body_data_end]).digest()     # targetBodyData (version 2)
    for content, dictionary in ((bytes(index), b""), (records, bytes(records_dictionary)),
                                (bytes(body_stream), bytes(body_previous))):
        frame = compress(content, dictionary) if content else b""
        out += leb(len(frame)) + frame
    return bytes(out)


def similar(base: BaseView, record: dict, data: bytes) -> int | None:
    """A base record whose body an added key's body is coded against: same media type, the nearest length
    within 2x (the encoder's choice; the decoder only follows the ordinal)."""
    best = None
    for i, r in enumerate(base.records):
        if r["kind"] != "response" or not r["body"] or r.get("mimeType") != record.get("mimeType"):
            continue
        n = len(base64.b64decode(r["body"]))
        if not (n <= 2 * len(data) and len(data) <= 2 * n):
            continue
        if best is None or abs(n - len(data)) < best[0]:
            best = (abs(n - len(data)), i)
    return None if best is None else best[1]


# ---------------------------------------------------------------------------- decode

def header(data: bytes, stack: list[Archive]) -> tuple[dict, int]:
    """The fixed part: bases (checked against `stack`: bad-base) and the target; (fields, next offset)."""
    if len(data) < len(MAGIC) or data[:len(MAGIC)] != MAGIC:
        raise CompactError("bad-compact", 0, "not a compact update (magic)")
    r = Reader(data, "header", decoded=False)
    r.at = len(MAGIC)
    version = r.take(1, "version")[0]
    if version not in VERSIONS:
        raise CompactError("bad-compact", 8, f"compact update version {version}; this reader reads {VERSIONS}")
    count = r.take(1, "base count")[0]
    if count == 0:
        r.fail("no bases", 9)
    bases = []
    for _ in range(count):
        bases.append((r.take(32, "base digest"), r.number(1 << 62, "base archiveLength")))
    target = (r.take(32, "target digest"), r.number(1 << 62, "target archiveLength"))
    body_data = r.take(32, "target body data digest") if version >= 2 else None
    given = [(a.archive_digest, a.archive_length) for a in stack]
    if given != bases:
        raise CompactError("bad-base", None, "the compact update was made over "
                           + ", ".join(f"{d.hex()} ({n} bytes)" for d, n in bases) + "; given "
                           + ", ".join(f"{d.hex()} ({n} bytes)" for d, n in given))
    return {"bases": bases, "target": target, "bodyData": body_data}, r.at


def decode(data: bytes, stack: list[Archive]) -> tuple[dict, dict]:
    """(fields, recipe): the archive a compact update names, as a writer recipe, from its bases."""
    fields, at = header(data, stack)
    base = BaseView(stack)
    r = Reader(data, "compact update", decoded=False)
    r.at = at

    def frame(section):
        length = r.number(len(data) - r.at, f"{section} frame length")
        return r.at, r.take(length, f"{section} frame")
    index_at, index_frame = frame("index")
    records_at, records_frame = frame("records")
    bodies_at, bodies_frame = frame("bodies")
    r.end()
    keys_n, records_n = len(base.keys), len(base.records)

    ix = Reader(decompress(index_frame, b"", index_at, "index") if index_frame else b"", "index", index_at)
    dropped, last = [], -1
    for _ in range(ix.number(keys_n, "dropped keys")):
        last = last + 1 + ix.number(keys_n, "dropped key gap")
        if last >= keys_n:
            ix.fail(f"dropped key ordinal {last} of {keys_n}")
        dropped.append(last)
    touched, last = [], -1
    for _ in range(ix.number(keys_n + (MAX_SECTION // 8), "touched keys")):
        tag = ix.number(2 * keys_n + 2, "touched key tag")
        if tag % 2 == 0:
            last = last + 1 + tag // 2
            if last >= keys_n:
                ix.fail(f"changed key ordinal {last} of {keys_n}")
            touched.append(("changed", last))
        else:
            touched.append(("added", tag // 2 - 1))
    ix.end()
    if set(dropped) & {o for kind, o in touched if kind == "changed"}:
        raise CompactError("bad-compact", index_at, "index: a key both dropped and changed")

    dictionary_objects, dictionary_headers = bytearray(), bytearray()
    for kind, o in touched:
        if o >= 0:
            o_bytes, h_bytes = base.key_records(o)
            dictionary_objects += o_bytes
            dictionary_headers += h_bytes
    dictionary = stack[0].metadata_page().object + dictionary_objects + dictionary_headers
    rec = Reader(decompress(records_frame, bytes(dictionary), records_at, "records"), "records", records_at)
    meta_at = rec.at
    try:
        meta = parse_object(rec.object("target Archive object"))
    except ObjectError as e:
        rec.fail(f"target Archive object: {e.message}", meta_at)
    if meta.class_name != "Archive" or "writer" not in meta.fields or "bases" in meta.fields or "target" in meta.fields:
        rec.fail("the target Archive object has no Writer, or names bases or a target", meta_at)
    appendix = rec.take(rec.number(1 << 20, "appendix length"), "appendix")
    counts = [rec.number(len(rec.data), "records of a key") for _ in touched]
    if any(c < 1 for c in counts):
        rec.fail("a touched key with no records")
    new_records = []
    for (kind, o), c in zip(touched, counts):
        group = []
        for _ in range(c):
            at = rec.at
            try:
                group.append(object_record(rec.object("record")))
            except (ValueError, WebarcError, UnicodeDecodeError, struct.error, KeyError) as e:
                rec.at = at
                rec.fail(f"record object: {e}")
        new_records.append(group)
    for group in new_records:
        for record in group:
            at = rec.at
            try:
                items = string_list(rec)
            except (ValueError, UnicodeDecodeError) as e:
                rec.at = at
                rec.fail(f"record headers: {e}")
            if len(items) % 2:
                rec.at = at
                rec.fail("record headers: an odd count")
            record["headers"] = [[items[i], items[i + 1]] for i in range(0, len(items), 2)]
    sources = []
    introduced = 0
    for group in new_records:
        for record in group:
            if record["kind"] != "response":
                continue
            s = rec.number(2 * records_n + 2 * introduced + 2, "body source")
            if s == 0:
                sources.append(("new", introduced))
                introduced += 1
            elif s % 2 == 1:
                sources.append(("base", s // 2))
                if s // 2 >= records_n or base.records[s // 2]["kind"] != "response":
                    rec.fail(f"body source: base record {s // 2} is not a response")
            else:
                if s // 2 - 1 >= introduced:
                    rec.fail(f"body source: new body {s // 2 - 1} not introduced yet")
                sources.append(("new", s // 2 - 1))
    previous = []
    owner = [None] * introduced                              # the touched key that introduced each new body
    t = 0
    for i, group in enumerate(new_records):
        for record in group:
            if record["kind"] == "response":
                kind, j = sources[t]
                if kind == "new" and owner[j] is None:
                    owner[j] = i
                t += 1
    for j in range(introduced):
        p = rec.number(records_n + 1, "previous version")
        if p == 0:
            kind, o = touched[owner[j]]
            previous.append(base.default_previous(o) if kind == "changed" else None)
        elif p == 1:
            previous.append(None)
        else:
            if base.records[p - 2]["kind"] != "response":
                rec.fail(f"previous version: base record {p - 2} is not a response")
            previous.append(p - 2)
    rec.end()

    size = sum(len(leb(len(base.body(p)))) + len(base.body(p)) if p is not None else 1 for p in previous)
    if size > MAX_SECTION:
        raise CompactError("bad-compact", bodies_at, f"bodies dictionary of {size} bytes over {MAX_SECTION}")
    dictionary = bytearray()
    for p in previous:
        prev = base.body(p) if p is not None else b""
        dictionary += leb(len(prev)) + prev
    stream = decompress(bodies_frame, bytes(dictionary), bodies_at, "bodies") if bodies_frame else b""
    bodies_reader = Reader(stream, "bodies", bodies_at)
    bodies = [bodies_reader.take(bodies_reader.number(len(stream), "body length"), "body") for _ in range(introduced)]
    bodies_reader.end()

    view = dict(base.by_key)
    previous_key = None
    for o in dropped:
        del view[base.keys[o]]
    t = 0
    for (kind, o), group in zip(touched, new_records):
        key = canonical_key(group[0]["method"], group[0]["url"]).encode("utf-8")
        for record in group:
            if canonical_key(record["method"], record["url"]).encode("utf-8") != key:
                raise CompactError("bad-compact", records_at, "records: one touched key's records name different keys")
            if record["kind"] == "response":
                kind_, j = sources[t]
                body = bodies[j] if kind_ == "new" else base.body(j)
                t += 1
                record["body"] = base64.b64encode(body).decode("ascii")
                try:
                    record["headers"] = rebuilt_headers(record["headers"], body)
                except ValueError as e:
                    raise CompactError("bad-compact", records_at, f"records: {e}") from None
            for k in ("requestHeaders", "headers"):
                if k in record and not record[k]:
                    del record[k]
        if previous_key is not None and key <= previous_key:
            raise CompactError("bad-compact", records_at, f"records: touched key {key!r} not after {previous_key!r}")
        previous_key = key
        if kind == "changed":
            if key != base.keys[o]:
                raise CompactError("bad-compact", records_at, f"records: changed key {o} is {base.keys[o]!r}, its records {key!r}")
        elif key in base.by_key:
            raise CompactError("bad-compact", records_at, f"records: added key {key!r} is in the base")
        view[key] = group
    ordered = [rec_ for k in sorted(view) for rec_ in view[k]]
    archive = dump_archive(meta)
    writer = archive.pop("writer")
    try:
        order = positions(writer.get("order") or ([[0, len(ordered)]] if ordered else []), len(ordered), records_at)
    except WebarcError as e:
        raise CompactError("bad-compact", records_at, f"records: target {e}") from None
    settings = {"level": writer["level"], "dictionaryInterval": writer["dictionaryInterval"]}
    if "zstdLevel" in writer:
        settings["zstdLevel"] = writer["zstdLevel"]
    if writer.get("anchors", 0) not in (0, 1, 2):                   # Appendix C step 13's rule (2.1.5, 2.1.7)
        raise CompactError("bad-target", records_at, f"Writer.anchors {writer['anchors']}: an anchor rule this tool cannot write")
    if writer.get("anchors"):
        settings["anchors"] = writer["anchors"]
    if writer.get("dictionaryPlacement", 0) not in (0, 1):                # Appendix C step 13's placement (2.1.8)
        raise CompactError("bad-target", records_at, f"Writer.dictionaryPlacement {writer['dictionaryPlacement']}: a placement this tool cannot write")
    if writer.get("dictionaryPlacement"):
        settings["dictionaryPlacement"] = writer["dictionaryPlacement"]
    if "groups" in writer:                                          # Appendix C step 16 (2.4)
        settings["groups"] = writer["groups"]
    fields["appendix"] = appendix
    return fields, {"archive": archive, "writer": settings, "records": [ordered[p] for p in order]}


def apply(data: bytes, stack: list[Archive]) -> bytes:
    """The archive a compact update names, appendix included; bad-target when the result is not it."""
    fields, recipe = decode(data, stack)
    result = write(recipe)
    digest, length = fields["target"]
    if len(result) != length or hashlib.sha256(result[-256:]).digest() != digest:
        raise CompactError("bad-target", None, f"the compact update gives archive digest "
                           f"{hashlib.sha256(result[-256:]).hexdigest()}, length {len(result)}; it names "
                           f"{digest.hex()}, length {length}")
    # Version 2 names the SHA-256 of the target's body data (bytes 16 to bodyDataEnd); a tool that
    # copies stored chunks undecoded checks it (this one decodes every chunk, and checks it anyway).
    body_data_end = struct.unpack_from("<Q", result, len(result) - 256 + 40)[0]
    if fields["bodyData"] is not None and hashlib.sha256(result[16:body_data_end]).digest() != fields["bodyData"]:
        raise CompactError("bad-target", None, f"the result's body data has SHA-256 "
                           f"{hashlib.sha256(result[16:body_data_end]).hexdigest()}; the compact update names "
                           f"{fields['bodyData'].hex()}")
    return result + fields["appendix"]
