#!/usr/bin/env python3
"""Search bench: webarc's full-text search against Pagefind, SQLite FTS5 and kiwix-serve.

Run through Tools/bench/search-bench.sh, which installs the peers and builds webarc. Subcommands:

  run     index the docs with every engine, run the 200 queries, print a Markdown table
  fts5    build the FTS5 database (run under /usr/bin/time by `run`, for its time and RSS)
  text    print the visible text this bench extracts from one HTML file (to check the rules)

Relevance is scored on the judged queries of search-queries.tsv only: MRR@10 is the mean of
1/rank of the first relevant page in the top 10 (0 when none is), recall@10 the share of queries
with a relevant page in the top 10 (a query lists one page a reader wants, or a few that answer
it as well). Latency is taken over all 200 queries: the judged ones plus queries generated from
page titles with a fixed seed.
"""

import html.parser
import http.client
import json
import os
import random
import re
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.parse

# --- visible text: the chrome rules of the agreed search API (Sources/WebArcSearch/Text) ---

SKIPPED_TAGS = {"script", "style", "template", "noscript", "svg", "head", "nav", "header", "footer", "aside"}
SKIPPED_ROLES = {"navigation", "search", "banner", "contentinfo"}
SKIPPED_CLASSES = {("div", "sphinxsidebar"), ("div", "related"), ("div", "footer"), ("a", "headerlink")}
VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
             "track", "wbr"}
BLOCK_TAGS = {"p", "div", "li", "ul", "ol", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table",
              "tr", "td", "th", "section", "article", "blockquote", "br", "hr", "main", "figure", "figcaption",
              "caption", "body", "title"}


class VisibleText(html.parser.HTMLParser):
    """Title and visible text of a page: chrome, scripts, hidden elements and Sphinx's sidebars left out."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []  # (tag, skipped)
        self.parts = []
        self.title = []
        self.in_title = False

    def skipping(self):
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag, attrs):
        if tag == "title":
            self.in_title = True
        if tag in BLOCK_TAGS:
            self.parts.append(" ")
        if tag in VOID_TAGS:
            return
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        skip = (
            self.skipping()
            or tag in SKIPPED_TAGS
            or (a.get("role") or "").lower() in SKIPPED_ROLES
            or "hidden" in a
            or any((tag, c) in SKIPPED_CLASSES for c in classes)
        )
        self.stack.append((tag, skip))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID_TAGS and self.stack and self.stack[-1][0] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        if tag in BLOCK_TAGS:
            self.parts.append(" ")
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        if self.in_title:
            self.title.append(data)
        elif not self.skipping():
            self.parts.append(data)


def visible_text(path):
    with open(path, "rb") as f:
        raw = f.read()
    parser = VisibleText()
    parser.feed(raw.decode("utf-8", "replace"))
    parser.close()
    title = " ".join("".join(parser.title).split())
    text = " ".join("".join(parser.parts).split())
    return title, text


def html_pages(docs):
    """Paths (relative to docs) of every .html file, sorted."""
    pages = []
    for root, _, files in os.walk(docs, followlinks=True):
        for name in files:
            if name.endswith(".html"):
                pages.append(os.path.relpath(os.path.join(root, name), docs))
    return sorted(pages)


# --- queries ---

def judged_queries(path):
    queries = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "query":
                continue
            queries.append({"query": fields[0], "pages": fields[1].split(), "kind": fields[2]})
    return queries


def generated_queries(docs, count, seed=38):
    """`count` queries made from page titles with a fixed seed: one or two title words, some as prefixes."""
    rng = random.Random(seed)
    titles = []
    for page in html_pages(docs):
        if page.startswith("genindex") or page.startswith("_"):
            continue
        with open(os.path.join(docs, page), "rb") as f:
            head = f.read(4096).decode("utf-8", "replace")
        m = re.search(r"<title>(.*?)(?:&#8212;|—|</title>)", head, re.S)
        if m:
            words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9_]{2,}", html.unescape(m.group(1)))
                     if w.lower() not in {"the", "and", "for", "with", "python", "what", "new"}]
            if words:
                titles.append(words)
    queries = []
    while len(queries) < count:
        words = rng.choice(titles)
        n = min(len(words), rng.choice([1, 1, 2, 2, 3]))
        start = rng.randrange(0, len(words) - n + 1)
        chosen = [w.lower() for w in words[start:start + n]]
        if rng.random() < 0.15 and len(chosen[-1]) > 4:
            chosen[-1] = chosen[-1][: rng.randrange(3, len(chosen[-1]))] + "*"
        queries.append({"query": " ".join(chosen), "pages": [], "kind": "generated"})
    return queries


def page_of(url):
    """A result URL as a path relative to the docs root: scheme, host, kiwix's book prefix, fragment dropped."""
    parts = urllib.parse.urlsplit(url)
    path = urllib.parse.unquote(parts.path)
    for prefix in ("/content/pydocs/", "/pydocs/", "/"):
        if path.startswith(prefix):
            path = path[len(prefix):]
            break
    if path == "" or path.endswith("/"):
        path += "index.html"
    return path


def score(results, queries):
    """MRR@10 and recall@10 over the judged queries, and the queries each engine missed."""
    reciprocal, found, missed = 0.0, 0, []
    judged = [q for q in queries if q["pages"]]
    for q in judged:
        pages = [page_of(u) for u in results.get(q["query"], [])[:10]]
        rank = next((i + 1 for i, p in enumerate(pages) if p in q["pages"]), None)
        if rank:
            reciprocal += 1.0 / rank
            found += 1
        else:
            missed.append(q["query"])
    return reciprocal / len(judged), found / len(judged), missed


def percentile(values, p):
    if not values:
        return None
    values = sorted(values)
    k = (len(values) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def timed(command, time_file):
    """Runs command under /usr/bin/time -v: wall seconds and peak RSS in KiB."""
    start = time.perf_counter()
    subprocess.run(["/usr/bin/time", "-v", "-o", time_file] + command, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    rss = 0
    with open(time_file) as f:
        for line in f:
            if "Maximum resident set size" in line:
                rss = int(line.split(":")[1])
    return wall, rss


def tree_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    return total


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_http(port, path, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", path)
            if c.getresponse().status < 500:
                return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def log(message):
    print(message, file=sys.stderr, flush=True)


# --- SQLite FTS5 ---

def fts5_build(docs, db):
    if os.path.exists(db):
        os.remove(db)
    con = sqlite3.connect(db)
    con.execute("CREATE VIRTUAL TABLE docs USING fts5(url UNINDEXED, title, body, "
                "tokenize = 'porter unicode61 remove_diacritics 2')")
    for page in html_pages(docs):
        title, text = visible_text(os.path.join(docs, page))
        con.execute("INSERT INTO docs VALUES (?, ?, ?)", (page, title, text))
    con.execute("INSERT INTO docs(docs) VALUES ('optimize')")
    con.commit()
    con.execute("VACUUM")
    con.close()


def fts5_match(query):
    """A query in webarc's syntax (words, "phrases", prefix*) as an FTS5 MATCH expression."""
    clauses = []
    for phrase, word in re.findall(r'"([^"]*)"|(\S+)', query):
        if phrase:
            words = re.findall(r"\w+", phrase)
            if words:
                clauses.append('"' + " ".join(words) + '"')
        else:
            star = word.endswith("*")
            for i, w in enumerate(re.findall(r"\w+", word)):
                clauses.append('"' + w + '"' + ("*" if star and i == len(re.findall(r"\w+", word)) - 1 else ""))
    return " AND ".join(clauses)


def fts5_queries(db, queries):
    con = sqlite3.connect(db)
    sql = ("SELECT url, snippet(docs, 2, '<mark>', '</mark>', '…', 12) FROM docs WHERE docs MATCH ? "
           "ORDER BY bm25(docs, 0.0, 10.0, 1.0) LIMIT 10")
    con.execute(sql, (fts5_match("python"),)).fetchall()
    results, times = {}, []
    for q in queries:
        match = fts5_match(q["query"])
        start = time.perf_counter()
        rows = con.execute(sql, (match,)).fetchall() if match else []
        times.append((time.perf_counter() - start) * 1000)
        results[q["query"]] = [r[0] for r in rows]
    return results, times


# --- Pagefind: its own search code (pagefind.js and its WebAssembly) run by node ---

PAGEFIND_RUNNER = r"""
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
// pagefind.js fetches its index files next to itself; node's fetch reads no file: URL.
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = typeof input === "string" ? input : (input.url ?? String(input));
  if (!url.startsWith("file:")) return realFetch(input, init);
  const path = fileURLToPath(url.split("?")[0]);
  return new Response(await readFile(path), { status: 200, headers: { "content-type": path.includes("wasm") ? "application/wasm" : "application/octet-stream" } });
};
const [dir, queriesFile] = process.argv.slice(2);
const pf = await import(dir + "/pagefind.js");
await pf.options({ basePath: "file://" + dir + "/", baseUrl: "/" });
await pf.init();
const queries = JSON.parse(await readFile(queriesFile, "utf8"));
async function run(q) {
  const r = await pf.search(q);
  return Promise.all(r.results.slice(0, 10).map((x) => x.data()));
}
await run("python");
const out = [];
for (const q of queries) {
  const start = performance.now();
  const data = await run(q);
  out.push({ query: q, ms: performance.now() - start, urls: data.map((d) => d.url) });
}
console.log(JSON.stringify(out));
"""


def pagefind_queries(index_dir, queries, work):
    runner = os.path.join(work, "pagefind-runner.mjs")
    with open(runner, "w") as f:
        f.write(PAGEFIND_RUNNER)
    qfile = os.path.join(work, "pagefind-queries.json")
    # Pagefind has no prefix operator (it matches the last word as a prefix itself) and takes quotes as phrases.
    with open(qfile, "w") as f:
        json.dump([q["query"].replace("*", "") for q in queries], f)
    out = subprocess.run(["node", runner, index_dir, qfile], check=True, capture_output=True, text=True).stdout
    results, times = {}, []
    for q, row in zip(queries, json.loads(out)):
        results[q["query"]] = row["urls"]
        times.append(row["ms"])
    return results, times


# --- kiwix-serve over a ZIM made by zimwriterfs ---

def make_docs_folder(docs, folder):
    if os.path.isdir(folder):
        return
    shutil.copytree(docs, folder + ".tmp", symlinks=False)
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\0" + b"\x2e\x6d\xa4" * 48 for _ in range(48))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 48, 48, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    with open(os.path.join(folder + ".tmp", "search-bench-illustration.png"), "wb") as f:
        f.write(png)
    os.rename(folder + ".tmp", folder)


def kiwix_queries(zim, queries):
    port = free_port()
    server = subprocess.Popen(["kiwix-serve", "--address=127.0.0.1", f"--port={port}", zim],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not wait_http(port, "/catalog/v2/entries"):
            raise RuntimeError("kiwix-serve did not start")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

        def ask(q):
            path = "/search?" + urllib.parse.urlencode(
                {"books.name": "pydocs", "pattern": q, "format": "xml", "pageLength": "10"})
            conn.request("GET", path)
            body = conn.getresponse().read().decode("utf-8", "replace")
            return re.findall(r"<item>.*?<link>([^<]*)</link>", body, re.S)

        ask("python")
        results, times = {}, []
        for q in queries:
            start = time.perf_counter()
            links = ask(q["query"])
            times.append((time.perf_counter() - start) * 1000)
            results[q["query"]] = [html.unescape(link) for link in links]
        return results, times
    finally:
        server.terminate()
        server.wait()


# --- webarc ---

def webarc_fresh_queries(webarc, archive, queries):
    """A fresh `webarc search --json` process per query, timed from fork to exit."""
    results, times = {}, []
    subprocess.run([webarc, "search", archive, "python", "--json"], capture_output=True)
    for q in queries:
        start = time.perf_counter()
        p = subprocess.run([webarc, "search", archive, q["query"], "--json", "--limit", "10"], capture_output=True)
        times.append((time.perf_counter() - start) * 1000)
        hits = json.loads(p.stdout) if p.returncode == 0 and p.stdout.strip() else []
        results[q["query"]] = [h["url"] for h in hits]
    return results, times


def webarc_warm_queries(webarc, archive, queries):
    """Queries to a running `webarc serve` on one keep-alive connection: search (HTML) and suggest (JSON)."""
    port = free_port()
    server = subprocess.Popen([webarc, "serve", archive, "--port", str(port), "--quiet"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not wait_http(port, "/_webarc/suggest?q=py"):
            raise RuntimeError("webarc serve did not start")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

        def get(path):
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()

        get("/_webarc/search?q=python")
        search, suggest = [], []
        for q in queries:
            path = "/_webarc/search?" + urllib.parse.urlencode({"q": q["query"]})
            start = time.perf_counter()
            get(path)
            search.append((time.perf_counter() - start) * 1000)
        for q in queries:
            prefix = q["query"].replace("*", "").replace('"', "")[:4]
            start = time.perf_counter()
            get("/_webarc/suggest?" + urllib.parse.urlencode({"q": prefix}))
            suggest.append((time.perf_counter() - start) * 1000)
        return search, suggest
    finally:
        server.terminate()
        server.wait()


def webarc_in_process(webarc, archive, queries, work, rounds=3):
    """`webarc search --bench-queries` (hidden): every query `rounds` times in one warm process, as
    `reader.search` runs in the library; ranking alone, with snippets, and suggestions."""
    path = os.path.join(work, "queries.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(q["query"] + "\n" for q in queries))
    p = subprocess.run([webarc, "search", archive, "--bench-queries", path, "--bench-rounds", str(rounds)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip() or f"exit {p.returncode}")
    return json.loads(p.stdout)


def webarc_supports(webarc, command):
    return subprocess.run([webarc, command, "--help"], capture_output=True).returncode == 0


# --- the run ---

def run(args):
    work, webarc, pagefind, tsv = args.work, args.webarc, args.pagefind, args.queries
    os.makedirs(work, exist_ok=True)
    # Every engine reads one copy with the symbolic links resolved (Debian links _static's scripts out
    # of the folder) and the 48×48 illustration zimwriterfs wants.
    docs = os.path.join(work, "docs")
    make_docs_folder(args.docs, docs)
    judged = judged_queries(tsv)
    queries = judged + generated_queries(docs, max(0, 200 - len(judged)))
    pages = len(html_pages(docs))
    rows = {}

    log("packing with webarc")
    plain = os.path.join(work, "docs-nosearch.webarc")
    indexed = os.path.join(work, "docs.webarc")
    has_search = webarc_supports(webarc, "search")
    has_index = webarc_supports(webarc, "index")
    pack = [webarc, "pack", docs, "-o", plain, "--force", "--quiet"]
    if has_index:
        pack.append("--no-search")
    pack_wall, _ = timed(pack, os.path.join(work, "pack.time"))
    archive_bytes = os.path.getsize(plain)
    row = {"engine": "webarc"}
    if has_index:
        log("webarc index")
        wall, rss = timed([webarc, "index", plain, "-o", indexed, "--force"],
                          os.path.join(work, "index.time"))
        row.update(bytes=os.path.getsize(indexed) - archive_bytes, seconds=wall, rss=rss)
        full_wall, _ = timed([webarc, "pack", docs, "-o", indexed + ".pack", "--force", "--quiet"],
                             os.path.join(work, "pack-search.time"))
        row["pack_delta"] = full_wall - pack_wall
        os.replace(indexed + ".pack", indexed)
        row["bytes"] = os.path.getsize(indexed) - archive_bytes
    if has_search and has_index:
        log("webarc queries: a fresh process each")
        results, times = webarc_fresh_queries(webarc, indexed, queries)
        row["results"], row["times"] = results, times
        try:
            log("webarc queries: warm, in one process (search --bench-queries)")
            row["in_process"] = webarc_in_process(webarc, indexed, queries, work)
        except Exception as error:  # an older webarc has no bench mode
            log(f"webarc search --bench-queries: {error}")
        try:
            log("webarc queries: warm, through webarc serve")
            row["warm"], row["suggest"] = webarc_warm_queries(webarc, indexed, queries)
        except Exception as error:  # the serve endpoints may not exist yet
            log(f"webarc serve: {error}")
    rows["webarc"] = row

    if pagefind:
        log("pagefind")
        out = os.path.join(work, "pagefind")
        shutil.rmtree(out, ignore_errors=True)
        wall, rss = timed([pagefind, "--site", docs, "--output-path", out], os.path.join(work, "pagefind.time"))
        index_only = sum(os.path.getsize(os.path.join(r, n)) for r, _, fs in os.walk(out) for n in fs
                         if not n.endswith((".js", ".css")))
        row = {"engine": "Pagefind", "bytes": tree_bytes(out), "index_only": index_only, "seconds": wall, "rss": rss}
        try:
            row["results"], row["times"] = pagefind_queries(out, queries, work)
        except Exception as error:
            log(f"pagefind queries: {error}")
        rows["pagefind"] = row

    log("sqlite fts5")
    db = os.path.join(work, "fts5.sqlite")
    wall, rss = timed([sys.executable, os.path.abspath(__file__), "fts5", docs, db], os.path.join(work, "fts5.time"))
    row = {"engine": "SQLite FTS5 (bm25)", "bytes": os.path.getsize(db), "seconds": wall, "rss": rss}
    row["results"], row["times"] = fts5_queries(db, queries)
    rows["fts5"] = row

    if not args.no_kiwix and shutil.which("zimwriterfs") and shutil.which("kiwix-serve"):
        log("zimwriterfs (with and without its full-text index) and kiwix-serve")
        flags = ["-w", "index.html", "-I", "search-bench-illustration.png", "-l", "eng", "-t", "Python docs",
                 "-d", "Python 3.11 documentation", "-c", "PSF", "-p", "webarc", "-n", "pydocs"]
        zim, nozim = os.path.join(work, "pydocs.zim"), os.path.join(work, "pydocs-noft.zim")
        for path in (zim, nozim):
            if os.path.exists(path):
                os.remove(path)
        wall, rss = timed(["zimwriterfs"] + flags + [docs, zim], os.path.join(work, "zim.time"))
        wall_j, _ = timed(["zimwriterfs", "-j"] + flags + [docs, nozim], os.path.join(work, "zimj.time"))
        row = {"engine": "kiwix-serve (Xapian)", "bytes": os.path.getsize(zim) - os.path.getsize(nozim),
               "seconds": wall - wall_j, "rss": rss, "zim_seconds": wall}
        try:
            row["results"], row["times"] = kiwix_queries(zim, queries)
        except Exception as error:
            log(f"kiwix queries: {error}")
        rows["kiwix"] = row

    print(report(rows, queries, judged, pages, archive_bytes, pack_wall))


def report(rows, queries, judged, pages, archive_bytes, pack_wall):
    def fmt(value, spec):
        return "n/a" if value is None else format(value, spec)

    lines = [
        f"## search-bench {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC — Python 3.11 docs ({pages} pages), "
        f"{len(queries)} queries ({len(judged)} judged), load {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores",
        "",
        f"Archive without index: {archive_bytes} bytes, packed in {pack_wall:.2f} s.",
        "",
        "| engine | index bytes | % of archive | index time (s) | peak RSS (MiB) | query p50 (ms) | query p99 (ms) "
        "| MRR@10 | recall@10 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    scores = {}
    for key, row in rows.items():
        size = row.get("bytes")
        mrr = recall = None
        if "results" in row:
            mrr, recall, missed = score(row["results"], judged)
            scores[key] = (mrr, recall, missed)
        times = row.get("times", [])
        lines.append(
            f"| {row['engine']}{' (fresh process per query)' if key == 'webarc' else ''} | {fmt(size, 'd')} | "
            f"{fmt(size / archive_bytes * 100 if size is not None else None, '.1f')} | "
            f"{fmt(row.get('seconds'), '.2f')} | {fmt(row['rss'] / 1024 if 'rss' in row else None, '.0f')} | "
            f"{fmt(percentile(times, 50), '.2f')} | {fmt(percentile(times, 99), '.2f')} | "
            f"{fmt(mrr, '.3f')} | {fmt(recall, '.3f')} |")
        if key == "webarc" and "in_process" in row:
            bench = row["in_process"]
            for name, label in (("rank", "`reader.search`, ranking alone (10 hits)"),
                                ("search", "`reader.search` with snippets (10 hits)"), ("suggest", "`reader.suggest`")):
                lines.append(
                    f"| webarc warm in one process, {label} | | | | | "
                    f"{bench[name]['p50']:.2f} | {bench[name]['p99']:.2f} | | |")
        if key == "webarc" and "warm" in row:
            lines.append(
                f"| webarc, warm (`serve` /_webarc/search over HTTP keep-alive) | | | | | "
                f"{fmt(percentile(row['warm'], 50), '.2f')} | {fmt(percentile(row['warm'], 99), '.2f')} | | |")
            lines.append(
                f"| webarc suggestions, warm (`serve` /_webarc/suggest) | | | | | "
                f"{fmt(percentile(row['suggest'], 50), '.2f')} | {fmt(percentile(row['suggest'], 99), '.2f')} | | |")
    lines.append("")
    w, p = rows.get("webarc", {}), rows.get("pagefind", {})

    def ratio(a, b):
        return None if a is None or not b else a / b

    def met(value, ok):
        return "n/a" if value is None else ("met" if ok(value) else "**missed**")

    size_ratio = ratio(w.get("bytes"), p.get("bytes"))
    share = ratio(w.get("bytes"), archive_bytes)
    time_ratio = ratio(w.get("seconds"), p.get("seconds"))
    rss = w.get("rss") / 1024 if "rss" in w else None
    fresh50 = percentile(w.get("times", []), 50)
    warm50, warm99 = percentile(w.get("warm", []), 50), percentile(w.get("warm", []), 99)
    sug50 = percentile(w.get("suggest", []), 50)
    bench = w.get("in_process")
    lines += [
        "| goal (issue 38) | measured | target | |",
        "|---|---|---|---|",
    ]
    if bench:
        s50, s99, g50 = bench["search"]["p50"], bench["search"]["p99"], bench["suggest"]["p50"]
        lines += [
            f"| `reader.search` p50 / p99 warm (ms, in process) | {s50:.2f} / {s99:.2f} | ≤ 2 / 10 | "
            f"{met((s50, s99), lambda v: v[0] <= 2 and v[1] <= 10)} |",
            f"| suggestions p50 warm (ms, in process) | {g50:.2f} | ≤ 1 | {met(g50, lambda v: v <= 1)} |",
        ]
    lines += [
        f"| index size ÷ Pagefind's | {fmt(size_ratio, '.2f')} | ≤ 0.5 | {met(size_ratio, lambda v: v <= 0.5)} |",
        f"| index size ÷ archive | {fmt(share, '.3f')} | ≤ 0.10 | {met(share, lambda v: v <= 0.10)} |",
        f"| index time ÷ Pagefind's (`webarc index`) | {fmt(time_ratio, '.2f')} | ≤ 0.25 | "
        f"{met(time_ratio, lambda v: v <= 0.25)} |",
        f"| index peak RSS (MiB; the goal is at 1 M pages) | {fmt(rss, '.0f')} | ≤ 256 | {met(rss, lambda v: v <= 256)} |",
        f"| query p50 / p99 warm (ms, over HTTP) | {fmt(warm50, '.2f')} / {fmt(warm99, '.2f')} | ≤ 2 / 10 | "
        f"{met(None if warm50 is None else (warm50, warm99), lambda v: v[0] <= 2 and v[1] <= 10)} |",
        f"| query p50, fresh `webarc search` (ms) | {fmt(fresh50, '.2f')} | ≤ 20 | {met(fresh50, lambda v: v <= 20)} |",
        f"| suggestions p50 warm (ms, over HTTP) | {fmt(sug50, '.2f')} | ≤ 1 | {met(sug50, lambda v: v <= 1)} |",
    ]
    if "webarc" in scores:
        for key in ("pagefind", "fts5", "kiwix"):
            if key in scores:
                name = rows[key]["engine"]
                wm, wr, _ = scores["webarc"]
                pm, pr, _ = scores[key]
                ok = wm >= pm and wr >= pr
                lines.append(f"| MRR@10 / recall@10 ≥ {name} | {wm:.3f} / {wr:.3f} vs {pm:.3f} / {pr:.3f} | ≥ | "
                             f"{'met' if ok else '**missed**'} |")
    lines.append("")
    if "pagefind" in rows:
        lines.append(f"Pagefind's output is {rows['pagefind']['bytes']} bytes, {rows['pagefind']['index_only']} "
                     "without its UI scripts and styles (the index files and WebAssembly). Pagefind's queries run "
                     "its own pagefind.js in node, each with the data of its top 10 (URL and excerpt).")
    if "kiwix" in rows:
        lines.append(f"kiwix: index bytes and time are the ZIM with its full-text index less the one made with "
                     f"`zimwriterfs -j` (the whole ZIM took {rows['kiwix']['zim_seconds']:.1f} s); queries over HTTP "
                     "(/search?format=xml, one keep-alive connection).")
    for key, (_, _, missed) in scores.items():
        if missed:
            lines.append(f"- {rows[key]['engine']} missed ({len(missed)}): " + "; ".join(missed))
    return "\n".join(lines)


def main():
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--docs", required=True)
    r.add_argument("--work", required=True)
    r.add_argument("--webarc", required=True)
    r.add_argument("--pagefind")
    r.add_argument("--queries", required=True)
    r.add_argument("--no-kiwix", action="store_true")
    f = sub.add_parser("fts5")
    f.add_argument("docs")
    f.add_argument("db")
    t = sub.add_parser("text")
    t.add_argument("file")
    args = parser.parse_args()
    if args.command == "run":
        run(args)
    elif args.command == "fts5":
        fts5_build(args.docs, args.db)
    else:
        title, text = visible_text(args.file)
        print(title)
        print(text)


if __name__ == "__main__":
    main()
