#!/usr/bin/env python3
"""Regenerate the webarc test vectors under Spec/vectors/ (run from anywhere):

    python3 Tools/make-vectors/make_vectors.py

This is an implementation of webarc 1.0 independent of the Swift library,
written from Spec/webarc-format.md alone:

- canonical.py       URL canonicalization (§7.1)
- webarc_writer.py   the writer, in the deterministic order of Appendix C
- webarc_reader.py   the reader, the §8 verifier and the JSON dump
- lz4block.py        LZ4 blocks through the system liblz4 (as the Swift code)
- schema.py          constants and the §6.3 record classes
- valid_vectors.py   the recipes of the valid vectors
- invalid_vectors.py the invalid vectors, derived from the valid ones

For every valid vector it writes NAME.webarc (the writer's output for the
recipe), NAME.input.json (the recipe) and NAME.json (the reader's dump of the
.webarc bytes). It writes the invalid vectors and invalid/expected.json, and
canonical-urls.json. Before writing, it checks its own output: every valid
archive verifies clean and dumps back to its recipe, every invalid one fails
exactly as expected.json says. The output depends only on this code and the
system liblz4: two runs give identical bytes.
"""

import base64
import json
import sys
from pathlib import Path

sys.dont_write_bytecode = True      # keep Tools/make-vectors free of __pycache__

import invalid_vectors                                          # noqa: E402
import valid_vectors as vv                                      # noqa: E402
from canonical import BadURL, canonical_key                     # noqa: E402
from schema import BYTES, DATE, REQUIRED, STRING                # noqa: E402
from webarc_reader import Reader, WebarcError                   # noqa: E402
from webarc_writer import (Field, Layout, Obj, Section, assemble, build, default_sections,  # noqa: E402
                           encode_sections, write)

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "Spec" / "webarc-format.md"
VECTORS = ROOT / "Spec" / "vectors"


def to_json(obj) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------- newer-minor vectors

def newer_minor(recipe: dict) -> bytes:
    """Version 1.7: an unknown optional section XTRA, unknown fields on a Response (one of a known
    type, one of an unknown type 42) and an object of an unknown class that LKUP does not name."""
    model = build(recipe)
    response = model.objects[2]
    response.fields.insert(2, Field("x-future", 42, bytes([1, 2, 3, 4, 5])))
    response.fields.append(Field("sha256", BYTES, bytes(range(32))))
    model.objects.append(Obj("Tombstone", [Field("url", STRING, "https://example.net/gone"),
                                           Field("deletedAt", DATE, vv.NOV_23)]))
    layout = Layout(minor_version=7)
    sections = default_sections(encode_sections(model, layout), layout)
    sections.insert(3, Section("XTRA", 0, b"An optional section a 1.0 reader skips.\n"))
    return assemble(sections, layout)


def newer_entries(recipe: dict) -> bytes:
    """Version 1.3 with larger table entries (section table 32, BTAB 64, CTAB 32, LKUP 12, the extra
    bytes 0xA5), reserved bits set in header and section flags and header bytes 80-119, and an
    appendix after archiveLength."""
    layout = Layout(minor_version=3, section_entry_size=32, btab_entry_size=64, ctab_entry_size=32,
                    lkup_entry_size=12, entry_filler=0xA5, section_flags=REQUIRED | 0x8000_0000,
                    header_flags=0x0000_0100, header_reserved=b"future header field".ljust(40, b"\xa5"),
                    appendix=b"appendix: room for a signature block\n")
    return assemble(default_sections(encode_sections(build(recipe), layout), layout), layout)


# ---------------------------------------------------------------------------- valid vectors

def valid_vectors() -> dict[str, tuple[dict, bytes]]:
    """NAME -> (recipe, archive bytes)."""
    recipes = {
        "empty": vv.empty(), "minimal": vv.minimal(), "site": vv.site(), "dedup": vv.dedup(),
        "multichunk": vv.multichunk(), "captures": vv.captures(), "canonical": vv.canonical(SPEC),
        "collision": vv.collision(),
    }
    out = {name: (recipe, write(recipe)) for name, recipe in recipes.items()}
    out["newer-minor"] = (vv.newer_base(), newer_minor(vv.newer_base()))
    out["newer-entries"] = (vv.newer_base(), newer_entries(vv.newer_base()))
    return out


def check_valid(name: str, recipe: dict, data: bytes) -> dict:
    """The archive verifies clean and its dump says what the recipe said; returns the dump."""
    reader = Reader(data)
    problems = reader.verify()
    assert not problems and not reader.warnings, (name, problems, reader.warnings)
    dump = reader.dump()
    assert dump["archive"] == recipe["archive"], name
    assert sorted(map(to_json, map(as_recipe_record, dump["records"]))) == sorted(map(to_json, recipe["records"])), name
    for record in dump["records"]:
        assert record["key"] == canonical_key(record["method"], record["url"]), name
    return dump


def as_recipe_record(record: dict) -> dict:
    """A dumped record in the recipe's shape (no key or body reference; no empty lists)."""
    out = {k: v for k, v in record.items() if k not in ("key", "bodyMD5", "bodyVariant", "bodyLength")}
    for k in ("requestHeaders", "headers"):
        if not out[k]:
            del out[k]
    return out


def check_pins(dumps: dict[str, dict]) -> None:
    """What each vector is there to show really is in it."""
    chunks = [c for b in dumps["minimal"]["bodies"] for c in b["chunks"]]
    assert [c["codec"] for c in chunks] == [1]
    site_codecs = {c["codec"] for b in dumps["site"]["bodies"] for c in b["chunks"]}
    assert site_codecs == {0, 1} and any(b["length"] == 0 for b in dumps["site"]["bodies"])
    assert len(dumps["dedup"]["bodies"]) == 2
    big = dumps["multichunk"]["bodies"][0]["chunks"]
    assert [c["rawLength"] for c in big] == [262144, 262144, 75712] and all(c["codec"] == 1 for c in big)
    assert [b["variant"] for b in dumps["collision"]["bodies"]] == [0, 1]
    assert len({b["md5"] for b in dumps["collision"]["bodies"]}) == 1
    expected_keys = [key for _, key in vv.spec_canonical_table(SPEC) + vv.EXTRA_CANONICAL]
    assert sorted(r["key"] for r in dumps["canonical"]["records"]) == sorted(expected_keys)
    bodies = [base64.b64decode(r["body"]).split(b":")[0] for r in dumps["captures"]["records"]]
    assert bodies == [b"capture 0", b"capture 4", b"capture 1", b"capture 3", b"posted"], bodies


def write_valid(folder: Path) -> tuple[dict[str, bytes], dict[str, dict]]:
    vectors = valid_vectors()
    dumps = {}
    for name, (recipe, data) in vectors.items():
        dumps[name] = check_valid(name, recipe, data)
        (folder / f"{name}.webarc").write_bytes(data)
        (folder / f"{name}.input.json").write_text(to_json(recipe), encoding="utf-8")
        (folder / f"{name}.json").write_text(to_json(dumps[name]), encoding="utf-8")
    check_pins(dumps)
    return {name: data for name, (_, data) in vectors.items()}, {name: r for name, (r, _) in vectors.items()}


# ---------------------------------------------------------------------------- invalid vectors

def check_invalid(name: str, data: bytes, expected: dict) -> None:
    """`open` vectors fail to open with the code and offset; `verify` vectors open, and verify
    reports that code and no other, one of its problems at the offset."""
    try:
        reader = Reader(data)
    except WebarcError as e:
        assert expected["at"] == "open", (name, e)
        assert (e.code, e.offset) == (expected["error"], expected.get("offset")), (name, e, expected)
        return
    assert expected["at"] == "verify", (name, "opened")
    problems = reader.verify()
    assert {p.code for p in problems} == {expected["error"]}, (name, problems)
    assert expected.get("offset") in {p.offset for p in problems}, (name, problems, expected)


def write_invalid(folder: Path, valid: dict[str, bytes], recipes: dict[str, dict]) -> None:
    expected = {}
    for name, (data, expectation) in invalid_vectors.all_vectors(valid, recipes).items():
        check_invalid(name, data, expectation)
        (folder / name).write_bytes(data)
        expected[name] = expectation
    (folder / "expected.json").write_text(to_json(expected), encoding="utf-8")


# ---------------------------------------------------------------------------- canonical URLs

def canonical_cases() -> list[dict]:
    """Inputs and keys for unit tests of §7.1, beyond the archives."""
    cases = [{"method": "GET", "url": url, "key": key}
             for url, key in vv.spec_canonical_table(SPEC) + vv.EXTRA_CANONICAL + vv.EXTRA_CANONICAL_UNIT]
    cases.append({"method": "post", "url": "http://Example.com/form", "key": "POST http://example.com/form"})
    cases += [{"method": "GET", "url": url, "error": "bad-url"} for url in vv.BAD_URLS]
    for case in cases:
        try:
            assert canonical_key(case["method"], case["url"]) == case["key"], case
        except BadURL:
            assert case.get("error") == "bad-url", case
    return cases


# ---------------------------------------------------------------------------- main

def reset(folder: Path) -> None:
    """Empty a generated folder (only files this script writes)."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in folder.iterdir():
        if path.suffix in (".webarc", ".json"):
            path.unlink()


def main() -> None:
    valid_dir, invalid_dir = VECTORS / "valid", VECTORS / "invalid"
    reset(valid_dir)
    reset(invalid_dir)
    valid, recipes = write_valid(valid_dir)
    write_invalid(invalid_dir, valid, recipes)
    (VECTORS / "canonical-urls.json").write_text(to_json({"cases": canonical_cases()}), encoding="utf-8")
    print(f"wrote {len(valid)} valid vectors, {len(list(invalid_dir.glob('*.webarc')))} invalid vectors "
          f"and canonical-urls.json under {VECTORS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
