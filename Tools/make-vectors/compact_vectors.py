"""The compact update vectors (Spec/vectors/compact/, Spec/compact-update.md): compact updates of the
update vectors' base and result, each applied back to the result byte for byte, and invalid ones
derived from them, each refused as expected.json says."""

import struct
from pathlib import Path

import compact
import zstdblock
from webarc_reader import Archive, WebarcError, read_leb128

# name -> (bases, nearest first, as valid vector names; result vector); VERSION_1 are also written as
# version 1 (NAME-v1: no targetBodyData), which every reader still applies.
VERSION_1 = ["delta"]
VALID = {
    "delta": (["delta-base"], "delta-result"),
    "delta-stacked": (["delta", "delta-base"], "delta-stacked-result"),
    "best-delta": (["best"], "best-result"),
    "site-update": (["site"], "delta-result"),
    "empty": (["delta-result"], "delta-result"),
    "delta-window": (["delta-base"], "delta-result"),
    "grouped": (["grouped"], "grouped-result"),        # 2.4: a grouping base and target (slices)
}


def window_31(data: bytes) -> bytes:
    """`delta`'s compact update with its bodies frame declaring Window_Log 31 (mantissa 7, about 3.75
    GiB), the largest libzstd reads: a reader decodes the frame in one call, whatever its window."""
    return with_section(data, 2, zstdblock.with_window(sections(data)[1][2][2], 21, 7))


# Valid vectors changed after encoding (crafted): name -> the change.
CRAFTED = {"delta-window": window_31}


def sections(data: bytes) -> tuple[int, list[tuple[int, int, bytes]]]:
    """(end of the header, [(offset of the length field, offset of the frame, frame)] for the three sections)."""
    at = 10
    for _ in range(data[9]):
        _, at = read_leb128(data, at + 32)
    _, at = read_leb128(data, at + 32)
    if data[8] >= 2:
        at += 32                                            # targetBodyData
    header_end, out = at, []
    for _ in range(3):
        length, frame_at = read_leb128(data, at)
        out.append((at, frame_at, data[frame_at:frame_at + length]))
        at = frame_at + length
    return header_end, out


def with_section(data: bytes, number: int, frame: bytes) -> bytes:
    """`data` with section `number`'s frame replaced (its length field written again)."""
    _, parts = sections(data)
    start, frame_at, old = parts[number]
    return data[:start] + compact.leb(len(frame)) + frame + data[frame_at + len(old):]


def invalid(valid: dict[str, bytes]) -> dict[str, tuple[bytes, list[str], dict]]:
    """name -> (bytes, bases, expectation): `code`, and `offset` when the error names one."""
    delta = valid["delta"]
    _, parts = sections(delta)
    out = {}
    out["wrong-base"] = (delta, ["site"], {"code": "bad-base"})
    out["magic"] = (b"\x89WEBARCV" + delta[8:], ["delta-base"], {"code": "bad-compact", "offset": 0})
    out["version"] = (delta[:8] + b"\x03" + delta[9:], ["delta-base"], {"code": "bad-compact", "offset": 8})
    cut = len(delta) - 10
    out["cut"] = (delta[:cut], ["delta-base"], {"code": "bad-compact", "offset": parts[2][0]})
    out["trailing-byte"] = (delta + b"\x00", ["delta-base"], {"code": "bad-compact", "offset": len(delta)})
    # The bodies frame, its declared content size over 2^27, then one less than its content.
    frame = bytearray(parts[2][2])
    _, _, fcs_at, fcs_size = zstdblock.frame_header(bytes(frame))
    assert fcs_size == 4, fcs_size
    content = struct.unpack_from("<I", frame, fcs_at)[0]
    struct.pack_into("<I", frame, fcs_at, (1 << 27) + 1)
    out["frame-too-large"] = (with_section(delta, 2, bytes(frame)), ["delta-base"], {"code": "bad-compact", "offset": parts[2][1]})
    struct.pack_into("<I", frame, fcs_at, content - 1)
    out["frame-content-size"] = (with_section(delta, 2, bytes(frame)), ["delta-base"], {"code": "bad-compact", "offset": parts[2][1]})
    out["frame-trailing-bytes"] = (with_section(delta, 2, parts[2][2] + b"\x00"), ["delta-base"],
                                   {"code": "bad-compact", "offset": parts[2][1]})
    # The index: a dropped-key count over the base's key count; a changed key past the last key.
    keys = len(compact.BaseView([Archive(valid["delta-base.webarc"])]).keys)
    index = compact.compress(compact.leb(keys + 1), b"")
    out["index-dropped-count"] = (with_section(delta, 0, index), ["delta-base"], {"code": "bad-compact", "offset": parts[0][1]})
    index = compact.compress(compact.leb(0) + compact.leb(1) + compact.leb(2 * keys), b"")
    out["index-changed-key"] = (with_section(delta, 0, index), ["delta-base"], {"code": "bad-compact", "offset": parts[0][1]})
    # The bodies frame declaring Window_Log 32: over 31, which libzstd refuses as malformed.
    out["window-log"] = (with_section(delta, 2, zstdblock.with_window(parts[2][2], 22, 0)), ["delta-base"],
                         {"code": "bad-compact", "offset": parts[2][1]})
    # An empty index section: n = 0 is empty content, which lacks the counts §3 requires; named at the
    # section's start, right after its length field.
    out["index-empty"] = (with_section(delta, 0, b""), ["delta-base"], {"code": "bad-compact", "offset": parts[0][0] + 1})
    # The records: a body source past the base's records; a new body not introduced yet.
    stack = [Archive(valid["delta-base.webarc"])]
    records = len(compact.BaseView(stack).records)
    result = Archive(valid["delta-result.webarc"])
    for name, source in (("records-base-body", 2 * records + 1), ("records-new-body", 2 * 5 + 2)):
        data = compact.encode(result, stack, first_source=source)
        out[name] = (data, ["delta-base"], {"code": "bad-compact", "offset": sections(data)[1][1][1]})
    # The target digest changed: everything reads, the result is not the target.
    body_data_at = sections(delta)[0] - 32
    digest_at = body_data_at - 32 - len(compact.leb(Archive(valid["delta-result.webarc"]).archive_length))
    changed = bytearray(delta)
    changed[digest_at] ^= 1
    out["target-digest"] = (bytes(changed), ["delta-base"], {"code": "bad-target"})
    # The target's body data digest changed (version 2): every section reads, the result's body
    # data is not the one named.
    changed = bytearray(delta)
    changed[body_data_at] ^= 1
    out["body-data"] = (bytes(changed), ["delta-base"], {"code": "bad-target"})
    return out


def version_1(data: bytes) -> bytes:
    """A version 2 compact update as version 1 writes it: the same, without targetBodyData."""
    header_end = sections(data)[0]
    return data[:8] + b"\x01" + data[9:header_end - 32] + data[header_end:]


def write(folder: Path, archives: dict[str, bytes]) -> dict:
    """Writes valid/NAME.webarcu + valid/NAME.json and invalid/NAME.webarcu + invalid/expected.json; checks each."""
    (folder / "valid").mkdir(parents=True, exist_ok=True)
    (folder / "invalid").mkdir(parents=True, exist_ok=True)
    for sub in ("valid", "invalid"):
        for path in (folder / sub).iterdir():
            if path.suffix in (".webarcu", ".json"):
                path.unlink()
    made = {}
    for name, (bases, result) in VALID.items():
        stack = [Archive(archives[b]) for b in bases]
        data = compact.encode(Archive(archives[result]), stack)
        if name in CRAFTED:
            data = CRAFTED[name](data)
        assert compact.apply(data, stack) == archives[result], f"compact {name} does not give {result}"
        made[name] = data
        for written, content in [(name, data)] + ([(f"{name}-v1", version_1(data))] if name in VERSION_1 else []):
            assert compact.apply(content, stack) == archives[result], f"compact {written} does not give {result}"
            (folder / "valid" / f"{written}.webarcu").write_bytes(content)
            fields, recipe = compact.decode(content, stack)
            info = {"bases": [f"{b}.webarc" for b in bases], "result": f"{result}.webarc", "version": content[8],
                    "targetDigest": fields["target"][0].hex(), "targetLength": fields["target"][1],
                    "records": len(recipe["records"]), "bytes": len(content)}
            if fields["bodyData"] is not None:
                info["targetBodyData"] = fields["bodyData"].hex()
            (folder / "valid" / f"{written}.json").write_text(compact_json(info), encoding="utf-8")
    expected = {}
    for name, (data, bases, expectation) in invalid(dict(made, **{f"{k}.webarc": v for k, v in archives.items()})).items():
        try:
            compact.apply(data, [Archive(archives[b]) for b in bases])
        except WebarcError as e:
            assert e.code == expectation["code"], (name, e.code, str(e))
            if "offset" in expectation:
                assert e.offset == expectation["offset"], (name, e.offset, expectation, str(e))
        else:
            raise AssertionError(f"compact invalid vector {name} applied")
        (folder / "invalid" / f"{name}.webarcu").write_bytes(data)
        expected[name] = dict(expectation, bases=[f"{b}.webarc" for b in bases])
    (folder / "invalid" / "expected.json").write_text(compact_json(expected), encoding="utf-8")
    return {"valid": len(made), "invalid": len(expected)}


def compact_json(value) -> str:
    import json
    return json.dumps(value, indent=1, sort_keys=True) + "\n"
