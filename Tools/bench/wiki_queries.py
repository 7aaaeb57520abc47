#!/usr/bin/env python3
"""Writes 200 search queries for a wiki-gen site (seeded), one per line, to stdout.

From random pages, in turn: the title's first two words, its first word, that word's first four
letters as a prefix, a two-word phrase of the page's text, two words of its text. For
`webarc search ARCHIVE --bench-queries FILE` on the archive of the site.

Usage: Tools/bench/wiki_queries.py SITE [--count 200] [--seed 7] > queries.txt
"""
import argparse
import os
import random
import re

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("site", help="a folder wiki-gen made")
parser.add_argument("--count", type=int, default=200)
parser.add_argument("--seed", type=int, default=7)
args = parser.parse_args()
random.seed(args.seed)
root = os.path.join(args.site, "w")
folders = sorted(os.listdir(root))
for number in range(args.count):
    folder = os.path.join(root, random.choice(folders))
    page = os.path.join(folder, random.choice(sorted(os.listdir(folder))))
    html = open(page, encoding="utf-8", errors="replace").read()
    title = re.search(r"<title>(.*?) - Wiki</title>", html).group(1)
    words = re.findall(r"[A-Za-z]+", title)
    text = re.findall(r"[a-z]{4,}", re.sub(r"<[^>]+>", " ", html.split('<div id="content"', 1)[-1]))
    kind = number % 5
    if kind == 0:
        query = " ".join(words[:2])
    elif kind == 1:
        query = words[0]
    elif kind == 2:
        query = words[0][:4].lower() + "*"
    elif kind == 3 and len(text) > 10:
        start = random.randrange(len(text) - 2)
        query = f'"{text[start]} {text[start + 1]}"'
    else:
        query = " ".join(random.sample(text, 2)) if len(text) > 2 else words[0]
    print(query)
