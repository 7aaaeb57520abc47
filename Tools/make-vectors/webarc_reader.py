"""An independent webarc reader and verifier (spec §4 to §8), plus the JSON dump of the vectors.

`Reader(data)` opens an archive the way §3 describes: the header (§4) and the
section table (§5.1) are checked, nothing else. Failures raise `WebarcError`
with an Appendix A code and a byte offset.

`Reader.verify()` runs the §8 checks and returns every `Problem` found (a list,
empty when the archive is valid); warnings go to `Reader.warnings`.
`Reader.dump()` returns the readable dump of Spec/vectors/README.md; it needs a
valid archive.

Offsets named in errors follow Spec/vectors/README.md ("offsets in errors").
"""

import base64
import hashlib
import struct
from dataclasses import dataclass

import lz4block
from canonical import BadURL, canonical_key, canonical_url
from schema import (BOOL, CLASSES, DATE, EMPTY_MD5, FIXED_LENGTH, HEADER_CHECK_OFFSET, HEADER_SIZE, INT,
                    KNOWN_SECTIONS, LIST_TYPES, MAGIC, MAX_CHUNK, OBJECT, OBJECT_LIST, REDIRECT_STATUSES, REQUIRED,
                    STRING, STRING_LIST)


class WebarcError(Exception):
    def __init__(self, code: str, offset: int | None, message: str):
        super().__init__(f"{code} at {offset}: {message}")
        self.code, self.offset, self.message = code, offset, message


@dataclass
class Problem:
    check: str           # the §8 check name
    code: str            # Appendix A code
    offset: int | None
    message: str


@dataclass
class SectionEntry:
    type: str
    flags: int
    offset: int
    length: int
    entry_offset: int    # where its section table entry is

    @property
    def end(self) -> int:
        return self.offset + self.length


@dataclass
class FieldValue:
    type: int
    raw: bytes
    offset: int          # absolute offset of the field (its key)


@dataclass
class Object:
    class_name: str
    fields: dict[str, FieldValue]
    offset: int          # absolute offset of the object


@dataclass
class BodyEntry:
    digest: bytes
    variant: int
    length: int
    first_chunk: int
    chunk_count: int
    offset: int          # absolute offset of the BTAB entry


@dataclass
class ChunkEntry:
    offset: int
    stored_length: int
    raw_length: int
    codec: int
    entry_offset: int    # absolute offset of the CTAB entry


def corrupt(offset: int, message: str) -> WebarcError:
    return WebarcError("corrupt-index", offset, message)


class Reader:
    # ------------------------------------------------------------------ open (§4, §5.1)

    def __init__(self, data: bytes):
        self.data = data
        self.warnings: list[str] = []
        self._strings = self._objects = self._bodies = self._chunks = self._lookup = None
        self._read_header()
        self._read_section_table()

    def _read_header(self) -> None:
        d = self.data
        if len(d) == 0:
            raise WebarcError("empty", 0, "the file is 0 bytes")
        if len(d) < 8 or d[:8] != MAGIC:
            raise WebarcError("not-an-archive", 0, "no webarc magic")
        if len(d) < HEADER_SIZE:
            raise WebarcError("truncated", len(d), f"header: file is {len(d)} bytes, header needs 128")
        (self.major, self.minor, self.flags, self.archive_length, self.index_offset,
         self.table_offset, self.section_count, self.section_entry_size) = struct.unpack_from("<HHIQQQII", d, 8)
        self.index_digest = d[48:80]
        if self.major != 1:
            raise WebarcError("unsupported-version", 8,
                              f"archive format {self.major}.{self.minor} is newer than this reader (reads 1.x)")
        if hashlib.sha256(d[:HEADER_CHECK_OFFSET]).digest()[:8] != d[HEADER_CHECK_OFFSET:HEADER_SIZE]:
            raise WebarcError("header-checksum", HEADER_CHECK_OFFSET, "headerCheck mismatch")
        if self.archive_length > len(d):
            raise WebarcError("truncated", len(d),
                              f"archive: archiveLength {self.archive_length} > file length {len(d)}")
        self._check_header_offsets()

    def _check_header_offsets(self) -> None:
        if not HEADER_SIZE <= self.index_offset <= self.table_offset:
            raise WebarcError("bad-header", 24, f"indexOffset {self.index_offset}")
        if self.table_offset > self.archive_length:
            raise WebarcError("bad-header", 32, f"sectionTableOffset {self.table_offset}")
        if not 1 <= self.section_count <= 1024:
            raise WebarcError("bad-header", 40, f"sectionCount {self.section_count}")
        if self.section_entry_size < 24:
            raise WebarcError("bad-header", 44, f"sectionEntrySize {self.section_entry_size} < 24")
        if self.section_count * self.section_entry_size != self.archive_length - self.table_offset:
            raise WebarcError("bad-header", 40, "section table does not end at archiveLength")

    def _read_section_table(self) -> None:
        self.sections: dict[str, SectionEntry] = {}
        entries = []
        for i in range(self.section_count):
            at = self.table_offset + i * self.section_entry_size
            raw_type, flags, offset, length = struct.unpack_from("<4sIQQ", self.data, at)
            kind = raw_type.decode("latin-1")
            entry = SectionEntry(kind, flags, offset, length, at)
            if kind not in KNOWN_SECTIONS and flags & REQUIRED:
                raise WebarcError("unsupported-section", at, f"required section {raw_type!r} is unknown")
            self._check_section_bounds(entry)
            if kind in self.sections:
                raise WebarcError("bad-section-table", at, f"duplicate section {kind}")
            if kind in KNOWN_SECTIONS:
                self.sections[kind] = entry
            entries.append(entry)
        self._check_overlaps(entries)
        for kind in KNOWN_SECTIONS:
            if kind not in self.sections:
                raise WebarcError("bad-section-table", self.table_offset, f"section {kind} is missing")

    def _check_section_bounds(self, s: SectionEntry) -> None:
        if s.type == "BDAT":
            ok = s.offset == HEADER_SIZE and s.end <= self.index_offset
        else:
            ok = self.index_offset <= s.offset and s.end <= self.table_offset
        if not ok:
            raise WebarcError("bad-section-table", s.entry_offset,
                              f"section {s.type} [{s.offset}, {s.end}) out of bounds")

    def _check_overlaps(self, entries: list[SectionEntry]) -> None:
        spans = sorted((s for s in entries if s.length > 0), key=lambda s: (s.offset, s.entry_offset))
        for before, after in zip(spans, spans[1:]):
            if after.offset < before.end:
                raise WebarcError("bad-section-table", after.entry_offset,
                                  f"section {after.type} overlaps {before.type}")

    # ------------------------------------------------------------------ tables (parsed on demand)

    def section(self, kind: str) -> tuple[int, bytes]:
        s = self.sections[kind]
        return s.offset, self.data[s.offset:s.end]

    def _fixed_table(self, kind: str, min_entry: int) -> tuple[int, int, int]:
        """The 16-byte preamble of BTAB/CTAB/LKUP: (first entry offset, entry size, count)."""
        base, sec = self.section(kind)
        if len(sec) < 16:
            raise corrupt(base, f"{kind} shorter than its preamble")
        entry_size, _, count = struct.unpack_from("<IIQ", sec, 0)
        if entry_size < min_entry:
            raise corrupt(base, f"{kind} entrySize {entry_size} < {min_entry}")
        if count > (len(sec) - 16) // entry_size or 16 + count * entry_size != len(sec):
            raise corrupt(base + 8, f"{kind} count {count} does not fill the section")
        return base + 16, entry_size, count

    def _blob_table(self, kind: str) -> tuple[int, list[tuple[int, int]]]:
        """STRS/OBJS layout: (byte area offset, [(start, end)] relative to the area)."""
        base, sec = self.section(kind)
        if len(sec) < 16:
            raise corrupt(base, f"{kind} shorter than its preamble")
        count = struct.unpack_from("<I", sec, 0)[0]
        if count > (len(sec) - 16) // 8:
            raise corrupt(base, f"{kind} count {count} exceeds the section")
        ends = struct.unpack_from(f"<{count + 1}Q", sec, 8)
        area = 8 + 8 * (count + 1)
        if ends[0] != 0:
            raise corrupt(base + 8, f"{kind} ends[0] is not 0")
        for i in range(count):
            if ends[i + 1] < ends[i]:
                raise corrupt(base + 16 + 8 * i, f"{kind} ends decrease at {i + 1}")
        if area + ends[count] != len(sec):
            raise corrupt(base + 8 + 8 * count, f"{kind} byte area does not end at the section end")
        return base + area, [(ends[i], ends[i + 1]) for i in range(count)]

    def string_offset(self, sid: int) -> int:
        """Absolute offset of string `sid`'s bytes."""
        area, spans = self._blob_table("STRS")
        return area + spans[sid][0]

    def object_span(self, oid: int) -> tuple[int, int]:
        """Absolute [start, end) of object `oid`, from the OBJS layout alone."""
        area, spans = self._blob_table("OBJS")
        return area + spans[oid][0], area + spans[oid][1]

    @property
    def strings(self) -> list[str]:
        if self._strings is None:
            area, spans = self._blob_table("STRS")
            out = []
            for start, end in spans:
                try:
                    out.append(self.data[area + start:area + end].decode("utf-8"))
                except UnicodeDecodeError:
                    raise corrupt(area + start, f"string {len(out)} is not valid UTF-8") from None
            self._strings = out
        return self._strings

    @property
    def objects(self) -> list[Object]:
        if self._objects is None:
            area, spans = self._blob_table("OBJS")
            self._objects = [self._parse_object(i, area + start, area + end) for i, (start, end) in enumerate(spans)]
            if not self._objects or self._objects[0].class_name != "Archive":
                raise corrupt(area, "object 0 is not Archive")
        return self._objects

    @property
    def bodies(self) -> list[BodyEntry]:
        if self._bodies is None:
            first, size, count = self._fixed_table("BTAB", 48)
            out = []
            for i in range(count):
                at = first + i * size
                digest = self.data[at:at + 16]
                variant, _, length, first_chunk, chunk_count = struct.unpack_from("<IIQQI", self.data, at + 16)
                out.append(BodyEntry(digest, variant, length, first_chunk, chunk_count, at))
            self._bodies = out
        return self._bodies

    @property
    def chunks(self) -> list[ChunkEntry]:
        if self._chunks is None:
            first, size, count = self._fixed_table("CTAB", 24)
            out = []
            for i in range(count):
                at = first + i * size
                offset, stored, raw, codec = struct.unpack_from("<QIIB", self.data, at)
                out.append(ChunkEntry(offset, stored, raw, codec, at))
            self._chunks = out
        return self._chunks

    @property
    def lookup(self) -> list[tuple[int, int, int]]:
        """[(key string id, record object id, entry offset)] in table order."""
        if self._lookup is None:
            first, size, count = self._fixed_table("LKUP", 8)
            self._lookup = [struct.unpack_from("<II", self.data, first + i * size) + (first + i * size,)
                            for i in range(count)]
        return self._lookup

    # ------------------------------------------------------------------ objects (§6.2, §6.3)

    def _parse_object(self, index: int, start: int, end: int) -> Object:
        d, strings = self.data, self.strings
        if end - start < 8:
            raise corrupt(start, f"object {index} shorter than 8 bytes")
        class_id, field_count = struct.unpack_from("<II", d, start)
        class_name = self._string(class_id, start, f"object {index} class")
        fields: dict[str, FieldValue] = {}
        at = start + 8
        for _ in range(field_count):
            if end - at < 9:
                raise corrupt(at, f"object {index}: fields overrun the object")
            key_id, ftype, length = struct.unpack_from("<IBI", d, at)
            key = self._string(key_id, at, f"object {index} field key")
            if length > end - at - 9:
                raise corrupt(at, f"object {index} field {key!r}: length {length} overruns the object")
            if key in fields:
                raise WebarcError("duplicate-key", at, f"object {index}: key {key!r} repeats")
            fields[key] = FieldValue(ftype, d[at + 9:at + 9 + length], at)
            at += 9 + length
        if at != end:
            raise corrupt(at, f"object {index}: fields do not fill the object")
        obj = Object(class_name, fields, start)
        if class_name in CLASSES:
            self._check_known_fields(index, obj)
        return obj

    def _string(self, sid: int, offset: int, what: str) -> str:
        if sid >= len(self.strings):
            raise corrupt(offset, f"{what}: string id {sid} out of range")
        return self.strings[sid]

    def _check_known_fields(self, index: int, obj: Object) -> None:
        """Types, lengths, ids and required keys of a known class (unknown keys are skipped)."""
        schema = CLASSES[obj.class_name]
        for key, (ftype, required) in schema.items():
            f = obj.fields.get(key)
            if f is None:
                if required:
                    raise corrupt(obj.offset, f"object {index} ({obj.class_name}) lacks required key {key!r}")
                continue
            where = f"object {index} field {key!r}"
            if f.type != ftype:
                raise corrupt(f.offset, f"{where}: type {f.type}, expected {ftype}")
            if ftype in FIXED_LENGTH and len(f.raw) != FIXED_LENGTH[ftype]:
                raise corrupt(f.offset, f"{where}: length {len(f.raw)}, expected {FIXED_LENGTH[ftype]}")
            if ftype in LIST_TYPES and len(f.raw) % 4:
                raise corrupt(f.offset, f"{where}: length {len(f.raw)} is not a multiple of 4")
            if ftype == BOOL and f.raw[0] > 1:
                raise corrupt(f.offset, f"{where}: bool {f.raw[0]}")
            for sid in (u32_list(f.raw) if ftype in (STRING, STRING_LIST) else []):
                self._string(sid, f.offset, where)
            if ftype in (OBJECT, OBJECT_LIST) and any(oid >= self._object_count() for oid in u32_list(f.raw)):
                raise corrupt(f.offset, f"{where}: object id out of range")
            if key in ("headers", "metadata") and len(f.raw) % 8:
                raise corrupt(f.offset, f"{where}: odd number of strings")
        if obj.class_name == "Response" and not 100 <= u64(obj.fields["status"].raw) <= 599:
            raise corrupt(obj.fields["status"].offset, f"object {index}: status out of 100-599")

    def _object_count(self) -> int:
        base, sec = self.section("OBJS")
        return struct.unpack_from("<I", sec, 0)[0]

    # typed accessors
    def str_field(self, obj: Object, key: str) -> str | None:
        f = obj.fields.get(key)
        return None if f is None else self.strings[u32(f.raw)]

    def pairs_field(self, obj: Object, key: str) -> list[list[str]]:
        f = obj.fields.get(key)
        items = [] if f is None else [self.strings[i] for i in u32_list(f.raw)]
        return [[items[i], items[i + 1]] for i in range(0, len(items), 2)]

    def int_field(self, obj: Object, key: str) -> int | None:
        f = obj.fields.get(key)
        if f is None:
            return None
        return struct.unpack("<q", f.raw)[0] if f.type in (INT, DATE) else u64(f.raw)

    def request_of(self, obj: Object) -> Object:
        request = self.objects[u32(obj.fields["request"].raw)]
        if request.class_name != "Request":
            raise corrupt(obj.fields["request"].offset, "request field does not name a Request")
        return request

    def record_key(self, obj: Object) -> str:
        request = self.request_of(obj)
        return canonical_key(self.str_field(request, "method"), self.str_field(request, "url"))

    # ------------------------------------------------------------------ bodies (§5.3, §5.4)

    def find_body(self, digest: bytes, variant: int) -> BodyEntry | None:
        """Binary search of BTAB (Appendix B)."""
        bodies, lo, hi = self.bodies, 0, len(self.bodies)
        while lo < hi:
            mid = (lo + hi) // 2
            if (bodies[mid].digest, bodies[mid].variant) < (digest, variant):
                lo = mid + 1
            else:
                hi = mid
        if lo < len(bodies) and (bodies[lo].digest, bodies[lo].variant) == (digest, variant):
            return bodies[lo]
        return None

    def body_chunks(self, body: BodyEntry) -> list[ChunkEntry]:
        if body.first_chunk + body.chunk_count > len(self.chunks):
            raise corrupt(body.offset, "chunk range outside CTAB")
        return self.chunks[body.first_chunk:body.first_chunk + body.chunk_count]

    def decode_chunk(self, c: ChunkEntry) -> bytes:
        bdat = self.sections["BDAT"]
        if not bdat.offset <= c.offset <= c.offset + c.stored_length <= bdat.end:
            raise corrupt(c.entry_offset, "chunk outside BDAT")
        stored = self.data[c.offset:c.offset + c.stored_length]
        if c.codec == 0:
            return stored
        if c.codec != 1:
            raise WebarcError("unsupported-codec", c.entry_offset + 16, f"chunk codec {c.codec}")
        raw = lz4block.decompress(stored, c.raw_length)
        if raw is None:
            raise WebarcError("corrupt-chunk", c.offset, f"LZ4 block does not decode to {c.raw_length} bytes")
        return raw

    def body_bytes(self, body: BodyEntry) -> bytes:
        data = b"".join(self.decode_chunk(c) for c in self.body_chunks(body))
        if len(data) != body.length or hashlib.md5(data).digest() != body.digest:
            raise WebarcError("body-digest", body.offset, f"body {body.digest.hex()}/{body.variant} does not match")
        return data

    # ------------------------------------------------------------------ verify (§8)

    def verify(self) -> list[Problem]:
        """Every problem the §8 checks find (header and sections were checked by the constructor).

        A check that cannot go on raises; its error is recorded once, even when a later check
        that depends on the same table meets it again.
        """
        problems: list[Problem] = []
        checks = (("index-digest", self._check_index_digest), ("strings", self._check_strings),
                  ("objects", self._check_objects), ("bodies", self._check_bodies),
                  ("chunks", self._check_chunks), ("body-digests", self._check_body_digests),
                  ("lookup", self._check_lookup), ("references", self._check_references),
                  ("redirects", self._check_redirects), ("appendix", self._check_appendix))
        def record(p: Problem) -> None:
            if not any((q.code, q.offset) == (p.code, p.offset) for q in problems):
                problems.append(p)

        for name, check in checks:
            try:
                for problem in check():
                    record(problem)
            except WebarcError as e:
                record(Problem(name, e.code, e.offset, e.message))
        return problems

    def _check_strings(self):
        self.strings
        return []

    def _check_objects(self):
        self.objects
        return []

    def _check_appendix(self):
        if self.minor == 0 and len(self.data) > self.archive_length:
            yield Problem("appendix", "trailing-data", self.archive_length,
                          f"{len(self.data) - self.archive_length} bytes after archiveLength in a 1.0 archive")

    def _check_index_digest(self):
        if hashlib.sha256(self.data[self.index_offset:self.archive_length]).digest() != self.index_digest:
            yield Problem("index-digest", "index-digest", self.index_offset, "index bytes do not match indexDigest")

    def _check_bodies(self):
        previous = None
        for b in self.bodies:
            if previous is not None and (b.digest, b.variant) <= previous:
                yield Problem("bodies", "corrupt-index", b.offset, "BTAB not strictly ascending")
            previous = (b.digest, b.variant)
            try:
                chunks = self.body_chunks(b)
            except WebarcError as e:
                yield Problem("bodies", e.code, e.offset, e.message)
                continue
            if sum(c.raw_length for c in chunks) != b.length:
                yield Problem("bodies", "corrupt-index", b.offset, "chunk rawLength sum differs from length")

    def _check_chunks(self):
        bdat = self.sections["BDAT"]
        for c in self.chunks:
            if c.codec not in (0, 1):
                yield Problem("chunks", "unsupported-codec", c.entry_offset + 16, f"chunk codec {c.codec}")
            elif not (bdat.offset <= c.offset and c.offset + c.stored_length <= bdat.end):
                yield Problem("chunks", "corrupt-index", c.entry_offset, "chunk outside BDAT")
            elif not 1 <= c.raw_length <= MAX_CHUNK or c.stored_length == 0:
                yield Problem("chunks", "corrupt-index", c.entry_offset, "chunk length out of range")
            elif c.codec == 0 and c.stored_length != c.raw_length:
                yield Problem("chunks", "corrupt-index", c.entry_offset, "raw chunk storedLength != rawLength")
            elif c.codec == 1 and c.stored_length > lz4block.compress_bound(c.raw_length):
                yield Problem("chunks", "corrupt-index", c.entry_offset, "LZ4 chunk larger than its bound")
        yield from self._check_tiling(bdat)

    def _check_tiling(self, bdat: SectionEntry):
        """§5.2: distinct extents tile BDAT with no gap and no overlap."""
        at = bdat.offset
        for offset, length in sorted({(c.offset, c.stored_length) for c in self.chunks}):
            if offset != at:
                yield Problem("chunks", "corrupt-index", offset, "chunk extents do not tile BDAT")
                return
            at = offset + length
        if at != bdat.end:
            yield Problem("chunks", "corrupt-index", at, "chunk extents do not tile BDAT")

    def _check_body_digests(self):
        for b in self.bodies:
            if b.length == 0 and b.digest != EMPTY_MD5:
                yield Problem("body-digests", "body-digest", b.offset, "empty body with a non-empty digest")
                continue
            try:
                self.body_bytes(b)
            except WebarcError as e:
                yield Problem("body-digests", e.code, e.offset, e.message)

    def _check_lookup(self):
        strings, objects = self.strings, self.objects
        seen: dict[int, int] = {}
        previous = None
        for key_id, record, at in self.lookup:
            if key_id >= len(strings) or record >= len(objects):
                yield Problem("lookup", "corrupt-index", at, "LKUP id out of range")
                continue
            key = strings[key_id].encode("utf-8")
            if previous is not None and key < previous:
                yield Problem("lookup", "corrupt-index", at, "LKUP keys not in ascending order")
            previous = key
            obj = objects[record]
            if obj.class_name not in CLASSES:
                continue                              # a class from a newer minor: skipped
            if obj.class_name not in ("Response", "Redirect"):
                yield Problem("lookup", "corrupt-index", at, f"LKUP names a {obj.class_name}")
                continue
            if record in seen:
                yield Problem("lookup", "corrupt-index", at, f"record {record} listed twice")
            seen[record] = at
            try:
                if self.record_key(obj) != strings[key_id]:
                    yield Problem("lookup", "corrupt-index", at, f"key is not the canonical key of record {record}")
            except BadURL as e:
                yield Problem("lookup", "corrupt-index", at, f"record {record}: {e}")
        for i, obj in enumerate(objects):
            if obj.class_name in ("Response", "Redirect") and i not in seen:
                yield Problem("lookup", "corrupt-index", obj.offset, f"record {i} has no LKUP entry")

    def _check_references(self):
        for obj in self.objects:
            if obj.class_name not in ("Response", "Redirect"):
                continue
            try:
                self.request_of(obj)
            except WebarcError as e:
                yield Problem("references", e.code, e.offset, e.message)
            if obj.class_name == "Response":
                ref = obj.fields["body"]
                body = self.find_body(ref.raw[:16], u32(ref.raw[16:]))
                if body is None:
                    yield Problem("references", "corrupt-index", ref.offset, "body not in BTAB")
                elif body.length != u64(obj.fields["bodyLength"].raw):
                    yield Problem("references", "corrupt-index", obj.fields["bodyLength"].offset,
                                  "bodyLength differs from the body table")

    def _check_redirects(self):
        keys = {self.strings[k] for k, _, _ in self.lookup if k < len(self.strings)}
        for obj in self.objects:
            if obj.class_name != "Redirect":
                continue
            status = u64(obj.fields["status"].raw)
            if status not in REDIRECT_STATUSES:
                yield Problem("redirects", "corrupt-index", obj.fields["status"].offset, f"redirect status {status}")
            target = self.str_field(obj, "target")
            try:
                if "GET " + canonical_url(target) not in keys:
                    self.warnings.append(f"redirect target {target} is not in the archive")
            except BadURL:
                yield Problem("redirects", "corrupt-index", obj.fields["target"].offset, "target is not absolute")

    # ------------------------------------------------------------------ dump

    def dump(self) -> dict:
        """The readable dump of Spec/vectors/README.md, read from the archive bytes."""
        return {
            "formatVersion": f"{self.major}.{self.minor}",
            "archive": self._dump_archive(self.objects[0]),
            "records": [self._dump_record(self.strings[k], self.objects[r])
                        for k, r, _ in self.lookup if self.objects[r].class_name in ("Response", "Redirect")],
            "bodies": [self._dump_body(b) for b in self.bodies],
        }

    def _dump_archive(self, obj: Object) -> dict:
        out = {}
        if "created" in obj.fields:
            out["created"] = self.int_field(obj, "created")
        for key in ("creator", "startURL", "baseURL"):
            if key in obj.fields:
                out[key] = self.str_field(obj, key)
        if "metadata" in obj.fields:
            out["metadata"] = self.pairs_field(obj, "metadata")
        return out

    def _dump_record(self, key: str, obj: Object) -> dict:
        request = self.request_of(obj)
        out = {"key": key, "method": self.str_field(request, "method"), "url": self.str_field(request, "url"),
               "requestHeaders": self.pairs_field(request, "headers"), "status": self.int_field(obj, "status"),
               "headers": self.pairs_field(obj, "headers")}
        if obj.class_name == "Redirect":
            out.update(kind="redirect", target=self.str_field(obj, "target"))
        else:
            out["kind"] = "response"
            for k in ("reason", "mimeType", "textEncoding"):
                if k in obj.fields:
                    out[k] = self.str_field(obj, k)
            ref = obj.fields["body"].raw
            body = self.find_body(ref[:16], u32(ref[16:]))
            out.update(bodyMD5=ref[:16].hex(), bodyVariant=u32(ref[16:]), bodyLength=self.int_field(obj, "bodyLength"),
                       body=base64.b64encode(self.body_bytes(body)).decode("ascii"))
        if "captureDate" in obj.fields:
            out["captureDate"] = self.int_field(obj, "captureDate")
        return out

    def _dump_body(self, b: BodyEntry) -> dict:
        return {"md5": b.digest.hex(), "variant": b.variant, "length": b.length,
                "chunks": [{"codec": c.codec, "storedLength": c.stored_length, "rawLength": c.raw_length}
                           for c in self.body_chunks(b)]}


def u32(raw: bytes) -> int:
    return struct.unpack("<I", raw[:4])[0]


def u64(raw: bytes) -> int:
    return struct.unpack("<Q", raw[:8])[0]


def u32_list(raw: bytes) -> list[int]:
    return list(struct.unpack(f"<{len(raw) // 4}I", raw[:len(raw) // 4 * 4]))
