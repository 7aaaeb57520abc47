"""An independent webarc 1.0 writer (spec §3 to §7, Appendix C for its byte order).

Input is a *recipe* (the `NAME.input.json` schema of Spec/vectors/README.md):
archive metadata plus records in insertion order. The writer works in three
stages so that the vector generator can tamper with any of them:

1. `build(recipe)` -> `Model`: the body store (BDAT bytes, chunk and body
   tables, deduplicated per §5.3), the object list and the lookup entries.
2. `encode_sections(model, layout)` -> the index sections, strings interned
   in Appendix C order while the objects are encoded.
3. `assemble(sections, layout)` -> the file: header, sections at multiples
   of 8, section table, digests.

`write(recipe)` runs all three with the 1.0 layout and is what a 1.0 writer
produces; `Layout` exists only to craft newer-minor vectors.
"""

import base64
import hashlib
import struct
from dataclasses import dataclass, field

import lz4block
from canonical import ascii_upper, canonical_key, canonical_url
from schema import (BODY_REF, BOOL, BTAB_ENTRY_SIZE, CTAB_ENTRY_SIZE, DATE, HEADER_SIZE, INT, LKUP_ENTRY_SIZE,
                    MAGIC, MAX_CHUNK, OBJECT, OBJECT_LIST, REDIRECT_STATUSES, REQUIRED, SECTION_ENTRY_SIZE, STRING,
                    STRING_LIST, UINT)


# ---------------------------------------------------------------------------- model

@dataclass
class Chunk:
    offset: int          # absolute, inside BDAT
    stored_length: int
    raw_length: int
    codec: int           # 0 raw, 1 LZ4 block


@dataclass
class Body:
    digest: bytes
    variant: int
    data: bytes
    first_chunk: int
    chunk_count: int


@dataclass
class Field:
    key: str
    type: int
    value: object        # str, list[str], int, (digest, variant); bytes are written verbatim


@dataclass
class Obj:
    class_name: str
    fields: list[Field]


@dataclass
class LookupEntry:
    key: str
    record: int          # object id
    capture_date: int | None
    insertion: int       # index of the record in the recipe


@dataclass
class Model:
    bdat: bytearray = field(default_factory=bytearray)
    chunks: list[Chunk] = field(default_factory=list)
    bodies: list[Body] = field(default_factory=list)          # in the order first met
    objects: list[Obj] = field(default_factory=list)
    lookup: list[LookupEntry] = field(default_factory=list)


@dataclass
class Layout:
    """How the file is laid out; the defaults are the 1.0 writer's."""
    minor_version: int = 0
    section_entry_size: int = SECTION_ENTRY_SIZE
    btab_entry_size: int = BTAB_ENTRY_SIZE
    ctab_entry_size: int = CTAB_ENTRY_SIZE
    lkup_entry_size: int = LKUP_ENTRY_SIZE
    entry_filler: int = 0            # byte value for the room a larger entry size adds
    section_flags: int = REQUIRED    # flags of the six known sections
    header_flags: int = 0
    header_reserved: bytes = bytes(40)
    appendix: bytes = b""


class WriterError(ValueError):
    pass


# ---------------------------------------------------------------------------- stage 1: build

def build(recipe: dict) -> Model:
    """Bodies and objects in insertion order (Appendix C steps 1 and 2)."""
    model = Model()
    model.objects.append(archive_object(recipe.get("archive", {})))
    for index, record in enumerate(recipe.get("records", [])):
        add_record(model, index, record)
    return model


def archive_object(archive: dict) -> Obj:
    fields = []
    if "created" in archive:
        fields.append(Field("created", DATE, archive["created"]))
    for key in ("creator", "startURL", "baseURL"):
        if key in archive:
            fields.append(Field(key, STRING, archive[key]))
    if archive.get("metadata"):
        fields.append(Field("metadata", STRING_LIST, flatten_pairs(archive["metadata"])))
    return Obj("Archive", fields)


def add_record(model: Model, index: int, record: dict) -> None:
    method, url = record["method"], record["url"]
    if method != ascii_upper(method):
        raise WriterError(f"record {index}: method {method!r} is not upper case")
    key = canonical_key(method, url)                 # raises BadURL (bad-url)
    check_headers(index, record.get("headers", []))
    request_id = len(model.objects)
    model.objects.append(request_object(record))
    if record["kind"] == "response":
        body = base64.b64decode(record["body"], validate=True)
        digest, variant = store_body(model, body)
        model.objects.append(response_object(record, request_id, digest, variant, len(body)))
    elif record["kind"] == "redirect":
        if record["status"] not in REDIRECT_STATUSES:
            raise WriterError(f"record {index}: redirect status {record['status']}")
        canonical_url(record["target"])             # must be absolute: raises BadURL
        model.objects.append(redirect_object(record, request_id))
    else:
        raise WriterError(f"record {index}: unknown kind {record['kind']!r}")
    model.lookup.append(LookupEntry(key, len(model.objects) - 1, record.get("captureDate"), index))


def check_headers(index: int, headers: list) -> None:
    """§6.3: stored bodies are de-chunked, so a recipe must not carry Transfer-Encoding."""
    for name, _ in headers:
        if name.lower() == "transfer-encoding":
            raise WriterError(f"record {index}: Transfer-Encoding must not be stored")


def request_object(record: dict) -> Obj:
    fields = [Field("method", STRING, record["method"]), Field("url", STRING, record["url"])]
    if record.get("requestHeaders"):
        fields.append(Field("headers", STRING_LIST, flatten_pairs(record["requestHeaders"])))
    return Obj("Request", fields)


def response_object(record: dict, request_id: int, digest: bytes, variant: int, length: int) -> Obj:
    status = record["status"]
    if not 100 <= status <= 599:
        raise WriterError(f"status {status} out of range")
    fields = [Field("request", OBJECT, request_id), Field("status", UINT, status)]
    if "reason" in record:
        fields.append(Field("reason", STRING, record["reason"]))
    if record.get("headers"):
        fields.append(Field("headers", STRING_LIST, flatten_pairs(record["headers"])))
    for key in ("mimeType", "textEncoding"):
        if key in record:
            fields.append(Field(key, STRING, record[key]))
    fields.append(Field("body", BODY_REF, (digest, variant)))
    fields.append(Field("bodyLength", UINT, length))
    if "captureDate" in record:
        fields.append(Field("captureDate", DATE, record["captureDate"]))
    return Obj("Response", fields)


def redirect_object(record: dict, request_id: int) -> Obj:
    fields = [Field("request", OBJECT, request_id), Field("status", UINT, record["status"]),
              Field("target", STRING, record["target"])]
    if record.get("headers"):
        fields.append(Field("headers", STRING_LIST, flatten_pairs(record["headers"])))
    if "captureDate" in record:
        fields.append(Field("captureDate", DATE, record["captureDate"]))
    return Obj("Redirect", fields)


def flatten_pairs(pairs: list) -> list[str]:
    return [item for pair in pairs for item in pair]


def store_body(model: Model, data: bytes) -> tuple[bytes, int]:
    """§5.3 deduplication: reuse a stored body only when its bytes are equal."""
    digest = hashlib.md5(data).digest()
    same_digest = [b for b in model.bodies if b.digest == digest]
    for body in same_digest:
        if body.data == data:
            return digest, body.variant
    first_chunk = len(model.chunks)
    for start in range(0, len(data), MAX_CHUNK):
        append_chunk(model, data[start:start + MAX_CHUNK])
    model.bodies.append(Body(digest, len(same_digest), data, first_chunk, len(model.chunks) - first_chunk))
    return digest, len(same_digest)


def append_chunk(model: Model, raw: bytes) -> None:
    """§5.4: LZ4 when the block is smaller than the raw bytes, raw otherwise."""
    block = lz4block.compress(raw)
    stored, codec = (block, 1) if len(block) < len(raw) else (raw, 0)
    model.chunks.append(Chunk(HEADER_SIZE + len(model.bdat), len(stored), len(raw), codec))
    model.bdat += stored


# ---------------------------------------------------------------------------- stage 2: encode

class Interner:
    """Strings by first use; distinct means distinct UTF-8 bytes (no Unicode normalization)."""

    def __init__(self):
        self.ids: dict[bytes, int] = {}
        self.order: list[bytes] = []

    def id(self, text: str) -> int:
        data = text.encode("utf-8")
        if data not in self.ids:
            self.ids[data] = len(self.order)
            self.order.append(data)
        return self.ids[data]


def encode_sections(model: Model, layout: Layout = Layout()) -> dict[str, bytes]:
    """The index sections (Appendix C steps 1, 3 and 4) plus BDAT."""
    strings = Interner()
    objects = [encode_object(obj, strings) for obj in model.objects]
    key_ids = {id(entry): strings.id(entry.key) for entry in sorted(model.lookup, key=lambda e: e.record)}
    return {
        "BDAT": bytes(model.bdat),
        "BTAB": encode_btab(model.bodies, layout),
        "CTAB": encode_ctab(model.chunks, layout),
        "STRS": encode_blob_table(strings.order),
        "OBJS": encode_blob_table(objects),
        "LKUP": encode_lkup(model.lookup, key_ids, layout),
    }


def encode_object(obj: Obj, strings: Interner) -> bytes:
    """§6.2: class id, field count, then key, type, length, value per field."""
    out = bytearray(struct.pack("<II", strings.id(obj.class_name), len(obj.fields)))
    for f in obj.fields:
        key_id = strings.id(f.key)
        value = encode_value(f, strings)
        out += struct.pack("<IBI", key_id, f.type, len(value)) + value
    return bytes(out)


def encode_value(f: Field, strings: Interner) -> bytes:
    if isinstance(f.value, (bytes, bytearray)):
        return bytes(f.value)      # BYTES, types this writer does not know, or a crafted value
    if f.type == UINT:
        return struct.pack("<Q", f.value)
    if f.type in (INT, DATE):
        return struct.pack("<q", f.value)
    if f.type == BOOL:
        return bytes([1 if f.value else 0])
    if f.type == STRING:
        return struct.pack("<I", strings.id(f.value))
    if f.type == OBJECT:
        return struct.pack("<I", f.value)
    if f.type == STRING_LIST:
        return b"".join(struct.pack("<I", strings.id(s)) for s in f.value)
    if f.type == OBJECT_LIST:
        return b"".join(struct.pack("<I", i) for i in f.value)
    if f.type == BODY_REF:
        digest, variant = f.value
        return digest + struct.pack("<I", variant)
    raise WriterError(f"field {f.key!r}: cannot encode type {f.type}")


def table_preamble(entry_size: int, count: int) -> bytes:
    """The 16-byte preamble of BTAB, CTAB and LKUP."""
    return struct.pack("<IIQ", entry_size, 0, count)


def pad_entry(entry: bytes, entry_size: int, filler: int) -> bytes:
    return entry + bytes([filler]) * (entry_size - len(entry))


def encode_btab(bodies: list[Body], layout: Layout) -> bytes:
    """§5.3, sorted by (digest, variant)."""
    out = bytearray(table_preamble(layout.btab_entry_size, len(bodies)))
    for b in sorted(bodies, key=lambda b: (b.digest, b.variant)):
        entry = b.digest + struct.pack("<IIQQII", b.variant, 0, len(b.data), b.first_chunk, b.chunk_count, 0)
        out += pad_entry(entry, layout.btab_entry_size, layout.entry_filler)
    return bytes(out)


def encode_ctab(chunks: list[Chunk], layout: Layout) -> bytes:
    """§5.4, in storage order."""
    out = bytearray(table_preamble(layout.ctab_entry_size, len(chunks)))
    for c in chunks:
        entry = struct.pack("<QIIB", c.offset, c.stored_length, c.raw_length, c.codec) + bytes(7)
        out += pad_entry(entry, layout.ctab_entry_size, layout.entry_filler)
    return bytes(out)


def encode_blob_table(items: list[bytes]) -> bytes:
    """§6.1 / §6.2: count, reserved, ends[count + 1], byte area."""
    ends, total = [0], 0
    for item in items:
        total += len(item)
        ends.append(total)
    return struct.pack("<II", len(items), 0) + struct.pack(f"<{len(ends)}Q", *ends) + b"".join(items)


def lookup_order(entry: LookupEntry):
    """§7.2 / Appendix C step 4: key bytes; newest captureDate first (absent last); later-added first."""
    absent = entry.capture_date is None
    return (entry.key.encode("utf-8"), absent, 0 if absent else -entry.capture_date, -entry.insertion)


def encode_lkup(lookup: list[LookupEntry], key_ids: dict, layout: Layout) -> bytes:
    out = bytearray(table_preamble(layout.lkup_entry_size, len(lookup)))
    for entry in sorted(lookup, key=lookup_order):
        out += pad_entry(struct.pack("<II", key_ids[id(entry)], entry.record), layout.lkup_entry_size,
                         layout.entry_filler)
    return bytes(out)


# ---------------------------------------------------------------------------- stage 3: assemble

@dataclass
class Section:
    type: str
    flags: int
    data: bytes


def default_sections(encoded: dict[str, bytes], layout: Layout = Layout()) -> list[Section]:
    """The six 1.0 sections in the writer's order (Appendix C step 5)."""
    return [Section(t, layout.section_flags, encoded[t]) for t in ("BDAT", "BTAB", "CTAB", "STRS", "OBJS", "LKUP")]


def align8(n: int) -> int:
    return (n + 7) & ~7


def assemble(sections: list[Section], layout: Layout = Layout()) -> bytes:
    """Header, BDAT at 128, index sections at multiples of 8, section table (same order), digests.

    `sections[0]` must be BDAT; the others are laid out in list order and listed in the table
    in the same order.
    """
    assert sections[0].type == "BDAT"
    out = bytearray(HEADER_SIZE) + sections[0].data
    placed = [(sections[0], HEADER_SIZE)]
    out += bytes(align8(len(out)) - len(out))
    index_offset = len(out)
    for section in sections[1:]:
        out += bytes(align8(len(out)) - len(out))
        placed.append((section, len(out)))
        out += section.data
    out += bytes(align8(len(out)) - len(out))
    table_offset = len(out)
    for section, offset in placed:
        entry = section.type.encode("ascii") + struct.pack("<IQQ", section.flags, offset, len(section.data))
        out += pad_entry(entry, layout.section_entry_size, layout.entry_filler)
    write_header(out, layout, index_offset, table_offset, len(placed))
    return bytes(out) + layout.appendix


def write_header(out: bytearray, layout: Layout, index_offset: int, table_offset: int, count: int) -> None:
    """§4; `out` is the whole archive (without appendix)."""
    out[0:48] = MAGIC + struct.pack("<HHIQQQII", 1, layout.minor_version, layout.header_flags, len(out), index_offset,
                                    table_offset, count, layout.section_entry_size)
    out[80:120] = layout.header_reserved
    refresh_digests(out)


def refresh_digests(out: bytearray) -> None:
    """Recompute `indexDigest` and then `headerCheck` from the bytes as they are."""
    archive_length, index_offset = struct.unpack_from("<QQ", out, 16)
    out[48:80] = hashlib.sha256(out[index_offset:archive_length]).digest()
    refresh_header_check(out)


def refresh_header_check(out: bytearray) -> None:
    out[120:128] = hashlib.sha256(out[0:120]).digest()[:8]


# ---------------------------------------------------------------------------- all stages

def write(recipe: dict) -> bytes:
    """What a 1.0 writer produces for `recipe`."""
    model = build(recipe)
    return assemble(default_sections(encode_sections(model)))
