"""The invalid vectors (Spec/vectors/invalid/): each is derived from a valid vector.

Every vector is a function returning `(bytes, expectation)`. Byte-level
tampering patches a copy of a valid archive (and, where the brief says so,
recomputes `indexDigest` and `headerCheck` so that only the intended rule
breaks); structural tampering edits the writer's model of a recipe and
assembles it again. The expected offsets are located here independently of
the reader's error messages; `make_vectors.check_invalid` then confirms that
the reader reports exactly that code at that offset.
"""

import struct

import lz4block
from schema import REQUIRED
from webarc_reader import Reader
from webarc_writer import (Field, Section, assemble, build, default_sections, encode_sections, refresh_digests,
                           refresh_header_check)


def expect(error: str, at: str, offset: int | None, why: str) -> dict:
    out = {"error": error, "at": at, "why": why}
    if offset is not None:
        out["offset"] = offset
    return out


# ---------------------------------------------------------------------------- helpers

def u64_at(data: bytes, offset: int) -> int:
    return struct.unpack_from("<Q", data, offset)[0]


def put(buf: bytearray, offset: int, fmt: str, value) -> None:
    struct.pack_into(fmt, buf, offset, value)


def with_digests(buf: bytearray) -> bytes:
    refresh_digests(buf)
    return bytes(buf)


def with_header_check(buf: bytearray) -> bytes:
    refresh_header_check(buf)
    return bytes(buf)


def object_fields(reader: Reader, oid: int) -> list[tuple[str, int]]:
    """[(key, absolute field offset)] of object `oid`, walking its bytes (no validation)."""
    start, end = reader.object_span(oid)
    count = struct.unpack_from("<I", reader.data, start + 4)[0]
    at, out = start + 8, []
    for _ in range(count):
        key_id, _, length = struct.unpack_from("<IBI", reader.data, at)
        out.append((reader.strings[key_id], at))
        at += 9 + length
    return out


def field_offset(reader: Reader, oid: int, key: str, nth: int = 0) -> int:
    return [offset for k, offset in object_fields(reader, oid) if k == key][nth]


def remodel(recipe: dict, edit) -> bytes:
    """Build `recipe`'s model, let `edit(model)` change it, and assemble the 1.0 layout."""
    model = build(recipe)
    edit(model)
    return assemble(default_sections(encode_sections(model)))


def response_fields(model, oid: int = 2) -> list[Field]:
    return model.objects[oid].fields


def find_field(fields: list[Field], key: str) -> Field:
    return next(f for f in fields if f.key == key)


# ---------------------------------------------------------------------------- open: header (§4)

def empty_file(v):
    return b"", expect("empty", "open", 0, "A 0-byte file.")


def text_file(v):
    return (b"This is a plain text file, not a webarc archive.\n",
            expect("not-an-archive", "open", 0, "A text file: the first 8 bytes are not the webarc magic."))


def seven_bytes(v):
    return v["minimal"][:7], expect("not-an-archive", "open", 0,
                                    "The first 7 bytes of minimal.webarc: shorter than the 8-byte magic.")


def truncated_100(v):
    return v["minimal"][:100], expect("truncated", "open", 100,
                                      "The first 100 bytes of minimal.webarc: the 128-byte header is cut.")


def truncated_last_byte(v):
    data = v["minimal"][:-1]
    return data, expect("truncated", "open", len(data),
                        "minimal.webarc without its last byte: archiveLength exceeds the file length.")


def major_version_2(v):
    buf = bytearray(v["minimal"])
    put(buf, 8, "<H", 2)
    return with_header_check(buf), expect(
        "unsupported-version", "open", 8, "minimal.webarc with majorVersion 2 (headerCheck recomputed).")


def header_reserved_flip(v):
    buf = bytearray(v["minimal"])
    buf[100] ^= 0x01
    return bytes(buf), expect("header-checksum", "open", 120,
                              "minimal.webarc with byte 100 (reserved header area) flipped; headerCheck not updated.")


def bad_header_entry_size(v):
    buf = bytearray(v["minimal"])
    put(buf, 40, "<I", 9)      # 9 × 16 = 6 × 24: the table still ends at archiveLength
    put(buf, 44, "<I", 16)
    return with_header_check(buf), expect(
        "bad-header", "open", 44,
        "minimal.webarc with sectionEntrySize 16 (< 24) and sectionCount 9 so the table size still fits.")


def bad_header_index_offset(v):
    buf = bytearray(v["minimal"])
    put(buf, 24, "<Q", u64_at(buf, 32) + 8)
    return with_header_check(buf), expect(
        "bad-header", "open", 24, "minimal.webarc with indexOffset past sectionTableOffset (headerCheck recomputed).")


# ---------------------------------------------------------------------------- open: section table (§5.1)

def section_missing_lkup(v):
    reader = Reader(v["minimal"])
    lkup = reader.sections["LKUP"]
    assert lkup.entry_offset + 24 == reader.archive_length      # the last entry
    buf = bytearray(v["minimal"][:lkup.entry_offset])
    put(buf, 16, "<Q", len(buf))                                 # archiveLength
    put(buf, 40, "<I", 5)                                        # sectionCount
    return with_digests(buf), expect(
        "bad-section-table", "open", reader.table_offset,
        "minimal.webarc with the LKUP entry cut from the section table (counts and digests recomputed).")


def section_duplicate(v):
    reader = Reader(v["minimal"])
    btab = reader.sections["BTAB"]
    buf = bytearray(v["minimal"]) + v["minimal"][btab.entry_offset:btab.entry_offset + 24]
    put(buf, 16, "<Q", len(buf))
    put(buf, 40, "<I", 7)
    return with_digests(buf), expect(
        "bad-section-table", "open", reader.archive_length,
        "minimal.webarc with a seventh section entry repeating BTAB (counts and digests recomputed).")


def section_out_of_bounds(v):
    reader = Reader(v["minimal"])
    lkup = reader.sections["LKUP"]
    buf = bytearray(v["minimal"])
    put(buf, lkup.entry_offset + 16, "<Q", lkup.length + 8)
    return with_digests(buf), expect(
        "bad-section-table", "open", lkup.entry_offset,
        "minimal.webarc with LKUP 8 bytes longer, running into the section table (digests recomputed).")


def unsupported_section(v, recipes):
    model = build(recipes["minimal"])
    sections = default_sections(encode_sections(model)) + [Section("ZREQ", REQUIRED, bytes(8))]
    data = assemble(sections)
    reader_table = u64_at(data, 32)
    return data, expect(
        "unsupported-section", "open", reader_table + 6 * 24,
        "minimal's content with a seventh section of unknown type ZREQ whose required bit is set.")


# ---------------------------------------------------------------------------- verify: index (§6, §7.2, §8)

def index_digest(v):
    reader = Reader(v["minimal"])
    sid = reader.strings.index("make-vectors")
    buf = bytearray(v["minimal"])
    buf[reader.string_offset(sid)] = ord("M")                    # "make-vectors" -> "Make-vectors"
    return bytes(buf), expect(
        "index-digest", "verify", reader.index_offset,
        "minimal.webarc with one letter of a header value changed in STRS; indexDigest not updated.")


def string_bad_utf8(v):
    reader = Reader(v["minimal"])
    sid = reader.strings.index("make-vectors")
    buf = bytearray(v["minimal"])
    buf[reader.string_offset(sid)] = 0xFF
    return with_digests(buf), expect(
        "corrupt-index", "verify", reader.string_offset(sid),
        "minimal.webarc with byte 0xFF (never valid UTF-8) in a STRS string (digests recomputed).")


def field_length(v, recipes):
    def edit(model):
        find_field(response_fields(model), "status").value = struct.pack("<I", 200)   # uint with 4 bytes
    data = remodel(recipes["minimal"], edit)
    return data, expect(
        "corrupt-index", "verify", field_offset(Reader(data), 2, "status"),
        "minimal's content with the Response's status written as a 4-byte uint (length 4, type uint needs 8).")


def duplicate_key(v, recipes):
    def edit(model):
        find_field(response_fields(model), "textEncoding").key = "mimeType"
    data = remodel(recipes["minimal"], edit)
    return data, expect(
        "duplicate-key", "verify", field_offset(Reader(data), 2, "mimeType", nth=1),
        "minimal's content with the Response's textEncoding field keyed mimeType: mimeType appears twice.")


def missing_required_key(v, recipes):
    def edit(model):
        fields = response_fields(model)
        fields.remove(find_field(fields, "bodyLength"))
    data = remodel(recipes["minimal"], edit)
    return data, expect(
        "corrupt-index", "verify", Reader(data).object_span(2)[0],
        "minimal's content with the required bodyLength field left out of the Response (object 2).")


def object0_not_archive(v, recipes):
    def edit(model):
        model.objects[0].class_name = "Archiv"
    data = remodel(recipes["minimal"], edit)
    return data, expect("corrupt-index", "verify", Reader(data).object_span(0)[0],
                        "minimal's content with object 0 of class Archiv instead of Archive.")


def body_length_mismatch(v, recipes):
    def edit(model):
        f = find_field(response_fields(model), "bodyLength")
        f.value += 1
    data = remodel(recipes["minimal"], edit)
    return data, expect("corrupt-index", "verify", field_offset(Reader(data), 2, "bodyLength"),
                        "minimal's content with the Response's bodyLength one more than the body table's length.")


def lookup_order(v):
    reader = Reader(v["site"])
    entries = reader.lookup
    buf = bytearray(v["site"])
    first, second = entries[0][2], entries[1][2]
    buf[first:first + 8], buf[second:second + 8] = v["site"][second:second + 8], v["site"][first:first + 8]
    return with_digests(buf), expect(
        "corrupt-index", "verify", second,
        "site.webarc with LKUP entries 0 and 1 swapped, so the keys descend (digests recomputed).")


def lookup_wrong_key(v, recipes):
    def edit(model):
        model.lookup[0].key = "GET https://example.com/elsewhere"
    data = remodel(recipes["minimal"], edit)
    return data, expect("corrupt-index", "verify", Reader(data).lookup[0][2],
                        "minimal's content with its LKUP key not the canonical key of the record's request.")


def redirect_status(v, recipes):
    redirect_id = 10                               # site: record 4 (a redirect) is object 2 + 2 × 4
    def edit(model):
        assert model.objects[redirect_id].class_name == "Redirect"
        find_field(model.objects[redirect_id].fields, "status").value = 200
    data = remodel(recipes["site"], edit)
    return data, expect("corrupt-index", "verify", field_offset(Reader(data), redirect_id, "status"),
                        "site's content with its Redirect's status 200 (allowed: 301, 302, 303, 307, 308).")


def btab_order(v):
    reader = Reader(v["dedup"])
    a, b = reader.bodies[0].offset, reader.bodies[1].offset
    buf = bytearray(v["dedup"])
    buf[a:a + 48], buf[b:b + 48] = v["dedup"][b:b + 48], v["dedup"][a:a + 48]
    return with_digests(buf), expect(
        "corrupt-index", "verify", b,
        "dedup.webarc with its two BTAB entries swapped, so digests descend (digests recomputed).")


# ---------------------------------------------------------------------------- verify: body store (§5)

def unsupported_codec(v):
    reader = Reader(v["minimal"])
    chunk = reader.chunks[0]
    buf = bytearray(v["minimal"])
    buf[chunk.entry_offset + 16] = 7
    return with_digests(buf), expect(
        "unsupported-codec", "verify", chunk.entry_offset + 16,
        "minimal.webarc with its chunk's codec set to 7 (digests recomputed).")


def bdat_gap(v, recipes):
    data = remodel(recipes["minimal"], lambda model: model.bdat.extend(bytes(8)))
    reader = Reader(data)
    return data, expect(
        "corrupt-index", "verify", reader.sections["BDAT"].end - 8,
        "minimal's content with 8 bytes at the end of BDAT that no chunk covers.")


def lz4_flips(v) -> tuple[tuple[bytes, dict], tuple[bytes, dict]]:
    """Flip (XOR 0x01) bytes of minimal's LZ4 chunk in turn: the first flip that stops the block
    decoding and the first one that decodes to other bytes. BDAT is not in the index: no digest changes."""
    reader = Reader(v["minimal"])
    chunk, body = reader.chunks[0], reader.bodies[0]
    assert chunk.codec == 1
    original = reader.decode_chunk(chunk)
    undecodable = wrong_bytes = None
    for i in range(chunk.stored_length):
        buf = bytearray(v["minimal"])
        buf[chunk.offset + i] ^= 0x01
        decoded = lz4block.decompress(bytes(buf[chunk.offset:chunk.offset + chunk.stored_length]), chunk.raw_length)
        if decoded is None and undecodable is None:
            undecodable = (bytes(buf), expect(
                "corrupt-chunk", "verify", chunk.offset,
                f"minimal.webarc with byte {i} of its LZ4 block flipped: the block no longer decodes to rawLength."))
        elif decoded not in (None, original) and wrong_bytes is None:
            assert i in first_literals(v["minimal"][chunk.offset:chunk.offset + chunk.stored_length])
            wrong_bytes = (bytes(buf), expect(
                "body-digest", "verify", body.offset,
                f"minimal.webarc with byte {i} of its LZ4 block (a literal) flipped: it decodes, the MD5 differs."))
        if undecodable and wrong_bytes:
            return undecodable, wrong_bytes
    raise AssertionError("no flip found")


def first_literals(block: bytes) -> range:
    """Positions of the first sequence's literal bytes in an LZ4 block."""
    length, at = block[0] >> 4, 1
    if length == 15:
        while True:
            length += block[at]
            at += 1
            if block[at - 1] != 255:
                break
    return range(at, at + length)


def raw_chunk_flip(v):
    reader = Reader(v["site"])
    body = next(b for b in reader.bodies if b.length == 2000)            # the PNG-like logo
    chunk = reader.chunks[body.first_chunk]
    assert chunk.codec == 0
    buf = bytearray(v["site"])
    buf[chunk.offset + 1000] ^= 0x01
    return bytes(buf), expect("body-digest", "verify", body.offset,
                              "site.webarc with one byte flipped inside the raw (codec 0) chunk of the PNG-like body.")


def trailing_data(v):
    reader = Reader(v["minimal"])
    return v["minimal"] + b"\x00trailing garbage\n", expect(
        "trailing-data", "verify", reader.archive_length,
        "minimal.webarc (version 1.0) with 18 bytes appended after archiveLength.")


# ---------------------------------------------------------------------------- the list

def all_vectors(valid: dict[str, bytes], recipes: dict[str, dict]) -> dict[str, tuple[bytes, dict]]:
    """FILE.webarc -> (bytes, expectation), in a fixed order."""
    v = valid
    undecodable, literal = lz4_flips(v)
    return {
        "empty.webarc": empty_file(v),
        "not-an-archive.webarc": text_file(v),
        "seven-bytes.webarc": seven_bytes(v),
        "truncated-100.webarc": truncated_100(v),
        "truncated-last-byte.webarc": truncated_last_byte(v),
        "major-version-2.webarc": major_version_2(v),
        "header-reserved-flip.webarc": header_reserved_flip(v),
        "bad-header-entry-size.webarc": bad_header_entry_size(v),
        "bad-header-index-offset.webarc": bad_header_index_offset(v),
        "section-missing-lkup.webarc": section_missing_lkup(v),
        "section-duplicate.webarc": section_duplicate(v),
        "section-out-of-bounds.webarc": section_out_of_bounds(v),
        "unsupported-section.webarc": unsupported_section(v, recipes),
        "index-digest.webarc": index_digest(v),
        "string-bad-utf8.webarc": string_bad_utf8(v),
        "field-length.webarc": field_length(v, recipes),
        "duplicate-key.webarc": duplicate_key(v, recipes),
        "missing-required-key.webarc": missing_required_key(v, recipes),
        "object0-not-archive.webarc": object0_not_archive(v, recipes),
        "body-length-mismatch.webarc": body_length_mismatch(v, recipes),
        "lookup-order.webarc": lookup_order(v),
        "lookup-wrong-key.webarc": lookup_wrong_key(v, recipes),
        "redirect-status.webarc": redirect_status(v, recipes),
        "btab-order.webarc": btab_order(v),
        "unsupported-codec.webarc": unsupported_codec(v),
        "bdat-gap.webarc": bdat_gap(v, recipes),
        "lz4-undecodable.webarc": undecodable,
        "lz4-wrong-bytes.webarc": literal,
        "raw-chunk-flip.webarc": raw_chunk_flip(v),
        "trailing-data.webarc": trailing_data(v),
    }
