#!/usr/bin/env python3
"""Reads a WEBARC_TRACE_HTTP=1 log and prints: requests, dependent rounds, bytes, the last round's
largest request's bytes (the body, for `cat`), and the bytes beyond it.

A request that starts before any request of the current round has come back cannot depend on
that round, so it joins it; one that starts after the round's first answer came back may depend
on it, and opens the next round. This counts every round trip a client might have waited for
before asking again (an upper bound: a request sent late for another reason counts as a round).
Joining every request that overlaps the round in time instead gave fewer: a request sent on one
answer while another of the same round was still arriving was counted in the round it waited on."""
import re
import sys


def rounds(path):
    spans = []
    with open(path, errors="replace") as trace:
        for line in trace:
            m = re.search(r"-> (\d+), (\d+) bytes, at ([\d.]+) ms, took ([\d.]+) ms", line)
            if m:
                start = float(m.group(3))
                spans.append((start, start + float(m.group(4)), int(m.group(2))))
    spans.sort()
    # `first_back`: when the current round's first answer came back.
    count, first_back, last_round = 0, -1.0, []
    for start, finish, size in spans:
        if start >= first_back:
            count += 1
            first_back = finish
            last_round = []
        else:
            first_back = min(first_back, finish)
        last_round.append(size)
    total = sum(span[2] for span in spans)
    # For `cat`, the last round fetches the body's chunk with, when it is coded against one, its
    # dictionary or reference chunk beside it: the body is the largest, the rest counts as beyond.
    body = max(last_round) if last_round else 0
    return len(spans), count, total, body, total - body


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: trace_rounds.py TRACE")
    print(*rounds(sys.argv[1]))
