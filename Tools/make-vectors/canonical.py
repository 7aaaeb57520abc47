"""URL canonicalization and canonical keys (spec §7.1), written from the spec text.

`canonical_url(url)` follows the nine numbered steps of §7.1 literally;
`canonical_key(method, url)` is `METHOD SP canonical-URL`. A URL with no
canonical form raises `BadURL` (error code `bad-url`).
"""

import re

DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21"}

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+\-.]*\Z")
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_KEPT_IN_PATH = _UNRESERVED | frozenset(b"!$&'()*+,;=:@/")
_KEPT_IN_QUERY = _KEPT_IN_PATH | frozenset(b"?")
_HEX = frozenset(b"0123456789ABCDEFabcdef")


class BadURL(ValueError):
    """The URL is not absolute: it has no canonical form (`bad-url`)."""


def canonical_key(method: str, url: str) -> str:
    """The lookup key of a record: upper-cased method, one space, canonical URL."""
    return ascii_upper(method) + " " + canonical_url(url)


def canonical_url(url: str) -> str:
    """The canonical form of an absolute URL (§7.1 steps 1 to 9)."""
    url = strip_controls(url)                                   # step 1
    url = url.split("#", 1)[0]                                  # step 2
    scheme, rest = split_scheme(url)                            # step 3
    authority = None
    if rest.startswith("//"):                                   # step 4
        authority, rest = split_authority(rest[2:])
        authority = canonical_authority(scheme, authority)
    path, question, query = rest.partition("?")                 # step 5
    if authority is not None and path == "":
        path = "/"
    path = normalize_percent(path, _KEPT_IN_PATH)               # step 6
    path = remove_dot_segments(path)                            # step 7
    out = scheme + ":"                                          # step 9
    if authority is not None:
        out += "//" + authority
    out += path
    if question:                                                # step 8: an empty query is kept
        out += "?" + normalize_percent(query, _KEPT_IN_QUERY)
    return out


def ascii_upper(text: str) -> str:
    return "".join(chr(ord(c) - 32) if "a" <= c <= "z" else c for c in text)


def ascii_lower(text: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def strip_controls(url: str) -> str:
    """Step 1: trim C0 controls and space (U+0000 to U+0020) at both ends; drop every tab, LF, CR."""
    url = url.strip("".join(chr(i) for i in range(0x21)))
    return url.replace("\t", "").replace("\n", "").replace("\r", "")


def split_scheme(url: str) -> tuple[str, str]:
    """Step 3: the lower-cased scheme and what follows its `:`."""
    scheme, colon, rest = url.partition(":")
    if not colon or not _SCHEME.match(scheme):
        raise BadURL(f"not an absolute URL: {url!r}")
    return ascii_lower(scheme), rest


def split_authority(text: str) -> tuple[str, str]:
    """Step 4: the authority runs to the next `/`, `?` or the end."""
    for i, c in enumerate(text):
        if c in "/?":
            return text[:i], text[i:]
    return text, ""


def canonical_authority(scheme: str, authority: str) -> str:
    """Step 4: drop user information, lower-case the host, normalize or drop the port."""
    hostport = authority.rpartition("@")[2]
    host, port = split_port(hostport)
    host = ascii_lower(host)
    if port is None:
        return host
    if port != "":
        port = port.lstrip("0") or "0"
    if port == "" or DEFAULT_PORTS.get(scheme) == port:
        return host
    return host + ":" + port


def split_port(hostport: str) -> tuple[str, str | None]:
    """The port is the digits (maybe none) after the last `:` outside `[...]`; otherwise no port."""
    colon = hostport.rfind(":")
    if colon < 0 or colon < hostport.rfind("]"):
        return hostport, None
    port = hostport[colon + 1:]
    if not all("0" <= c <= "9" for c in port):
        return hostport, None             # not digits: the `:` belongs to the host
    return hostport[:colon], port


def normalize_percent(text: str, kept: frozenset) -> str:
    """Step 6: normalize percent-encoding byte by byte over the UTF-8 of `text`."""
    data = text.encode("utf-8")
    out = []
    i = 0
    while i < len(data):
        b = data[i]
        if b == 0x25:  # '%'
            if i + 2 < len(data) and data[i + 1] in _HEX and data[i + 2] in _HEX:
                value = int(data[i + 1:i + 3], 16)
                out.append(chr(value) if value in _UNRESERVED else "%%%02X" % value)
                i += 3
                continue
            out.append("%25")
        elif b in kept:
            out.append(chr(b))
        else:
            out.append("%%%02X" % b)
        i += 1
    return "".join(out)


def remove_dot_segments(path: str) -> str:
    """Step 7: RFC 3986 §5.2.4, literally."""
    source, output = path, ""
    while source:
        if source.startswith("../"):
            source = source[3:]
        elif source.startswith("./"):
            source = source[2:]
        elif source.startswith("/./"):
            source = source[2:]
        elif source == "/.":
            source = "/"
        elif source.startswith("/../"):
            source = source[3:]
            output = output[:max(output.rfind("/"), 0)]
        elif source == "/..":
            source = "/"
            output = output[:max(output.rfind("/"), 0)]
        elif source in (".", ".."):
            source = ""
        else:
            end = source.find("/", 1)
            end = len(source) if end < 0 else end
            output += source[:end]
            source = source[end:]
    return output
