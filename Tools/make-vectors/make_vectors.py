#!/usr/bin/env python3
"""Regenerate the webarc 2.1 test vectors under Spec/vectors/ (run from anywhere):

    python3 Tools/make-vectors/make_vectors.py

This is an implementation of webarc 2.1 independent of the Swift library,
written from Spec/webarc-format.md alone:

- canonical.py       URL canonicalization (§9)
- webarc_writer.py   the writer, in the deterministic order of Appendix C; signing (§12)
- webarc_reader.py   the reader, the §11.3 verifier, trust (§12.4), layers (§13), the JSON dump
- ed25519.py         Ed25519 (RFC 8032): `cryptography` when importable, else pure Python
- layers.py          §13.1: the layered view, an update made as a diff, applying an update
- compact.py         compact updates (Spec/compact-update.md): encode, decode, apply
- compact_vectors.py the compact update vectors under Spec/vectors/compact/
- lz4block.py        LZ4 blocks through the system liblz4 (as the Swift code)
- zstdblock.py       Zstandard frames with a raw-content dictionary through the system libzstd
- schema.py          constants and the §7.3 classes
- valid_vectors.py   the recipes of the valid vectors
- invalid_vectors.py the invalid vectors, derived from the valid ones

For every valid vector it writes NAME.webarc, NAME.input.json (the recipe) and
NAME.json (the reader's dump of the .webarc bytes); the invalid vectors and
invalid/expected.json; the test keys (keys/); canonical-urls.json. Before
writing, it checks its own output: every valid archive verifies clean, dumps
back to its recipe and (unless crafted) is what the writer makes of its
recipe; each update with a target applies to its result vector byte for byte;
every invalid one fails exactly as expected.json says. The output depends only
on this code and the system liblz4 and libzstd: two runs give identical bytes.
"""

import base64
import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.dont_write_bytecode = True      # keep Tools/make-vectors free of __pycache__

import compact_vectors                                          # noqa: E402
import ed25519                                                  # noqa: E402
import invalid_vectors                                          # noqa: E402
import layers                                                   # noqa: E402
import lz4block                                                 # noqa: E402
import search_index                                             # noqa: E402
import zstdblock                                                # noqa: E402
import valid_vectors as vv                                      # noqa: E402
from canonical import BadURL, ascii_upper, canonical_key        # noqa: E402
from layers import recipe_record                                # noqa: E402
from schema import BYTES, FEATURE_DICTIONARY, LZ4_DICT, OBJECT, STRING       # noqa: E402
from webarc_reader import (Archive, Stack, WebarcError, body_ref, check_trust, dump_archive, nested,  # noqa: E402
                           parse_object, parse_private_key, parse_public_key, ref_key, text)
from webarc_writer import (Chunk, Field, Obj, Raw, Record, build, key_files, plan, request_object,  # noqa: E402
                           serialize, sign, write)

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "Spec" / "webarc-format.md"
VECTORS = ROOT / "Spec" / "vectors"

# The test keys: seed = SHA-256 of a fixed phrase (§12.3 private key = RFC 8032 seed).
KEYS = {"test1": hashlib.sha256(b"webarc test key 1").digest(),
        "test2": hashlib.sha256(b"webarc test key 2").digest()}


def to_json(obj) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@dataclass
class Vector:
    recipe: dict
    data: bytes
    bases: list[str] = field(default_factory=list)   # names of valid vectors below it, nearest first
    crafted: bool = False                             # not what a 2.1 writer makes of the recipe


# ---------------------------------------------------------------------------- crafted valid vectors

def newer_minor(recipe: dict) -> bytes:
    """Version 2.7: an unknown optional feature bit, unknown fields on the Archive and a Response (one
    of a known type, one of an unknown type 42), and records of an unknown class `Snapshot`: one with
    the key of /notes.txt, sorted first in its group (a lookup skips it), one with a key of its own."""
    model = build(recipe)
    model.minor = 7
    model.optional = 1 << 9
    model.archive.fields.append(Field("snapshotIndex", BYTES, b"a page tree a 2.0 reader does not know"))
    home, notes = model.records[0], model.records[1]
    home.obj.fields.insert(2, Field("x-future", 42, Raw(bytes([1, 2, 3, 4, 5]))))
    home.obj.fields.append(Field("sha3", BYTES, bytes(range(32))))
    request = notes.obj.field("request").value
    model.records.append(Record(notes.key, Obj("Snapshot", [Field("request", OBJECT, request),
                                                            Field("note", STRING, "a newer kind of record")]),
                                vv.NOV_24, len(model.records)))
    model.records.append(Record("GET https://example.net/snapshot",
                                Obj("Snapshot", [Field("note", STRING, "a record only 2.7 knows")]),
                                None, len(model.records)))
    return serialize(model, plan(model))


def newer_reserved(recipe: dict) -> bytes:
    """Version 2.3 with every reserved byte a reader ignores set to A5: the trailer's flags and
    reserved bytes, page references, page headers, body entry flags (but bit 0, a slice's since
    2.4), chunk entries. (Not the lead's:
    a verifier reports those.)"""
    model = build(recipe)
    model.minor = 3
    model.flags = 0xA5A5A5A5
    for body in model.bodies:
        body.flags = 0xA5A5A5A4                  # bit 0 is a slice's since 2.4 (§6.3)
        for chunk in body.chunks:
            chunk.reserved = b"\xa5" * 6
    the_plan = plan(model)
    for page in the_plan.pages():
        page.reserved = b"\xa5" * (2 if page.type == 1 else 3)
        page.ref_reserved = b"\xa5" * 6

    def edit(trailer):
        trailer.reserved = b"\xa5" * 8
    return serialize(model, the_plan, edit)


def dictionary(recipe: dict) -> bytes:
    """The second body coded against the first as its dictionary (codec 2, feature bit 1)."""
    model = build(recipe)
    v1, v2 = model.bodies
    v1_bytes = base64.b64decode(recipe["records"][0]["body"])
    v2_bytes = base64.b64decode(recipe["records"][1]["body"])
    old = v2.chunks[0]
    assert len(v2.chunks) == 1 and old.offset + old.stored_length == 16 + len(model.body_data)
    del model.body_data[old.offset - 16:]
    block = lz4block.compress_with_dict(v2_bytes, v1_bytes[-65536:])
    d = v1.chunks[0]
    v2.chunks = [Chunk(old.offset, len(block), len(v2_bytes), LZ4_DICT, hashlib.sha256(v2_bytes).digest(),
                       dictionary=Chunk(d.offset, d.stored_length, d.raw_length, d.codec, d.digest))]
    model.body_data += block
    model.required |= FEATURE_DICTIONARY
    return serialize(model, plan(model))


def unchecked(recipe: dict) -> bytes:
    """What a reader reads without checking: the recipe's records (a method `get`, stored so; one with
    a space; headers holding CR, LF and NUL), objects nested seven deep under a Response key no reader
    knows, and `Writer.level` 2, which no writer writes (§7.1 to §7.3)."""
    given = json.loads(json.dumps(recipe))
    for record in given["records"]:
        record["method"] = ascii_upper(record["method"])
    model = build(given)
    for record, original in zip(model.records, recipe["records"]):
        record.obj.field("request").value.field("method").value = original["method"]
    deep = Obj("Opaque", [Field("note", STRING, "seven objects deep")])
    for _ in range(5):
        deep = Obj("Opaque", [Field("inner", OBJECT, deep)])
    model.records[0].obj.fields.append(Field("x-nested", OBJECT, deep))
    model.archive.field("writer").value.field("level").value = 2
    return serialize(model, plan(model))


# ---------------------------------------------------------------------------- valid vectors

def signature(key: str, sequence: int, created: int, expires: int) -> dict:
    return {"type": 1, "key": key, "sequence": sequence, "created": created, "expires": expires}


def signed_recipe(recipe: dict, blocks: list[dict]) -> dict:
    return dict(recipe, appendix=blocks)


def valid_vectors() -> dict[str, Vector]:
    out: dict[str, Vector] = {}
    plain = {"empty": vv.empty(), "minimal": vv.minimal(), "site": vv.site(), "dedup": vv.dedup(),
             "multichunk": vv.multichunk(), "captures": vv.captures(), "canonical": vv.canonical(SPEC),
             "collision": vv.collision(), "large": vv.large(), "dictionary": vv.dictionary(), "anchors": vv.anchors(),
             "best": vv.best(), "keyed-anchors": vv.keyed_anchors(),
             "local-anchors": vv.local_anchors(), "prefix-dictionary": vv.prefix_dictionary(),
             "empty-anchor": vv.empty_anchor(), "search": vv.search(), "search-large": vv.search_large(),
             "search-same-body": vv.search_same_body(), "grouped": vv.grouped(), "grouped-lz4": vv.grouped(False),
             "search-v3": vv.search_v3(), "search-large-v3": vv.search_large_v3(),
             "search-blocks-v3": vv.search_blocks_v3(), "search-v4": vv.search_v4(),
             "search-large-v4": vv.search_large_v4()}
    # A 2.2.1 writer's file: no `Archive.totals`, which a reader then counts by walking (2.2.2).
    plain["no-totals"] = dict(vv.minimal(), totals=False)
    for name, recipe in plain.items():
        out[name] = Vector(recipe, write(recipe))
    site = Archive(out["site"].data)
    recipe = vv.update(site.archive_digest, site.archive_length)
    out["update"] = Vector(recipe, write(recipe, [site]), bases=["site"])
    search = Archive(out["search"].data)
    recipe = vv.search_update(search.archive_digest, search.archive_length)
    out["search-update"] = Vector(recipe, write(recipe, [search]), bases=["search"])
    # Index version 2 (2.3, §17): the same records, no positions; an update over it.
    recipe = vv.search_v2()
    out["search-v2"] = Vector(recipe, write(recipe))
    search = Archive(out["search-v2"].data)
    recipe = vv.search_v2_update(search.archive_digest, search.archive_length)
    out["search-v2-update"] = Vector(recipe, write(recipe, [search]), bases=["search-v2"])
    recipe = signed_recipe(vv.minimal(), [signature("test1", 7, vv.NOV_23, 0)])
    out["signed"] = Vector(recipe, sign(write(recipe), recipe["appendix"], KEYS))
    recipe = signed_recipe(vv.minimal(), [
        {"type": 126, "data": base64.b64encode(b"a block of a type a 2.0 reader skips\n").decode()},
        signature("test1", 8, vv.NOV_23, 0),
        signature("test2", 8, vv.NOV_23, 4102444800000)])               # expires 2100-01-01
    out["signed-extra"] = Vector(recipe, sign(write(recipe), recipe["appendix"], KEYS))
    out["newer-minor"] = Vector(vv.newer_base(), newer_minor(vv.newer_base()), crafted=True)
    out["newer-reserved"] = Vector(vv.newer_base(), newer_reserved(vv.newer_base()), crafted=True)
    out["unchecked"] = Vector(vv.unchecked(), unchecked(vv.unchecked()), crafted=True)
    assert out["dictionary"].data == dictionary(vv.dictionary()), "the step-13 rule no longer codes v2 against v1"
    recipe = vv.delta_local()
    out["delta-local"] = Vector(recipe, invalid_vectors.craft(recipe, invalid_vectors.local_delta(recipe))[0],
                                crafted=True)
    window = invalid_vectors.local_delta(recipe, transform=lambda frame: zstdblock.with_window(frame, 21, 7))
    out["delta-window"] = Vector(recipe, invalid_vectors.craft(recipe, window)[0], crafted=True)
    delta_vectors(out)
    group_vectors(out)
    mixed_vectors(out)
    return out


def mixed_update(recipe: dict, site: Archive) -> bytes:
    """The crafted `mixed-update`: its recipe written over `site`, plus a record of a class no reader
    knows keyed as site's style sheet, so that this layer does not hold that key (§13)."""
    model = build(recipe, [site])
    url = vv.MIXED_SITE + "style.css"
    request = request_object({"method": "GET", "url": url})
    model.records.append(Record(canonical_key("GET", url), Obj("Snapshot", [
        Field("request", OBJECT, request), Field("note", STRING, "a class no reader of 2.1 knows")]),
        vv.NOV_25, len(model.records)))
    return serialize(model, plan(model))


def mixed_vectors(out: dict[str, Vector]) -> None:
    """`mixed-update` over `site` and `mixed-result`, the release applying it gives (§13.1): the
    layered view of key groups that mix Tombstones with Responses, and of a key the update holds only
    under an unknown class."""
    site = Archive(out["site"].data)
    recipe = vv.mixed_update(site.archive_digest, site.archive_length)
    view = layers.layered_view([Archive(mixed_update(recipe, site)), site])
    result = {"archive": {"created": vv.NOV_25, "creator": "make-vectors 2.1"}, "records": view}
    out["mixed-result"] = Vector(result, write(result))
    applied = Archive(out["mixed-result"].data)
    recipe["archive"]["target"] = {
        "digest": applied.archive_digest.hex(), "archiveLength": applied.archive_length,
        "archive": dump_archive(applied.metadata()),
        "bodyData": hashlib.sha256(applied.data[16:applied.body_data_end]).hexdigest()}
    out["mixed-update"] = Vector(recipe, mixed_update(recipe, site), bases=["site"], crafted=True)
    assert layers.apply(opened_bases(out, ["mixed-update", "site"])) == out["mixed-result"].data


def delta_vectors(out: dict[str, Vector]) -> None:
    """A release, the next two releases written whole, and the updates between them made as diffs
    (§13.1): `delta` over `delta-base` gives `delta-result` (signed: the update carries its
    appendix); `delta-stacked` over `delta` over `delta-base` gives `delta-stacked-result`."""
    recipe = vv.delta_release()
    out["delta-base"] = Vector(recipe, write(recipe))
    base = Archive(out["delta-base"].data)
    recipe = signed_recipe(vv.delta_release_2(), [signature("test1", 9, vv.NOV_24, 0)])
    out["delta-result"] = Vector(recipe, sign(write(recipe), recipe["appendix"], KEYS))
    update = layers.diff(Archive(out["delta-result"].data), recipe, [base], ["delta-base.webarc"],
                         {"created": vv.NOV_24, "creator": "make-vectors 2.1"})
    out["delta"] = Vector(update, write(update, [base]), bases=["delta-base"])
    recipe = vv.delta_release_3()
    out["delta-stacked-result"] = Vector(recipe, write(recipe))
    stack = [Archive(out["delta"].data), base]
    update = layers.diff(Archive(out["delta-stacked-result"].data), recipe, stack, ["delta.webarc", "delta-base.webarc"],
                         {"created": vv.NOV_25, "creator": "make-vectors 2.1"})
    out["delta-stacked"] = Vector(update, write(update, stack), bases=["delta", "delta-base"])
    recipe = vv.delta_dictionary(base.archive_digest, base.archive_length)
    out["delta-dictionary"] = Vector(recipe, write(recipe, [base]), bases=["delta-base"])
    recipe = vv.delta_raw(base.archive_digest, base.archive_length)
    out["delta-raw"] = Vector(recipe, write(recipe, [base]), bases=["delta-base"])
    recipe = vv.delta_after_raw(base.archive_digest, base.archive_length)
    out["delta-after-raw"] = Vector(recipe, write(recipe, [base]), bases=["delta-base"])
    recipe = vv.best_release_2()
    out["best-result"] = Vector(recipe, write(recipe))
    best = Archive(out["best"].data)
    update = layers.diff(Archive(out["best-result"].data), recipe, [best], ["best.webarc"],
                         {"created": vv.NOV_25, "creator": "make-vectors 2.1.1"})
    out["best-delta"] = Vector(update, write(update, [best]), bases=["best"])
    for name, result in (("delta", "delta-result"), ("delta-stacked", "delta-stacked-result"),
                         ("best-delta", "best-result")):
        applied = layers.apply(opened_bases(out, [name] + out[name].bases))
        assert applied == out[result].data, f"applying {name} does not give {result}"


def group_vectors(out: dict[str, Vector]) -> None:
    """The release after `grouped` written whole (`grouped-result`, Appendix C step 16) and the update
    between them made as a diff (`grouped-update`: an update does not group; its changed page is not
    coded against its previous version, a slice); applying it writes the groups again, byte for byte."""
    recipe = vv.grouped_release_2()
    out["grouped-result"] = Vector(recipe, write(recipe))
    grouped = Archive(out["grouped"].data)
    update = layers.diff(Archive(out["grouped-result"].data), recipe, [grouped], ["grouped.webarc"],
                         {"created": vv.NOV_25 + 86_400_000, "creator": "make-vectors 2.4"})
    out["grouped-update"] = Vector(update, write(update, [grouped]), bases=["grouped"])
    applied = layers.apply(opened_bases(out, ["grouped-update", "grouped"]))
    assert applied == out["grouped-result"].data, "applying grouped-update does not give grouped-result"


def opened_bases(vectors: dict[str, Vector], names: list[str]) -> list[Archive]:
    return [Archive(vectors[n].data) for n in names]


def check_valid(name: str, vector: Vector, vectors: dict[str, Vector]) -> dict:
    """The archive verifies clean, its dump says what the recipe said, and (unless crafted) the
    writer makes exactly these bytes of the recipe; returns the dump."""
    recipe, data = vector.recipe, vector.data
    bases = opened_bases(vectors, vector.bases)
    archive = Archive(data)
    problems = archive.verify(bases)
    assert not problems and not archive.warnings, (name, problems, archive.warnings)
    if not vector.crafted:
        again = write(recipe, opened_bases(vectors, vector.bases))
        if "appendix" in recipe:
            again = sign(again, recipe["appendix"], KEYS)
        assert again == data, name
    dump = archive.dump(bases)
    # `writer`, `search` (§17: the index's root) and `totals` (2.2.2) are the writer's, not the recipe's.
    assert {k: v for k, v in dump["archive"].items()
            if k not in ("writer", *search_index.KEYS.values(), "totals")} \
        == recipe["archive"], name
    search = recipe.get("writer", {}).get("search")
    assert ("search" in dump["archive"]) == (search == 1), name
    assert ("searchIndex" in dump["archive"]) == (search == 2), name
    assert ("searchIndex3" in dump["archive"]) == (search == 3), name
    assert ("searchIndex4" in dump["archive"]) == (search == 4), name
    assert ("totals" in dump["archive"]) == recipe.get("totals", True), name
    if "totals" in dump["archive"] and not vector.crafted:
        assert dump["archive"]["totals"] == expected_totals(dump), (name, dump["archive"]["totals"])
    # A reader reads a method ASCII-upper-cased (§7.3 `Request`), as the key is built.
    given = [{k: ascii_upper(v) if k == "method" else v for k, v in r.items() if k != "previousVersion"}
             for r in recipe["records"]]
    assert sorted(map(to_json, map(recipe_record, dump["records"]))) == sorted(map(to_json, given)), name
    if not vector.crafted:
        assert dump["archive"]["writer"] == expected_writer(recipe, dump), (name, dump["archive"]["writer"])
    for record in dump["records"]:
        assert record["key"] == canonical_key(record["method"], record["url"]), name
    blocks = recipe.get("appendix", [])
    assert len(dump["appendix"]) == len(blocks), name
    for got, want in zip(dump["appendix"], blocks):
        if want["type"] == 1:
            public = ed25519.public_key(KEYS[want["key"]])
            assert got["keyID"] == hashlib.sha256(public).digest()[:8].hex(), name
            assert all(got[k] == want[k] for k in ("sequence", "created", "expires")), name
            check_trust(archive, [public])                  # a valid signature by that key
        else:
            assert got == want, name
    return dump


def expected_totals(dump: dict) -> dict:
    """§7.3 `Totals` found from the dump: its records by kind, their body lengths, its bodies and their
    chunks, the origins of the records' keys (the first 32 by bytes); with bases, the responses whose
    body has only chunks of other layers."""
    records, bodies = dump["records"], dump["bodies"]
    origins = set()
    for r in records:
        url = r["key"].split(" ", 1)[1]
        if "://" in url:
            scheme, rest = url.split("://", 1)
            origins.add(scheme + "://" + rest.split("/", 1)[0])
    out = {"responses": sum(r["kind"] == "response" for r in records),
           "redirects": sum(r["kind"] == "redirect" for r in records),
           "tombstones": sum(r["kind"] == "tombstone" for r in records),
           "responseBytes": sum(r["bodyLength"] for r in records if r["kind"] == "response"),
           "bodyBytes": sum(b["length"] for b in bodies), "chunks": sum(len(b["chunks"]) for b in bodies),
           "originCount": len(origins), "origins": sorted(origins, key=str.encode)[:32]}
    if dump["archive"].get("bases"):
        by_key = {(b["md5"], b["variant"]): b for b in bodies}
        out["baseBodyResponses"] = sum(
            all(c["layer"] > 0 for c in by_key[(r["bodyMD5"], r["bodyVariant"])]["chunks"])
            for r in records if r["kind"] == "response")
    return out


def expected_writer(recipe: dict, dump: dict) -> dict:
    """Appendix C step 7 and §13.2, found from the dump: the recipe's level, dictionary interval and
    Zstandard level (step 15, when given), and the record-tree position (in the dump) of each recipe record, in recipe order, as runs."""
    settings = recipe.get("writer", {})
    out = {"level": settings.get("level", 1), "dictionaryInterval": settings.get("dictionaryInterval", 0)}
    if "zstdLevel" in settings:
        out["zstdLevel"] = settings["zstdLevel"]
    if settings.get("anchors") and out["dictionaryInterval"]:
        out["anchors"] = settings["anchors"]
    if "search" in settings:
        out["search"] = settings["search"]
    if settings.get("dictionaryPlacement") and out["dictionaryInterval"]:
        out["dictionaryPlacement"] = settings["dictionaryPlacement"]
    if "groups" in settings and not recipe.get("archive", {}).get("bases"):
        out["groups"] = settings["groups"]                          # Appendix C step 16: not in an update
    tree = [to_json(recipe_record(r)) for r in dump["records"]]
    positions, used = [], set()
    for record in recipe["records"]:
        want = to_json({k: v for k, v in record.items() if k != "previousVersion"})
        p = next(i for i, r in enumerate(tree) if r == want and i not in used)
        used.add(p)
        positions.append(p)
    runs: list[list[int]] = []
    for p in positions:
        if runs and sum(runs[-1]) == p:
            runs[-1][1] += 1
        else:
            runs.append([p, 1])
    if len(runs) > 1:
        out["order"] = runs
    return out


def check_pins(dumps: dict[str, dict], vectors: dict[str, Vector]) -> None:
    """What each vector is there to show really is in it."""
    newer = Archive(vectors["newer-minor"].data)
    leaf = newer.leaves(newer.record_root, 1)[0]
    notes = b"GET https://example.net/notes.txt"
    assert [e.object[4:12] for e in leaf.records if e.key == notes] == [b"Snapshot", b"Response"]
    assert newer.lookup("GET", "https://example.net/notes.txt")[0].class_name == "Response"
    def chunks(name):
        return [c for b in dumps[name]["bodies"] for c in b["chunks"]]
    assert [c["codec"] for c in chunks("minimal")] == [1]
    assert {c["codec"] for c in chunks("site")} == {0, 1} and any(b["length"] == 0 for b in dumps["site"]["bodies"])
    assert len(dumps["dedup"]["bodies"]) == 2
    big = dumps["multichunk"]["bodies"][0]["chunks"]
    assert [c["rawLength"] for c in big] == [262144, 262144, 75712] and all(c["codec"] == 1 for c in big)
    assert [b["variant"] for b in dumps["collision"]["bodies"]] == [0, 1]
    assert len({b["md5"] for b in dumps["collision"]["bodies"]}) == 1
    expected_keys = [key for _, key in vv.spec_canonical_keys(SPEC) + vv.EXTRA_CANONICAL]
    assert sorted(r["key"] for r in dumps["canonical"]["records"]) == sorted(expected_keys)
    bodies = [base64.b64decode(r["body"]).split(b":")[0] for r in dumps["captures"]["records"]]
    assert bodies == [b"capture 0", b"capture 4", b"capture 1", b"capture 3", b"posted"], bodies
    # §13.2: insertion order as runs of record-tree positions (Appendix C step 7)
    assert dumps["captures"]["archive"]["writer"]["order"] == [[0, 1], [2, 1], [4, 1], [3, 1], [1, 1]]
    assert dumps["site"]["archive"]["writer"]["order"] == [[0, 1], [5, 1], [3, 2], [1, 2]]
    assert "order" not in dumps["minimal"]["archive"]["writer"] and dumps["anchors"]["archive"]["writer"]["dictionaryInterval"] == 3
    assert max(start for start, _ in dumps["large"]["archive"]["writer"]["order"]) >= 128     # two-byte LEB128
    large = dumps["large"]["trailer"]
    assert large["recordRoot"]["height"] >= 1 and large["bodyRoot"]["height"] >= 1, large
    # Appendix C step 16: slices of groups closed by the limit and by an MD5, codec 4 (a group and a
    # large body's chunk), the same slice again, a body of exactly 65 536 bytes grouped.
    for name, group_codec in (("grouped", 4), ("grouped-lz4", 1)):
        dump = dumps[name]
        assert dump["trailer"]["requiredFeatures"] == 8 and dump["formatVersion"] == "2.4", name
        slices = [b for b in dump["bodies"] if "sliceStart" in b]
        groups = {}
        for b in slices:
            groups.setdefault(b["chunks"][0]["offset"], []).append(b)
        assert len(groups) >= 3 and any(len(g) >= 3 for g in groups.values()), name
        assert group_codec in {g[0]["chunks"][0]["codec"] for g in groups.values()}, name
        assert any(b["length"] == 65_536 for b in slices) and not any(b["length"] > 65_536 for b in slices), name
        closed_by = set()
        for g in groups.values():
            last = max(g, key=lambda b: b["sliceStart"])
            by_md5 = int(last["md5"][:16], 16) % (vv.GROUP_LIMIT // 16_384) == 0
            closed_by.add("md5" if by_md5 else "limit")
        assert {"md5", "limit"} <= closed_by, (name, closed_by)
        if group_codec == 4:
            assert any(c["codec"] == 4 for b in dump["bodies"] if "sliceStart" not in b for c in b["chunks"]), name
    # an update over a grouping base is a 2.4 file; its own new bodies are not grouped
    assert dumps["grouped-update"]["formatVersion"] == "2.4"
    # ... but a body a base holds as a slice stays that slice, in layer 1 (moved.html)
    based = [b for b in dumps["grouped-update"]["bodies"] if "sliceStart" in b]
    assert len(based) == 1 and based[0]["chunks"][0]["layer"] == 1, based
    assert dumps["grouped-update"]["trailer"]["requiredFeatures"] == 1 | 8
    update = dumps["update"]
    assert update["trailer"]["requiredFeatures"] == 1
    assert {c["layer"] for c in chunks("update")} == {0, 1}
    assert [r["kind"] for r in update["records"]].count("tombstone") == 1
    assert dumps["newer-minor"]["formatVersion"] == "2.7" and dumps["newer-minor"]["trailer"]["optionalFeatures"]
    assert dumps["newer-minor"]["trailer"]["recordCount"] == 5 and len(dumps["newer-minor"]["records"]) == 3
    assert dumps["newer-reserved"]["formatVersion"] == "2.3"
    assert dumps["dictionary"]["trailer"]["requiredFeatures"] == 2
    assert [c["codec"] for c in chunks("dictionary")] == [1, 2] or [c["codec"] for c in chunks("dictionary")] == [2, 1]
    assert [b["type"] for b in dumps["signed-extra"]["appendix"]] == [126, 1, 1]
    assert dumps["anchors"]["trailer"]["requiredFeatures"] == 2
    by_url = {r["url"].rsplit("/", 1)[-1]: r for r in dumps["anchors"]["records"]}
    body_chunks = {b["md5"]: b["chunks"] for b in dumps["anchors"]["bodies"]}

    def chunks_of(name):
        return body_chunks[by_url[name]["bodyMD5"]]
    a, b, c, d, e, f = (chunks_of(n) for n in ("a.html", "b.html", "c.html", "d.html", "e.bin", "f.html"))
    assert [x["codec"] for x in a + b + c + d + e + f] == [1, 2, 2, 2, 0, 0, 2], "step 13 codecs"
    assert b[0]["dictionary"]["offset"] == a[0]["offset"]
    assert c[0]["dictionary"] == d[0]["dictionary"] and c[0]["dictionary"]["offset"] not in {x["offset"] for x in a + b}
    assert c[0]["dictionary"]["offset"] + c[0]["dictionary"]["storedLength"] == c[0]["offset"], "dictionary chunk right before C"
    assert f[0]["dictionary"]["offset"] == e[1]["offset"] and e[1]["rawLength"] < 262_144
    unchecked_archive = Archive(vectors["unchecked"].data)
    stored = [parse_object(e.object) for leaf in unchecked_archive.leaves(unchecked_archive.record_root, 1) for e in leaf.records]
    assert sorted(text(nested(o, "request"), "method") for o in stored) == ["PROP FIND", "get"]
    assert [r["key"].split(" https")[0] for r in dumps["unchecked"]["records"]] == ["GET", "PROP FIND"]
    assert dumps["unchecked"]["archive"]["writer"]["level"] == 2 and "x-nested" in stored[0].fields
    check_keyed_pins(dumps)
    check_layer_pins(dumps, vectors)
    check_placement_pins(dumps, vectors)
    check_best_pins(dumps, vectors)
    check_delta_pins(dumps, vectors)


def check_keyed_pins(dumps: dict[str, dict]) -> None:
    """`keyed-anchors`: Appendix C step 13's keyed rule makes anchors of positions 0, 15 and 39 only;
    `local-anchors`: the local-minimum rule, of positions 0, 3, 10, 34 and 35 only. Every other
    body's first chunk is coded against the latest of them (codec 2)."""
    for name, rule, recipe, anchors in (("keyed-anchors", 1, vv.keyed_anchors(), (0, 15, 39)),
                                        ("local-anchors", 2, vv.local_anchors(), vv.LOCAL_ANCHORS)):
        dump = dumps[name]
        assert dump["archive"]["writer"]["anchors"] == rule and dump["archive"]["writer"]["dictionaryInterval"] == 16
        by_md5 = {b["md5"]: b["chunks"] for b in dump["bodies"]}
        order = [r["url"] for r in recipe["records"]]
        by_url = {r["url"]: by_md5[r["bodyMD5"]] for r in dump["records"]}
        anchor_offsets = {}
        for position, url in enumerate(order):
            first = by_url[url][0]
            if position in anchors:
                assert first["codec"] == 1 and "dictionary" not in first, (name, position, first)
                anchor_offsets[position] = by_url[url][-1]["offset"]
            else:
                anchor = max(a for a in anchors if a < position)
                assert first["codec"] == 2 and first["dictionary"]["offset"] == anchor_offsets[anchor], (name, position, first)


def check_layer_pins(dumps: dict[str, dict], vectors: dict[str, Vector]) -> None:
    """`empty-anchor`: an empty anchor leaves the next body no dictionary (step 13). `delta-after-raw`:
    after a raw chunk, the next is still tried as a delta (step 14). `mixed-update`: each key group's
    first record decides (§13); `mixed-result` is its layered view."""
    dump = dumps["empty-anchor"]
    by_md5 = {b["md5"]: b["chunks"] for b in dump["bodies"]}
    by_url = {r["url"].rsplit("/", 1)[-1]: by_md5[r["bodyMD5"]] for r in dump["records"]}
    assert [[c["codec"] for c in by_url[n]] for n in ("a.html", "b.html", "empty.txt", "c.html")] == [[1], [2], [], [1]]
    raw = {r["url"].rsplit("/", 1)[-1]: base64.b64decode(r["body"]) for r in vectors["empty-anchor"].recipe["records"]}
    assert len(lz4block.compress_with_dict(raw["c.html"], raw["a.html"][-65_536:])) < by_url["c.html"][0]["storedLength"]
    (log,) = [b["chunks"] for b in dumps["delta-after-raw"]["bodies"]]
    assert [c["codec"] for c in log] == [0, 3] and log[1]["reference"]["layer"] == 1
    data = base64.b64decode(vectors["delta-after-raw"].recipe["records"][0]["body"])
    assert len(lz4block.compress(data[262_144:])) < log[1]["rawLength"], "LZ4 would code the second chunk: it is untried"
    kinds = [(r["url"].rsplit("/", 1)[-1], r["kind"]) for r in dumps["mixed-update"]["records"]]
    assert kinds == [("", "response"), ("", "tombstone"), ("logo.png", "tombstone"), ("logo.png", "response")], kinds
    mixed = Archive(vectors["mixed-update"].data)
    assert mixed.record_count == 5 and mixed.lookup("GET", vv.MIXED_SITE + "style.css") is None
    urls = [r["url"] for r in dumps["mixed-result"]["records"]]
    assert vv.MIXED_SITE in urls and vv.MIXED_SITE + "images/logo.png" not in urls and vv.MIXED_SITE + "style.css" in urls


def check_placement_pins(dumps: dict[str, dict], vectors: dict[str, Vector]) -> None:
    """`prefix-dictionary`: `dictionaryPlacement` 1 (2.1.8); the page's chunk (codec 2, against the
    anchor's whole body) is the block the prefix placement gives, which is not the one placing the
    dictionary apart gives. Every other vector with dictionaries places them apart (absent)."""
    dump = dumps["prefix-dictionary"]
    assert dump["archive"]["writer"]["dictionaryPlacement"] == 1 and dump["archive"]["writer"]["dictionaryInterval"] == 2
    by_md5 = {b["md5"]: b["chunks"] for b in dump["bodies"]}
    by_url = {r["url"].rsplit("/", 1)[-1]: by_md5[r["bodyMD5"]] for r in dump["records"]}
    anchor, page = by_url["anchor.html"], by_url["page.html"]
    assert anchor[0]["codec"] == 1 and page[0]["codec"] == 2 and page[0]["dictionary"]["offset"] == anchor[0]["offset"]
    data = vectors["prefix-dictionary"].data
    stored = data[page[0]["offset"]:page[0]["offset"] + page[0]["storedLength"]]
    raw, dictionary = vv.PREFIX_PAGE.encode(), vv.PREFIX_DICTIONARY.encode()
    assert stored == lz4block.compress_with_dict(raw, dictionary, prefix=True)
    assert stored != lz4block.compress_with_dict(raw, dictionary, prefix=False)
    for name, other in dumps.items():
        assert name == "prefix-dictionary" or "dictionaryPlacement" not in other["archive"].get("writer", {}), name


def check_best_pins(dumps: dict[str, dict], vectors: dict[str, Vector]) -> None:
    """`best`: every case of Appendix C step 15 (Zstandard level 3, dictionary interval 3)."""
    dump = dumps["best"]
    level = vv.BEST_ZSTD_LEVEL
    assert dump["archive"]["writer"]["zstdLevel"] == level and dump["archive"]["writer"]["dictionaryInterval"] == 3
    assert dump["trailer"]["requiredFeatures"] == 0b110
    records = {r["url"].rsplit("/", 1)[-1]: r for r in dump["records"]}
    by_md5 = {b["md5"]: b["chunks"] for b in dump["bodies"]}
    raw = {r["url"].rsplit("/", 1)[-1]: base64.b64decode(r["body"]) for r in vectors["best"].recipe["records"]}
    (manual, page, book, page_copy, data, faq, news, short, faq_copy) = (
        by_md5[records[n]["bodyMD5"]] for n in ("manual.html", "page.html", "book.txt", "page-copy.html", "data.bin",
                                                "faq.html", "news.html", "short.txt", "faq-copy.html"))
    codecs = [[c["codec"] for c in x] for x in (manual, page, book, page_copy, data, faq, news, short, faq_copy)]
    assert codecs == [[1], [3], [3, 3], [3], [0, 0], [3], [1], [2], [3]], codecs
    # 0, 6: anchors are not affected (news.html's frame against the reference before it would have won)
    dictionary_bytes = raw["page.html"][-65_536:]
    assert len(zstdblock.compress_with_dict(raw["news.html"], dictionary_bytes, level)) < news[0]["storedLength"]
    # 1: against the anchor's whole chunk (90 090 bytes), not only its last 64 KiB; its codec-2 coding pays
    anchor = manual[0]
    assert anchor["rawLength"] > 65_536 and page[0]["reference"] == anchor
    assert page[0]["storedLength"] < len(zstdblock.compress_with_dict(raw["page.html"], raw["manual.html"][-65_536:], level))
    assert len(lz4block.compress_with_dict(raw["page.html"], raw["manual.html"][-65_536:])) < page[0]["rawLength"]
    # 2: every chunk against the same reference; the second chunk's other coding is codec 1 (no
    # dictionary): its frame is longer than its LZ4 block with the dictionary, shorter than without
    assert [c["rawLength"] for c in book] == [262_144, 60] and all(c["reference"] == anchor for c in book)
    tail = raw["book.txt"][262_144:]
    assert len(lz4block.compress_with_dict(tail, raw["manual.html"][-65_536:])) < book[1]["storedLength"] < \
        len(lz4block.compress(tail)) < len(tail)
    # 3, 8: a body equal to a stored one takes its entry (an anchor too)
    assert page_copy == page and faq_copy == faq
    # 4: the other coding of the first chunk is raw, so no frame is tried (one would win), and the
    # second chunk is raw untried (LZ4 would code it); no dictionary chunk is stored for it
    assert data[0]["offset"] == book[1]["offset"] + book[1]["storedLength"]
    assert len(zstdblock.compress_with_dict(raw["data.bin"][:262_144], dictionary_bytes, level)) < 262_144
    assert len(lz4block.compress(raw["data.bin"][262_144:])) < data[1]["rawLength"]
    # 5: the anchor repeats a body whose chunk is codec 3: the reference is a dictionary chunk (the
    # body's last 64 KiB, codec 1), stored right before the first chunk naming it, a codec-3 one
    d = faq[0]["reference"]
    assert (d["codec"], d["layer"], d["rawLength"]) == (1, 0, 65_536) and d["digest"] == hashlib.sha256(dictionary_bytes).hexdigest()
    assert d["offset"] == data[1]["offset"] + data[1]["storedLength"] and d["offset"] + d["storedLength"] == faq[0]["offset"]
    # 7: a frame as long as the LZ4 block with the dictionary: codec 2 kept (reference: news.html's chunk)
    assert short[0]["dictionary"] == news[0]
    assert len(zstdblock.compress_with_dict(raw["short.txt"], raw["news.html"], level)) == short[0]["storedLength"]
    # best-delta: its target's Writer has the Zstandard level (applying it uses step 15), its own none
    target = dumps["best-delta"]["archive"]["target"]
    assert target["archive"] == dumps["best-result"]["archive"] and target["archive"]["writer"]["zstdLevel"] == level
    assert "zstdLevel" not in dumps["best-delta"]["archive"]["writer"]
    result_chunks = {b["md5"]: b["chunks"] for b in dumps["best-result"]["bodies"]}
    result = {r["url"].rsplit("/", 1)[-1]: result_chunks[r["bodyMD5"]] for r in dumps["best-result"]["records"]}
    assert [[c["codec"] for c in result[n]] for n in ("manual.html", "page.html", "faq.html", "news.html", "extra.html",
                                                       "short.txt")] == [[1], [3], [3], [1], [3], [2]]
    recipe = dict(vectors["best-result"].recipe, writer={"dictionaryInterval": 3})
    assert write(recipe) != vectors["best-result"].data, "best-result does not depend on step 15"


def check_delta_pins(dumps: dict[str, dict], vectors: dict[str, Vector]) -> None:
    """The delta vectors: codec 3 against the previous version (Appendix C step 14), its bounds, the
    min(i, m - 1) rule, a codec-2 reference, references in layers 1 and 2, a previous version that
    is a delta chunk (not used), and targets naming the results."""
    def bodies(name: str) -> dict[str, list[dict]]:
        by_md5 = {b["md5"]: b["chunks"] for b in dumps[name]["bodies"]}
        out: dict[str, list[dict]] = {}
        for r in dumps[name]["records"]:
            if r["kind"] == "response":
                out.setdefault(r["url"].rsplit("/", 1)[-1], []).append(by_md5[r["bodyMD5"]])
        return out
    base, delta, stacked = bodies("delta-base"), bodies("delta"), bodies("delta-stacked")
    assert dumps["delta"]["trailer"]["requiredFeatures"] == 0b111 and dumps["delta-stacked"]["trailer"]["requiredFeatures"] == 0b101
    log = delta["server.log"][0]
    assert [c["codec"] for c in log] == [3, 3, 3] and len(base["server.log"][0]) == 2
    previous = [{k: v for k, v in c.items() if k != "layer"} for c in base["server.log"][0]]
    assert [{k: v for k, v in c["reference"].items() if k != "layer"} for c in log] == [previous[0], previous[1], previous[1]]
    assert all(c["reference"]["layer"] == 1 and 1 <= c["storedLength"] < c["rawLength"] for c in log)
    changelog = delta["changelog.html"][0][0]
    assert changelog["codec"] == 3 and changelog["reference"]["codec"] == 2 and "dictionary" in changelog["reference"]
    assert base["changelog.html"][0][0]["codec"] == 2
    assert all(c["layer"] == 1 for c in delta["about.html"][0])                  # equal to the base's body
    assert [c["codec"] for c in delta["news.html"][0]] == [1]                     # no previous version
    assert [r["kind"] for r in dumps["delta"]["records"]].count("tombstone") == 1
    results = {"delta": "delta-result", "delta-stacked": "delta-stacked-result"}
    for name, result in results.items():
        target = dumps[name]["archive"]["target"]
        assert target["digest"] == dumps[result]["trailer"]["archiveDigest"]
        assert target["archive"] == dumps[result]["archive"] and "order" in target["archive"]["writer"]
    assert "appendix" in dumps["delta"]["archive"]["target"] and "appendix" not in dumps["delta-stacked"]["archive"]["target"]
    assert [b["name"] for b in dumps["delta-stacked"]["archive"]["bases"]] == ["delta.webarc", "delta-base.webarc"]
    assert [(c["codec"], c["reference"]["layer"]) for c in stacked["guide.html"][0]] == [(3, 2)]
    assert [(c["codec"], c["reference"]["layer"]) for c in stacked["news.html"][0]] == [(3, 1)]
    assert [c["codec"] for c in stacked["changelog.html"][0]] == [1] and delta["changelog.html"][0][0]["codec"] == 3
    window = bodies("delta-window")["v2.html"][0][0]
    stored = vectors["delta-window"].data[window["offset"]:window["offset"] + window["storedLength"]]
    assert window["codec"] == 3 and stored[4] >> 5 & 1 == 0 and stored[5] == (21 << 3) | 7, "Window_Log 31, mantissa 7"
    local = bodies("delta-local")["v2.html"][0][0]
    assert local["codec"] == 3 and local["reference"] == bodies("delta-local")["v1.html"][0][0]
    assert dumps["delta-local"]["trailer"]["requiredFeatures"] == 0b100
    # steps 13 and 14 together: a delta that wins stores no dictionary chunk; a codec-3 last chunk of
    # an anchor is no dictionary reference, so a dictionary chunk holds its bytes
    rules = bodies("delta-dictionary")
    changelog, about, faq = (rules[n][0][0] for n in ("changelog.html", "about.html", "faq.html"))
    assert [c["layer"] for c in rules["guide.html"][0]] == [1]
    assert (changelog["codec"], changelog["offset"], about["codec"]) == (3, 16, 3)
    records = {r["url"].rsplit("/", 1)[-1]: r for r in vectors["delta-dictionary"].recipe["records"]}
    guide_bytes, changelog_bytes = (base64.b64decode(records[n]["body"]) for n in ("guide.html", "changelog.html"))
    with_dictionary = lz4block.compress_with_dict(changelog_bytes, guide_bytes[-65536:])
    assert len(with_dictionary) < min(len(lz4block.compress(changelog_bytes)), len(changelog_bytes)), "codec 2 would pay"
    assert changelog["storedLength"] < len(with_dictionary)
    # step 14 and §6.3's raw rule: a chunk stored as codec 3 (whose other coding is raw) is not "stored
    # raw", so the next chunk is tried with LZ4, whose block beats the frame that beats the raw bytes
    first, second = bodies("delta-raw")["data.bin"][0]
    data = base64.b64decode(vectors["delta-raw"].recipe["records"][0]["body"])
    guide_frame = zstdblock.compress_with_dict(data[262_144:], guide_bytes)
    assert len(lz4block.compress(data[:262_144])) >= 262_144 and first["codec"] == 3
    assert second["codec"] == 1 and second["storedLength"] < len(guide_frame) < second["rawLength"], (first, second)
    d = faq["dictionary"]
    assert faq["codec"] == 2 and d["layer"] == 0 and d["rawLength"] == about["rawLength"]
    assert about["offset"] + about["storedLength"] == d["offset"] and d["offset"] + d["storedLength"] == faq["offset"]


def stack_json(vectors: dict[str, Vector], name: str, urls: list[str], result: str | None = None) -> dict:
    """NAME.stack.json: the merged view of an update over its bases, lookups through the stack and,
    for an update with a target, the archive applying it gives (§13.1)."""
    names = [name] + vectors[name].bases
    stack = Stack(opened_bases(vectors, names))
    listing = [{"key": key, "layer": layer, "kind": cls.lower()} for key, layer, cls in stack.listing()]
    lookups = []
    for url in urls:
        found = stack.lookup("GET", url)
        entry = {"method": "GET", "url": url, "found": found is not None}
        if found is not None:
            entry["layer"], entry["kind"] = found[0], found[1].class_name.lower()
        lookups.append(entry)
    out = {"stack": [f"{n}.webarc" for n in names], "listing": listing, "lookups": lookups}
    if result is not None:
        applied = Archive(vectors[result].data)
        out["apply"] = {"result": f"{result}.webarc", "archiveDigest": applied.archive_digest.hex(),
                        "archiveLength": applied.archive_length, "fileLength": len(applied.data)}
    return out


def stack_jsons(vectors: dict[str, Vector]) -> dict[str, dict]:
    update = stack_json(vectors, "update", [
        "https://example.org/", "https://example.org/style.css", "https://example.org/robots.txt",
        "https://example.org/images/logo.png", "https://example.org/folder", "https://example.org/news.html",
        "https://example.org/missing"])
    assert [e["found"] for e in update["lookups"]] == [True, True, False, True, True, True, False], update
    assert {e["layer"] for e in update["listing"]} == {0, 1}
    urls = [vv.DELTA_SITE + path for path in ("guide.html", "changelog.html", "server.log", "about.html", "logo.png",
                                              "old.html", "status.txt", "start", "news.html", "missing")]
    delta = stack_json(vectors, "delta", urls, "delta-result")
    assert [e["found"] for e in delta["lookups"]] == [True] * 5 + [False] + [True] * 3 + [False], delta
    stacked = stack_json(vectors, "delta-stacked", urls, "delta-stacked-result")
    assert [e.get("layer") for e in stacked["lookups"]] == [0, 0, 1, None, 2, None, 1, 2, 0, None], stacked
    best_urls = ["https://example.com/" + path for path in ("manual.html", "page.html", "book.txt", "faq.html",
                                                             "extra.html", "short.txt", "missing")]
    best = stack_json(vectors, "best-delta", best_urls, "best-result")
    assert [e.get("layer") for e in best["lookups"]] == [0, 1, None, 0, 0, 1, None], best
    mixed = stack_json(vectors, "mixed-update", [vv.MIXED_SITE + path for path in (
        "", "images/logo.png", "folder", "style.css", "robots.txt", "missing")], "mixed-result")
    assert [e.get("layer") for e in mixed["lookups"]] == [0, None, 1, 1, 1, None], mixed
    grouped_urls = ["https://example.com/" + path for path in ("p00.html", "p02.html", "p09.html", "new.html",
                                                                "full.html", "missing")]
    grouped = stack_json(vectors, "grouped-update", grouped_urls, "grouped-result")
    assert [e.get("layer") for e in grouped["lookups"]] == [1, 0, None, 0, 1, None], grouped
    return {"update": update, "delta": delta, "delta-stacked": stacked, "best-delta": best, "mixed-update": mixed,
            "grouped-update": grouped}


# Queries of the `search` vector: the text a user types and the clauses its analysis gives (§17.4).
SEARCH_QUERIES = [
    ("dogs", [["word", "dog"]]),
    ("river maps", [["word", "river"], ["word", "map"]]),
    ('"blue river"', [["phrase", ["blue", "river"]]]),
    ("bo*", [["prefix", "bo"]]),
    ('"the water"', [["phrase", ["the", "water"]]]),
    ("searching", [["word", "search"]]),
    ("fish* boats", [["prefix", "fish"], ["word", "boat"]]),
    ("the", [["word", "the"]]),
    ('cats "dogs cats"', [["word", "cat"], ["phrase", ["dog", "cat"]]]),
    ("home", [["word", "home"]]),
    ("searchi*", [["prefix", "searchi"]]),
]
SEARCH_SUGGESTIONS = ["wat", "B", "Cats  and", "x"]
UPDATE_QUERIES = SEARCH_QUERIES + [("otters fishing", [["word", "otter"], ["word", "fish"]]),
                                   ("river", [["word", "river"]])]
# Queries of `search-blocks-v3` (fewer than 100 results each): a word in two blocks with one in one
# block, with a rare word, a phrase, a prefix with a rare word.
BLOCKS_QUERIES = [("fishing otters river", [["word", "fish"], ["word", "otter"], ["word", "river"]]),
                  ("fishing otters", [["word", "fish"], ["word", "otter"]]),
                  ("w77 otters", [["word", "w77"], ["word", "otter"]]), ('"river 5"', [["phrase", ["river", "5"]]]),
                  ("fish* w129", [["prefix", "fish"], ["word", "w129"]])]
SAME_BODY_QUERIES = [("river", [["word", "river"]]), ("boats", [["word", "boat"]])]


def large_queries(index) -> tuple[list, list[str]]:
    """The queries and suggestions of `search-large`, found from its index (§17.3, §17.4): a prefix
    whose terms start in one term shard and go on in the next; a prefix of more than 64 terms
    (`k1*`, cut at `k163`) with a pool word whose only `k1…` terms are past the cut in one document;
    a word whose postings straddle two posting pages, with another; a phrase with a pool word; a
    title key prefix whose entries span two title shards."""
    shard0 = index.shard(0).entries
    key = index.term_keys[1]
    prefix = next(key[:n] for n in range(len(key), 1, -1) if any(e[0].startswith(key[:n]) for e in shard0))
    queries = [(prefix.decode() + "*", [["prefix", prefix.decode()]])]
    limited = {d for d, _ in index.query([("prefix", "k1")])}
    every = set()
    for n in range(100, 200):
        every |= {d for d, _ in index.query([("word", f"k{n}")])}
    cut = sorted(every - limited)
    assert len(cut) == 1, "not one document found only past the 64-term cut"
    pool = next(f"k{n:03d}" for n in range(100) if cut[0] in {d for d, _ in index.query([("word", f"k{n:03d}")])})
    if index.version >= 3:
        # `search-large-v3` and `-v4`: block-coded lists (§17.2): `the` in 560 documents (five
        # blocks, the last of 48), pool words in about 56 (one block each), a phrase of two blocked lists.
        the = next(e for n in range(len(index.shard_refs)) for e in index.shard(n).entries if e[0] == b"the")
        assert the[1] == 560, the
        queries.append((f"k1* {pool}", [["prefix", "k1"], ["word", pool]]))
        queries.append(("the k042", [["word", "the"], ["word", "k042"]]))
        queries.append(('"blue river" k007', [["phrase", ["blue", "river"]], ["word", "k007"]]))
        queries.append(('"the river"', [["phrase", ["the", "river"]]]))
        return queries, []
    # `search-large` is there for its layout: two term shards, the second with two full-size first
    # stream pages, three document pages, two title shards (Spec/vectors/README.md).
    assert [len(index.shard(n).posting_pages) for n in range(2)] == [1, 2]
    assert [len(index.shard(n).position_pages) for n in range(2)] == [1, 2]
    assert index.shard(1).posting_pages[0].raw_length - search_index.HEAD == 65_536
    assert len(index.starts) == 3 and len(index.title_keys) == 2
    queries.append((f"k1* {pool}", [["prefix", "k1"], ["word", pool]]))
    shard = index.shard(1)
    straddling = next(e for e in shard.entries if e[2][0] < 65_536 < e[2][1])
    queries.append((f"{straddling[0].decode()} k042", [["word", straddling[0].decode()], ["word", "k042"]]))
    queries.append(('"blue river" k007', [["phrase", ["blue", "river"]], ["word", "k007"]]))
    title = index.title_keys[1]
    first = index.titles(0)
    typed = next(title[:n] for n in range(len(title), 0, -1) if any(k.startswith(title[:n]) for k, _ in first))
    return queries, [typed.decode()]


def search_json(vector: Vector, bases: list | None = None) -> dict:
    """NAME.index.json: what the index of a vector holds, read back by `search_index` (documents,
    every term's postings with positions, title entries) and the answers to `SEARCH_QUERIES` and
    `SEARCH_SUGGESTIONS`; scores rounded to 9 decimals."""
    archive = Archive(vector.data)
    index = search_index.SearchIndex.open(archive)
    index.read_all()
    documents = [index.document(n) for n in range(index.document_count)]
    asked, suggested = SEARCH_QUERIES, SEARCH_SUGGESTIONS
    if len(index.shard_refs) > 1:
        asked, suggested = large_queries(index)
    elif bases:
        asked = UPDATE_QUERIES
    elif index.document_count == 130:
        asked, suggested = BLOCKS_QUERIES, ["river 12"]
    elif index.document_count == 2:
        asked, suggested = SAME_BODY_QUERIES, ["river", "fish"]
        assert [index.document(n)[0] for n in range(2)] == ["https://same.example/b.txt", "https://same.example/dir/"]
    # A small index whole; of a large one, its layout and the terms its queries name in at most
    # 100 documents (no document or title list).
    complete = index.document_count < 100
    named = {t for _, clauses in asked for kind, value in clauses if kind != "prefix"
             for t in (value if kind == "phrase" else [value])}
    terms, layout = [], {"termShards": [], "documentPages": [], "titleShards": []}
    for number in range(len(index.shard_refs)):
        shard = index.shard(number)
        layout["termShards"].append({
            "firstTerm": index.term_keys[number].decode(), "terms": len(shard.entries),
            "postingPages": [r.raw_length - search_index.HEAD for r in shard.posting_pages],
            "positionPages": [r.raw_length - search_index.HEAD for r in shard.position_pages]})
        for entry in shard.entries:
            if not complete and (entry[0].decode() not in named or entry[1] > 100):
                continue
            postings = index.postings(shard, entry)
            # Version 2 holds no positions: its postings list none.
            positions = index.positions(shard, entry, postings) if index.version == 1 else [None] * len(postings)
            terms.append({"term": entry[0].decode(), "documentFrequency": entry[1], "postings": [
                {"document": d, "frequency": f, "inTitle": t, "lengthCode": c}
                | ({"positions": found} if found is not None else {})
                for (d, f, t, c), found in zip(postings, positions)]})
    for number, start in enumerate(index.starts):
        layout["documentPages"].append({"start": start, "documents": len(index.document_page(number))})
    for number, key in enumerate(index.title_keys):
        layout["titleShards"].append({"firstKey": key.decode(), "entries": len(index.titles(number))})
    queries = []
    below = [Archive(b.data) for b in bases or []]
    for text, clauses in asked:
        asked_clauses = [(kind, value) for kind, value in clauses]
        ranked = index.query(asked_clauses)
        entry = {"text": text, "clauses": clauses, "results": [
            {"document": d, "url": documents[d][0], "score": round(score, 9)} for d, score in ranked]}
        if index.phrases_to_check:
            # Version 2 (§17.4): the candidates, then the hits a reader returns for a limit of 100.
            entry["candidates"] = entry["results"]
            entry["results"] = [{"document": d, "url": url, "score": round(score, 9)} for d, score, url in
                                search_index.layer_hits(archive, index, below, lambda url: False, asked_clauses)]
        queries.append(entry)
    suggestions = []
    for typed in suggested:
        suggestions.append({"text": typed, "key": search_index.title_key(typed).decode(), "results": [
            {"document": d, "key": key.decode(), "url": documents[d][0], "title": documents[d][1]}
            for key, d in index.suggest(typed)]})
    if vector.recipe is not None and len(documents) == 6:
        # What `search` is there to show (§17.1): documents in record-tree order; the 404, the
        # image, the Sphinx source copy, the redirect and the older capture left out; an empty
        # page is a document of length 0 with no title entry; equal title keys by document.
        assert [u.rsplit("/", 1)[1] for u, _, _ in documents] == [
            "animals.txt", "books.txt", "empty.txt", "index.html", "water.txt", "waters.txt"], documents
        assert documents[2] == ("https://search.example/empty.txt", "", 0), documents
        assert [d for n in range(len(index.title_refs)) for _, d in index.titles(n)] == [3, 1, 0, 4, 5]
        assert [q["results"] != [] for q in queries] == [True] * 8 + [False, False, True], queries
    return {"version": index.version, "documentCount": index.document_count, "tokenCount": index.token_count,
            "layout": layout, "complete": complete, "terms": terms,
            "documents": [{"url": u, "title": t, "length": n} for u, t, n in documents] if complete else [],
            "titles": [{"key": k.decode(), "document": d} for n in range(len(index.title_refs))
                       for k, d in index.titles(n)] if complete else [],
            "queries": queries, "suggestions": suggestions, **stack_search(vector, bases or [], asked, suggested)}


def stack_search(vector: Vector, bases: list, asked: list, suggested: list) -> dict:
    """An update's `stack`: the same queries and suggestions over the update and its bases
    (§17.4 Layers), each result with its layer (0: the update)."""
    if not bases:
        return {}
    layers = [Archive(v.data) for v in [vector] + bases]
    opened = [(a, search_index.SearchIndex.open(a)) for a in layers]
    queries = [{"text": text, "clauses": clauses, "results": [
        {"layer": layer, "document": d, "url": url, "score": round(score, 9)}
        for score, layer, d, url in search_index.stack_query(opened, [(k, v) for k, v in clauses])]}
        for text, clauses in asked]
    suggestions = [{"text": typed, "results": [
        {"layer": layer, "document": d, "key": key.decode(), "url": url}
        for key, layer, d, url in search_index.stack_suggest(opened, typed)]} for typed in suggested]
    return {"stack": {"bases": [f"valid/{b}.webarc" for b in vector.bases], "queries": queries,
                      "suggestions": suggestions}}


def write_valid(folder: Path) -> dict[str, Vector]:
    vectors = valid_vectors()
    dumps = {}
    for name, vector in vectors.items():
        dumps[name] = check_valid(name, vector, vectors)
    check_pins(dumps, vectors)
    for name, vector in vectors.items():
        (folder / f"{name}.webarc").write_bytes(vector.data)
        (folder / f"{name}.input.json").write_text(to_json(vector.recipe), encoding="utf-8")
        (folder / f"{name}.json").write_text(to_json(dumps[name]), encoding="utf-8")
    for name, stack in stack_jsons(vectors).items():
        (folder / f"{name}.stack.json").write_text(to_json(stack), encoding="utf-8")
    indexes = {name: search_json(vector, [vectors[b] for b in vector.bases]) for name, vector in vectors.items()
               if set(search_index.KEYS.values()) & set(dumps[name]["archive"])}
    check_norm_pins(dumps, vectors, indexes)
    for name, index in indexes.items():
        (folder / f"{name}.index.json").write_text(to_json(index), encoding="utf-8")
    return vectors


def check_norm_pins(dumps: dict[str, dict], vectors: dict[str, Vector], indexes: dict[str, dict]) -> None:
    """Version 4 (2.6, §17.2) is version 3 with each length code in the norm pages: a 2.6 file with
    bit 3 alone; the same documents, postings (their length codes read from the one norm page),
    titles, results and scores as the version 3 vector of the same records; fewer posting bytes."""
    def posting_bytes(name: str) -> int:
        return sum(sum(shard["postingPages"]) for shard in indexes[name]["layout"]["termShards"])
    for name in ("search-v4", "search-large-v4"):
        older = name.replace("-v4", "-v3")
        assert dumps[name]["formatVersion"] == "2.6" and dumps[name]["trailer"]["optionalFeatures"] == 8, name
        for key in ("documentCount", "tokenCount", "complete", "documents", "terms", "titles", "queries",
                    "suggestions"):
            assert indexes[name][key] == indexes[older][key], (name, key)
        index = search_index.SearchIndex.open(Archive(vectors[name].data))
        assert index.norm_span == search_index.NORM_SPAN and len(index.norm_refs) == 1, name
        assert posting_bytes(name) < posting_bytes(older), name


# ---------------------------------------------------------------------------- invalid vectors

def check_invalid(name: str, data: bytes, expected: dict, extra: dict[str, bytes], valid: dict[str, Vector]) -> None:
    """Each vector fails where expected.json says, with that code (and offset), and nothing else:
    `open` vectors fail to open; `verify` vectors open and verify reports that code and no other, one
    problem at the offset; `trust` vectors verify clean and fail §12.4; `stack` vectors fail `bad-base`;
    `apply` vectors verify and stack clean, and applying them (§13.1) fails with the code (and offset)."""
    at = expected["at"]
    try:
        archive = Archive(data)
    except WebarcError as e:
        assert at == "open", (name, e)
        assert (e.code, e.offset) == (expected["error"], expected["offset"]), (name, e, expected)
        return
    assert at != "open", (name, "opened")
    bases = [Archive(valid[Path(p).stem].data) for p in expected.get("bases", [])]
    if at == "read":
        obj, leaf = archive.lookup("GET", expected["url"])
        entry = next(b for b in leaf.bodies if b.key == ref_key(*body_ref(obj)))
        try:
            archive.read_body(entry, leaf, bases)
        except WebarcError as e:
            assert (e.code, e.offset) == (expected["error"], expected["offset"]), (name, e)
            return
        raise AssertionError((name, "read"))
    problems = archive.verify(bases if bases else None)
    if at == "verify":
        assert problems and {p.code for p in problems} == {expected["error"]}, (name, problems)
        assert expected["offset"] in {p.offset for p in problems}, (name, problems, expected)
        return
    assert not problems, (name, problems)
    if at == "trust":
        keys = [parse_public_key((VECTORS / k).read_text(encoding="utf-8")) for k in expected["keys"]]
        state: dict = {}
        for first in expected.get("acceptFirst", []):
            check_trust(Archive(extra[first]), keys, state=state)
        try:
            check_trust(archive, keys, state=state)
        except WebarcError as e:
            assert (e.code, e.offset) == (expected["error"], expected["offset"]), (name, e)
            problems = archive.verify(trusted=keys)
            if not expected.get("acceptFirst"):
                assert [(p.code, p.offset) for p in problems] == [(e.code, e.offset)], (name, problems)
            return
        raise AssertionError((name, "trusted"))
    if at == "stack":
        stack = [Archive(valid[Path(p).stem].data) for p in expected["stack"]]
        try:
            Stack([archive] + stack)
        except WebarcError as e:
            assert e.code == expected["error"], (name, e)
            return
        raise AssertionError((name, "stacked"))
    if at == "apply":
        stack = [Archive(valid[Path(p).stem].data) for p in expected["stack"]]
        Stack([archive] + stack)
        try:
            layers.apply([archive] + stack)
        except WebarcError as e:
            assert (e.code, e.offset) == (expected["error"], expected.get("offset")), (name, e)
            return
        raise AssertionError((name, "applied"))
    if at == "search":
        try:
            search_index.SearchIndex.open(archive).read_all()
        except (search_index.SearchError, WebarcError) as e:
            assert (e.code, e.offset) == (expected["error"], expected["offset"]), (name, e)
            return
        raise AssertionError((name, "the index read clean"))
    raise AssertionError((name, at))


def write_invalid(folder: Path, valid: dict[str, Vector]) -> None:
    vectors = invalid_vectors.all_vectors(valid, KEYS)
    files = {name: data for name, (data, _) in vectors.items()}
    expected = {}
    for name, (data, expectation) in vectors.items():
        if expectation is not None:
            check_invalid(name, data, expectation, files, valid)
            expected[name] = expectation
    for name, data in files.items():
        (folder / name).write_bytes(data)
    (folder / "expected.json").write_text(to_json(expected), encoding="utf-8")


# ---------------------------------------------------------------------------- canonical URLs, keys

def canonical_cases() -> list[dict]:
    """Inputs and keys for unit tests of §9, beyond the archives."""
    cases = []
    for url, key in vv.spec_canonical_table(SPEC) + vv.EXTRA_CANONICAL + vv.EXTRA_CANONICAL_UNIT:
        cases.append({"method": "GET", "url": url, "error": "bad-url"} if key == "bad-url" else
                     {"method": "GET", "url": url, "key": key})
    cases.append({"method": "post", "url": "http://Example.com/form", "key": "POST http://example.com/form"})
    cases += [{"method": "GET", "url": url, "error": "bad-url"} for url in vv.BAD_URLS]
    for case in cases:
        try:
            assert canonical_key(case["method"], case["url"]) == case["key"], case
        except BadURL:
            assert case.get("error") == "bad-url", case
    return cases


def write_keys(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    ed25519.self_check(KEYS["test1"], b"webarc make-vectors self check")
    for name, seed in KEYS.items():
        public, private = key_files(seed)
        assert parse_private_key(private) == seed and parse_public_key(public) == ed25519.public_key(seed)
        (folder / f"{name}.pub").write_text(public, encoding="utf-8")
        path = folder / f"{name}.key"
        path.write_text(private, encoding="utf-8")
        path.chmod(0o600)


# ---------------------------------------------------------------------------- main

def reset(folder: Path) -> None:
    """Empty a generated folder (only files this script writes)."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in folder.iterdir():
        if path.suffix in (".webarc", ".json", ".pub", ".key"):
            path.unlink()


def main() -> None:
    valid_dir, invalid_dir, keys_dir = VECTORS / "valid", VECTORS / "invalid", VECTORS / "keys"
    for folder in (valid_dir, invalid_dir, keys_dir):
        reset(folder)
    write_keys(keys_dir)
    valid = write_valid(valid_dir)
    write_invalid(invalid_dir, valid)
    (VECTORS / "canonical-urls.json").write_text(to_json({"cases": canonical_cases()}), encoding="utf-8")
    counts = compact_vectors.write(VECTORS / "compact", {name: v.data for name, v in valid.items()})
    print(f"wrote {counts['valid']} valid and {counts['invalid']} invalid compact updates under Spec/vectors/compact")
    print(f"wrote {len(valid)} valid vectors, {len(list(invalid_dir.glob('*.webarc')))} invalid vectors, "
          f"keys and canonical-urls.json under {VECTORS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
