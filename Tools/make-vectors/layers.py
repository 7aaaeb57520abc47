"""Updates (§13, §13.1): the layered view of a stack, an update made as a diff, and applying one.

- `layered_view(stack)`: for every key any layer holds, the records of the topmost layer holding
  it, in that layer's record-tree order, none when they are a `Tombstone`; as recipe records
  (Spec/vectors/README.md) with their body bytes, in key order (the result's record-tree order).
- `diff(new, new_recipe, stack, names, archive)`: the recipe of an update that turns `stack` into
  the archive `new` (§13.1's last paragraph): the records of every key whose records differ, in
  the order `new_recipe` gave them, each changed body with its previous version (the body the
  stack answers the same key with, Appendix C step 14); a `Tombstone` (method and URL of the
  stack's record) for every key `new` dropped; `Archive.target` naming `new`.
- `apply(stack)`: writes the layered view as `target.archive` says (level, dictionary interval,
  order, Zstandard level), appends `target.appendix`, and checks the result against `target` (`bad-target`).
"""

import base64
import hashlib
import struct

from canonical import canonical_key
from schema import RECORD_CLASSES, RECORD_TREE
from webarc_reader import Archive, Stack, WebarcError, body_ref, dump_archive, object_class, ref_key
from webarc_writer import write


def recipe_record(dumped: dict) -> dict:
    """A dumped record in the recipe's shape (no key or body reference; no empty lists)."""
    out = {k: v for k, v in dumped.items() if k not in ("key", "bodyMD5", "bodyVariant", "bodyLength")}
    for k in ("requestHeaders", "headers"):
        if k in out and not out[k]:
            del out[k]
    return out


def layer_records(stack: list[Archive], i: int) -> dict[bytes, list[dict]]:
    """Layer i's records by key, each key's in record-tree order, as recipe records with their bodies
    (read through the layers below it)."""
    a, out = stack[i], {}
    for leaf in a.leaves(a.record_root, RECORD_TREE):
        copies = {b.key: b for b in leaf.bodies}
        for entry in leaf.records:
            if object_class(entry.object) in RECORD_CLASSES:
                out.setdefault(entry.key, []).append(recipe_record(a.dump_record(entry, copies, stack[i + 1:])))
    return out


def layered_view_by_key(stack: list[Archive]) -> dict[bytes, list[dict]]:
    """§13.1: key -> the records of the topmost layer holding it (a layer whose entries of the key are
    all of classes this reader does not know does not hold it). The layer's first record decides: a
    Tombstone leaves the key out; otherwise its Responses and Redirects are the key's records, any
    Tombstone among them dropped."""
    view: dict[bytes, list[dict]] = {}
    decided = set()
    for i in range(len(stack)):
        for key, records in layer_records(stack, i).items():
            if key in decided:
                continue
            decided.add(key)
            if records[0]["kind"] != "tombstone":
                view[key] = [r for r in records if r["kind"] != "tombstone"]
    return view


def layered_view(stack: list[Archive]) -> list[dict]:
    """The layered view's records in the record-tree order they will have (key, then the layer's order)."""
    view = layered_view_by_key(stack)
    return [r for key in sorted(view) for r in view[key]]


def diff(new: Archive, new_recipe: dict, stack: list[Archive], names: list[str], archive: dict) -> dict:
    """The recipe of an update over `stack` (named `names`, nearest first) whose application gives
    `new` (made from `new_recipe`); `archive` holds the update's own metadata (created, creator)."""
    Stack(stack)
    before, after = layered_view_by_key(stack), layered_view_by_key([new])
    changed = {key for key, records in after.items() if before.get(key) != records}
    records = []
    for record in new_recipe["records"]:
        key = canonical_key(record["method"], record["url"])
        if key.encode("utf-8") not in changed:
            continue
        record = dict(record)
        previous = previous_version(stack, record)
        if previous is not None:
            record["previousVersion"] = previous
        records.append(record)
    for key in sorted(set(before) - set(after)):
        first = before[key][0]
        records.append({"kind": "tombstone", "method": first["method"], "url": first["url"]})
    target = {"digest": new.archive_digest.hex(), "archiveLength": new.archive_length,
              "archive": dump_archive(new.metadata())}
    if new.appendix_offset is not None:
        target["appendix"] = base64.b64encode(new.data[new.appendix_offset:]).decode("ascii")
    target["bodyData"] = hashlib.sha256(new.data[16:new.body_data_end]).hexdigest()   # since 2.1.4
    bases = [{"digest": a.archive_digest.hex(), "archiveLength": a.archive_length, "name": name}
             for a, name in zip(stack, names)]
    return {"archive": dict(archive, bases=bases, target=target), "records": records}


def previous_version(stack: list[Archive], record: dict) -> dict | None:
    """Appendix C step 14: the body the stack answers the record's key with, when it differs from
    the record's body: `{"layer": n, "bodyMD5", "bodyVariant"}`, n counted from the update."""
    if record["kind"] != "response":
        return None
    found = Stack(stack).lookup(record["method"], record["url"])
    if found is None or found[1].class_name != "Response":
        return None
    layer, obj = found
    md5, variant = body_ref(obj)
    entry = stack[layer].find_body(ref_key(md5, variant))
    if stack[layer].body_bytes(entry, stack[layer + 1:]) == base64.b64decode(record["body"]):
        return None
    return {"layer": layer + 1, "bodyMD5": md5.hex(), "bodyVariant": variant}


def positions(runs: list[list[int]], count: int, at: int) -> list[int]:
    """§13.2: the runs expanded; every position 0..count-1 exactly once (corrupt-index at `at` otherwise)."""
    out = [p for start, length in runs for p in range(start, start + length)]
    if any(length < 1 for _, length in runs) or sorted(out) != list(range(count)):
        raise WebarcError("corrupt-index", at, f"Writer.order does not list each of {count} positions exactly once")
    return out


def apply(stack: list[Archive]) -> bytes:
    """§13.1: the archive that applying `stack[0]` (an update with `Archive.target`) to the archives
    below it gives, appendix included; bad-base for a stack that does not match, bad-target when the
    result is not the target, corrupt-index for an order that is not a permutation."""
    Stack(stack)
    top = stack[0]
    meta = top.metadata()
    if "target" not in meta.fields:
        raise ValueError("not an update with a target")
    at = top.metadata_ref.offset
    try:
        target = dump_archive(meta)["target"]
    except ValueError as e:                                        # Writer.order that is not LEB128 pairs
        raise WebarcError("corrupt-index", at, f"Writer.order: {e}") from None
    view = layered_view(stack)
    writer = target["archive"]["writer"]
    runs = writer.get("order") or ([[0, len(view)]] if view else [])
    order = positions(runs, len(view), at)
    settings = {"level": writer["level"], "dictionaryInterval": writer["dictionaryInterval"]}
    if "zstdLevel" in writer:                                       # Appendix C step 15 (2.1.1)
        settings["zstdLevel"] = writer["zstdLevel"]
    if writer.get("anchors", 0) not in (0, 1, 2):                   # Appendix C step 13's rule (2.1.5, 2.1.7)
        raise WebarcError("bad-target", at, f"Writer.anchors {writer['anchors']}: an anchor rule this tool cannot write")
    if writer.get("anchors"):
        settings["anchors"] = writer["anchors"]
    if writer.get("dictionaryPlacement", 0) not in (0, 1):                # Appendix C step 13's placement (2.1.8)
        raise WebarcError("bad-target", at, f"Writer.dictionaryPlacement {writer['dictionaryPlacement']}: a placement this tool cannot write")
    if writer.get("dictionaryPlacement"):
        settings["dictionaryPlacement"] = writer["dictionaryPlacement"]
    if "groups" in writer:                                          # Appendix C step 16 (2.4)
        settings["groups"] = writer["groups"]
    recipe = {"archive": {k: v for k, v in target["archive"].items() if k != "writer"},
              "writer": settings, "records": [view[p] for p in order],
              "totals": "totals" in target["archive"]}                # a target written before 2.2.2 has none
    result = write(recipe)
    if len(result) != target["archiveLength"] or hashlib.sha256(result[-256:]).hexdigest() != target["digest"]:
        raise WebarcError("bad-target", None, f"the applied update gives archive digest "
                          f"{hashlib.sha256(result[-256:]).hexdigest()}, length {len(result)}; its target says "
                          f"{target['digest']}, length {target['archiveLength']}")
    # Since 2.1.4: the body data too, which the archive digest binds only through chunk digests of
    # decoded bytes. This writer codes every chunk itself, so its body data must be the target's.
    body_end = struct.unpack_from("<Q", result, len(result) - 256 + 40)[0]
    if "bodyData" in target and hashlib.sha256(result[16:body_end]).hexdigest() != target["bodyData"]:
        raise WebarcError("bad-target", None, f"the applied update gives body data SHA-256 "
                          f"{hashlib.sha256(result[16:body_end]).hexdigest()}; its target says {target['bodyData']}")
    if "appendix" in target:
        result += base64.b64decode(target["appendix"])
    return result

