"""The invalid vectors (Spec/vectors/invalid/): each is derived from a valid vector or its recipe.

Every vector is a function returning `(bytes, expectation)`. Byte-level
tampering patches a copy of a valid archive where no digest covers the
change (or the digest is the point); structural tampering edits the writer's
model or plan of a recipe and serializes it again, so every digest of the
chain (chunk digest -> body entry and its copies -> page digest -> parent
references -> trailer, trailerCheck) is recomputed and exactly one rule
breaks. Expected offsets are located here from the writer's own layout, not
from the reader's errors; `make_vectors.check_invalid` then confirms that the
reader reports exactly that code at that offset.
"""

import base64
import dataclasses
import hashlib
import json
import struct

import layers
import lz4block
import search_index as si
import valid_vectors as vv
import zstdblock
from schema import (APPENDIX_MAGIC, DELTA, END_MAGIC, FEATURE_DELTA, FEATURE_DICTIONARY, FEATURE_GROUPED, FEATURE_LAYER, INTERIOR,
                    LEAD_MAGIC, LZ4, RAW, RECORD_LEAF, RECORD_TREE, STRING, UINT)
from webarc_reader import Archive, body_ref, dump_archive, ref_key
from webarc_writer import (Chunk, Field, Page, Raw, Record, build, plan, relayer, request_object, serialize, sign,
                           tombstone_object, write)

KEY1 = ["keys/test1.pub"]


def expect(error: str, at: str, offset: int | None, why: str, **extra) -> dict:
    out = {"error": error, "at": at, "why": why}
    if offset is not None:
        out["offset"] = offset
    out.update(extra)
    return out


# ---------------------------------------------------------------------------- helpers

def craft(recipe: dict, edit_model=None, edit_plan=None, edit_trailer=None, bases=None) -> tuple[bytes, object]:
    """Build, plan and serialize `recipe` with edits at each stage; returns the bytes and the plan
    (whose pages carry their references: where each page ended up)."""
    model = build(recipe, bases)
    if edit_model:
        edit_model(model)
    the_plan = plan(model)
    if edit_plan:
        edit_plan(the_plan)
    return serialize(model, the_plan, edit_trailer), the_plan


@dataclasses.dataclass
class KeyedPage(Page):
    """A page an interior page names by `key` (an empty leaf has no first key of its own)."""
    key: bytes = b""

    def first_key(self) -> bytes:
        return self.key


def trailer_at(data: bytes) -> int:
    """The trailer of an archive without appendix."""
    return len(data) - 256


def retrailer(data: bytes, offset_in_trailer: int, fmt: str, value, check: bool = True) -> bytes:
    """Change a trailer field; recompute trailerCheck unless `check` is False."""
    buf = bytearray(data)
    t = trailer_at(data)
    struct.pack_into(fmt, buf, t + offset_in_trailer, value)
    if check:
        buf[t + 240:t + 248] = hashlib.sha256(buf[t:t + 240]).digest()[:8]
    return bytes(buf)


def flip(data: bytes, offset: int, mask: int = 0x01) -> bytes:
    buf = bytearray(data)
    buf[offset] ^= mask
    return bytes(buf)


def response_of(model, index: int = 0):
    return model.records[index].obj


def record_leaf(the_plan):
    return the_plan.record_levels[0][0]


def body_leaf(the_plan):
    return the_plan.body_levels[0][0]


def child_ref_at(raw: bytes, index: int) -> int:
    """Where the `index`-th child reference starts in an encoded interior page."""
    assert raw[0] == INTERIOR
    at = 8
    for i in range(index + 1):
        at += 4 + struct.unpack_from("<I", raw, at)[0]
        if i < index:
            at += 56
    return at


# ---------------------------------------------------------------------------- open (§4.3)

def open_vectors(v) -> dict:
    minimal = v["minimal"].data
    n, t = len(minimal), trailer_at(minimal)
    out = {}
    out["empty.webarc"] = b"", expect("empty", "open", 0, "A 0-byte file.")
    out["not-an-archive.webarc"] = (b"This is a plain text file, not a webarc archive.\n",
                                    expect("not-an-archive", "open", 0, "A text file: no webarc magic."))
    out["seven-bytes.webarc"] = minimal[:7], expect(
        "not-an-archive", "open", 0, "The first 7 bytes of minimal.webarc: shorter than the 8-byte magic.")
    out["lead-cut.webarc"] = minimal[:12], expect(
        "truncated", "open", 12, "The first 12 bytes of minimal.webarc: the magic, then a lead cut short of 16 bytes.")
    buf = bytearray(minimal)
    struct.pack_into("<HH", buf, 8, 1, 0)
    out["format-1.webarc"] = bytes(buf), expect(
        "unsupported-version", "open", 8,
        "minimal.webarc with a 1.0 lead (majorVersion 1, minorVersion 0): a 2.x reader refuses 1.x files at step 2.")
    buf = bytearray(retrailer(minimal, 8, "<H", 3))
    struct.pack_into("<H", buf, 8, 3)
    out["format-3.webarc"] = bytes(buf), expect(
        "unsupported-version", "open", 8,
        "minimal.webarc with majorVersion 3 in the lead and the trailer (trailerCheck recomputed).")
    tiny = LEAD_MAGIC + struct.pack("<HHI", 2, 0, 0) + bytes(8) + END_MAGIC
    out["short-file.webarc"] = tiny, expect(
        "truncated", "open", len(tiny),
        "A 32-byte file: a 2.0 lead, 8 zero bytes and the trailer's end magic; shorter than a lead and a trailer (272).")
    out["truncated-cut.webarc"] = minimal[:600], expect(
        "truncated", "open", 600, "The first 600 bytes of minimal.webarc: cut inside its pages; no end magic.")
    out["truncated-last-byte.webarc"] = minimal[:-1], expect(
        "truncated", "open", n - 1, "minimal.webarc without its last byte: the file ends with neither end magic.")
    appended = minimal + b"0123456789"
    out["appended-bytes.webarc"] = appended, expect(
        "truncated", "open", len(appended),
        "minimal.webarc with 10 bytes appended that are not an appendix: the file ends with neither end magic.")
    out["trailer-magic.webarc"] = flip(minimal, t + 1, 0x20), expect(
        "truncated", "open", n, "minimal.webarc with the trailer magic's `W` made `w`.")
    out["trailer-checksum.webarc"] = flip(minimal, t + 232), expect(
        "trailer-checksum", "open", t + 240,
        "minimal.webarc with a bit of the trailer's reserved bytes (trailer + 232) flipped; trailerCheck not updated.")
    out["bad-trailer-major.webarc"] = retrailer(minimal, 8, "<H", 3), expect(
        "bad-trailer", "open", t + 8, "minimal.webarc with trailer majorVersion 3, lead 2 (trailerCheck recomputed).")
    out["bad-trailer-minor.webarc"] = retrailer(minimal, 10, "<H", 2), expect(
        "bad-trailer", "open", t + 10,
        "minimal.webarc with trailer minorVersion 2 while the lead says 1 (trailerCheck recomputed).")
    out["unsupported-feature.webarc"] = retrailer(minimal, 16, "<Q", 1 << 5), expect(
        "unsupported-feature", "open", t + 16,
        "minimal.webarc with requiredFeatures bit 5, which 2.1 does not define (trailerCheck recomputed).")
    out["unsupported-feature-4.webarc"] = retrailer(minimal, 16, "<Q", 1 << 4), expect(
        "unsupported-feature", "open", t + 16,
        "minimal.webarc with requiredFeatures bit 4, the lowest bit 2.4 does not define (trailerCheck recomputed).")
    out["bad-trailer-archive-length.webarc"] = retrailer(minimal, 32, "<Q", n - 1), expect(
        "bad-trailer", "open", t + 32, "minimal.webarc with archiveLength one less than the archive end.")
    out["bad-trailer-body-data-end.webarc"] = retrailer(minimal, 40, "<Q", n - 255), expect(
        "bad-trailer", "open", t + 40, "minimal.webarc with bodyDataEnd past archiveLength - 256.")
    out["bad-trailer-record-count.webarc"] = retrailer(minimal, 48, "<Q", (1 << 40) + 1), expect(
        "bad-trailer", "open", t + 48, "minimal.webarc with recordCount 2^40 + 1, over the bound of §10.")
    out["root-past-end.webarc"] = retrailer(minimal, 120, "<Q", n), expect(
        "bad-trailer", "open", t + 120,
        "minimal.webarc with the record root's offset at archiveLength: its page lies past the page area "
        "(a truncated tree as the trailer names it).")
    out["bad-trailer-root-codec.webarc"] = retrailer(minimal, 176 + 16, "<B", 3), expect(
        "bad-trailer", "open", t + 176, "minimal.webarc with the body root's page reference of codec 3.")
    root = Archive(minimal).record_root
    assert root.codec == LZ4 and 255 * root.stored_length + 1 <= 4_194_304
    out["bad-trailer-root-ratio.webarc"] = retrailer(minimal, 120 + 12, "<I", 255 * root.stored_length + 1), expect(
        "bad-trailer", "open", t + 120,
        "minimal.webarc with the record root's rawLength 255 x storedLength + 1 (an LZ4 page; within every other "
        "bound): in the trailer a decode ratio over 255 is bad-trailer like any broken rule of §5.1, not amplification.")
    big = minimal + struct.pack("<Q", len(minimal) + 16 - 271) + APPENDIX_MAGIC
    out["bad-appendix-length.webarc"] = big, expect(
        "bad-appendix", "open", len(big) - 16,
        "minimal.webarc followed by an appendix end whose appendixLength is larger than the file - 272.")
    small = minimal + b"\x01\x00\x00\x00\x00\x00\x00\x00" + struct.pack("<Q", 8) + APPENDIX_MAGIC
    out["bad-appendix-small.webarc"] = small, expect(
        "bad-appendix", "open", len(small) - 16,
        "minimal.webarc followed by an appendix whose appendixLength is 8, less than its own 16 bytes.")
    return out


# ---------------------------------------------------------------------------- verify: pages and trees

def page_vectors(v) -> dict:
    out = {}
    minimal = v["minimal"].data
    a = Archive(minimal)
    leaf = a.record_root
    assert leaf.codec == LZ4
    out["page-digest.webarc"] = flip(minimal, leaf.offset + leaf.stored_length // 2), expect(
        "page-digest", "verify", leaf.offset,
        "minimal.webarc with a bit flipped in the middle of its record leaf's stored bytes; digest not updated.")

    def cut_block(p):
        record_leaf(p).patch_stored = lambda stored: stored[:-1]
    data, p = craft(vv.minimal(), edit_plan=cut_block)
    out["corrupt-page-lz4.webarc"] = data, expect(
        "corrupt-page", "verify", record_leaf(p).ref.offset,
        "minimal's content with the record leaf's LZ4 block cut by its last byte: it no longer decodes to "
        "rawLength (digests recomputed up to the trailer).")

    def page_type(p):
        body_leaf(p).patch = lambda raw: bytes([9]) + raw[1:]
    data, p = craft(vv.minimal(), edit_plan=page_type)
    out["corrupt-page-type.webarc"] = data, expect(
        "corrupt-page", "verify", body_leaf(p).ref.offset,
        "minimal's content with its body leaf of page type 9 (digests recomputed).")

    def trailing(p):
        p.metadata.patch = lambda raw: raw + bytes(4)
    data, p = craft(vv.minimal(), edit_plan=trailing)
    out["corrupt-page-trailing.webarc"] = data, expect(
        "corrupt-page", "verify", p.metadata.ref.offset,
        "minimal's content with 4 zero bytes after the metadata page's object (digests recomputed).")

    def count(p):
        record_leaf(p).patch = lambda raw: raw[:4] + struct.pack("<I", 2) + raw[8:]
    data, p = craft(vv.minimal(), edit_plan=count)
    out["corrupt-page-count.webarc"] = data, expect(
        "corrupt-page", "verify", record_leaf(p).ref.offset,
        "minimal's content with the record leaf's count 2 for its one record (digests recomputed).")

    def child_past_end(p):
        root = p.record_levels[1][0]
        assert len(p.record_levels) == 2

        def patch(raw):
            buf = bytearray(raw)
            struct.pack_into("<Q", buf, child_ref_at(raw, 0), 1 << 32)   # the first child's offset
            return bytes(buf)
        root.patch = patch
    data, p = craft(vv.large(), edit_plan=child_past_end)
    out["child-past-end.webarc"] = data, expect(
        "corrupt-page", "verify", p.record_levels[1][0].ref.offset,
        "large's content with the record root's first child reference at offset 2^32, past the page area: a "
        "truncated tree (digests recomputed). The error names the interior page holding the reference.")

    def amplify_child(p):
        root = p.record_levels[1][0]
        last = root.children[-1]

        def patch(raw):
            buf = bytearray(raw)
            at = child_ref_at(raw, len(root.children) - 1)
            struct.pack_into("<I", buf, at + 12, 255 * last.ref.stored_length + 1)   # rawLength
            return bytes(buf)
        root.patch = patch
    data, p = craft(vv.large(), edit_plan=amplify_child)
    last = p.record_levels[1][0].children[-1]
    assert 255 * last.ref.stored_length + 1 <= 4_194_304
    out["page-amplification.webarc"] = data, expect(
        "amplification", "verify", last.ref.offset,
        "large's content with the record root's last child reference claiming rawLength 255 x storedLength + 1 "
        "(within every other bound; digests recomputed): named at that child's offset, refused before it is read.")

    for name, field, height, why in (
            ("metadata-height.webarc", "metadata", 1,
             "minimal's content with the trailer's metadata reference of height 1 (trailerCheck recomputed): it opens "
             "(open checks no height); reading the metadata page refuses it, after its digest check and decoding."),
            ("root-height.webarc", "record_root", 9,
             "minimal's content with the trailer's record root reference of height 9, over the bound of §10 "
             "(trailerCheck recomputed): it opens (open checks no height); reading the root refuses it before "
             "reading its bytes.")):
        def with_height(trailer, field=field, height=height):
            setattr(trailer, field, dataclasses.replace(getattr(trailer, field), height=height))
        data, p = craft(vv.minimal(), edit_trailer=with_height)
        page = p.metadata if field == "metadata" else record_leaf(p)
        out[name] = data, expect("corrupt-page", "verify", page.ref.offset, why)

    def interior_tree(p):
        p.record_levels[1][0].patch = lambda raw: raw[:1] + bytes([2]) + raw[2:]
    data, p = craft(vv.large(), edit_plan=interior_tree)
    out["interior-tree.webarc"] = data, expect(
        "corrupt-page", "verify", p.record_levels[1][0].ref.offset,
        "large's content with the record root's tree byte 2 (the body tree's; digests recomputed).")

    def empty_leaf(p):
        leaves, root = p.record_levels[0], p.record_levels[1][0]
        assert len(p.record_levels) == 2
        empty = KeyedPage(RECORD_LEAF, records=[], bodies=[])
        empty.key = leaves[0].records[-1].encoded_key() + b"\0"     # after leaf 0's last key, before leaf 1's first
        assert empty.key < leaves[1].first_key()
        leaves.insert(1, empty)
        root.children.insert(1, empty)
    data, p = craft(vv.large(), edit_plan=empty_leaf)
    out["empty-leaf.webarc"] = data, expect(
        "corrupt-page", "verify", p.record_levels[0][1].ref.offset,
        "large's content with an empty record leaf (count 0) as the record root's second child, named by a key "
        "between its neighbours' (digests recomputed): only the root of an empty tree may be empty.")

    def named_twice(p):
        leaves, root = p.record_levels[0], p.record_levels[1][0]
        assert len(p.record_levels) == 2 and len(leaves) >= 5
        middle = len(leaves) // 2
        first = Page(INTERIOR, 1, RECORD_TREE, children=leaves[:middle + 1])
        second = Page(INTERIOR, 1, RECORD_TREE, children=leaves[middle:])
        p.record_levels[1:] = [[first, second], [Page(INTERIOR, 2, RECORD_TREE, children=[first, second])]]
    data, p = craft(vv.large(), edit_plan=named_twice)
    leaves = p.record_levels[0]
    out["page-named-twice.webarc"] = data, expect(
        "shared-extent", "verify", leaves[len(leaves) // 2].ref.offset,
        "large's content with a record tree of height 2: the root names two interior pages, the first naming leaves "
        "0 to 3 and the second leaves 3 to 6, so leaf 3 is named twice; every key and height is right (the second "
        "interior page starts with leaf 3's first key; digests recomputed). The page is read once, its records "
        "counted once; its second name is a shared extent.")

    def interior_key(p):
        root = p.body_levels[1][0]

        def patch(raw):
            buf = bytearray(raw)
            end = child_ref_at(raw, 1)                       # the second key ends here
            key = int.from_bytes(raw[end - 20:end], "big") - 1
            buf[end - 20:end] = key.to_bytes(20, "big")
            return bytes(buf)
        root.patch = patch
        first, previous_last = root.children[1].first_key(), root.children[0].bodies[-1].key
        assert previous_last < (int.from_bytes(first, "big") - 1).to_bytes(20, "big") < first
    data, p = craft(vv.large(), edit_plan=interior_key)
    out["interior-key.webarc"] = data, expect(
        "corrupt-index", "verify", p.body_levels[1][0].ref.offset,
        "large's content with the body root's second key one less (as a 160-bit number) than its child's first "
        "key: still above the previous leaf's last key, so every lookup still finds its body (digests recomputed).")

    def swap_records(p):
        leaf_page = record_leaf(p)
        leaf_page.records[0], leaf_page.records[1] = leaf_page.records[1], leaf_page.records[0]
    data, p = craft(vv.site(), edit_plan=swap_records)
    out["record-order.webarc"] = data, expect(
        "corrupt-index", "verify", record_leaf(p).ref.offset,
        "site's content with the record leaf's first two entries swapped, so its keys descend (digests recomputed).")

    def copy_differs(p):
        leaf_page = record_leaf(p)
        leaf_page.bodies = [dataclasses.replace(leaf_page.bodies[0], sha256=bytes(32))]
    data, p = craft(vv.minimal(), edit_plan=copy_differs)
    out["copy-differs.webarc"] = data, expect(
        "corrupt-index", "verify", record_leaf(p).ref.offset,
        "minimal's content with the record leaf's copy of the body entry holding another SHA-256 than the body "
        "tree's entry (digests recomputed).")

    def wrong_count(trailer):
        trailer.record_count = 2
    data, p = craft(vv.minimal(), edit_trailer=wrong_count)
    out["record-count.webarc"] = data, expect(
        "corrupt-index", "verify", trailer_at(data) + 48,
        "minimal's content with recordCount 2 in the trailer for its one record (trailerCheck recomputed).")
    return out


# ---------------------------------------------------------------------------- verify: objects and records

def object_vectors(v) -> dict:
    out = {}

    def leaf_offset(p):
        return record_leaf(p).ref.offset

    def field_length(m):
        response_of(m).field("status").value = Raw(struct.pack("<I", 200))
    data, p = craft(vv.minimal(), field_length)
    out["field-length.webarc"] = data, expect(
        "corrupt-index", "verify", leaf_offset(p),
        "minimal's content with the Response's status (type uint) 4 bytes long (digests recomputed).")

    def field_type(m):
        f = response_of(m).field("bodyLength")
        f.type, f.value = STRING, "299"
    data, p = craft(vv.minimal(), field_type)
    out["field-type.webarc"] = data, expect(
        "corrupt-index", "verify", leaf_offset(p),
        "minimal's content with the Response's bodyLength of type string (digests recomputed).")

    def nested_class(m):
        response_of(m).field("request").value.class_name = "Redirect"
    data, p = craft(vv.minimal(), nested_class)
    out["nested-class.webarc"] = data, expect(
        "corrupt-index", "verify", leaf_offset(p),
        "minimal's content with the Response's request field holding its Request's fields under the class Redirect, "
        "a known class but not the one §7.3 names for that field (digests recomputed).")

    for name, key, value, why in (
            ("writer-level.webarc", "level", 13, "Writer.level 13, over 12"),
            ("writer-zstd-level.webarc", "zstdLevel", 0, "Writer.zstdLevel 0 (1 to 22; absent is what turns step 15 off)")):
        def writer_field(m, key=key, value=value):
            writer = m.archive.field("writer").value
            present = [f for f in writer.fields if f.key == key]
            if present:
                present[0].value = value
            else:
                writer.fields.append(Field(key, UINT, value))
        data, p = craft(vv.minimal(), writer_field)
        out[name] = data, expect(
            "corrupt-index", "verify", p.metadata.ref.offset,
            f"minimal's content with {why} in its metadata page (digests recomputed): the metadata object does not read.")

    def duplicate(m):
        response_of(m).field("textEncoding").key = "mimeType"
    data, p = craft(vv.minimal(), duplicate)
    out["duplicate-key.webarc"] = data, expect(
        "duplicate-key", "verify", leaf_offset(p),
        "minimal's content with the Response's textEncoding field keyed mimeType: the key appears twice "
        "(digests recomputed).")

    def missing(m):
        obj = response_of(m)
        obj.fields.remove(obj.field("bodyLength"))
    data, p = craft(vv.minimal(), missing)
    out["missing-required-key.webarc"] = data, expect(
        "corrupt-index", "verify", leaf_offset(p),
        "minimal's content with the required bodyLength left out of the Response (digests recomputed).")

    def length_mismatch(m):
        response_of(m).field("bodyLength").value += 1
    data, p = craft(vv.minimal(), length_mismatch)
    out["body-length-mismatch.webarc"] = data, expect(
        "corrupt-index", "verify", leaf_offset(p),
        "minimal's content with the Response's bodyLength one more than its body entry's length (digests recomputed).")

    def wrong_key(m):
        m.records[0].key = "GET https://example.com/elsewhere"
    data, p = craft(vv.minimal(), wrong_key)
    out["record-wrong-key.webarc"] = data, expect(
        "corrupt-index", "verify", leaf_offset(p),
        "minimal's content with its record keyed GET https://example.com/elsewhere, not the canonical key of its "
        "request (digests recomputed).")

    def redirect_status(m):
        redirect = next(r.obj for r in m.records if r.obj.class_name == "Redirect")
        redirect.field("status").value = 200
    data, p = craft(vv.site(), redirect_status)
    out["redirect-status.webarc"] = data, expect(
        "corrupt-index", "verify", leaf_offset(p),
        "site's content with its Redirect's status 200 (allowed: 301, 302, 303, 307, 308; digests recomputed).")

    def tombstone(m):
        record = vv.tombstone("https://example.com/gone")
        m.records.append(Record("GET https://example.com/gone", tombstone_object(record, request_object(record)),
                                None, len(m.records)))
        m.required &= ~FEATURE_LAYER
    data, p = craft(vv.minimal(), tombstone)
    out["tombstone-no-layer.webarc"] = data, expect(
        "corrupt-index", "verify", leaf_offset(p),
        "minimal's content plus a Tombstone record, in an archive without feature bit 0 (layer).")

    other = hashlib.md5(b"a body this archive does not hold").digest()

    def not_found_model(m):
        response_of(m).field("body").value = (other, 0)

    def not_found_plan(p):
        record_leaf(p).bodies = []
    data, p = craft(vv.minimal(), not_found_model, not_found_plan)
    out["body-not-found.webarc"] = data, expect(
        "body-not-found", "verify", leaf_offset(p),
        "minimal's content with the Response naming a body (another MD5) that neither its page nor the body tree "
        "holds; the page's copy of its old body entry removed, the body tree unchanged (digests recomputed).")
    return out


# ---------------------------------------------------------------------------- verify: body store

def lz4_flips(v) -> tuple[tuple[bytes, dict], tuple[bytes, dict]]:
    """Flip (XOR 0x01) bytes of minimal's LZ4 chunk in turn: the first flip that stops the block
    decoding and the first one that decodes to other bytes. No digest covers stored chunk bytes."""
    data = v["minimal"].data
    a = Archive(data)
    chunk = a.find_body(a.leaves(a.body_root, 2)[0].bodies[0].key).chunks[0]
    assert chunk.codec == LZ4 and chunk.offset == 16
    stored = data[chunk.offset:chunk.offset + chunk.stored_length]
    original = lz4block.decompress(stored, chunk.raw_length)
    undecodable = wrong = None
    for i in range(chunk.stored_length):
        changed = bytearray(stored)
        changed[i] ^= 0x01
        decoded = lz4block.decompress(bytes(changed), chunk.raw_length)
        if decoded is None and undecodable is None:
            undecodable = flip(data, chunk.offset + i), expect(
                "corrupt-chunk", "verify", chunk.offset,
                f"minimal.webarc with byte {i} of its LZ4 chunk flipped: the block no longer decodes to rawLength.")
        elif decoded not in (None, original) and wrong is None:
            wrong = flip(data, chunk.offset + i), expect(
                "chunk-digest", "verify", chunk.offset,
                f"minimal.webarc with byte {i} of its LZ4 chunk (a literal) flipped: it decodes, to other bytes.")
        if undecodable and wrong:
            return undecodable, wrong
    raise AssertionError("no flip found")


def chunk_vectors(v) -> dict:
    out = {}
    out["corrupt-chunk.webarc"], out["chunk-digest.webarc"] = lz4_flips(v)

    site = v["site"].data
    a = Archive(site)
    logo = next(b for leaf in a.leaves(a.body_root, 2) for b in leaf.bodies if b.length == 2000)
    chunk = logo.chunks[0]
    assert chunk.codec == RAW
    out["chunk-digest-raw.webarc"] = flip(site, chunk.offset + 1000), expect(
        "chunk-digest", "verify", chunk.offset,
        "site.webarc with one byte flipped inside the raw (codec 0) chunk of the PNG-like body.")

    collision = v["collision"].data
    a = Archive(collision)
    chunks = sorted((b.chunks[0] for leaf in a.leaves(a.body_root, 2) for b in leaf.bodies), key=lambda c: c.offset)
    assert [(c.offset, c.stored_length, c.codec) for c in chunks] == [(16, 128, RAW), (144, 128, RAW)]
    swapped = collision[:16] + collision[144:272] + collision[16:144] + collision[272:]
    out["collision-swapped.webarc"] = swapped, expect(
        "chunk-digest", "verify", 16,
        "collision.webarc with its two 128-byte bodies (one MD5) exchanged in the body data: the MD5s still "
        "match, the SHA-256 chunk digests do not (both chunks, at 16 and 144, are reported).")

    def md5(m):
        body = m.bodies[0]
        body.md5 = hashlib.md5(b"not the body").digest()
        response_of(m).field("body").value = (body.md5, body.variant)
    data, _ = craft(vv.minimal(), md5)
    out["body-digest-md5.webarc"] = data, expect(
        "body-digest", "verify", 16,
        "minimal's content with its body entry (and the Response's reference) holding a wrong MD5; chunks and "
        "SHA-256 fine (digests recomputed).")

    def sha(m):
        m.bodies[0].sha256 = hashlib.sha256(b"not the body").digest()
    data, _ = craft(vv.minimal(), sha)
    out["body-digest-sha256.webarc"] = data, expect(
        "body-digest", "verify", 16,
        "minimal's content with its body entry holding a wrong SHA-256 (body hash); chunks and MD5 fine "
        "(digests recomputed).")

    def codec(m):
        m.bodies[0].chunks[0].codec = 7
    data, p = craft(vv.minimal(), codec)
    out["unsupported-codec.webarc"] = data, expect(
        "unsupported-codec", "verify", body_leaf(p).ref.offset,
        "minimal's content with its chunk's codec 7 in the body entry and its copy (digests recomputed); the "
        "offset is the body tree leaf holding the entry.")

    css = "https://example.org/style.css"

    def read_codec(m):
        (record,) = [r for r in m.records if r.obj.field("request").value.field("url").value == css]
        record.body.chunks[0].codec = 7
    data, p = craft(vv.site(), read_codec)
    assert len(p.record_levels[0]) == 1
    out["read-unsupported-codec.webarc"] = data, expect(
        "unsupported-codec", "read", record_leaf(p).ref.offset,
        f"site's content with the chunk of {css} of codec 7 in its body entry and the entry's copy (digests "
        "recomputed). A reader looks the URL up and reads the body through the copy in the record leaf: the error "
        "names that leaf, not the body leaf (which verify names).", url=css)

    zeros = {"archive": {}, "records": [vv.response("https://example.com/a.txt", b"a" * 262_144,
                                                    headers=[["Content-Type", "text/plain"]], mime="text/plain")]}

    def amplify(m):
        c = m.bodies[0].chunks[0]
        assert c.codec == LZ4 and c.stored_length > 1000
        del m.body_data[16:]
        c.stored_length = 16
    data, _ = craft(zeros, amplify)
    out["amplification.webarc"] = data, expect(
        "amplification", "verify", 16,
        "A 262 144-byte body of `a` whose LZ4 chunk claims rawLength 262 144 from its first 16 stored bytes "
        "(ratio 16 384 > 255); chunk digest, MD5, SHA-256 and lengths are those of the real body (digests "
        "recomputed). A reader refuses it before decoding.")

    text = vv.multichunk_body(262_144)
    shared = {"archive": {}, "records": [
        vv.response("https://example.com/x.log", text, headers=[["Content-Type", "text/plain"]], mime="text/plain"),
        vv.response("https://example.com/y.log", text + b"and a tail\n", headers=[["Content-Type", "text/plain"]],
                    mime="text/plain")]}

    def share(m):
        x, y = m.bodies
        first, dup, tail = x.chunks[0], y.chunks[0], y.chunks[1]
        assert dup.digest == first.digest and dup.offset == first.offset + first.stored_length
        del m.body_data[dup.offset - 16:dup.offset - 16 + dup.stored_length]
        tail.offset -= dup.stored_length
        y.chunks[0] = dataclasses.replace(first)
    data, _ = craft(shared, share)
    out["shared-extent.webarc"] = data, expect(
        "shared-extent", "verify", 16,
        "Two bodies, X (262 144 bytes, one chunk) and Y (X plus a tail): Y's first chunk entry names X's chunk "
        "extent and Y's own copy is gone (a chunk shared between bodies without a feature that allows it; "
        "digests recomputed).")

    def lz4_bound(m):
        c = m.bodies[0].chunks[0]
        assert c.codec == LZ4 and c.offset + c.stored_length == 16 + len(m.body_data)
        bound = c.raw_length + c.raw_length // 255 + 16
        m.body_data += bytes(bound + 1 - c.stored_length)
        c.stored_length = bound + 1

    def outside(m):
        c = m.bodies[0].chunks[0]
        assert c.offset == 16 and len(m.body_data) == c.stored_length
        del m.body_data[:]
    for name, edit, why in (
            ("lz4-bound.webarc", lz4_bound,
             "minimal's content with its LZ4 chunk's storedLength rawLength + floor(rawLength / 255) + 17, one over "
             "the bound, the body data padded with zeros to its end (digests recomputed): corrupt-index at the body "
             "leaf; the extent still counts for layout (no gap is reported)."),
            ("chunk-outside.webarc", outside,
             "minimal's content with its body data removed (bodyDataEnd 16) and its chunk entry unchanged, so its "
             "extent lies over the first page (digests recomputed): corrupt-index at the body leaf; an extent outside "
             "the body data does not count for layout (no shared-extent is reported).")):
        data, p = craft(vv.minimal(), edit)
        out[name] = data, expect("corrupt-index", "verify", body_leaf(p).ref.offset, why)

    def gap(m):
        m.body_data += bytes(8)
    data, _ = craft(vv.minimal(), gap)
    end = Archive(v["minimal"].data).body_data_end
    out["bad-layout-gap.webarc"] = data, expect(
        "bad-layout", "verify", end,
        "minimal's content with 8 zero bytes at the end of the body data that no chunk covers.")

    buf = bytearray(v["minimal"].data)
    buf[13] = 1
    out["bad-layout-lead.webarc"] = bytes(buf), expect(
        "bad-layout", "verify", 13, "minimal.webarc with lead byte 13 (reserved) set to 1; no digest covers the lead.")
    return out


# ---------------------------------------------------------------------------- appendix, trust, layers

def trust_vectors(v, keys) -> dict:
    out = {}
    minimal = v["minimal"].data
    n = len(minimal)

    def signed(data, key, sequence, expires=0, *more):
        """`data` signed by `key`, then by each (key, sequence, expires) of `more`, in that order."""
        blocks = [(key, sequence, expires)] + list(more)
        return sign(data, [{"type": 1, "key": k, "sequence": q, "created": vv.NOV_23, "expires": e} for k, q, e in blocks],
                    keys)
    bad_block = bytearray(signed(minimal, "test1", 1))
    struct.pack_into("<I", bad_block, n + 4, 119)
    out["bad-appendix-blocks.webarc"] = bytes(bad_block), expect(
        "bad-appendix", "verify", len(bad_block) - 16,
        "minimal.webarc signed by test1 with the signature block's length field 119: the blocks do not fill the "
        "appendix exactly.")
    out["trust-unsigned.webarc"] = minimal, expect(
        "unsigned", "trust", n, "minimal.webarc, not signed, checked against test1.", keys=KEY1)
    out["trust-untrusted-key.webarc"] = signed(minimal, "test2", 1), expect(
        "untrusted-key", "trust", n, "minimal.webarc signed by test2 only, checked against test1.", keys=KEY1)
    sig = bytearray(signed(minimal, "test1", 1))
    sig[n + 8 + 56 + 10] ^= 0x01
    out["trust-bad-signature.webarc"] = bytes(sig), expect(
        "bad-signature", "trust", n, "minimal.webarc signed by test1 with a bit of the signature flipped.", keys=KEY1)
    out["trust-expired.webarc"] = signed(minimal, "test1", 1, expires=vv.Y2K), expect(
        "expired", "trust", n, "minimal.webarc signed by test1 with expires 2000-01-01.", keys=KEY1)
    out["rollback-5.webarc"] = signed(minimal, "test1", 5), None
    out["rollback-3.webarc"] = signed(minimal, "test1", 3), expect(
        "rolled-back", "trust", n,
        "minimal.webarc signed by test1 with sequence 3. Check rollback-5.webarc first (accepted: sequence 5, "
        "same key), keeping the state, then this file: refused.", keys=KEY1, acceptFirst=["rollback-5.webarc"])
    site = v["site"].data
    out["trust-expired-negative.webarc"] = signed(minimal, "test1", 1, -1), expect(
        "expired", "trust", n, "minimal.webarc signed by test1 with expires -1, a moment before 1970: a negative "
        "expiry is a date like any other, long past.", keys=KEY1)
    out["rollback-two-sequences.webarc"] = signed(minimal, "test1", 9, 0, ("test1", 3, 0)), expect(
        "rolled-back", "trust", n,
        "minimal.webarc signed twice by test1, sequence 9 then sequence 3. Check rollback-5.webarc first (sequence "
        "5), then this file: every signature of a trusted key that verifies is checked, and 3 is below 5.",
        keys=KEY1, acceptFirst=["rollback-5.webarc"])
    out["rollback-expired-9.webarc"] = signed(site, "test1", 6, 0, ("test1", 9, vv.Y2K)), None
    out["rollback-below-expired.webarc"] = signed(minimal, "test1", 7), expect(
        "rolled-back", "trust", n,
        "minimal.webarc signed by test1 with sequence 7. Check rollback-expired-9.webarc first (site.webarc signed "
        "by test1 with sequence 6, and with sequence 9 expired in 2000: accepted by the first, and the state "
        "records 9, the highest sequence of the key's signatures that verify, expired ones included), then this "
        "file: refused.", keys=KEY1, acceptFirst=["rollback-expired-9.webarc"])
    out["rollback-same-sequence.webarc"] = signed(site, "test1", 5), expect(
        "rolled-back", "trust", len(site),
        "site.webarc signed by test1 with sequence 5, the sequence of rollback-5.webarc, another archive digest. "
        "Check rollback-5.webarc first, then this file: refused.", keys=KEY1, acceptFirst=["rollback-5.webarc"])
    return out


def layer_vectors(v) -> dict:
    site = Archive(v["site"].data)
    recipe = vv.update(site.archive_digest, site.archive_length)
    recipe["archive"]["bases"][0]["digest"] = "00" + recipe["archive"]["bases"][0]["digest"][2:]
    data = write(recipe, [site])
    out = {"bad-base.webarc": (data, expect(
        "bad-base", "stack", None,
        "update's content with the first byte of its base's digest zeroed; stacked over valid/site.webarc. It "
        "verifies given that base, but the stack does not match its bases.",
        stack=["valid/site.webarc"], bases=["valid/site.webarc"]))}

    def base_chunk(m):
        """The chunk entry of layer 1 (the re-captured style sheet, in site)."""
        (chunk,) = [c for b in m.bodies for c in b.chunks if c.layer]
        return chunk

    def past_bases(m):
        base_chunk(m).layer = 2
    data, p = craft(vv.update(site.archive_digest, site.archive_length), past_bases, bases=[site])
    out["layer-past-bases.webarc"] = data, expect(
        "corrupt-index", "verify", body_leaf(p).ref.offset,
        "update's content with its chunk entry in site (layer 1) given layer 2, though Archive.bases names one base "
        "(digests recomputed); verified over valid/site.webarc.", bases=["valid/site.webarc"])

    def past_body_data(m):
        base_chunk(m).offset = site.body_data_end
    data, p = craft(vv.update(site.archive_digest, site.archive_length), past_body_data, bases=[site])
    out["layer-extent.webarc"] = data, expect(
        "corrupt-index", "verify", body_leaf(p).ref.offset,
        f"update's content with its chunk entry in site (layer 1) at offset {site.body_data_end}, site's "
        "bodyDataEnd: its extent lies outside the base's body data (digests recomputed); verified over "
        "valid/site.webarc.", bases=["valid/site.webarc"])
    return out


# ---------------------------------------------------------------------------- delta chunks (codec 3)

DELTA_BASE = ["valid/delta-base.webarc"]


def guide_reference(v) -> tuple[Archive, Chunk, bytes]:
    """delta-base, the chunk of its guide page (codec 1) as an update over it sees the entry (layer
    1), and its decoded bytes."""
    base = Archive(v["delta-base"].data)
    obj, _ = base.lookup("GET", vv.DELTA_SITE + "guide.html")
    chunk = base.find_body(ref_key(*body_ref(obj))).chunks[0]
    assert chunk.codec == LZ4
    return base, relayer(chunk, 1), base.chunk_bytes(chunk, [])


def delta_update(v, raw: bytes, tamper=None, edit=None) -> tuple[bytes, object]:
    """An update over delta-base with one body, `raw`, stored as one codec-3 chunk at offset 16: the
    frame the writer makes of it against the base's guide chunk, changed by `tamper(frame)`; `edit`
    changes the model after that. Every digest of the chain recomputed (no digest covers the
    stored bytes of a chunk)."""
    base, reference, reference_bytes = guide_reference(v)
    assert len(raw) <= 262_144
    frame = zstdblock.compress_with_dict(raw, reference_bytes)
    stored = tamper(frame) if tamper else frame
    recipe = {"archive": {"bases": [{"digest": base.archive_digest.hex(), "archiveLength": base.archive_length,
                                     "name": "delta-base.webarc"}]},
              "records": [vv.response(vv.DELTA_SITE + "guide.html", raw, headers=vv.HTML, mime="text/html",
                                      encoding="utf-8", date=vv.NOV_25)]}

    def model(m):
        body = m.bodies[0]
        m.body_data = bytearray(stored)
        body.chunks = [Chunk(16, len(stored), len(raw), DELTA, hashlib.sha256(raw).digest(), reference=reference)]
        m.required |= FEATURE_DELTA
        if edit:
            edit(m)
    return craft(recipe, model, bases=[base])


def delta_vectors(v) -> dict:
    out = {}
    page = vv.guide_page("Start", "Start here.", "<p>One more line.</p>\n").encode()
    _, _, reference_bytes = guide_reference(v)
    frame = zstdblock.compress_with_dict(page, reference_bytes)
    assert zstdblock.decode(frame, len(page), reference_bytes) == page and len(frame) < len(page)
    data, _ = delta_update(v, page)
    assert not Archive(data).verify([Archive(v["delta-base"].data)]), "the untampered delta update is not valid"

    _, _, fcs_at, fcs_size = zstdblock.frame_header(frame)
    for i in range(fcs_at + fcs_size, len(frame)):           # the first flip after the header that stops decoding
        changed = bytearray(frame)
        changed[i] ^= 0x01
        if zstdblock.frame_problem(bytes(changed), len(page)) is None and \
                zstdblock.decode(bytes(changed), len(page), reference_bytes) is None:
            break
    else:
        raise AssertionError("no flip stops the frame decoding")
    data, _ = delta_update(v, page, lambda f: f[:i] + bytes([f[i] ^ 0x01]) + f[i + 1:])
    out["delta-corrupt-frame.webarc"] = data, expect(
        "corrupt-chunk", "verify", 16,
        f"An update over delta-base whose one body is a codec-3 chunk (its reference the base's guide chunk) with "
        f"byte {i} of its Zstandard frame flipped: the frame no longer decodes.", bases=DELTA_BASE)

    def content_size(f):
        assert fcs_size == 2                                     # 2 bytes: the size minus 256
        return f[:fcs_at] + struct.pack("<H", len(page) - 1 - 256) + f[fcs_at + 2:]
    data, _ = delta_update(v, page, content_size)
    out["delta-content-size.webarc"] = data, expect(
        "corrupt-chunk", "verify", 16,
        "delta-corrupt-frame's update with the frame intact but its Frame_Content_Size one less than rawLength.",
        bases=DELTA_BASE)

    def no_content_size(f):
        assert f[4] >> 5 == 0b011                                # content size of 2 bytes, single segment
        return f[:4] + bytes([f[4] & 0b111]) + bytes([1 << 3]) + f[5 + fcs_size:]     # a 2 KiB window instead
    assert zstdblock.frame_problem(no_content_size(frame), len(page)) == "the frame does not declare its content size"
    data, _ = delta_update(v, page, no_content_size)
    out["delta-no-content-size.webarc"] = data, expect(
        "corrupt-chunk", "verify", 16,
        "delta-corrupt-frame's update with the frame's header declaring no Frame_Content_Size (a Window_Descriptor "
        "of 2 KiB instead; the blocks unchanged).", bases=DELTA_BASE)

    data, _ = delta_update(v, page, lambda f: f + b"\0")
    out["delta-trailing-bytes.webarc"] = data, expect(
        "corrupt-chunk", "verify", 16,
        "delta-corrupt-frame's update with the frame intact and one zero byte after it in the chunk "
        "(storedLength one more).", bases=DELTA_BASE)

    def dictionary_id(f):
        descriptor_at, did_at, _, _ = zstdblock.frame_header(f)
        assert f[descriptor_at] & 3 == 0
        return f[:descriptor_at] + bytes([f[descriptor_at] | 1]) + f[descriptor_at + 1:did_at] + b"\x2a" + f[did_at:]
    data, _ = delta_update(v, page, dictionary_id)
    out["delta-dictionary-id.webarc"] = data, expect(
        "corrupt-chunk", "verify", 16,
        "delta-corrupt-frame's update with the frame declaring Dictionary_ID 42 (one byte inserted in its header).",
        bases=DELTA_BASE)

    data, _ = delta_update(v, page, lambda f: struct.pack("<II", 0x184D2A50, 4) + b"skip" + f)
    out["delta-skippable-frame.webarc"] = data, expect(
        "corrupt-chunk", "verify", 16,
        "delta-corrupt-frame's update with a 12-byte skippable frame before the Zstandard frame.", bases=DELTA_BASE)

    data, _ = delta_update(v, page, lambda f: zstdblock.with_window(f, 22, 0))
    out["delta-window-log.webarc"] = data, expect(
        "corrupt-chunk", "verify", 16,
        "delta-corrupt-frame's update with the frame intact but its header declaring Window_Log 32 (a "
        "Window_Descriptor of exponent 22; no longer a single segment): over 31, which libzstd refuses as malformed.",
        bases=DELTA_BASE)

    def reference_delta(m):
        m.bodies[0].chunks[0].reference.codec = DELTA
    data, p = delta_update(v, page, edit=reference_delta)
    out["delta-reference-delta.webarc"] = data, expect(
        "corrupt-index", "verify", body_leaf(p).ref.offset,
        "delta-corrupt-frame's update with the frame intact and its reference's entry of codec 3 (a delta chunk "
        "cannot be a reference).", bases=DELTA_BASE)

    small = b"<p>tiny</p>\n"
    assert len(zstdblock.compress_with_dict(small, reference_bytes)) >= len(small)
    data, p = delta_update(v, small)
    out["delta-not-smaller.webarc"] = data, expect(
        "corrupt-index", "verify", body_leaf(p).ref.offset,
        "An update over delta-base whose one body, 12 bytes, is a codec-3 chunk whose frame (which decodes) is "
        "not shorter than rawLength.", bases=DELTA_BASE)

    zeros = b"a" * 262_144
    tight = zstdblock.compress_with_dict(zeros, reference_bytes)
    assert len(zeros) > 255 * len(tight) + len(reference_bytes)
    data, _ = delta_update(v, zeros)
    out["delta-amplification.webarc"] = data, expect(
        "amplification", "verify", 16,
        f"An update over delta-base whose one body, 262 144 bytes of `a`, is a codec-3 chunk whose frame (which "
        f"decodes) is {len(tight)} bytes: rawLength over 255 x storedLength + the reference's rawLength "
        f"({len(reference_bytes)}).", bases=DELTA_BASE)

    def no_feature(m):
        m.required &= ~FEATURE_DELTA
    data, p = delta_update(v, page, edit=no_feature)
    out["delta-no-feature.webarc"] = data, expect(
        "corrupt-index", "verify", body_leaf(p).ref.offset,
        "delta-corrupt-frame's update with the frame intact and requiredFeatures without bit 2 (delta-codec).",
        bases=DELTA_BASE)

    def no_dictionary_feature(m):
        m.required &= ~FEATURE_DICTIONARY
    data, p = craft(vv.dictionary(), no_dictionary_feature)
    out["dictionary-no-feature.webarc"] = data, expect(
        "corrupt-index", "verify", body_leaf(p).ref.offset,
        "dictionary's content (a codec-2 chunk) with requiredFeatures without bit 1 (dictionary-codec).")
    return out


def local_delta(recipe: dict, frame_dictionary: bytes | None = None, transform=None):
    """An edit for `craft`: the second body of `recipe` (one chunk, the last in the body data) stored
    as a codec-3 chunk whose reference is the first body's chunk, in this archive (`layer` 0); the
    frame is coded against the first body's bytes, or `frame_dictionary` when given, then changed by
    `transform(frame)` when given."""
    first, second = (base64.b64decode(r["body"]) for r in recipe["records"][:2])

    def edit(m):
        reference, old = m.bodies[0].chunks[0], m.bodies[1].chunks[0]
        assert len(m.bodies[1].chunks) == 1 and old.offset + old.stored_length == 16 + len(m.body_data)
        frame = zstdblock.compress_with_dict(second, first if frame_dictionary is None else frame_dictionary)
        if transform is not None:
            frame = transform(frame)
        del m.body_data[old.offset - 16:]
        m.bodies[1].chunks = [Chunk(old.offset, len(frame), len(second), DELTA, hashlib.sha256(second).digest(),
                                    reference=dataclasses.replace(reference))]
        m.body_data += frame
        m.required |= FEATURE_DELTA
    return edit


def reference_magic_vector() -> dict:
    recipe = vv.delta_local(zstdblock.DICTIONARY_MAGIC)
    data, _ = craft(recipe, local_delta(recipe, b""))
    v2 = Archive(data).leaves(Archive(data).body_root, 2)[0].bodies
    offset = next(b.chunks[0].offset for b in v2 if b.chunks[0].codec == DELTA)
    return {"delta-reference-magic.webarc": (data, expect(
        "corrupt-chunk", "verify", offset,
        "delta-local's content with the first version starting with the Zstandard dictionary magic 37 A4 30 EC; "
        "the second version's frame uses no dictionary, so it would decode were the reference read as raw "
        "content, but ZSTD_decompress_usingDict would load those bytes as a dictionary."))}


def unsorted_layer(v) -> tuple[bytes, dict]:
    """An update over site holding two captures of one new page stored older first, against Appendix C
    step 5; its target is that page's release as a writer writes it given the layered view in the
    view's order. Applying it numbers the records in the view's order, so the result's Writer.order is
    not the target's: bad-target. (A tool that sorted a key's records again before numbering them
    would rebuild the target.)"""
    site = Archive(v["site"].data)
    url = "https://example.org/twice.html"
    recipe = {"archive": {"created": vv.NOV_25, "bases": [
        {"digest": site.archive_digest.hex(), "archiveLength": site.archive_length, "name": "site.webarc"}]},
        "records": [vv.response(url, vv.html_page("Twice", "The newer capture."), headers=vv.HTML, mime="text/html",
                                date=vv.NOV_24),
                    vv.response(url, vv.html_page("Twice", "The older capture."), headers=vv.HTML, mime="text/html",
                                date=vv.NOV_23)]}

    def older_first(p):
        (leaf,) = p.record_levels[0]
        at = [i for i, r in enumerate(leaf.records) if r.key.endswith("twice.html")]
        assert len(at) == 2 and at[1] == at[0] + 1 and leaf.records[at[0]].capture_date == vv.NOV_24
        leaf.records[at[0]], leaf.records[at[1]] = leaf.records[at[1]], leaf.records[at[0]]
    update, _ = craft(recipe, edit_plan=older_first, bases=[site])
    result = Archive(write({"archive": {}, "records": layers.layered_view([Archive(update), site])}))
    assert "order" in dump_archive(result.metadata())["writer"]
    recipe["archive"]["target"] = {"digest": result.archive_digest.hex(), "archiveLength": result.archive_length,
                                   "archive": dump_archive(result.metadata())}
    data, _ = craft(recipe, edit_plan=older_first, bases=[site])
    return data, expect(
        "bad-target", "apply", None,
        "An update over site holding two captures of a new page stored older first (against Appendix C step 5; "
        "digests recomputed), whose target is what a writer makes of the layered view given in the view's order. "
        "Applying it numbers the records in the view's order and does not sort a key's records again; the writer "
        "sorts them, so the result's Writer.order differs from the target's.",
        stack=["valid/site.webarc"], bases=["valid/site.webarc"])


def apply_vectors(v) -> dict:
    """Updates that verify and stack over their bases but do not apply (§13.1)."""
    base = Archive(v["delta-base"].data)
    out = {"unsorted-layer.webarc": unsorted_layer(v)}
    recipe = json.loads(json.dumps(v["delta"].recipe))
    recipe["archive"]["target"]["digest"] = "00" + recipe["archive"]["target"]["digest"][2:]
    out["bad-target.webarc"] = write(recipe, [base]), expect(
        "bad-target", "apply", None,
        "delta's content with the first byte of its target's digest zeroed; applied over valid/delta-base.webarc, "
        "it gives delta-result.webarc, whose digest is not the target's.", stack=DELTA_BASE, bases=DELTA_BASE)
    recipe = json.loads(json.dumps(v["delta"].recipe))
    recipe["archive"]["target"]["bodyData"] = "00" + recipe["archive"]["target"]["bodyData"][2:]
    out["bad-body-data.webarc"] = write(recipe, [base]), expect(
        "bad-target", "apply", None,
        "delta's content with the first byte of its target's bodyData zeroed (since 2.1.4); applied over "
        "valid/delta-base.webarc, it gives delta-result.webarc, whose digest is the target's but whose body data is not.",
        stack=DELTA_BASE, bases=DELTA_BASE)
    recipe = json.loads(json.dumps(v["delta"].recipe))
    target = recipe["archive"]["target"]
    target["archive"]["target"] = {"digest": target["digest"], "archiveLength": target["archiveLength"], "archive": {}}
    data, p = craft(recipe, bases=[base])
    out["target-in-target.webarc"] = data, expect(
        "corrupt-index", "verify", p.metadata.ref.offset,
        "delta's content with a Target inside its target's Archive object: Archive, Target, Archive, Target, "
        "Archive nest five objects deep, over the bound of 4 (digests recomputed).", bases=DELTA_BASE)
    recipe = json.loads(json.dumps(v["delta"].recipe))
    order = recipe["archive"]["target"]["archive"]["writer"]["order"]
    assert order[1] == [2, 1] and order[2] != [2, 1]
    order[2] = [2, 1]
    data, p = craft(recipe, bases=[base])
    out["bad-order.webarc"] = data, expect(
        "corrupt-index", "apply", p.metadata.ref.offset,
        "delta's content with its target's Writer.order naming position 2 twice (and position "
        f"{v['delta'].recipe['archive']['target']['archive']['writer']['order'][2][0]} never): applying it fails "
        "before writing; the offset is the update's metadata page.", stack=DELTA_BASE, bases=DELTA_BASE)
    return out


# ---------------------------------------------------------------------------- the list

# ---------------------------------------------------------------------------- the search index (§17)

def shard_entries(payload: bytes) -> tuple[int, int, list[list]]:
    """A term shard's P, Q and entries [term, documentFrequency, postingsLength, positionsLength]."""
    p = si.Payload(payload, 0)
    posting_pages, position_pages, entries, previous = p.int("P"), p.int("Q"), [], b""
    for _ in range(p.int("T")):
        shared = p.int("shared")
        previous = previous[:shared] + p.string("suffix")
        entries.append([previous, p.int("df"), p.int("postings"), p.int("positions")])
    return posting_pages, position_pages, entries


def shard_payload(posting_pages: int, position_pages: int, entries: list[list]) -> bytes:
    out, previous = si.leb128(posting_pages) + si.leb128(position_pages) + si.leb128(len(entries)), b""
    for i, (term, df, postings, positions) in enumerate(entries):
        shared = 0 if i == 0 else si.common_prefix(previous, term)
        out += si.leb128(shared) + si.string(term[shared:]) + si.leb128(df) + si.leb128(postings) + si.leb128(positions)
        previous = term
    return out


def title_payload(entries: list[tuple[bytes, int]]) -> bytes:
    out, previous = si.leb128(len(entries)), b""
    for i, (key, document) in enumerate(entries):
        shared = 0 if i == 0 else si.common_prefix(previous, key)
        out += si.leb128(shared) + si.string(key[shared:]) + si.leb128(document)
        previous = key
    return out


def search_vectors(v) -> dict:
    """The `search` vector's index broken one rule at a time: page-level (verify) and payload-level
    (a reader that reads every page of the index: `at` "search")."""
    out = {}
    recipe = vv.search()
    data = v["search"].data
    a = Archive(data)
    index = si.SearchIndex.open(a)
    shard = index.shard_refs[0]
    assert len(index.shard_refs) == 1 and len(index.document_refs) == 1 and len(index.title_refs) == 1
    meta = a.metadata_ref.offset

    out["search-page-digest.webarc"] = flip(data, shard.offset + shard.stored_length // 2), expect(
        "page-digest", "verify", shard.offset,
        "search: a byte of the term shard flipped; its digest no longer matches (refused like any page).")

    def no_feature(t):
        t.optional = 0
    raw, _ = craft(recipe, edit_trailer=no_feature)
    out["search-no-feature.webarc"] = raw, expect(
        "corrupt-index", "verify", meta, "search with optionalFeatures bit 0 clear: Archive.search without the bit.")

    def feature(t):
        t.optional = si.FEATURE_SEARCH
    raw, p = craft(vv.minimal(), edit_trailer=feature)
    out["search-feature-no-index.webarc"] = raw, expect(
        "corrupt-index", "verify", p.metadata.ref.offset,
        "minimal with optionalFeatures bit 0 set and no Archive.search.")

    # §7.3 `Totals` (2.2.2): stored totals that differ from the trees.
    def totals_edit(key, change):
        def edit(pl):
            totals = next(f for f in pl.metadata.obj.fields if f.key == "totals").value
            item = next(f for f in totals.fields if f.key == key)
            item.value = change(item.value)
        return edit
    raw, p = craft(vv.site(), edit_plan=totals_edit("responses", lambda n: n + 1))
    out["bad-totals.webarc"] = raw, expect(
        "bad-totals", "verify", p.metadata.ref.offset,
        "site whose Archive.totals counts one response more than its record tree holds.")
    raw, p = craft(vv.site(), edit_plan=totals_edit("origins", lambda origins: origins[:-1] + ["https://example.net"]))
    out["bad-totals-origins.webarc"] = raw, expect(
        "bad-totals", "verify", p.metadata.ref.offset,
        "site whose Archive.totals lists an origin no record has (its originCount is right).")

    def root_kind(pl):
        pl.search_root.kind = si.TERMS
    raw, p = craft(recipe, edit_plan=root_kind)
    out["search-root-kind.webarc"] = raw, expect(
        "corrupt-page", "verify", p.search_root.ref.offset, "search: the root page of kind 2 (a term shard's).")

    def page_kind(pl):
        pl.search_pages[-1].kind = 7
    raw, p = craft(recipe, edit_plan=page_kind)
    out["search-page-kind.webarc"] = raw, expect(
        "corrupt-page", "verify", p.search_pages[-1].ref.offset, "search: the title shard of an unknown kind 7.")

    def payload_vector(name: str, pick, change, why: str, given: dict = recipe) -> None:
        def edit(pl):
            page = pick(pl)
            page.payload = change(page.payload, pl)
        raw, p = craft(given, edit_plan=edit)
        out[name] = raw, expect("corrupt-page", "search", pick(p).ref.offset, why)

    def root_page(pl):
        return pl.search_root

    def shard_page(pl):
        return next(pg for pg in pl.search_pages if pg.kind == si.TERMS)

    def posting_page(pl):
        return shard_page(pl).children[0]

    def title_page(pl):
        return next(pg for pg in pl.search_pages if pg.kind == si.TITLES)

    def document_page(pl):
        return next(pg for pg in pl.search_pages if pg.kind == si.DOCUMENTS)

    payload_vector("search-root-version.webarc", root_page, lambda b, pl: si.leb128(2) + b[1:],
                   "search: the root's version 2 under Archive.search, which names version 1 (§17.2).")

    def terms_swapped(payload, pl):
        pp, qq, entries = shard_entries(payload)
        entries[1], entries[2] = entries[2], entries[1]
        return shard_payload(pp, qq, entries)
    payload_vector("search-terms-order.webarc", shard_page, terms_swapped,
                   "search: the shard's second and third terms exchanged (with their lengths): not ascending.")

    def positions_length(payload, pl):
        pp, qq, entries = shard_entries(payload)
        entries[-1][3] += 1
        return shard_payload(pp, qq, entries)
    payload_vector("search-positions-length.webarc", shard_page, positions_length,
                   "search: the last term's positionsLength one more: the lengths do not sum to the stream.")

    def delta_zero(payload, pl):
        _, (start, end), _ = pl.search_terms["river"]
        assert end - start == 9 and payload[start + 3] == 2      # three one-byte postings: 1, +2, +1
        return payload[:start + 3] + b"\0" + payload[start + 4:]
    payload_vector("search-posting-delta.webarc", posting_page, delta_zero,
                   "search: the second posting of `river` with a document delta of 0.")

    def titles_swapped(payload, pl):
        entries = index.titles(0)
        assert entries[-2:] == [(b"water", 4), (b"water", 5)], entries
        return title_payload(entries[:-2] + [entries[-1], entries[-2]])
    payload_vector("search-title-order.webarc", title_page, titles_swapped,
                   "search: two equal title keys with their documents in descending order.")

    def document_dropped(payload, pl):
        documents = index.document_page(0)
        out_ = si.leb128(len(documents) - 1)
        for url, title, length in documents[:-1]:
            out_ += si.string(url.encode()) + si.string(title.encode()) + si.leb128(length)
        return out_
    payload_vector("search-document-count.webarc", document_page, document_dropped,
                   "search: the document page holds 5 documents where the root gives 6.")

    def long_url(payload, pl):
        documents = index.document_page(0)
        out_ = si.leb128(len(documents))
        for number, (url, title, length) in enumerate(documents):
            raw = url.encode() + (b"a" * (si.MAX_DOCUMENT_STRING + 1 - len(url)) if number == 0 else b"")
            out_ += si.string(raw) + si.string(title.encode()) + si.leb128(length)
        return out_
    payload_vector("search-document-url.webarc", document_page, long_url,
                   "search: the first document's URL 8 193 bytes long, over the bound of 8 192 (§10).")
    # Index version 2 (2.3): the feature bit, a damaged posting page, the root's version, a term's
    # postingsLength.
    recipe = vv.search_v2()
    data = v["search-v2"].data
    a = Archive(data)
    index = si.SearchIndex.open(a)
    assert index.version == 2 and len(index.shard_refs) == 1
    posting = index.shard(0).posting_pages[0]
    out["search-v2-page-digest.webarc"] = flip(data, posting.offset + posting.stored_length // 2), expect(
        "page-digest", "verify", posting.offset,
        "search-v2: a byte of the posting page flipped; its digest no longer matches (refused like any page).")
    raw, _ = craft(recipe, edit_trailer=no_feature)
    out["search-v2-no-feature.webarc"] = raw, expect(
        "corrupt-index", "verify", a.metadata_ref.offset,
        "search-v2 with optionalFeatures bit 1 clear: Archive.searchIndex without the bit.")
    payload_vector("search-v2-root-version.webarc", root_page, lambda b, pl: si.leb128(1) + b[1:],
                   "search-v2: the root's version 1 under Archive.searchIndex, which names version 2 (§17.2).",
                   recipe)

    def postings_length(payload, pl):
        p = si.Payload(payload, 0)
        entries, previous = [], b""
        for _ in range(p.int("T")):
            shared = p.int("shared")
            previous = previous[:shared] + p.string("suffix")
            entries.append([previous, p.int("df"), p.int("postings")])
        entries[-1][2] += 1
        out_, previous = si.leb128(len(entries)), b""
        for i, (term, df, postings) in enumerate(entries):
            shared = 0 if i == 0 else si.common_prefix(previous, term)
            out_ += si.leb128(shared) + si.string(term[shared:]) + si.leb128(df) + si.leb128(postings)
            previous = term
        return out_
    payload_vector("search-v2-postings-length.webarc", shard_page, postings_length,
                   "search-v2: the last term's postingsLength one more: the lengths do not sum to the posting pages.",
                   recipe)
    return out


def group_vectors(v) -> dict:
    """Slices and groups (§6.3, 2.4) that break a rule, each made from `grouped-lz4`'s recipe with one
    edit to its model (entries and their record-leaf copies alike; digests recomputed)."""
    out = {}
    recipe = vv.grouped(zstd=False)

    def body(m, length):
        (entry,) = [b for b in m.bodies if b.length == length]
        assert entry.slice_start is not None
        return entry

    first = len(base64.b64decode(recipe["records"][0]["body"]))
    full = 65_536

    def past_end(m):
        body(m, first).slice_start = 0xFFFF_F000

    def two_chunks(m):
        entry = body(m, first)
        entry.chunks = entry.chunks * 2

    def too_large(m):
        entry = body(m, full)
        assert [b for b in m.bodies if b.chunks and b.chunks[0] is entry.chunks[0]] == [entry]
        entry.chunks[0].raw_length = 2_097_153

    def no_feature(m):
        m.required &= ~FEATURE_GROUPED

    group_offset = []

    def wrong_digest(m):
        entry = body(m, first)
        entry.chunks[0].digest = bytes(32)
        group_offset.append(entry.chunks[0].offset)
    for name, edit, why in (
            ("slice-past-end.webarc", past_end,
             f"grouped-lz4's content with the slice of its first page ({first} bytes) given sliceStart 0xFFFFF000: "
             "past its group's end (and past 2^32 with its length): corrupt-index at the body leaf, before a byte is "
             "decoded."),
            ("slice-two-chunks.webarc", two_chunks,
             "grouped-lz4's content with the slice of its first page naming its group twice (chunkCount 2): a slice "
             "has exactly one chunk entry: corrupt-index at the body leaf."),
            ("group-too-large.webarc", too_large,
             "grouped-lz4's content with the group holding only its 65 536-byte page declaring rawLength 2 097 153, "
             "one over a group's bound (§10): corrupt-index at the body leaf, before it is decoded."),
            ("slice-no-feature.webarc", no_feature,
             "grouped-lz4's content with requiredFeatures bit 3 (grouped-bodies) cleared: every slice is "
             "corrupt-index at the body leaf (a reader that does not know slices would have opened it).")):
        data, p = craft(recipe, edit)
        out[name] = data, expect("corrupt-index", "verify", body_leaf(p).ref.offset, why)
    url = recipe["records"][0]["url"]
    data, p = craft(recipe, past_end)
    assert len(p.record_levels[0]) == 1
    out["read-slice-past-end.webarc"] = data, expect(
        "corrupt-index", "read", record_leaf(p).ref.offset,
        f"slice-past-end's bytes: reading {url} through its record's copy of the entry fails before any byte "
        "is decoded, at the record leaf.", url=url)
    data, p = craft(recipe, wrong_digest)
    out["group-digest.webarc"] = data, expect(
        "chunk-digest", "verify", group_offset[0],
        "grouped-lz4's content with the digest of the group holding its first page zeroed in every slice's "
        "entry: the group decodes but does not match: chunk-digest at the group's offset (each of its slices "
        "reports it).")
    return out


def all_vectors(valid: dict, keys: dict) -> dict[str, tuple[bytes, dict | None]]:
    """FILE.webarc -> (bytes, expectation or None for a file that is only a prerequisite)."""
    out = {}
    for part in (open_vectors(valid), page_vectors(valid), object_vectors(valid), chunk_vectors(valid),
                 trust_vectors(valid, keys), layer_vectors(valid), delta_vectors(valid), apply_vectors(valid), reference_magic_vector(),
                 search_vectors(valid), group_vectors(valid)):
        out.update(part)
    return out
