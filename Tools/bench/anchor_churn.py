#!/usr/bin/env python3
"""How many bodies each dictionary-anchor rule codes again when pages come and go (spec Appendix C
step 13): what an update's apply costs every kiosk beyond the changed pages.

    python3 Tools/bench/anchor_churn.py [ARCHIVE.webarc] [--trials N] [--seed S]

For each rule (every 32nd; keyed, `Writer.anchors` 1; local minimum, 2) it takes the archive's
bodies in insertion order (their record keys and lengths, as stored; a model: duplicates take no
position here), applies N random edits of 1 and of 3 pages (a page dropped, or one of 3, 20 or
40 KB added at a random place) and counts the bodies whose dictionary changes: another anchor, or
none where they had one (an anchor is coded without one). It prints mean, median and maximum per
rule, for the archive, its HTML pages alone and a synthetic site of 300 pages of 10 KB (every body
a candidate: where the keyed rule cascades). The rules are the reference writer's
(`Tools/make-vectors/webarc_writer.py`). Without ARCHIVE only the synthetic site is measured.
Sizes are `size_levers.py`'s job.
"""
import argparse
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "make-vectors"))
import webarc_reader as wr  # noqa: E402
import size_levers  # noqa: E402  (beside this script: its stored_entries)
import webarc_writer as ww  # noqa: E402

INTERVAL = 32


def every_nth(bodies):
    return [p - p % INTERVAL for p in range(len(bodies))]


def keyed(bodies):
    """Rule 1 (2.1.5): position 0, ⌊3n/2⌋ after the last anchor, or a candidate ⌊3n/4⌋ after it."""
    out, last = [], 0
    for p, (key, length) in enumerate(bodies):
        candidate = 8192 <= length <= 65536 and ww.key_hash(key) % (INTERVAL // 8) == 0
        gap = p - last
        if p == 0 or gap >= INTERVAL * 3 // 2 or (gap >= INTERVAL * 3 // 4 and candidate):
            last = p
        out.append(last)
    return out


def local_minimum(bodies):
    return ww.local_minimum_anchors(bodies, INTERVAL)


RULES = [("every 32nd", every_nth), ("keyed (1)", keyed), ("local minimum (2)", local_minimum)]


def dictionaries(bodies, rule):
    """Each body's dictionary: None for an anchor, else its anchor's key."""
    return {key: (None if anchor == p else bodies[anchor][0]) for p, ((key, _), anchor) in enumerate(zip(bodies, rule(bodies)))}


def recoded(old, new, rule):
    before, after = dictionaries(old, rule), dictionaries(new, rule)
    return sum(1 for key, dictionary in after.items() if key not in before or before[key] != dictionary)


def edited(bodies, edits, rng, trial):
    new = list(bodies)
    for number in range(edits):
        if rng.random() < 0.5 and len(new) > 1:
            del new[rng.randrange(len(new))]
        else:
            at = rng.randrange(len(new) + 1)
            new.insert(at, (f"GET http://localhost/added-{trial}-{number}.html", rng.choice([3000, 20000, 40000])))
    return new


def report(name, bodies, trials, seed):
    for edits in (1, 3):
        rng = random.Random(seed)
        cases = [edited(bodies, edits, rng, trial) for trial in range(trials)]
        for rule_name, rule in RULES:
            counts = sorted(recoded(bodies, new, rule) for new in cases)
            print(f"| {name} | {edits} | {rule_name} | {statistics.mean(counts):.1f} | {statistics.median(counts):g} | {counts[-1]} |",
                  flush=True)


def archive_bodies(path):
    """(record key, body length) of the archive's stored bodies in insertion (storage) order."""
    return [(meta[0], entry.length) for meta, entry in size_levers.stored_entries(wr.Archive(open(path, "rb").read()))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archive", nargs="?")
    parser.add_argument("--trials", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("| bodies | pages edited | rule | recoded: mean | median | max |\n|---|---|---|---|---|---|")
    if args.archive:
        bodies = archive_bodies(args.archive)
        report(os.path.basename(args.archive), bodies, args.trials, args.seed)
        report("its HTML pages", [b for b in bodies if b[0].endswith(".html")], args.trials, args.seed)
    report("300 pages of 10 KB", [(f"GET http://localhost/p{i:03d}.html", 10_000) for i in range(300)], args.trials, args.seed)


if __name__ == "__main__":
    main()
