#!/usr/bin/env python3
"""Reads a WEBARC_TRACE_HTTP=1 log and prints: requests, dependent rounds, bytes, the last round's
largest request's bytes (the body, for `cat`), and the bytes beyond it.

Requests that overlap in time are one round; a request that starts after the round's last one
ended opens the next: the count of round trips a client would wait through one after another."""
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
    count, end, last_round = 0, -1.0, []
    for start, finish, size in spans:
        if start >= end:
            count += 1
            end = finish
            last_round = []
        else:
            end = max(end, finish)
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
