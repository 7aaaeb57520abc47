"""The recipes of the valid vectors (Spec/vectors/valid/NAME.input.json).

Every body is literal text or comes from `seeded_bytes` (SHA-256 in counter
mode), so the recipes are the same on every machine and Python version.
"""

import base64
import hashlib
import re
from pathlib import Path

from canonical import canonical_key

# Fixed dates (milliseconds since 1970) so that nothing depends on the clock.
NOV_20 = 1795163400000   # 2026-11-20T08:30:00Z
NOV_21 = 1795252500000   # 2026-11-21T09:15:00Z
NOV_22 = 1795348800000   # 2026-11-22T12:00:00Z
NOV_23 = 1795428000000   # 2026-11-23T10:00:00Z
NOV_24 = 1795514400000   # 2026-11-24T10:00:00Z
Y2K = 946684800000       # 2000-01-01T00:00:00Z (an expiry long past)

# A public MD5 collision (Wang and Yu, 2004): two 128-byte messages, one MD5.
COLLISION_M1 = bytes.fromhex(
    "d131dd02c5e6eec4693d9a0698aff95c2fcab58712467eab4004583eb8fb7f89"
    "55ad340609f4b30283e488832571415a085125e8f7cdc99fd91dbdf280373c5b"
    "d8823e3156348f5bae6dacd436c919c6dd53e2b487da03fd02396306d248cda0"
    "e99f33420f577ee8ce54b67080a80d1ec69821bcb6a8839396f9652b6ff72a70")
COLLISION_M2 = bytes.fromhex(
    "d131dd02c5e6eec4693d9a0698aff95c2fcab50712467eab4004583eb8fb7f89"
    "55ad340609f4b30283e4888325f1415a085125e8f7cdc99fd91dbd7280373c5b"
    "d8823e3156348f5bae6dacd436c919c6dd53e23487da03fd02396306d248cda0"
    "e99f33420f577ee8ce54b67080280d1ec69821bcb6a8839396f965ab6ff72a70")

HTML = [["Content-Type", "text/html; charset=utf-8"]]
BROWSER = [["User-Agent", "make-vectors/2.0"], ["Accept", "*/*"]]


def seeded_bytes(seed: str, length: int) -> bytes:
    """Deterministic pseudo-random bytes: SHA-256(seed:0) || SHA-256(seed:1) || ..."""
    out = bytearray()
    counter = 0
    while len(out) < length:
        out += hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        counter += 1
    return bytes(out[:length])


def b64(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return base64.b64encode(data).decode("ascii")


def response(url: str, body: bytes | str, *, method="GET", status=200, reason="OK", headers=(),
             mime=None, encoding=None, request_headers=(), date=None) -> dict:
    """A response record of the recipe schema; empty lists and None values are left out."""
    record = {"kind": "response", "method": method, "url": url}
    if request_headers:
        record["requestHeaders"] = [list(h) for h in request_headers]
    record["status"] = status
    if reason is not None:
        record["reason"] = reason
    if headers:
        record["headers"] = [list(h) for h in headers]
    if mime is not None:
        record["mimeType"] = mime
    if encoding is not None:
        record["textEncoding"] = encoding
    record["body"] = b64(body)
    if date is not None:
        record["captureDate"] = date
    return record


def redirect(url: str, target: str, *, status=301, headers=(), request_headers=(), date=None) -> dict:
    record = {"kind": "redirect", "method": "GET", "url": url}
    if request_headers:
        record["requestHeaders"] = [list(h) for h in request_headers]
    record["status"] = status
    record["target"] = target
    if headers:
        record["headers"] = [list(h) for h in headers]
    if date is not None:
        record["captureDate"] = date
    return record


def html_page(title: str, paragraph: str, repeat: int = 3) -> str:
    paragraphs = "\n".join(f"<p>{paragraph}</p>" for _ in range(repeat))
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\n"
            f"<body>\n<h1>{title}</h1>\n{paragraphs}\n</body></html>\n")


# ---------------------------------------------------------------------------- recipes

def empty() -> dict:
    return {"archive": {}, "records": []}


def minimal() -> dict:
    body = html_page("Minimal", "Hello, webarc! This page is stored as one LZ4 block.")
    return {"archive": {}, "records": [
        response("https://example.com/", body, headers=HTML + [["Server", "make-vectors"]],
                 mime="text/html", encoding="utf-8"),
    ]}


def site() -> dict:
    css = "body { font-family: sans-serif; margin: 2em; }\nh1 { color: #336; }\np { line-height: 1.4; }\n" * 3
    logo = b"\x89PNG\r\n\x1a\n" + seeded_bytes("site/logo.png", 1992)
    return {
        "archive": {
            "created": NOV_23,
            "creator": "make-vectors 2.0",
            "startURL": "https://example.org/",
            "baseURL": "https://example.org/",
            # Two spellings of "café": precomposed (NFC) and decomposed (NFD). They are
            # different strings and must come back byte for byte (no Unicode normalization).
            "metadata": [["title", "A tiny site"], ["lang", "en"],
                         ["note-nfc", "caf\u00e9"], ["note-nfd", "cafe\u0301"]],
        },
        "records": [
            response("https://example.org/", html_page("Tiny site", "Welcome to the tiny site."),
                     headers=HTML + [["Set-Cookie", "a=1"], ["Set-Cookie", "b=2"]],
                     mime="text/html", encoding="utf-8", request_headers=BROWSER, date=NOV_22),
            response("https://example.org/style.css", css, headers=[["Content-Type", "text/css"]],
                     mime="text/css", encoding="utf-8", request_headers=BROWSER, date=NOV_22),
            response("https://example.org/images/logo.png", logo, headers=[["Content-Type", "image/png"]],
                     mime="image/png", date=NOV_22),
            response("https://example.org/robots.txt", b"", headers=[["Content-Length", "0"]],
                     mime="text/plain", date=NOV_22),
            redirect("https://example.org/folder", "https://example.org/folder/",
                     headers=[["Location", "/folder/"]], request_headers=BROWSER, date=NOV_22),
            response("https://example.org/folder/", html_page("Folder", "An index page inside a folder."),
                     headers=HTML, mime="text/html", encoding="utf-8", reason=None, date=NOV_22),
        ],
    }


def dedup() -> dict:
    shared = "Shared body: the same bytes are served under three URLs.\n" * 4
    other = "A different body, stored once as well.\n" * 4
    plain = [["Content-Type", "text/plain"]]
    return {"archive": {"creator": "make-vectors 2.0"}, "records": [
        response("https://example.com/a", shared, headers=plain, mime="text/plain"),
        response("https://example.com/b", shared, headers=plain, mime="text/plain"),
        response("https://example.com/d", other, headers=plain, mime="text/plain"),
        response("https://example.com/c", shared, headers=plain, mime="text/plain"),
    ]}


def multichunk_body(length: int = 600_000) -> bytes:
    """Log-like text: numbered lines naming two words picked by a seeded generator (compressible, not trivial)."""
    words = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november "
             "oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split()
    out, line = bytearray(), 0
    while len(out) < length:
        noise = hashlib.sha256(f"multichunk:{line}".encode()).digest()
        route = " ".join(words[b % len(words)] for b in noise[:2])
        out += f"{line:06d} level=info msg=\"request served\" route={route}\n".encode()
        line += 1
    return bytes(out[:length])


def multichunk() -> dict:
    return {"archive": {}, "records": [
        response("https://example.com/big.log", multichunk_body(), headers=[["Content-Type", "text/plain"]],
                 mime="text/plain", encoding="us-ascii"),
    ]}


def captures() -> dict:
    url = "https://example.com/page"
    plain = [["Content-Type", "text/plain"]]
    return {"archive": {}, "records": [
        response(url, "capture 0: Nov 22\n", headers=plain, mime="text/plain", date=NOV_22),
        response(url, "capture 1: Nov 20\n", headers=plain, mime="text/plain", date=NOV_20),
        response(url, "posted: Nov 23\n", method="POST", headers=plain, mime="text/plain", date=NOV_23,
                 request_headers=[["Content-Type", "application/x-www-form-urlencoded"]]),
        response("HTTPS://EXAMPLE.COM:443/page#top", "capture 3: no date, same key\n", headers=plain,
                 mime="text/plain"),
        response(url, "capture 4: Nov 20 again\n", headers=plain, mime="text/plain", date=NOV_20),
    ]}


# Canonicalization cases beyond the §9 table (input -> key); all of them GET.
EXTRA_CANONICAL = [
    (" \thttp://Example.com/tab\tand\nnew\rline \r\n", "GET http://example.com/tabandnewline"),
    ("https://example.com:08443/port", "GET https://example.com:8443/port"),
    ("http://example.com/pct%zz%4", "GET http://example.com/pct%25zz%254"),
    ("http://example.com/q?a b&c=%7e?d#frag", "GET http://example.com/q?a%20b&c=~?d"),
    ("http://example.com/a/b/../../../c/./d/.", "GET http://example.com/c/d/"),
    ("HTTPS://EXAMPLE.COM/Case/Kept", "GET https://example.com/Case/Kept"),
    ("http://[2001:DB8::1]:80/v6", "GET http://[2001:db8::1]/v6"),
    ("http://example.com/%41%2D%5F%2e%7E%2a%e2%82%ac", "GET http://example.com/A-_.~%2A%E2%82%AC"),
    ("http://example.com/[x]{y}|^`\"<>", "GET http://example.com/%5Bx%5D%7By%7D%7C%5E%60%22%3C%3E"),
    ("http://example.com/dir//.", "GET http://example.com/dir//"),
    ("http://Example.COM:00/zero-port", "GET http://example.com:0/zero-port"),
    # §9 step 4: backslashes before the first `?` of a special scheme are slashes
    ("HTTP:\\\\Example.com\\path\\to?x\\y", "GET http://example.com/path/to?x%5Cy"),
    ("file:///C:\\dir\\file.txt", "GET file:///C:/dir/file.txt"),
    ("http://example.com/a\\..\\b", "GET http://example.com/b"),
    ("mailto:a\\b@example.com", "GET mailto:a%5Cb@example.com"),
    # §9 step 6: hosts
    ("http://EX%41MPLE.com/pct-host", "GET http://example.com/pct-host"),
    ("http://Bücher.Example.COM/idn", "GET http://xn--bcher-kva.example.com/idn"),
    ("https://ÄÖÜ.example/upper", "GET https://xn--4ca0bs.example/upper"),
    ("https://\u0130.example/dotted-i", "GET https://xn--i-9bb.example/dotted-i"),   # İ lower-cases to i + U+0307
    ("http://xn--BCHER-KVA.example/ace", "GET http://xn--bcher-kva.example/ace"),
    ("ws://Example.com:80/chat", "GET ws://example.com/chat"),
]

# More cases for canonical-urls.json only (not worth a record).
EXTRA_CANONICAL_UNIT = [
    ("urn:example:a/../b", "GET urn:/b"),                    # §5.2.4 also runs on a path with no authority
    ("http://example.com:/empty-port", "GET http://example.com/empty-port"),
    ("http://[::1]:8080/v6", "GET http://[::1]:8080/v6"),
    ("wss://Example.com:443/", "GET wss://example.com/"),
    ("ftp://Example.com:21/f", "GET ftp://example.com/f"),
    ("foo://Example.COM:80/x", "GET foo://example.com:80/x"),   # no default port for other schemes
    ("mailto:a/..//b.c", "GET mailto:/.//b.c"),            # step 11: `//` without an authority gets `/.`
    ("urn:/.//x", "GET urn:/.//x"),                        # and canonicalizing it again changes nothing
    # §9 step 6: an IP literal is an IPv6 address, written as WHATWG serializes it
    ("http://[2001:DB8:0:0:1:0:0:1]/", "GET http://[2001:db8::1:0:0:1]/"),   # first longest zero run
    ("http://[1:0:0:2:0:0:0:3]/", "GET http://[1:0:0:2::3]/"),
    ("http://[0001:002:03:4:5:6:7:8]/", "GET http://[1:2:3:4:5:6:7:8]/"),      # a single 0 is not `::`
    ("http://[::]/", "GET http://[::]/"),
    ("http://[1:2:3:4:5:6:1.2.3.4]/", "GET http://[1:2:3:4:5:6:102:304]/"),
    ("foo://[::A]/x", "GET foo://[::a]/x"),                  # also in other schemes
    ("http://u@[::1]:08080", "GET http://[::1]:8080/"),
    ("http:///x", "GET http:///x"),                          # an empty host is kept (§9 step 6)
    ("http://user@:8080/a", "GET http://:8080/a"),
    ("http://example.com:99999/", "GET http://example.com:99999/"),      # a port is not range-checked
    ("http://example.com:0065536/a", "GET http://example.com:65536/a"),
]

# Inputs with no canonical form (bad-url).
BAD_URLS = ["", "example.com/page", "/relative/path", "//example.com/", "1http://example.com/",
            "ht tp://example.com/", ":no-scheme",
            "http://Example.COM:HTTP/x",        # not digits: no port, and `:` is forbidden in a host
            "http://exa mple.com/",             # space in a host
            "http://a<b.example/",
            "http://a%2Fb.example/x",           # decodes to `/`
            "http://a%00b.example/",            # decodes to NUL
            "http://a%zzb.example/",            # a `%` that is kept is forbidden
            "http://a%FFb.example/",            # not UTF-8 once decoded
            "foo://a\\b/c",                     # `\` is ordinary in foo:, but forbidden in a host
            # §9 step 6: a host that starts with `[` is an IPv6 address ending in `]`, or nothing
            "http://[::1", "http://[:/", "http://[/", "foo://[::", "http://[]/", "http://[::1]x/",
            "http://[::1]:80x/", "http://[1:2:3:4:5:6:7:8:9]/", "http://[1:2:3:4:5:6:7]/", "http://[:::]/",
            "http://[1::2::3]/", "http://[12345::]/", "http://[::1.2.3]/", "http://[::1.2.3.04]/",
            "http://[::1.2.3.256]/", "http://[1:2:3:4:5:6:7:1.2.3.4]/", "http://[fe80::1%25eth0]/",
            "http://[v1.x]/", "http://[::1]]/", "http://[:1]/", "http://[1:]/"]


def spec_canonical_table(spec: Path) -> list[tuple[str, str]]:
    """The (input, canonical key or `bad-url`) rows of the §9 table, read from the spec itself."""
    text = spec.read_text(encoding="utf-8")
    table = text[text.index("| Input | Canonical key (method GET) |"):]
    rows = []
    for line in table.splitlines()[2:]:
        match = re.fullmatch(r"\| `(.*)` \| `(.*)` \|", line)
        if not match:
            break
        rows.append((match.group(1), match.group(2)))
    return rows


def spec_canonical_keys(spec: Path) -> list[tuple[str, str]]:
    """The §9 table rows that have a canonical key."""
    return [(url, key) for url, key in spec_canonical_table(spec) if key != "bad-url"]


def canonical(spec: Path) -> dict:
    cases = spec_canonical_keys(spec) + EXTRA_CANONICAL
    return {"archive": {}, "records": [
        response(url, f"canonical example {i}\n", headers=[["Content-Type", "text/plain"]], mime="text/plain")
        for i, (url, _) in enumerate(cases)
    ]}


def collision() -> dict:
    octet = [["Content-Type", "application/octet-stream"]]
    mime = "application/octet-stream"
    return {"archive": {}, "records": [
        response("https://example.com/m1", COLLISION_M1, headers=octet, mime=mime),
        response("https://example.com/m2", COLLISION_M2, headers=octet, mime=mime),
        response("https://example.com/m2-again", COLLISION_M2, headers=octet, mime=mime),
        response("https://example.com/m1-again", COLLISION_M1, headers=octet, mime=mime),
    ]}


def newer_base() -> dict:
    """The 2.0 content of the newer-minor and newer-reserved vectors."""
    plain = [["Content-Type", "text/plain"]]
    return {"archive": {"creator": "a future webarc"}, "records": [
        response("https://example.net/", html_page("Newer", "Written by a newer minor version."),
                 headers=HTML, mime="text/html", encoding="utf-8", date=NOV_23),
        response("https://example.net/notes.txt", "Notes, kept as they were.\n" * 3, headers=plain,
                 mime="text/plain", date=NOV_23),
        redirect("https://example.net/old", "https://example.net/notes.txt", status=308,
                 headers=[["Location", "/notes.txt"]], date=NOV_23),
    ]}


def unchecked() -> dict:
    """The content of the crafted `unchecked` vector: what a reader reads without checking it (§7.2,
    §7.3): a method stored in lower case, a method with a space inside, header names and values
    holding CR, LF and NUL; the vector adds objects nested seven deep under a key no reader knows and
    `Writer.level` 2."""
    plain = [["Content-Type", "text/plain"]]
    return {"archive": {}, "records": [
        response("https://example.com/a.txt", "A method stored in lower case.\n", method="get",
                 headers=plain + [["X-Split", "one\r\nInjected: two"], ["X-Nul", "nul\u0000byte"],
                                  ["X Bad\r\n", "a name that is no token"]], mime="text/plain"),
        response("https://example.com/b.txt", "A method with a space inside.\n", method="PROP FIND", headers=plain,
                 mime="text/plain"),
    ]}


def empty_anchor() -> dict:
    """Appendix C step 13 with a dictionary interval of 2: anchor A; B against A (codec 2); anchor:
    an empty body, which has no dictionary and replaces A's; C, like A, coded without a dictionary
    (codec 1)."""
    html = dict(headers=HTML, mime="text/html", encoding="utf-8")
    page = html_page("Anchor", "A page whose boilerplate the next pages share.", repeat=12)
    return {"archive": {}, "writer": {"dictionaryInterval": 2}, "records": [
        response("https://example.com/a.html", page, **html),
        response("https://example.com/b.html", page.replace("Anchor", "Second"), **html),
        response("https://example.com/empty.txt", b"", headers=[["Content-Type", "text/plain"]], mime="text/plain"),
        response("https://example.com/c.html", page.replace("Anchor", "Third"), **html),
    ]}


MIXED_SITE = "https://example.org/"


def mixed_update(site_digest: bytes, site_length: int) -> dict:
    """A layer over `site` (the content of the crafted `mixed-update` vector) whose key groups mix
    records: `/` a Response, newer, then a Tombstone (the Response decides); `images/logo.png` a Tombstone,
    newer, then a Response (deleted). The vector adds a record of an unknown class keyed as
    `style.css`, which this layer then does not hold (§13)."""
    html = dict(headers=HTML, mime="text/html", encoding="utf-8")
    return {
        "archive": {"created": NOV_25, "creator": "make-vectors 2.1",
                    "bases": [{"digest": site_digest.hex(), "archiveLength": site_length, "name": "site.webarc"}]},
        "records": [
            response(MIXED_SITE, html_page("Tiny site", "A newer home page, and an older tombstone."), date=NOV_24,
                     **html),
            tombstone(MIXED_SITE, date=NOV_23),
            tombstone(MIXED_SITE + "images/logo.png", date=NOV_24),
            response(MIXED_SITE + "images/logo.png", html_page("Logo", "An older page under a newer tombstone."), date=NOV_23,
                     **html),
        ],
    }


LARGE_COUNT = 800


def search() -> dict:
    """A 2.2 archive with a full-text index (§17): plain-text pages and an HTML page of ASCII
    words (whose analysis `search_index` does without a full analyzer), and records the index
    leaves out: a 404, an image, a Sphinx source copy, a redirect, an older capture. Given in
    record-tree order, so that `webarc index` of it (records copied in tree order) writes it again."""
    base = "https://search.example/"
    text = [["Content-Type", "text/plain; charset=utf-8"]]
    page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Blue  river maps</title>"
            "<style>p { color: red }</style></head>\n<body><nav>home books</nav>\n<h1>River maps</h1>\n"
            "<p>the blue river runs under the green trees</p>\n<script>var dogs = 1</script>\n</body></html>\n")
    return {"archive": {"created": NOV_23, "creator": "make-vectors 2.2", "startURL": base + "index.html"},
            "writer": {"search": 1},
            "records": [
                response(base + "_sources/animals.txt", "Cats and dogs\n\nthe source of a page\n", headers=text,
                         mime="text/plain", encoding="utf-8"),
                response(base + "animals.txt", "Cats and dogs\n\nthe dog runs and the cat jumps\n"
                         "dogs and birds run in the sun\n", headers=text, mime="text/plain", encoding="utf-8"),
                response(base + "books.txt", "Books on fishing\n\na book is a map\nfishing boats on the river\n",
                         headers=text, mime="text/plain", encoding="utf-8", date=NOV_23),
                response(base + "books.txt", "Old books\n\nred dogs\n", headers=text, mime="text/plain",
                         encoding="utf-8", date=NOV_23 - 86_400_000),
                response(base + "empty.txt", "", headers=text, mime="text/plain", encoding="utf-8"),
                response(base + "index.html", page, headers=HTML, mime="text/html", encoding="utf-8"),
                response(base + "missing.txt", "dogs dogs dogs\n", status=404, reason="Not Found", headers=text,
                         mime="text/plain", encoding="utf-8"),
                redirect(base + "old.html", base + "index.html"),
                response(base + "picture.png", b"\x89PNG\r\n\x1a\n" + seeded_bytes("search/picture.png", 120),
                         headers=[["Content-Type", "image/png"]], mime="image/png"),
                response(base + "water.txt", "Water\n\nred boats and blue boats on the water\n"
                         "the river is water\nsearching the water for fish\n", headers=text, mime="text/plain",
                         encoding="utf-8"),
                response(base + "waters.txt", "WATER\n\nsearched water\n", headers=text, mime="text/plain",
                         encoding="utf-8"),
            ]}


SEARCH_SENTENCES = ["the blue river runs under the green trees", "dogs and cats jump in the sun",
                    "books on fishing boats", "red birds on the water", "searching the map for the river"]


def search_update(base_digest: bytes, base_length: int) -> dict:
    """An update over `search` with its own index (§17.4 Layers): `animals.txt` changed, `water.txt`
    deleted (a tombstone), `index.html` re-captured with the same body (its chunk stays in the base:
    the update's index reads it there), `otters.txt` new. A search over the stack leaves out the
    base's documents the update holds a record for."""
    base = "https://search.example/"
    text = [["Content-Type", "text/plain; charset=utf-8"]]
    page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Blue  river maps</title>"
            "<style>p { color: red }</style></head>\n<body><nav>home books</nav>\n<h1>River maps</h1>\n"
            "<p>the blue river runs under the green trees</p>\n<script>var dogs = 1</script>\n</body></html>\n")
    return {"archive": {"created": NOV_24, "creator": "make-vectors 2.2",
                        "bases": [{"digest": base_digest.hex(), "archiveLength": base_length, "name": "search.webarc"}]},
            "writer": {"search": 1},
            "records": [
                response(base + "animals.txt", "Dogs by the river\n\nthe dogs run by the river\n", headers=text,
                         mime="text/plain", encoding="utf-8", date=NOV_24),
                response(base + "index.html", page, headers=HTML, mime="text/html", encoding="utf-8", date=NOV_24),
                response(base + "otters.txt", "Otters\n\notters fishing in the water\n", headers=text,
                         mime="text/plain", encoding="utf-8", date=NOV_24),
                tombstone(base + "water.txt", date=NOV_24),
            ]}


def search_v2() -> dict:
    """`search`'s records with an index of version 2 (2.3, §17): no positions, under
    `Archive.searchIndex`. `water.txt` has `blue` and `river`, not next to each other: a candidate
    of `"blue river"` that its text refuses (§17.4)."""
    return dict(search(), writer={"search": 2}, archive=dict(search()["archive"], creator="make-vectors 2.3"))


def search_v2_update(base_digest: bytes, base_length: int) -> dict:
    """`search-update` over `search-v2`, with an index of version 2: a phrase's candidates in the
    update are checked against its pages' text, one of them read from the base's chunk."""
    recipe = search_update(base_digest, base_length)
    recipe["archive"]["bases"][0]["name"] = "search-v2.webarc"
    return dict(recipe, writer={"search": 2})


def search_v3() -> dict:
    """`search`'s records with an index of version 3 (2.5, §17): lists this short (under 32
    postings) are coded as version 2 codes them, under `Archive.searchIndex3`, bit 2."""
    return dict(search(), writer={"search": 3}, archive=dict(search()["archive"], creator="make-vectors 2.5"))


def search_large_v3() -> dict:
    """`search-large`'s records with an index of version 3: lists of 32 postings or more in blocks
    of 128 with a skip table (§17.2), `the` in five blocks."""
    recipe = search_large()
    return dict(recipe, writer={"search": 3}, archive=dict(recipe["archive"], creator="make-vectors 2.5"))


def search_blocks_v3() -> dict:
    """A small index of version 3 with blocked lists (§17.2), a seed for the index fuzz target:
    130 plain-text pages `p000`…`p129`, each "River N" over a line of `otters` (every page: two
    blocks, 128 and 2), `fishing` (every third page: one block of 44) and a word of its own."""
    records = []
    for n in range(130):
        words = ["otters"] * (1 + n % 3) + (["fishing"] if n % 3 == 0 else []) + [f"w{n}"]
        records.append(response(f"https://blocks.example/p{n:03d}.txt", f"River {n}\n\n{' '.join(words)}\n",
                                headers=[["Content-Type", "text/plain"]], mime="text/plain"))
    return {"archive": {"created": NOV_23, "creator": "make-vectors 2.5"}, "writer": {"search": 3},
            "records": records}


def search_v4() -> dict:
    """`search`'s records with an index of version 4 (2.6, §17): short lists without length codes,
    a norm page of the six documents' codes, under `Archive.searchIndex4`, bit 3."""
    return dict(search(), writer={"search": 4}, archive=dict(search()["archive"], creator="make-vectors 2.6"))


def search_large_v4() -> dict:
    """`search-large`'s records with an index of version 4: lists of 32 postings or more in
    Rice-coded blocks of 128 (§17.2), `the` in five; one norm page of 700 length codes."""
    recipe = search_large()
    return dict(recipe, writer={"search": 4}, archive=dict(recipe["archive"], creator="make-vectors 2.6"))


def search_same_body() -> dict:
    """§17.1 (2.2.1): a body is one document, under the first URL in record-tree order that answers
    with it as a document: `dir/` and `dir/index.html` give one; a 404 with a body does not take
    it from the page after it."""
    base = "https://same.example/"
    text = [["Content-Type", "text/plain; charset=utf-8"]]
    page = "<!DOCTYPE html>\n<html><head><title>River books</title></head><body><p>the river</p></body></html>\n"
    plain = "Fishing\n\nboats on the water\n"
    return {"archive": {"created": NOV_23}, "writer": {"search": 1}, "records": [
        response(base + "a.txt", plain, status=404, reason="Not Found", headers=text, mime="text/plain",
                 encoding="utf-8"),
        response(base + "b.txt", plain, headers=text, mime="text/plain", encoding="utf-8"),
        response(base + "dir/", page, headers=HTML, mime="text/html", encoding="utf-8"),
        response(base + "dir/index.html", page, headers=HTML, mime="text/html", encoding="utf-8"),
    ]}


def search_large() -> dict:
    """An index of several pages of each kind (§17.2): 700 plain-text pages whose titles are ten
    words of digits and letters (unique terms, long title keys), each page a sentence of
    `SEARCH_SENTENCES` and 24 words of a pool of 300, four times (`k000` to `k299`). Words with a digit are
    not stemmed, so their analysis is as plain as ASCII words. Given in record-tree order."""
    records = []
    for n in range(700):
        h = hashlib.sha256(f"search-large/{n}".encode()).hexdigest()
        title = " ".join(f"{i}{h[6 * i:6 * i + 10]}" for i in range(10))
        pool = " ".join(f"k{int(h[2 * i:2 * i + 4], 16) % 300:03d}" for i in range(24))
        body = f"{title}\n\n{SEARCH_SENTENCES[n % 5]}\n{pool}\n{SEARCH_SENTENCES[(n * 3 + 1) % 5]} {pool} {pool} {pool}\n"
        url = f"https://large.example/library/section-{n % 7}/page-{n:04d}-{h[:40]}.txt"
        records.append(response(url, body, headers=[["Content-Type", "text/plain; charset=utf-8"]],
                                mime="text/plain", encoding="utf-8"))
    records.sort(key=lambda r: r["url"])
    return {"archive": {"created": NOV_23, "creator": "make-vectors 2.2"}, "writer": {"search": 1}, "records": records}


def large() -> dict:
    """Enough records that both trees have several leaves under an interior root (height 1)."""
    records = []
    for i in range(LARGE_COUNT):
        n = (i * 7919) % LARGE_COUNT                    # inserted out of key order
        body = f"<!DOCTYPE html><title>Item {n}</title><p>Item {n} of {LARGE_COUNT}.</p>\n"
        records.append(response(f"https://example.com/items/{n:04d}.html", body, headers=HTML, mime="text/html",
                                encoding="utf-8", date=NOV_22))
    return {"archive": {"creator": "make-vectors 2.0", "startURL": "https://example.com/items/0000.html"},
            "records": records}


def update(site_digest: bytes, site_length: int) -> dict:
    """A layer over `site`: a tombstone, a changed page, a new page, and a re-captured body that
    stays in the base (its chunk entries have layer 1)."""
    css = "body { font-family: sans-serif; margin: 2em; }\nh1 { color: #336; }\np { line-height: 1.4; }\n" * 3
    return {
        "archive": {"created": NOV_24, "creator": "make-vectors 2.0",
                    "bases": [{"digest": site_digest.hex(), "archiveLength": site_length, "name": "site.webarc"}]},
        "records": [
            response("https://example.org/", html_page("Tiny site", "Welcome back: the tiny site was updated."),
                     headers=HTML, mime="text/html", encoding="utf-8", request_headers=BROWSER, date=NOV_24),
            response("https://example.org/style.css", css, headers=[["Content-Type", "text/css"]],
                     mime="text/css", encoding="utf-8", request_headers=BROWSER, date=NOV_24),
            tombstone("https://example.org/robots.txt", date=NOV_24),
            response("https://example.org/news.html", html_page("News", "Something new on the tiny site."),
                     headers=HTML, mime="text/html", encoding="utf-8", date=NOV_24),
        ],
    }


def tombstone(url: str, *, method="GET", request_headers=(), date=None) -> dict:
    record = {"kind": "tombstone", "method": method, "url": url}
    if request_headers:
        record["requestHeaders"] = [list(h) for h in request_headers]
    if date is not None:
        record["captureDate"] = date
    return record


def dictionary() -> dict:
    """Two versions of one page, written with a dictionary interval of 2 (Appendix C step 13): the
    first is an anchor, the second is coded against its chunk (codec 2)."""
    v1 = html_page("Changelog", "Version one of a long changelog, kept nearly as it was.", repeat=40)
    v2 = v1.replace("</body>", "<p>One more line in version two.</p>\n</body>")
    return {"archive": {}, "writer": {"dictionaryInterval": 2}, "records": [
        response("https://example.com/changelog-v1.html", v1, headers=HTML, mime="text/html", encoding="utf-8"),
        response("https://example.com/changelog.html", v2, headers=HTML, mime="text/html", encoding="utf-8"),
    ]}


def anchors() -> dict:
    """Appendix C step 13 with a dictionary interval of 3, every case of the rule:
    position 0 anchor A (codec 1); 1 B against A (codec 2, reference: A's chunk); 2 an empty body;
    3 anchor: B again, whose only chunk is codec 2, so no chunk can serve as reference; 4 C and 5 D
    against B's bytes: a dictionary chunk holding them is stored once, right before C's chunk;
    6 anchor E: a seeded (incompressible) chunk, then text, stored raw untried (step 13's raw rule);
    7 F against E's last chunk, a raw one, which is its reference."""
    def page(name: str, words: str) -> str:
        return html_page(f"Guide: {name}", f"{words} The navigation, header and footer repeat on every page of the guide.",
                         repeat=12)
    a, b, c, d, f = (page(n, w) for n, w in (("A", "Start here."), ("B", "Install it."), ("C", "Configure it."),
                                              ("D", "Run it."), ("F", "Read the log.")))
    e = seeded_bytes("anchors", 262_144) + ("text after a compressed part. " * 1200).encode()
    html = dict(headers=HTML, mime="text/html", encoding="utf-8")
    return {"archive": {}, "writer": {"dictionaryInterval": 3}, "records": [
        response("https://example.com/a.html", a, **html),
        response("https://example.com/b.html", b, **html),
        response("https://example.com/empty.txt", b"", headers=[["Content-Type", "text/plain"]], mime="text/plain"),
        response("https://example.com/b-again.html", b, **html),
        response("https://example.com/c.html", c, **html),
        response("https://example.com/d.html", d, **html),
        response("https://example.com/e.bin", e, headers=[["Content-Type", "application/octet-stream"]],
                 mime="application/octet-stream"),
        response("https://example.com/f.html", f, **html),
    ]}


KEYED_INTERVAL = 16     # ⌊n/8⌋ = 2, ⌊3n/4⌋ = 12, ⌊3n/2⌋ = 24


def keyed_hash_is_even(url: str) -> bool:
    """Whether the record key of GET `url` hashes to a multiple of ⌊16/8⌋ = 2 (Appendix C step 13, keyed)."""
    return int.from_bytes(hashlib.sha256(canonical_key("GET", url).encode()).digest()[:8], "big") % 2 == 0


def guide_page_of_size(guide: str, n: int, size: int) -> str:
    """Page `n` of a guide whose pages share their navigation, cut or padded to `size` bytes."""
    words = f"Page {n} of the {guide} guide. The navigation, header and footer repeat on every page."
    text = html_page(f"{guide.capitalize()} guide: page {n}", words, repeat=max(1, size // 110))
    return text[:size] if len(text) > size else text + " " * (size - len(text))


def keyed_anchors() -> dict:
    """Appendix C step 13's keyed rule (2.1.5, `anchors` 1) with a dictionary interval of 16, every case:
    0 an anchor (position 0); 5 a candidate (8 192 bytes, even hash) only 5 after it, so not; 12 an odd
    hash at gap 12; 13 an even hash but 8 191 bytes; 14 an even hash but 65 537 bytes; 15 an even hash,
    8 192 bytes, gap 15: the second anchor; 16 to 38 no candidate (1 KiB pages), so 39, 24 after 15,
    is the third anchor whatever its key; 40 against it. Each URL is picked by its key's hash."""
    names = (f"https://example.com/keyed/page-{j}.html" for j in range(10_000))
    even = (u for u in names if keyed_hash_is_even(u))
    odd_names = (f"https://example.com/keyed/other-{j}.html" for j in range(10_000))
    odd = (u for u in odd_names if not keyed_hash_is_even(u))
    html = dict(headers=HTML, mime="text/html", encoding="utf-8")
    plan = [(next(even), 8192)]                                             # 0: anchor (position 0)
    plan += [(next(odd), 1024) for _ in range(4)]                           # 1-4
    plan += [(next(even), 8192)]                                            # 5: a candidate, gap 5
    plan += [(next(odd), 1024) for _ in range(6)]                           # 6-11
    plan += [(next(odd), 8192), (next(even), 8191), (next(even), 65_537)]   # 12, 13, 14: no candidates
    plan += [(next(even), 8192)]                                            # 15: anchor (gap 15)
    plan += [(next(even) if i % 2 else next(odd), 1024) for i in range(23)]  # 16-38: no candidates
    plan += [(next(odd), 1024), (next(odd), 1024)]                         # 39: anchor (gap 24), 40
    return {"archive": {}, "writer": {"dictionaryInterval": KEYED_INTERVAL, "anchors": 1},
            "records": [response(url, guide_page_of_size("keyed", n, size), **html) for n, (url, size) in enumerate(plan)]}


def local_anchors() -> dict:
    """Appendix C step 13's local-minimum rule (2.1.7, `anchors` 2) with a dictionary interval of 16
    (window ⌊3n/8⌋ = 6, forced gap ⌊3n/2⌋ = 24), every case: 0 an anchor (position 0, 1 KiB); 1 a
    candidate (8 192 bytes) beaten by 3 within the window; 3 a candidate of 65 536 bytes, the least
    hash within 6: an anchor at gap 3 (no minimum gap); 4 and 5 the two least hashes of all, but
    8 191 and 65 537 bytes, so no candidates; 9 beaten by 3, 6 back; 10 a larger hash than 3's, but
    3 is 7 back, out of its window: an anchor; 11 to 33 no candidate, so 34 (gap 24) is an anchor
    whatever its key; 35 a candidate with no other within 6: an anchor at gap 1; 36 against it.
    Keys are picked by the order of their hashes: low[0] has the least."""
    names = [f"https://example.com/local/page-{j}.html" for j in range(64)]
    low = sorted(names, key=lambda u: hashlib.sha256(canonical_key("GET", u).encode()).digest()[:8])
    html = dict(headers=HTML, mime="text/html", encoding="utf-8")
    plan = [(low[40], 1024), (low[7], 8192), (low[41], 1024), (low[2], 65_536), (low[0], 8191), (low[1], 65_537)]
    plan += [(low[42 + i], 1024) for i in range(3)]                          # 6-8
    plan += [(low[5], 10_000), (low[3], 10_000)]                             # 9, 10
    plan += [(low[9 + i], 1024) for i in range(23)]                          # 11-33
    plan += [(low[33], 1024), (low[6], 20_000), (low[34], 1024)]             # 34, 35, 36
    return {"archive": {}, "writer": {"dictionaryInterval": KEYED_INTERVAL, "anchors": 2},
            "records": [response(url, guide_page_of_size("local", n, size), **html) for n, (url, size) in enumerate(plan)]}


LOCAL_ANCHORS = (0, 3, 10, 34, 35)      # where local_anchors()' anchors fall


PREFIX_DICTIONARY = "<html><head><title>dictionary</title></head><body>" * 10 + "Q"
PREFIX_PAGE = ("<p>first paragraph</p>" + "".join(chr(c) for c in range(32, 127))
               + "Q<p>first paragraph</p> and more text to end the block with literals.....")


def prefix_dictionary() -> dict:
    """Appendix C step 13 with `dictionaryPlacement` 1 (2.1.8): the dictionary lies right before the
    chunk when LZ4 compresses it. Position 0 is an anchor whose body, ending in `Q`, is the
    dictionary; position 1 begins with a paragraph that recurs later after a `Q`: placed right before
    the chunk, the dictionary's last byte extends that match one byte back (liblz4's prefix mode),
    apart it cannot, so the two placements give different blocks (check_placement_pins)."""
    html = dict(headers=HTML, mime="text/html", encoding="utf-8")
    return {"archive": {}, "writer": {"dictionaryInterval": 2, "dictionaryPlacement": 1}, "records": [
        response("https://example.com/prefix/anchor.html", PREFIX_DICTIONARY, **html),
        response("https://example.com/prefix/page.html", PREFIX_PAGE, **html),
    ]}


# ---------------------------------------------------------------------------- delta updates (§13.1, codec 3)

NOV_25 = 1795600800000   # 2026-11-25T10:00:00Z


def guide_page(name: str, words: str, extra: str = "") -> str:
    """A page of a small guide: the navigation, header and footer repeat on every page."""
    return html_page(f"Guide: {name}", f"{words} The navigation, header and footer repeat on every page of the guide.",
                     repeat=12).replace("</body>", f"{extra}</body>")


DELTA_SITE = "https://example.com/"


def delta_release() -> dict:
    """The base of the delta vectors (dictionary interval 2): the guide page is an anchor and the
    changelog is coded against it (codec 2); the log (two chunks; a prefix of its next version) is an
    anchor."""
    html = dict(headers=HTML, mime="text/html", encoding="utf-8")
    plain = [["Content-Type", "text/plain"]]
    return {"archive": {"created": NOV_22, "creator": "make-vectors 2.1", "startURL": DELTA_SITE + "guide.html"},
            "writer": {"dictionaryInterval": 2}, "records": [
        response(DELTA_SITE + "guide.html", guide_page("Start", "Start here."), date=NOV_22, **html),
        response(DELTA_SITE + "changelog.html", guide_page("Changes", "What changed.", "<p>Version 1.</p>\n"),
                 date=NOV_22, **html),
        response(DELTA_SITE + "server.log", multichunk_body(270_000), headers=plain, mime="text/plain", date=NOV_22),
        response(DELTA_SITE + "about.html", guide_page("About", "Who we are."), date=NOV_22, **html),
        response(DELTA_SITE + "logo.png", b"\x89PNG\r\n\x1a\n" + seeded_bytes("delta/logo.png", 1200),
                 headers=[["Content-Type", "image/png"]], mime="image/png", date=NOV_22),
        response(DELTA_SITE + "old.html", guide_page("Old", "An old page, about to go."), date=NOV_22, **html),
        response(DELTA_SITE + "status.txt", "status: all good\n", headers=plain, mime="text/plain", date=NOV_22),
        redirect(DELTA_SITE + "start", DELTA_SITE + "guide.html", status=302, headers=[["Location", "/guide.html"]],
                 date=NOV_22),
    ]}


def delta_release_2() -> dict:
    """The next release, written whole (delta-result.webarc, signed): the changelog and the log
    changed, the about page re-captured with the same body, a news page added, the old page
    dropped, a second capture of the status; records given in another order than the tree's."""
    release = delta_release()
    html = dict(headers=HTML, mime="text/html", encoding="utf-8")
    plain = [["Content-Type", "text/plain"]]
    unchanged = {r["url"]: r for r in release["records"]}
    return {"archive": dict(release["archive"], created=NOV_24), "writer": {"dictionaryInterval": 2}, "records": [
        response(DELTA_SITE + "news.html", guide_page("News", "Version 2 is out."), date=NOV_24, **html),
        unchanged[DELTA_SITE + "guide.html"],
        response(DELTA_SITE + "changelog.html",
                 guide_page("Changes", "What changed.", "<p>Version 1.</p>\n<p>Version 2: faster.</p>\n"),
                 date=NOV_24, **html),
        response(DELTA_SITE + "server.log", multichunk_body(532_000), headers=plain, mime="text/plain", date=NOV_24),
        response(DELTA_SITE + "about.html", guide_page("About", "Who we are."), date=NOV_24, **html),
        unchanged[DELTA_SITE + "logo.png"],
        unchanged[DELTA_SITE + "status.txt"],
        response(DELTA_SITE + "status.txt", "status: all good, version 2 deployed\n", headers=plain,
                 mime="text/plain", date=NOV_24),
        unchanged[DELTA_SITE + "start"],
    ]}


def delta_release_3() -> dict:
    """The release after (delta-stacked-result.webarc, unsigned, dictionary interval 0): the news
    page changed (its previous version is in the first update), the changelog changed again (its
    previous version is a delta chunk, so it is not coded against it), the guide changed (its
    previous version is in the release), the about page dropped."""
    release = delta_release_2()
    html = dict(headers=HTML, mime="text/html", encoding="utf-8")
    kept = [r for r in release["records"]
            if r["url"] not in (DELTA_SITE + "news.html", DELTA_SITE + "changelog.html", DELTA_SITE + "guide.html",
                                DELTA_SITE + "about.html")]
    return {"archive": dict(release["archive"], created=NOV_25), "records": [
        response(DELTA_SITE + "guide.html", guide_page("Start", "Start here, then read the news."), date=NOV_25,
                 **html),
        response(DELTA_SITE + "news.html", guide_page("News", "Version 2 is out.", "<p>Version 3 is out too.</p>\n"),
                 date=NOV_25, **html),
        response(DELTA_SITE + "changelog.html",
                 guide_page("Changes", "What changed.",
                            "<p>Version 1.</p>\n<p>Version 2: faster.</p>\n<p>Version 3: smaller.</p>\n"),
                 date=NOV_25, **html),
    ] + kept}


def delta_dictionary(base_digest: bytes, base_length: int) -> dict:
    """An update over delta-base with dictionary interval 2, where steps 13 and 14 meet: position 0,
    an anchor, is the base's guide body (its chunk is in the base, so a dictionary chunk would be
    needed); 1, the changelog, is a delta that beats its codec-2 coding, so no dictionary chunk is
    stored; 2, an anchor, the about page, is a delta, so its last chunk (codec 3) cannot be a
    dictionary reference; 3, a new page, is coded against the about page's bytes through a
    dictionary chunk stored right before it."""
    release = {r["url"]: r for r in delta_release()["records"]}

    def previous(url: str) -> dict:
        return {"layer": 1, "bodyMD5": hashlib.md5(base64.b64decode(release[url]["body"])).hexdigest(),
                "bodyVariant": 0}
    html = dict(headers=HTML, mime="text/html", encoding="utf-8")
    changelog = response(DELTA_SITE + "changelog.html",
                         guide_page("Changes", "What changed.", "<p>Version 1.</p>\n<p>Version 1.1: fixes.</p>\n"),
                         date=NOV_25, **html)
    about = response(DELTA_SITE + "about.html", guide_page("About", "Who we are, and where to find us."),
                     date=NOV_25, **html)
    return {"archive": {"created": NOV_25, "creator": "make-vectors 2.1",
                        "bases": [{"digest": base_digest.hex(), "archiveLength": base_length, "name": "delta-base.webarc"}]},
            "writer": {"dictionaryInterval": 2}, "records": [
        dict(release[DELTA_SITE + "guide.html"], captureDate=NOV_25),
        dict(changelog, previousVersion=previous(DELTA_SITE + "changelog.html")),
        dict(about, previousVersion=previous(DELTA_SITE + "about.html")),
        response(DELTA_SITE + "faq.html", guide_page("FAQ", "Questions, and their answers."), date=NOV_25, **html),
    ]}


def delta_raw(base_digest: bytes, base_length: int) -> dict:
    """An update over delta-base with one new body coded against a previous version (the base's
    guide page): its first chunk, 70 000 seeded bytes repeated (LZ4's 64 KiB window sees no repeat,
    so §6.3 would store it raw; Zstandard does), is stored as codec 3; that is not "stored raw", so
    the second chunk, a short text, is still tried with LZ4, whose block beats its frame (Appendix C
    step 14; were it untried, the frame would beat the raw bytes)."""
    guide = next(r for r in delta_release()["records"] if r["url"] == DELTA_SITE + "guide.html")
    body = (seeded_bytes("delta-raw", 70_000) * 4)[:262_144] + b"abcdefgh" * 5
    return {"archive": {"created": NOV_25, "creator": "make-vectors 2.1",
                        "bases": [{"digest": base_digest.hex(), "archiveLength": base_length, "name": "delta-base.webarc"}]},
            "records": [
        dict(response(DELTA_SITE + "data.bin", body, headers=[["Content-Type", "application/octet-stream"]],
                      mime="application/octet-stream", date=NOV_25),
             previousVersion={"layer": 1, "bodyMD5": hashlib.md5(base64.b64decode(guide["body"])).hexdigest(),
                              "bodyVariant": 0}),
    ]}


def delta_after_raw(base_digest: bytes, base_length: int) -> dict:
    """An update over delta-base with one body coded against a previous version, the base's log (two
    chunks): its first chunk, 262 144 seeded bytes, is stored raw (neither LZ4 nor a frame against
    the log's first chunk pays); its second, the log's second chunk with a line more, is stored raw
    untried by §6.3 but is still tried as a delta (Appendix C step 14), and its frame is stored (codec 3)."""
    log = multichunk_body(270_000)
    body = seeded_bytes("delta-after-raw", 262_144) + log[262_144:] + b"one more line, after a raw chunk\n"
    return {"archive": {"created": NOV_25, "creator": "make-vectors 2.1",
                        "bases": [{"digest": base_digest.hex(), "archiveLength": base_length, "name": "delta-base.webarc"}]},
            "records": [
        dict(response(DELTA_SITE + "server.log", body, headers=[["Content-Type", "text/plain"]], mime="text/plain",
                      date=NOV_25),
             previousVersion={"layer": 1, "bodyMD5": hashlib.md5(log).hexdigest(), "bodyVariant": 0}),
    ]}


def delta_local(reference_prefix: bytes = b"") -> dict:
    """Two versions of a page in a plain archive, the content of the crafted `delta-local` vector
    (the second stored as a delta against the first's chunk, in this archive); with a
    `reference_prefix`, the first version starts with it (delta-reference-magic)."""
    v1 = guide_page("Local", "A page and its next version in one archive.")
    v2 = guide_page("Local", "A page and its next version in one archive.", "<p>The next version.</p>\n")
    html = dict(headers=HTML, mime="text/html", encoding="utf-8")
    return {"archive": {}, "records": [
        response("https://example.com/v1.html", reference_prefix + v1.encode(), **html),
        response("https://example.com/v2.html", v2, **html),
    ]}


# ---------------------------------------------------------------------------- Zstandard bodies (2.1.1, step 15)

BEST_ZSTD_LEVEL = 3          # small, to keep the generator fast (`webarc pack --best` uses 19)


def manual_text(length: int, seed: str = "best/manual") -> str:
    """Manual-like text: numbered lines naming options and words picked by a seeded generator
    (LZ4 compresses it a few times, not trivially)."""
    words = ("cache index page chunk body record layer anchor frame window header trailer digest "
             "offset length level codec reader writer update base target order key value").split()
    out, line = [], 0
    size = 0
    while size < length:
        noise = hashlib.sha256(f"{seed}:{line}".encode()).digest()
        w = [words[b % len(words)] for b in noise[:5]]
        text = f"{line:05d} The {w[0]}-{w[1]} option sets the {w[2]} of each {w[3]}; see {w[4]}.\n"
        out.append(text)
        size += len(text)
        line += 1
    return "".join(out)[:length]


def best() -> dict:
    """Appendix C step 15 (2.1.1) with dictionary interval 3 and Zstandard level 3, every case:
    0 anchor manual.html (codec 1: an anchor is not affected), one chunk of 90 000 bytes;
    1 page.html, 70 000 bytes from the manual's start (beyond its last 64 KiB): codec 3 against the
      manual's whole chunk;
    2 book.txt, two chunks, both codec 3 against that same chunk: the first the manual's text
      continued, the second (60 bytes) a 20-byte passage of the manual's end three times, whose
      frame is longer than its LZ4 block with the manual's dictionary but shorter than its LZ4 block
      without one (chunk i > 0 is compared with its coding without a dictionary, codec 1);
    3 anchor page-copy.html, page.html's body again: its only chunk is codec 3, so the reference is
      a dictionary chunk (page.html's last 64 KiB);
    4 data.bin: 70 000 seeded bytes repeated (LZ4 codes it raw; a frame would win but is not tried),
      then text, raw untried; no dictionary chunk stored yet;
    5 faq.html: codec 3 against the dictionary chunk, stored right before it;
    6 anchor news.html (codec 1);
    7 short.txt, a 26-byte passage of news.html: its LZ4 block with news.html's dictionary (codec 2)
      and its frame have one length, so codec 2 is kept (codec 3 only when the frame is shorter);
    8 faq-copy.html, faq.html's body again: the same body entry."""
    manual = manual_text(90_000)
    html = dict(headers=HTML, mime="text/html", encoding="utf-8")
    plain = [["Content-Type", "text/plain"]]

    def wrap(title: str, text: str) -> str:
        return f"<!DOCTYPE html>\n<html><head><title>{title}</title></head>\n<body><pre>\n{text}</pre></body></html>\n"
    manual_page = wrap("Manual", manual)
    lines = manual[:70_000].splitlines(keepends=True)
    page = wrap("Options", "".join(line + (f"Note {i}: this option changed in 2.1.1.\n" if i % 40 == 39 else "")
                                   for i, line in enumerate(lines)))
    passage = manual_page[-2_000:-1_980]
    book = (manual_text(262_144, "best/manual") + passage * 3).encode()
    assert len(book) == 262_144 + 60 and book[:90_000] == manual.encode()
    data = (seeded_bytes("best/data.bin", 70_000) * 4)[:262_144] + manual[:2_000].encode()
    faq = wrap("FAQ", "".join(f"Q: {line}A: as the manual says.\n" for line in page.splitlines(keepends=True)[-300:-100]))
    news = wrap("News", manual_text(20_000, "best/news"))
    short = news[-3_300:-3_274]
    return {"archive": {"created": NOV_24, "creator": "make-vectors 2.1.1"},
            "writer": {"dictionaryInterval": 3, "zstdLevel": BEST_ZSTD_LEVEL}, "records": [
        response("https://example.com/manual.html", manual_page, **html),
        response("https://example.com/page.html", page, **html),
        response("https://example.com/book.txt", book, headers=plain, mime="text/plain"),
        response("https://example.com/page-copy.html", page, **html),
        response("https://example.com/data.bin", data, headers=[["Content-Type", "application/octet-stream"]],
                 mime="application/octet-stream"),
        response("https://example.com/faq.html", faq, **html),
        response("https://example.com/news.html", news, **html),
        response("https://example.com/short.txt", short, headers=plain, mime="text/plain"),
        response("https://example.com/faq-copy.html", faq, **html),
    ]}


def best_release_2() -> dict:
    """The release after `best`, written whole with the same Writer (best-result.webarc): the FAQ and
    the news changed, a page added, the book, the data and both copies dropped; records given out
    of tree order. Step 15 codes its bodies 1, 2 and 4 (applying best-delta must use it):
    0 anchor manual.html; 1 page.html and 2 faq.html against the manual's chunk; 3 anchor news.html;
    4 extra.html against the news page's chunk; 5 short.txt."""
    release = {r["url"].rsplit("/", 1)[-1]: r for r in best()["records"]}
    html = dict(headers=HTML, mime="text/html", encoding="utf-8")
    faq = base64.b64decode(release["faq.html"]["body"]).decode().replace(
        "</pre>", "Q: What is new in 2.1.1?\nA: Zstandard bodies.\n</pre>")
    news_text = manual_text(20_000, "best/news")
    news = ("<!DOCTYPE html>\n<html><head><title>News</title></head>\n<body><pre>\n"
            "2.1.1 is out.\n" + news_text + "</pre></body></html>\n")
    extra = ("<!DOCTYPE html>\n<html><head><title>Archive</title></head>\n<body><pre>\n"
             + news_text[4_000:12_000] + "</pre></body></html>\n")
    return {"archive": {"created": NOV_25, "creator": "make-vectors 2.1.1"},
            "writer": {"dictionaryInterval": 3, "zstdLevel": BEST_ZSTD_LEVEL}, "records": [
        dict(release["manual.html"], captureDate=NOV_25),
        release["page.html"],
        response("https://example.com/faq.html", faq, date=NOV_25, **html),
        response("https://example.com/news.html", news, date=NOV_25, **html),
        response("https://example.com/extra.html", extra, date=NOV_25, **html),
        release["short.txt"],
    ]}


GROUP_LIMIT = 65_536         # Appendix C step 16's smallest limit (`webarc pack --best` uses 2 097 152)


def grouped(zstd: bool = True) -> dict:
    """Appendix C step 16 (2.4) with a group limit of 65 536 (a group closes after a body whose MD5's
    first 8 bytes are a multiple of 4, or before one that would pass the limit) and, unless `zstd`
    is off, Zstandard level 3 (codec 4: a group as one frame alone): pages of 2 to 12 KiB given in
    order, some groups closed by their MD5, some by the limit; a page again (the same slice); an empty
    body and a redirect (no part in groups); a 65 536-byte page (grouped, alone in its group) and a
    70 000-byte one (cut into a chunk of its own, which with `zstd` is a frame alone too, stored
    between the groups); 6 000 seeded bytes (grouped with text)."""
    html = dict(headers=HTML, mime="text/html", encoding="utf-8")

    def page(number: int, length: int) -> str:
        text = manual_text(length, f"grouped/page-{number}")
        return f"<!DOCTYPE html>\n<html><head><title>Page {number}</title></head>\n<body><pre>\n{text}</pre></body></html>\n"
    lengths = [2_000, 9_000, 4_500, 12_000, 3_000, 7_500, 11_000, 2_500, 8_000, 5_000, 10_000, 6_500, 3_500, 9_500]
    records = [response(f"https://example.com/p{number:02d}.html", page(number, length), **html)
               for number, length in enumerate(lengths)]
    records.insert(5, response("https://example.com/blob.bin", seeded_bytes("grouped/blob", 6_000),
                               headers=[["Content-Type", "application/octet-stream"]],
                               mime="application/octet-stream"))
    records.insert(8, response("https://example.com/large.html", page(100, 70_000), **html))
    records.insert(11, response("https://example.com/full.html", page(101, 65_536)[:65_536], **html))
    records.append(dict(records[3], url="https://example.com/copy.html"))
    records.append(response("https://example.com/empty.txt", b"", headers=[["Content-Length", "0"]],
                            mime="text/plain"))
    records.append(redirect("https://example.com/old", "https://example.com/p00.html",
                            headers=[["Location", "/p00.html"]]))
    writer = {"groups": GROUP_LIMIT}
    if zstd:
        writer["zstdLevel"] = BEST_ZSTD_LEVEL
    return {"archive": {"created": NOV_25, "creator": "make-vectors 2.4"}, "writer": writer, "records": records}


def grouped_release_2() -> dict:
    """The release after `grouped`, written whole by the same Writer (grouped-result.webarc): page 2
    changed, page 9 dropped, a page added, page 1's body under a new URL as well; applying grouped-update over grouped gives it byte for byte
    (the groups written again by step 16)."""
    release = grouped()
    records = [r for r in release["records"] if not r["url"].endswith("/p09.html")]
    for r in records:
        if r["url"].endswith("/p02.html"):
            body = base64.b64decode(r["body"]).decode().replace("</pre>", "A line added in release 2.\n</pre>")
            r["body"] = b64(body)
    records.append(dict(records[1], url="https://example.com/moved.html"))      # page 1's body under a new URL
    records.append(response("https://example.com/new.html", "<p>" + manual_text(5_000, "grouped/new") + "</p>\n",
                            headers=HTML, mime="text/html", encoding="utf-8"))
    release["records"] = records
    release["archive"] = {"created": NOV_25 + 86_400_000, "creator": "make-vectors 2.4"}
    return release
