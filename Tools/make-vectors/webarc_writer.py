"""An independent webarc 2.1 writer (spec §3 to §8, §12, §13; Appendix C for its byte order).

Input is a *recipe* (the `NAME.input.json` schema of Spec/vectors/README.md):
archive metadata plus records in insertion order. The writer works in stages
so that the vector generator can tamper with any of them and still get every
digest of the chain recomputed:

1. `build(recipe, bases)` -> `Model`: the body store (body data, body entries
   with their chunk entries, deduplicated per §6.3), the records (key, object,
   body) and the `Archive` object with its `Writer` (Appendix C steps 1, 2, 7 and 10); a body
   given its previous version in a base is coded against it where that pays (step 14); given a
   Zstandard level, a body step 13 gives a dictionary is coded against the anchor's chunk (step 15).
2. `plan(model)` -> `Plan`: the pages of both trees and the metadata page as
   Python objects (Appendix C steps 3 to 7).
3. `serialize(model, plan)` -> bytes: every page encoded, compressed, placed
   and named by its parent's reference (step 8), then the trailer (step 9).
4. `sign(archive, blocks)`: the appendix (§12), which never changes the
   archive's bytes.

`write(recipe, bases)` runs the first three stages.
"""

import base64
import hashlib
import struct
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

import ed25519
import lz4block
import search_index
import zstdblock
from canonical import ascii_upper, canonical_key, canonical_url
from schema import (APPENDIX_MAGIC, BODY_LEAF, BODY_REF, BODY_TREE, BOOL, BYTES, DATE, DELTA, DICTIONARY_SIZE,
                    END_MAGIC, FEATURE_DELTA, FEATURE_DICTIONARY, FEATURE_GROUPED, FEATURE_LAYER, MAX_GROUP,
                    SLICE, ZSTD, INT, INTERIOR, LEAD_MAGIC, LZ4,
                    LZ4_DICT, MAJOR, MAX_CHUNK, MAX_PAGE, METADATA, OBJECT, OBJECT_LIST, PAGE_REF_SIZE, PAGE_TARGET, RAW, RECORD_LEAF,
                    RECORD_TREE, REDIRECT_STATUSES, SIGNATURE_BLOCK, SIGNATURE_DOMAIN, STRING, STRING_LIST,
                    TRAILER_MAGIC, UINT, LISTED_ORIGINS, key_origin, saturating)


class WriterError(ValueError):
    pass


# ---------------------------------------------------------------------------- model

@dataclass
class Chunk:
    """A chunk entry (§6.2)."""
    offset: int
    stored_length: int
    raw_length: int
    codec: int
    digest: bytes                    # SHA-256 of the decoded bytes
    layer: int = 0
    reserved: bytes = bytes(6)
    dictionary: "Chunk | None" = None   # the dictionary reference of a codec-2 entry
    reference: "Chunk | None" = None    # the reference of a codec-3 entry (a delta chunk)

    def encode(self) -> bytes:
        """The entry, then the entry that follows it in its body entry (§6.2): a codec-2 entry's
        dictionary reference, a codec-3 entry's reference (itself followed by its dictionary
        reference when it is of codec 2)."""
        out = struct.pack("<QIIBB", self.offset, self.stored_length, self.raw_length, self.codec, self.layer)
        out += self.reserved + self.digest
        if self.dictionary is not None:
            out += self.dictionary.encode()
        if self.reference is not None:
            out += self.reference.encode()
        return out


@dataclass
class BodyEntry:
    """A body entry (§6.3)."""
    md5: bytes
    variant: int
    length: int
    sha256: bytes
    chunks: list[Chunk]
    flags: int = 0
    slice_start: int | None = None       # a slice's sliceStart (flags bit 0, §6.3)

    @property
    def key(self) -> bytes:
        """§5.3: MD5 then the variant as a big-endian u32."""
        return self.md5 + struct.pack(">I", self.variant)

    def encode(self) -> bytes:
        out = self.md5 + struct.pack("<IIQ", self.variant, self.flags, self.length) + self.sha256
        out += struct.pack("<I", len(self.chunks))
        if self.slice_start is not None:
            out += struct.pack("<I", self.slice_start)
        return out + b"".join(c.encode() for c in self.chunks)


class Raw(bytes):
    """A field value written verbatim, whatever the field's type (for crafted vectors)."""


@dataclass
class Field:
    key: str
    type: int
    value: object    # int, bool, str, list[str], Obj, list[Obj], (md5, variant), bytes; or Raw


@dataclass
class Obj:
    class_name: str
    fields: list[Field]

    def encode(self) -> bytes:
        """§7.1: class, field count, then key, type, length, value per field."""
        name = self.class_name.encode("utf-8")
        out = bytearray(struct.pack("<I", len(name)) + name + struct.pack("<I", len(self.fields)))
        for f in self.fields:
            key = f.key.encode("utf-8")
            value = encode_value(f)
            out += struct.pack("<I", len(key)) + key + struct.pack("<BI", f.type, len(value)) + value
        return bytes(out)

    def field(self, key: str) -> Field:
        return next(f for f in self.fields if f.key == key)


def encode_value(f: Field) -> bytes:
    v = f.value
    if isinstance(v, Raw):
        return bytes(v)
    if f.type == UINT:
        return struct.pack("<Q", v)
    if f.type in (INT, DATE):
        return struct.pack("<q", v)
    if f.type == BOOL:
        return bytes([1 if v else 0])
    if f.type == STRING:
        return v.encode("utf-8")
    if f.type == BYTES:
        return bytes(v)
    if f.type == OBJECT:
        return v.encode()
    if f.type == STRING_LIST:
        out = bytearray(struct.pack("<I", len(v)))
        for s in v:
            data = s.encode("utf-8")
            out += struct.pack("<I", len(data)) + data
        return bytes(out)
    if f.type == OBJECT_LIST:
        out = bytearray(struct.pack("<I", len(v)))
        for o in v:
            data = o.encode()
            out += struct.pack("<I", len(data)) + data
        return bytes(out)
    if f.type == BODY_REF:
        md5, variant = v
        return md5 + struct.pack("<I", variant)
    raise WriterError(f"field {f.key!r}: cannot encode type {f.type}")


@dataclass
class Record:
    """One entry of the record tree."""
    key: str                         # canonical key
    obj: Obj
    capture_date: int | None
    insertion: int                   # index in the recipe
    body: BodyEntry | None = None    # a Response's body
    key_bytes: bytes | None = None   # crafted: a key other than `key`

    def encoded_key(self) -> bytes:
        return self.key_bytes if self.key_bytes is not None else self.key.encode("utf-8")

    def sort_key(self):
        """Appendix C step 5: key bytes; newest captureDate first (absent last); later-added first."""
        absent = self.capture_date is None
        return (self.encoded_key(), absent, 0 if absent else -self.capture_date, -self.insertion)


@dataclass
class Model:
    archive: Obj
    records: list[Record] = field(default_factory=list)
    bodies: list[BodyEntry] = field(default_factory=list)       # in the order first met
    body_data: bytearray = field(default_factory=bytearray)
    minor: int = 1  # a 2.1 writer (§4.1)
    flags: int = 0
    required: int = 0
    optional: int = 0
    body_bytes: dict = field(default_factory=dict)              # md5 -> [(bytes, BodyEntry)], this archive's
    dictionary_interval: int = 0                                # Appendix C step 13; 0: no dictionaries
    anchor_rule: int = 0                                        # step 13's rule (`Writer.anchors`): 0, 1 keyed, 2 local minimum
    placement: int = 0                                          # step 13 (`Writer.dictionaryPlacement`): 0 apart, 1 prefix (2.1.8)
    local_anchors: list | None = None                           # rule 2: each position's anchor position, planned up front
    next_position: int = 0                                      # bodies added so far, duplicates included
    last_anchor: int = 0                                        # the latest anchor's position
    anchor_dictionary: bytes | None = None                      # the latest anchor's last chunk, last 64 KiB
    anchor_reference: "Chunk | None" = None                     # the chunk holding it, once known or stored
    zstd_level: int | None = None                               # Appendix C step 15; None: off
    zstd_reference: bytes | None = None                         # step 15: the decoded bytes of that chunk
    search: int | None = None                                   # §17: the index rules version (`Writer.search`); None: no index
    response_bytes: dict = field(default_factory=dict)          # §17: recipe index -> a response's body (a base's too)
    totals: bool = True                                         # §7.3 `Archive.totals` (2.2.2); False: an older writer
    groups: int | None = None                                   # Appendix C step 16's limit (`Writer.groups`); None: off
    group_bytes: bytearray = field(default_factory=bytearray)   # step 16: the open group's bytes
    group_members: list = field(default_factory=list)           # step 16: the open group's slices


# ---------------------------------------------------------------------------- stage 1: build

def build(recipe: dict, bases: list | None = None) -> Model:
    """Bodies and records in insertion order (Appendix C steps 1, 2 and 10).

    `bases` are opened base archives (webarc_reader.Archive, nearest first) for an update
    archive: a body equal to one of a base is not stored again; its entry takes the base's chunk
    entries with `layer` set to the base's position (§13, Appendix C step 11).
    """
    bases = bases or []
    settings = recipe.get("writer", {})
    level = settings.get("level", 1)
    if level != 1:
        raise WriterError(f"level {level}: this writer implements level 1 only")
    model = Model(archive_object(recipe.get("archive", {})))
    model.totals = recipe.get("totals", True)
    model.dictionary_interval = settings.get("dictionaryInterval", 0)
    anchors = settings.get("anchors", 0)
    if anchors not in (0, 1, 2):
        raise WriterError(f"anchor rule {anchors}: this writer knows 0 (every n-th), 1 (keyed) and 2 (local minimum)")
    model.anchor_rule = anchors
    placement = settings.get("dictionaryPlacement", 0)
    if placement not in (0, 1):
        raise WriterError(f"dictionary placement {placement}: this writer knows 0 (apart) and 1 (prefix)")
    model.placement = placement if model.dictionary_interval else 0
    if anchors == 2 and model.dictionary_interval > 0:
        model.local_anchors = local_minimum_anchors(position_bodies(recipe.get("records", [])), model.dictionary_interval)
    model.zstd_level = settings.get("zstdLevel")
    if model.zstd_level is not None and not 1 <= model.zstd_level <= 22:
        raise WriterError(f"Zstandard level {model.zstd_level}: 1 to 22")
    model.groups = settings.get("groups")
    if model.groups is not None:
        if not 65_536 <= model.groups <= MAX_GROUP or model.dictionary_interval:
            raise WriterError(f"group limit {model.groups}: 65536 to {MAX_GROUP}, with dictionary interval 0")
        if bases:
            model.groups = None                                 # step 16: an update does not group
    model.search = settings.get("search")
    if model.search not in (None, *search_index.VERSIONS):
        raise WriterError(f"search index rules {model.search}: this writer knows {search_index.VERSIONS}")
    for index, record in enumerate(recipe.get("records", [])):
        add_record(model, index, record, bases)
    close_group(model)
    set_writer(model, writer_object({"level": level, "dictionaryInterval": model.dictionary_interval, "groups": model.groups,
                                     "order": order_runs(model.records), "zstdLevel": model.zstd_level,
                                     "anchors": model.anchor_rule if model.dictionary_interval else 0,
                                     "search": model.search, "dictionaryPlacement": model.placement}))
    if model.search is not None:
        # §17: version 1 makes a 2.2 file, optional feature bit 0, `Archive.search`; version 2 a 2.3
        # file, bit 1, `Archive.searchIndex` (its value set once the root is stored).
        # Version 3 (block-coded postings) a 2.5 file, bit 2, `Archive.searchIndex3`; version 4
        # (Rice-coded postings, norm pages) a 2.6 file, bit 3, `Archive.searchIndex4`.
        model.minor = {1: 2, 2: 3, 3: 5, 4: 6}[model.search]
        model.optional |= search_index.FEATURES[model.search]
        model.archive.fields.append(Field(search_index.KEYS[model.search], BYTES, bytes(PAGE_REF_SIZE)))
    if model.groups is not None or any(b.required & FEATURE_GROUPED for b in bases):
        model.minor = max(model.minor, 4)                       # §4.1: a grouping writer's archive is 2.4
    entries = [c for b in model.bodies for c in all_chunks(b)]
    if bases or recipe.get("archive", {}).get("bases") or any(r.obj.class_name == "Tombstone" for r in model.records) \
            or any(c.layer for c in entries):
        model.required |= FEATURE_LAYER
    if any(c.codec == LZ4_DICT for c in entries):
        model.required |= FEATURE_DICTIONARY
    if any(c.codec == DELTA for c in entries):
        model.required |= FEATURE_DELTA
    if any(c.codec == ZSTD for c in entries) or any(b.slice_start is not None for b in model.bodies):
        model.required |= FEATURE_GROUPED
    return model


def all_chunks(body: BodyEntry) -> list[Chunk]:
    """Every chunk entry of a body entry: its chunks and the entries that follow them (§6.2)."""
    def entries(c: Chunk | None) -> list[Chunk]:
        return [] if c is None else [c] + entries(c.dictionary) + entries(c.reference)
    return [x for c in body.chunks for x in entries(c)]


def order_runs(records: list["Record"]) -> list[list[int]]:
    """§13.2: the record-tree positions of the records in insertion order, as the fewest runs
    [start, length]; [] when that is one run from 0 (the tree's order)."""
    tree = sorted(range(len(records)), key=lambda i: records[i].sort_key())
    position = {index: p for p, index in enumerate(tree)}
    runs: list[list[int]] = []
    for index in range(len(records)):
        p = position[index]
        if runs and runs[-1][0] + runs[-1][1] == p:
            runs[-1][1] += 1
        else:
            runs.append([p, 1])
    return [] if len(runs) <= 1 else runs


leb128 = search_index.leb128                                     # unsigned LEB128 (§13.2)


def writer_object(writer: dict) -> Obj:
    """§7.3 `Writer`, in table order: `order` given as runs [[start, length], ...] (absent or empty:
    tree order); `zstdLevel` when set (absent or None: step 15 off)."""
    fields = [Field("level", UINT, writer["level"]), Field("dictionaryInterval", UINT, writer["dictionaryInterval"])]
    if writer.get("order"):
        fields.append(Field("order", BYTES, b"".join(leb128(start) + leb128(length) for start, length in writer["order"])))
    if writer.get("zstdLevel") is not None:
        fields.append(Field("zstdLevel", UINT, writer["zstdLevel"]))
    if writer.get("anchors"):
        fields.append(Field("anchors", UINT, writer["anchors"]))
    if writer.get("search") is not None:
        fields.append(Field("search", UINT, writer["search"]))
    if writer.get("dictionaryPlacement"):
        fields.append(Field("dictionaryPlacement", UINT, writer["dictionaryPlacement"]))
    if writer.get("groups") is not None:
        fields.append(Field("groups", UINT, writer["groups"]))
    return Obj("Writer", fields)


def set_writer(model: Model, writer: Obj) -> None:
    """Appendix C step 7: this writer's `Writer`, whatever the caller's metadata held, in table order."""
    fields = [f for f in model.archive.fields if f.key != "writer"]
    at = next((i for i, f in enumerate(fields) if f.key == "target"), len(fields))
    fields.insert(at, Field("writer", OBJECT, writer))
    model.archive.fields = fields


def totals_object(totals: dict) -> Obj:
    """§7.3 `Totals` (2.2.2), in table order: `origins` omitted when empty, `baseBodyResponses`
    only when given (an archive with bases)."""
    fields = [Field(key, UINT, totals[key]) for key in
              ("responses", "redirects", "tombstones", "responseBytes", "bodyBytes", "chunks", "originCount")]
    if totals.get("origins"):
        fields.append(Field("origins", STRING_LIST, totals["origins"]))
    if "baseBodyResponses" in totals:
        fields.append(Field("baseBodyResponses", UINT, totals["baseBodyResponses"]))
    return Obj("Totals", fields)


def model_totals(model: "Model") -> dict:
    """§7.3 `Totals` of what the model holds: its records by class (a class this writer does not
    know counts for nothing), their bodies' lengths, its body entries and their chunks, the origins
    of the counted records' keys; with `bases`, the responses whose body entry's chunks all lie in
    a base."""
    counts = {"Response": 0, "Redirect": 0, "Tombstone": 0}
    response_bytes, base_bodies, origins = 0, 0, set()
    for r in model.records:
        if r.obj.class_name not in counts:
            continue
        counts[r.obj.class_name] += 1
        if r.obj.class_name == "Response":
            length = next((f.value for f in r.obj.fields if f.key == "bodyLength"), 0)
            response_bytes += length if isinstance(length, int) else 0      # crafted: a value of another type
            base_bodies += r.body is not None and all(c.layer > 0 for c in r.body.chunks)
        origin = key_origin(r.encoded_key().decode("utf-8", errors="replace"))
        if origin is not None:
            origins.add(origin)
    listed = sorted(origins, key=lambda o: o.encode("utf-8"))[:LISTED_ORIGINS]
    totals = {"responses": counts["Response"], "redirects": counts["Redirect"], "tombstones": counts["Tombstone"],
              "responseBytes": saturating(response_bytes),
              "bodyBytes": saturating(sum(b.length for b in model.bodies)),
              "chunks": sum(len(b.chunks) for b in model.bodies), "originCount": len(origins), "origins": listed}
    if any(f.key == "bases" for f in model.archive.fields):
        totals["baseBodyResponses"] = base_bodies
    return totals


def set_totals(model: "Model") -> None:
    """§7.3 `Archive.totals`: this writer's counts, whatever the caller's metadata held, as the
    last field (table order); none for an older writer (`model.totals` False)."""
    fields = [f for f in model.archive.fields if f.key != "totals"]
    if model.totals:
        fields.append(Field("totals", OBJECT, totals_object(model_totals(model))))
    model.archive.fields = fields


def archive_object(archive: dict) -> Obj:
    fields = []
    if "created" in archive:
        fields.append(Field("created", DATE, archive["created"]))
    for key in ("creator", "startURL", "baseURL"):
        if key in archive:
            fields.append(Field(key, STRING, archive[key]))
    if archive.get("metadata"):
        fields.append(Field("metadata", STRING_LIST, flatten_pairs(archive["metadata"])))
    if archive.get("bases"):
        fields.append(Field("bases", OBJECT_LIST, [base_object(b) for b in archive["bases"]]))
    if "writer" in archive:
        fields.append(Field("writer", OBJECT, writer_object(archive["writer"])))
    if "target" in archive:
        fields.append(Field("target", OBJECT, target_object(archive["target"])))
    if "totals" in archive:                                         # a target's (2.2.2)
        fields.append(Field("totals", OBJECT, totals_object(archive["totals"])))
    return Obj("Archive", fields)


def target_object(target: dict) -> Obj:
    """§7.3 `Target`: the archive applying the update gives (§13.1)."""
    fields = [Field("digest", BYTES, bytes.fromhex(target["digest"])),
              Field("archiveLength", UINT, target["archiveLength"]),
              Field("archive", OBJECT, archive_object(target["archive"]))]
    if "appendix" in target:
        fields.append(Field("appendix", BYTES, base64.b64decode(target["appendix"], validate=True)))
    if "bodyData" in target:                                        # since 2.1.4
        fields.append(Field("bodyData", BYTES, bytes.fromhex(target["bodyData"])))
    return Obj("Target", fields)


def base_object(base: dict) -> Obj:
    fields = [Field("digest", BYTES, bytes.fromhex(base["digest"])), Field("archiveLength", UINT, base["archiveLength"])]
    if "name" in base:
        fields.append(Field("name", STRING, base["name"]))
    return Obj("Base", fields)


def add_record(model: Model, index: int, record: dict, bases: list) -> None:
    method, url = record["method"], record["url"]
    if method != ascii_upper(method):
        raise WriterError(f"record {index}: method {method!r} is not upper case")
    key = canonical_key(method, url)                 # raises BadURL (bad-url)
    check_headers(index, record.get("headers", []))
    request = request_object(record)
    body = None
    kind = record["kind"]
    if kind == "response":
        data = base64.b64decode(record["body"], validate=True)
        previous = previous_version(index, record.get("previousVersion"), bases)
        body = store_body(model, data, bases, previous, key=key)
        model.response_bytes[index] = data
        obj = response_object(record, request, body)
    elif kind == "redirect":
        if record["status"] not in REDIRECT_STATUSES:
            raise WriterError(f"record {index}: redirect status {record['status']}")
        canonical_url(record["target"])             # must be absolute: raises BadURL
        obj = redirect_object(record, request)
    elif kind == "tombstone":
        obj = tombstone_object(record, request)
    else:
        raise WriterError(f"record {index}: unknown kind {kind!r}")
    model.records.append(Record(key, obj, record.get("captureDate"), index, body))


def check_headers(index: int, headers: list) -> None:
    """§7.3: stored bodies are de-chunked, so a recipe must not carry Transfer-Encoding."""
    for name, _ in headers:
        if name.lower() == "transfer-encoding":
            raise WriterError(f"record {index}: Transfer-Encoding must not be stored")


def request_object(record: dict) -> Obj:
    fields = [Field("method", STRING, record["method"]), Field("url", STRING, record["url"])]
    if record.get("requestHeaders"):
        fields.append(Field("headers", STRING_LIST, flatten_pairs(record["requestHeaders"])))
    return Obj("Request", fields)


def response_object(record: dict, request: Obj, body: BodyEntry) -> Obj:
    status = record["status"]
    if not 100 <= status <= 599:
        raise WriterError(f"status {status} out of range")
    fields = [Field("request", OBJECT, request), Field("status", UINT, status)]
    if "reason" in record:
        fields.append(Field("reason", STRING, record["reason"]))
    if record.get("headers"):
        fields.append(Field("headers", STRING_LIST, flatten_pairs(record["headers"])))
    for key in ("mimeType", "textEncoding"):
        if key in record:
            fields.append(Field(key, STRING, record[key]))
    fields.append(Field("body", BODY_REF, (body.md5, body.variant)))
    fields.append(Field("bodyLength", UINT, body.length))
    if "captureDate" in record:
        fields.append(Field("captureDate", DATE, record["captureDate"]))
    return Obj("Response", fields)


def redirect_object(record: dict, request: Obj) -> Obj:
    fields = [Field("request", OBJECT, request), Field("status", UINT, record["status"]),
              Field("target", STRING, record["target"])]
    if record.get("headers"):
        fields.append(Field("headers", STRING_LIST, flatten_pairs(record["headers"])))
    if "captureDate" in record:
        fields.append(Field("captureDate", DATE, record["captureDate"]))
    return Obj("Redirect", fields)


def tombstone_object(record: dict, request: Obj) -> Obj:
    fields = [Field("request", OBJECT, request)]
    if "captureDate" in record:
        fields.append(Field("captureDate", DATE, record["captureDate"]))
    return Obj("Tombstone", fields)


def flatten_pairs(pairs: list) -> list[str]:
    return [item for pair in pairs for item in pair]


def previous_version(index: int, given: dict | None, bases: list) -> list[tuple[Chunk, bytes]] | None:
    """Appendix C step 14: the chunks of a body a base holds (`{"layer": n, "bodyMD5", "bodyVariant"}`,
    n counted from this archive), each as this archive sees its entry, with its decoded bytes."""
    if given is None:
        return None
    layer = given["layer"]
    if not 1 <= layer <= len(bases):
        raise WriterError(f"record {index}: previous version in layer {layer}, {len(bases)} bases")
    base = bases[layer - 1]
    entry = base.find_body(bytes.fromhex(given["bodyMD5"]) + struct.pack(">I", given["bodyVariant"]))
    if entry is None:
        raise WriterError(f"record {index}: base {layer} holds no body {given['bodyMD5']}/{given['bodyVariant']}")
    if entry.slice_start is not None:
        return None                                             # a slice's group is no reference (step 14)
    return [(relayer(c, layer), base.chunk_bytes(c, bases[layer:])) for c in entry.chunks]


def key_hash(key: str) -> int:
    """Appendix C step 13: the first 8 bytes of the SHA-256 of a record's key, big-endian."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


def position_bodies(records: list) -> list[tuple[str, int]]:
    """Appendix C step 13: (record key, body length) for each position, that is each response in
    order. A record the writer will refuse takes its position with no key; it never gets that far."""
    out = []
    for record in records:
        if record.get("kind") != "response":
            continue
        try:
            out.append((canonical_key(record["method"], record["url"]), len(base64.b64decode(record["body"], validate=True))))
        except Exception:  # noqa: BLE001 - add_record raises the error that names the record
            out.append(("", 0))
    return out


def local_minimum_anchors(bodies: list[tuple[str, int]], n: int) -> list[int]:
    """Appendix C step 13's local-minimum rule (2.1.7, `anchors` 2): each position's anchor. Position
    0; a body of 8 KiB to 64 KiB whose (key hash, position) is the least of such bodies' within
    ⌊3n/8⌋ positions either side; or a position ⌊3n/2⌋ after the previous anchor."""
    window, gap = max(1, n * 3 // 8), max(1, n * 3 // 2)
    hashes = [key_hash(key) if 8192 <= length <= DICTIONARY_SIZE else None for key, length in bodies]
    # One pass with a sliding-window minimum (a recipe's window can be 805 million wide): `queue`
    # holds the candidates within the window by increasing (hash, position), the least first.
    queue, added, anchors, anchor = deque(), 0, [], 0
    for p, h in enumerate(hashes):
        while added < len(hashes) and added - p <= window:
            if hashes[added] is not None:
                while queue and hashes[queue[-1]] > hashes[added]:
                    queue.pop()
                queue.append(added)
            added += 1
        while queue and p - queue[0] > window:
            queue.popleft()
        local = h is not None and queue[0] == p
        if p == 0 or p - anchor >= gap or local:
            anchor = p
        anchors.append(anchor)
    return anchors


def is_anchor_position(model: Model, position: int, key: str, length: int) -> bool:
    """Appendix C step 13: whether `position` is an anchor. Every n-th; or, keyed (2.1.5): position 0,
    or ⌊3n/2⌋ after the previous anchor, or ⌊3n/4⌋ after it for a candidate: a body of 8 KiB to
    64 KiB whose record's key has a SHA-256 whose first 8 bytes (big-endian) are a multiple of ⌊n/8⌋;
    or, local minimum (2.1.7), as planned up front (local_minimum_anchors)."""
    n = model.dictionary_interval
    if n <= 0:
        return False
    if model.anchor_rule == 0:
        return position % n == 0
    if model.anchor_rule == 2:
        return model.local_anchors[position] == position
    gap = position - model.last_anchor
    candidate = 8192 <= length <= DICTIONARY_SIZE and key_hash(key) % max(1, n // 8) == 0
    return position == 0 or gap >= max(1, n * 3 // 2) or (gap >= max(1, n * 3 // 4) and candidate)


def store_body(model: Model, data: bytes, bases: list, previous: list | None = None, key: str = "") -> BodyEntry:
    """§6.3 deduplication: reuse a body only when its bytes are equal; a new body with a known MD5
    takes the next free variant. A body a base holds is not stored again (§13). Appendix C step 13:
    the body's position decides whether it is an anchor and which dictionary its first chunk has.
    Step 14: given its previous version, each chunk of a stored body is also coded against that
    version's chunk min(i, m - 1), and stored so (codec 3) when the frame is the smaller. Step 15:
    given a Zstandard level, each chunk of a stored body that step 13 gives a dictionary and that
    is given no previous version is also coded against the whole chunk step 13 names as its
    dictionary reference (every chunk against that one), and stored so (codec 3) when the frame is
    the smaller."""
    position = model.next_position
    model.next_position += 1
    interval = model.dictionary_interval
    is_anchor = is_anchor_position(model, position, key, len(data))
    if is_anchor:
        model.last_anchor = position
    dictionary = model.anchor_dictionary if interval > 0 and not is_anchor else None
    md5 = hashlib.md5(data).digest()
    same_md5 = model.body_bytes.setdefault(md5, [])
    for stored, entry in same_md5:
        if stored == data:
            if is_anchor:
                note_anchor(model, data, entry)
            return entry
    sha = hashlib.sha256(data).digest()
    chunks = base_chunks(data, md5, sha, bases)
    zstd_reference = None
    if model.zstd_level is not None and dictionary is not None and previous is None and \
            not model.zstd_reference.startswith(zstdblock.DICTIONARY_MAGIC):
        zstd_reference = model.zstd_reference
    if chunks is None and model.groups is not None and 1 <= len(data) <= model.groups:
        entry = BodyEntry(md5, len(same_md5), len(data), sha, [], SLICE)
        group_body(model, entry, data)
        same_md5.append((data, entry))
        model.bodies.append(entry)
        return entry
    if chunks is None:
        chunks, store_raw = [], False
        for i, start in enumerate(range(0, len(data), MAX_CHUNK)):
            raw = data[start:start + MAX_CHUNK]
            stored, codec = code_chunk(raw, dictionary if start == 0 else None, store_raw, model.placement == 1)
            reference = None
            if previous:
                candidate, candidate_bytes = previous[min(i, len(previous) - 1)]
                stored, codec, reference = delta_coding(raw, stored, codec, candidate, candidate_bytes)
            elif zstd_reference is not None and codec != RAW:
                stored, codec, reference = zstd_coding(raw, stored, codec, zstd_reference, model.zstd_level)
            elif model.groups is not None and model.zstd_level is not None:
                stored, codec = zstd_alone(raw, stored, codec, model.zstd_level)
            chunk = commit_chunk(model, raw, stored, codec, reference)
            store_raw = store_raw or chunk.codec == RAW
            chunks.append(chunk)
    entry = BodyEntry(md5, len(same_md5), len(data), sha, list(chunks))
    if getattr(chunks, "slice_start", None) is not None:
        entry.flags, entry.slice_start = SLICE, chunks.slice_start       # a base's slice stays one
    same_md5.append((data, entry))
    model.bodies.append(entry)
    if is_anchor:
        note_anchor(model, data, entry)
    return entry


def group_body(model: Model, entry: BodyEntry, data: bytes) -> None:
    """Appendix C step 16: a new body of 1 byte to the limit goes into the open group, closed first when it
    would pass the limit, and after it when its MD5's first 8 bytes (big-endian) are a multiple of
    max(1, limit // 16384)."""
    if model.group_bytes and len(model.group_bytes) + len(data) > model.groups:
        close_group(model)
    entry.slice_start = len(model.group_bytes)
    model.group_bytes += data
    model.group_members.append(entry)
    if int.from_bytes(entry.md5[:8], "big") % max(1, model.groups // 16_384) == 0:
        close_group(model)


def close_group(model: Model) -> None:
    """Step 16: the open group coded as one chunk (§6.3 at level 1; with a Zstandard level, a frame
    alone, codec 4, when shorter and within §10) and appended; its slices name it."""
    if not model.group_bytes:
        return
    raw = bytes(model.group_bytes)
    stored, codec = code_chunk(raw, None, False)
    if model.zstd_level is not None:
        stored, codec = zstd_alone(raw, stored, codec, model.zstd_level)
    chunk = commit_chunk(model, raw, stored, codec)
    for entry in model.group_members:
        entry.chunks = [chunk]
    model.group_bytes, model.group_members = bytearray(), []


def zstd_alone(raw: bytes, stored: bytes, codec: int, level: int) -> tuple[bytes, int]:
    """Step 16: a chunk whose coding is not raw as one Zstandard frame without a dictionary (codec
    4), when the frame is shorter than that coding and rawLength <= 255 x its length."""
    if codec == RAW:
        return stored, codec
    frame = zstdblock.compress_with_dict(raw, b"", level)
    if len(frame) < len(stored) and len(raw) <= 255 * len(frame):
        return frame, ZSTD
    return stored, codec


def note_anchor(model: Model, data: bytes, entry: BodyEntry) -> None:
    """Appendix C step 13: an anchor's last chunk (its last 64 KiB) is the next bodies' dictionary;
    the chunk holding it serves as their dictionary reference when it is here and codec 0 or 1.
    Step 15: the decoded bytes of that reference (the whole chunk, or the dictionary chunk's 64 KiB)."""
    last_chunk = data[(len(data) - 1) // MAX_CHUNK * MAX_CHUNK:] if data else b""
    model.anchor_dictionary = last_chunk[-DICTIONARY_SIZE:] or None
    last = entry.chunks[-1] if entry.chunks else None
    usable = last is not None and last.layer == 0 and last.codec in (RAW, LZ4)
    model.anchor_reference = Chunk(last.offset, last.stored_length, last.raw_length, last.codec, last.digest) if usable else None
    model.zstd_reference = last_chunk if usable else model.anchor_dictionary


def dictionary_reference(model: Model) -> Chunk:
    """The anchor's chunk, or a dictionary chunk holding its dictionary, stored here once."""
    if model.anchor_reference is None:
        model.anchor_reference = append_chunk(model, model.anchor_dictionary, None, False)
    return model.anchor_reference


def base_chunks(data: bytes, md5: bytes, sha: bytes, bases: list) -> list[Chunk] | None:
    """The chunk entries of an equal body in the nearest base that holds one, moved to that layer
    (a slice's: its group's, the list's `slice_start` attribute its sliceStart, §6.3)."""
    for position, base in enumerate(bases, start=1):
        for entry in base.body_entries_with_md5(md5):
            if entry.length == len(data) and entry.sha256 == sha and base.body_bytes(entry, bases[position:]) == data:
                chunks = BaseChunks(relayer(c, position) for c in entry.chunks)
                chunks.slice_start = entry.slice_start
                return chunks
    return None


class BaseChunks(list):
    """A base body's chunk entries, with its sliceStart when it is a slice (§6.3)."""
    slice_start: int | None = None


def relayer(c, position: int) -> Chunk:
    """A base's chunk entry as seen from the update: its layer counted from the update."""
    dictionary = relayer(c.dictionary, position) if c.dictionary is not None else None
    reference = relayer(c.reference, position) if getattr(c, "reference", None) is not None else None
    return Chunk(c.offset, c.stored_length, c.raw_length, c.codec, c.digest, c.layer + position, bytes(6), dictionary,
                 reference)


def code_chunk(raw: bytes, dictionary: bytes | None, store_raw: bool, prefix: bool = False) -> tuple[bytes, int]:
    """§6.3 and Appendix C step 13, level 1: raw untried after a raw chunk of the same body;
    otherwise LZ4 (against `dictionary`, placed right before the chunk when `prefix`: codec 2) when
    the block is smaller than the raw bytes (and within the 255x ratio bound), raw otherwise.
    Returns (stored bytes, codec); nothing is stored yet."""
    if not store_raw:
        block = lz4block.compress_with_dict(raw, dictionary, prefix) if dictionary else lz4block.compress(raw)
        if len(block) < len(raw) and len(raw) <= 255 * len(block):
            return block, (LZ4_DICT if dictionary else LZ4)
    return raw, RAW


def delta_coding(raw: bytes, stored: bytes, codec: int, reference: Chunk, reference_bytes: bytes):
    """Appendix C step 14: the chunk as a Zstandard frame against `reference_bytes` (level 9, content
    size, no checksum, no dictionary ID) when the frame is shorter than both `rawLength` and the
    other coding's stored bytes and within the §10 bound; a reference of codec 3, or whose bytes
    start with the Zstandard dictionary magic, is not used. Returns (stored, codec, reference or None)."""
    if reference.codec in (DELTA, ZSTD) or reference_bytes.startswith(zstdblock.DICTIONARY_MAGIC):
        return stored, codec, None
    frame = zstdblock.compress_with_dict(raw, reference_bytes)
    if len(frame) < len(raw) and len(frame) < len(stored) and len(raw) <= 255 * len(frame) + reference.raw_length:
        return frame, DELTA, reference
    return stored, codec, None


def zstd_coding(raw: bytes, stored: bytes, codec: int, reference_bytes: bytes, level: int):
    """Appendix C step 15: the chunk as a Zstandard frame at `level` against the whole decoded bytes
    of step 13's dictionary reference (fresh context: content size, no checksum, no dictionary ID),
    when the frame is shorter than the other coding's stored bytes (codec 1 or 2, never raw: the
    caller checks) and within the §10 bound. Returns (stored, codec, reference): the reference is
    ANCHOR_REFERENCE, resolved when the chunk is committed (a dictionary chunk may be stored first)."""
    frame = zstdblock.compress_with_dict(raw, reference_bytes, level)
    if len(frame) < len(stored) and len(raw) <= 255 * len(frame) + len(reference_bytes):
        return frame, DELTA, ANCHOR_REFERENCE
    return stored, codec, None


ANCHOR_REFERENCE = Chunk(0, 0, 0, RAW, bytes(32))    # step 15: "step 13's dictionary reference", not yet stored


def commit_chunk(model: Model, raw: bytes, stored: bytes, codec: int, reference: Chunk | None = None) -> Chunk:
    """Append a coded chunk to the body data; a codec-2 chunk, or a codec-3 chunk of step 15, follows
    its dictionary chunk when one must be stored (steps 13 and 15)."""
    if reference is ANCHOR_REFERENCE:
        reference = dictionary_reference(model)
    dictionary = dictionary_reference(model) if codec == LZ4_DICT else None
    chunk = Chunk(16 + len(model.body_data), len(stored), len(raw), codec, hashlib.sha256(raw).digest(),
                  dictionary=dictionary, reference=reference)
    model.body_data += stored
    return chunk


def append_chunk(model: Model, raw: bytes, dictionary: bytes | None, store_raw: bool) -> Chunk:
    """A chunk coded as §6.3 and step 13 say, appended to the body data."""
    return commit_chunk(model, raw, *code_chunk(raw, dictionary, store_raw, model.placement == 1))


# ---------------------------------------------------------------------------- stage 2: plan

@dataclass
class PageRef:
    """A page reference (§5.1)."""
    offset: int
    stored_length: int
    raw_length: int
    codec: int
    height: int
    digest: bytes
    reserved: bytes = bytes(6)

    def encode(self) -> bytes:
        return struct.pack("<QIIBB", self.offset, self.stored_length, self.raw_length, self.codec,
                           self.height) + self.reserved + self.digest


@dataclass
class Page:
    type: int
    height: int = 0
    tree: int = 0                                                # interior pages: RECORD_TREE or BODY_TREE
    children: list = field(default_factory=list)                 # interior: [Page]
    records: list = field(default_factory=list)                  # record leaf: [Record]
    bodies: list = field(default_factory=list)                   # record leaf (copies) or body leaf: [BodyEntry]
    obj: Obj | None = None                                       # metadata
    reserved: bytes | None = None                                # crafted non-zero reserved header bytes
    patch: Callable[[bytes], bytes] | None = None                # crafted: change the encoded page
    codec: int | None = None                                     # crafted: force a codec
    patch_stored: Callable[[bytes], bytes] | None = None         # crafted: change the stored bytes
    ref_reserved: bytes = bytes(6)                               # crafted: reserved bytes of its reference
    kind: int = 0                                                # search page (§17.2): its kind; children: [Page]
    payload: bytes = b""                                         # search page: its payload
    ref: PageRef | None = None                                   # set by serialize
    raw: bytes | None = None                                     # set by serialize
    stored: bytes | None = None                                  # set by serialize

    def first_key(self) -> bytes:
        if self.type == INTERIOR:
            return self.children[0].first_key()
        if self.type == RECORD_LEAF:
            return self.records[0].encoded_key()
        return self.bodies[0].key


@dataclass
class Plan:
    body_levels: list[list[Page]]
    record_levels: list[list[Page]]
    metadata: Page
    search_pages: list[Page] = field(default_factory=list)      # §17.2: the index's pages but its root
    search_root: Page | None = None
    search_terms: dict = field(default_factory=dict)            # term -> (shard page, postings range, positions range)

    def pages(self) -> list[Page]:
        """Appendix C step 8: body leaves, body interior levels bottom up, the index's pages but
        its root, record leaves, record interior levels bottom up, the index's root, metadata."""
        return ([p for level in self.body_levels for p in level] + self.search_pages
                + [p for level in self.record_levels for p in level]
                + ([self.search_root] if self.search_root else []) + [self.metadata])

    @property
    def body_root(self) -> Page:
        return self.body_levels[-1][0]

    @property
    def record_root(self) -> Page:
        return self.record_levels[-1][0]


def record_entry_size(r: Record) -> int:
    return 8 + len(r.encoded_key()) + len(r.obj.encode())


def interior_entry_size(child: Page) -> int:
    return 4 + len(child.first_key()) + 56


def pack(items: list, size: Callable, header: int) -> list[list]:
    """Appendix C step 3: greedy; an item goes into the current page unless the page holds at
    least one item and adding it would make the encoded page longer than 65 536 bytes."""
    pages, current, used = [], [], header
    for item in items:
        n = size(item)
        if current and used + n > PAGE_TARGET:
            pages.append(current)
            current, used = [], header
        current.append(item)
        used += n
    if current or not pages:
        pages.append(current)
    return pages


def interior_levels(leaves: list[Page], tree: int) -> list[list[Page]]:
    """Appendix C steps 4 and 6."""
    levels = [leaves]
    while len(levels[-1]) > 1:
        height = levels[-1][0].height + 1
        groups = pack(levels[-1], interior_entry_size, 8)
        levels.append([Page(INTERIOR, height, tree, children=g) for g in groups])
    return levels


def record_groups(records: list[Record]) -> list[list[Record]]:
    out: list[list[Record]] = []
    for r in sorted(records, key=Record.sort_key):
        if out and out[-1][0].encoded_key() == r.encoded_key():
            out[-1].append(r)
        else:
            out.append([r])
    return out


def page_bodies(records: list[Record]) -> list[BodyEntry]:
    """§5.3: the body entries a record leaf's responses name, sorted by key, once each."""
    unique = {}
    for r in records:
        if r.body is not None:
            unique.setdefault(r.body.key, r.body)
    return [unique[k] for k in sorted(unique)]


def pack_record_groups(groups: list[list[Record]]) -> list[list[Record]]:
    """Appendix C step 5: groups packed greedily by the 65 536-byte rule, the page's body entries
    counted (a body named twice in a page is counted once)."""
    pages, current, used, keys = [], [], 12, set()
    for group in groups:
        records_size = sum(record_entry_size(r) for r in group)
        new_bodies = {r.body.key: len(r.body.encode()) for r in group if r.body is not None and r.body.key not in keys}
        size = records_size + sum(new_bodies.values())
        if current and used + size > PAGE_TARGET:
            pages.append(current)
            current, used, keys = [], 12, set()
            new_bodies = {r.body.key: len(r.body.encode()) for r in group if r.body is not None}
            size = records_size + sum(new_bodies.values())
        current = current + group
        used += size
        keys |= set(new_bodies)
    pages.append(current)
    for records in pages:
        if record_leaf_size(records) > MAX_PAGE:
            raise WriterError(f"a record group does not fit in a {MAX_PAGE}-byte page")
    return pages


def record_leaf_size(records: list[Record]) -> int:
    return 12 + sum(record_entry_size(r) for r in records) + sum(len(b.encode()) for b in page_bodies(records))


def plan(model: Model) -> Plan:
    set_totals(model)
    bodies = sorted(model.bodies, key=lambda b: b.key)
    body_leaves = [Page(BODY_LEAF, bodies=group) for group in pack(bodies, lambda b: len(b.encode()), 8)]
    record_leaves = [Page(RECORD_LEAF, records=rs, bodies=page_bodies(rs))
                     for rs in pack_record_groups(record_groups(model.records))]
    the_plan = Plan(interior_levels(body_leaves, BODY_TREE), interior_levels(record_leaves, RECORD_TREE),
                    Page(METADATA, obj=model.archive))
    if model.search is not None:
        built = search_index.build(search_documents(model), model.search)
        pages: list[Page] = []
        for kind, children, payload in built.pages:
            pages.append(Page(search_index.SEARCH, kind=kind, children=[pages[i] for i in children], payload=payload))
        kind, children, payload = built.root
        the_plan.search_pages = pages
        the_plan.search_root = Page(search_index.SEARCH, kind=kind, children=[pages[i] for i in children],
                                    payload=payload)
        the_plan.search_terms = {t: (pages[r[0]],) + r[1:] for t, r in built.term_ranges.items()}
    return the_plan


def search_documents(model: Model) -> list:
    """§17.1: the response a lookup finds for each key (the first record of the key in tree
    order), status 200, an indexed media type, not a plain-text source copy, at most 32 MiB, and
    a body (digest and variant) no earlier document has; in record-tree order, analyzed."""
    documents, previous, bodies = [], None, set()
    for r in sorted(model.records, key=Record.sort_key):
        first, previous = r.encoded_key() != previous, r.encoded_key()
        if not first or r.obj.class_name != "Response" or r.body is None:
            continue
        fields = {f.key: f.value for f in r.obj.fields}
        url = r.obj.field("request").value.field("url").value
        if not search_index.indexed(fields["status"], fields.get("mimeType"), url, r.body.length) \
                or r.body.key in bodies:
            continue
        bodies.add(r.body.key)
        data = model.response_bytes[r.insertion]
        title, text = search_index.visible_text(data, fields["mimeType"])
        documents.append(search_index.analyze(url, title, text))
    return documents


# ---------------------------------------------------------------------------- stage 3: serialize

def encode_page(page: Page) -> bytes:
    """§5.2 to §5.4; children must be stored already (their references are known)."""
    if page.type == INTERIOR:
        out = bytearray(struct.pack("<BB", INTERIOR, page.tree) + (page.reserved or bytes(2)))
        out += struct.pack("<I", len(page.children))
        for child in page.children:
            key = child.first_key()
            out += struct.pack("<I", len(key)) + key + child.ref.encode()
        return bytes(out)
    if page.type == RECORD_LEAF:
        out = bytearray(bytes([RECORD_LEAF]) + (page.reserved or bytes(3)))
        out += struct.pack("<II", len(page.records), len(page.bodies))
        for r in page.records:
            key, obj = r.encoded_key(), r.obj.encode()
            out += struct.pack("<I", len(key)) + key + struct.pack("<I", len(obj)) + obj
        return bytes(out + b"".join(b.encode() for b in page.bodies))
    if page.type == BODY_LEAF:
        out = bytes([BODY_LEAF]) + (page.reserved or bytes(3)) + struct.pack("<I", len(page.bodies))
        return out + b"".join(b.encode() for b in page.bodies)
    if page.type == search_index.SEARCH:
        return search_index.page_bytes(page.kind, [c.ref.encode() for c in page.children], page.payload,
                                       page.reserved or bytes(2))
    if page.type == METADATA:
        obj = page.obj.encode()
        return bytes([METADATA]) + (page.reserved or bytes(3)) + struct.pack("<I", len(obj)) + obj
    raise WriterError(f"page type {page.type}")


def store_page(page: Page, offset: int) -> bytes:
    """Appendix C step 8: LZ4 (level 1) when smaller than the decoded page, raw otherwise."""
    raw = encode_page(page)
    if page.patch is not None:
        raw = page.patch(raw)
    if len(raw) > MAX_PAGE:
        raise WriterError(f"page of {len(raw)} bytes is over the {MAX_PAGE}-byte bound")
    block = lz4block.compress(raw)
    codec = page.codec if page.codec is not None else (LZ4 if len(block) < len(raw) else RAW)
    stored = block if codec == LZ4 else raw
    if page.patch_stored is not None:
        stored = page.patch_stored(stored)
    page.raw, page.stored = raw, stored
    page.ref = PageRef(offset, len(stored), len(raw), codec, page.height, hashlib.sha256(stored).digest(),
                       page.ref_reserved)
    return stored


@dataclass
class Trailer:
    """§4.2; `encode` computes trailerCheck unless `check` is set (crafted)."""
    minor: int
    flags: int
    required: int
    optional: int
    archive_length: int
    body_data_end: int
    record_count: int
    body_count: int
    metadata: PageRef
    record_root: PageRef
    body_root: PageRef
    major: int = MAJOR
    reserved: bytes = bytes(8)
    check: bytes | None = None

    def encode(self) -> bytes:
        head = TRAILER_MAGIC + struct.pack("<HHIQQQQQQ", self.major, self.minor, self.flags, self.required,
                                           self.optional, self.archive_length, self.body_data_end,
                                           self.record_count, self.body_count)
        head += self.metadata.encode() + self.record_root.encode() + self.body_root.encode() + self.reserved
        assert len(head) == 240
        check = self.check if self.check is not None else hashlib.sha256(head).digest()[:8]
        return head + check + END_MAGIC


def lead(minor: int, major: int = MAJOR, reserved: bytes = bytes(4)) -> bytes:
    """§4.1."""
    return LEAD_MAGIC + struct.pack("<HH", major, minor) + reserved


def serialize(model: Model, the_plan: Plan, edit_trailer: Callable[[Trailer], None] | None = None) -> bytes:
    """Lead, body data, pages in Appendix C order (children before parents), trailer."""
    out = bytearray(lead(model.minor)) + model.body_data
    body_data_end = len(out)
    for page in the_plan.pages():
        if page is the_plan.metadata and the_plan.search_root is not None:
            search = next((f for f in model.archive.fields if f.key in search_index.KEYS.values()), None)
            if search is not None and not isinstance(search.value, Raw):
                search.value = the_plan.search_root.ref.encode()
        out += store_page(page, len(out))
    trailer = Trailer(model.minor, model.flags, model.required, model.optional, len(out) + 256, body_data_end,
                      len(model.records), len(model.bodies), the_plan.metadata.ref, the_plan.record_root.ref,
                      the_plan.body_root.ref)
    if edit_trailer is not None:
        edit_trailer(trailer)
    return bytes(out + trailer.encode())


def write(recipe: dict, bases: list | None = None) -> bytes:
    """What a 2.1 writer produces for `recipe` (over `bases` for an update archive)."""
    model = build(recipe, bases)
    return serialize(model, plan(model))


# ---------------------------------------------------------------------------- signing (§12)

def archive_digest(archive: bytes) -> bytes:
    """SHA-256 of the trailer: the last 256 bytes of the archive."""
    return hashlib.sha256(archive[-256:]).digest()


def key_id(public: bytes) -> bytes:
    return hashlib.sha256(public).digest()[:8]


def signed_message(digest: bytes, block_head: bytes) -> bytes:
    """§12.2: domain (32 bytes), archive digest, block bytes 0-55, 8 zero bytes."""
    assert len(block_head) == 56
    return SIGNATURE_DOMAIN + digest + block_head + bytes(8)


def signature_block(archive: bytes, seed: bytes, sequence: int, created: int, expires: int) -> bytes:
    """A type-1 block's 120 bytes."""
    head = key_id(ed25519.public_key(seed)) + struct.pack("<Qqq", sequence, created, expires) + bytes(24)
    return head + ed25519.sign(seed, signed_message(archive_digest(archive), head))


def appendix(blocks: list[tuple[int, bytes]]) -> bytes:
    """§12.1: blocks, appendixLength, end magic."""
    body = b"".join(struct.pack("<II", t, len(data)) + data for t, data in blocks)
    return body + struct.pack("<Q", len(body) + 16) + APPENDIX_MAGIC


def sign(archive: bytes, blocks: list[dict], keys: dict[str, bytes]) -> bytes:
    """The archive followed by an appendix of `blocks` in order: a signature
    `{"type": 1, "key": NAME, "sequence", "created", "expires"}` (NAME a seed in `keys`) or any
    other block `{"type": N, "data": base64}`."""
    out = []
    for b in blocks:
        if b["type"] == SIGNATURE_BLOCK:
            out.append((SIGNATURE_BLOCK, signature_block(archive, keys[b["key"]], b["sequence"], b["created"],
                                                         b["expires"])))
        else:
            out.append((b["type"], base64.b64decode(b["data"], validate=True)))
    return archive + appendix(out)


def key_files(seed: bytes) -> tuple[str, str]:
    """§12.3: the `.pub` and `.key` texts of a key."""
    public = ed25519.public_key(seed)
    kid = key_id(public).hex()
    return (f"webarc-ed25519-public {base64.b64encode(public).decode()} {kid}\n",
            f"webarc-ed25519-private {base64.b64encode(seed).decode()} {kid}\n")
