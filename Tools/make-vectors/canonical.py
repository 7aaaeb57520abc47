"""URL canonicalization and canonical keys (spec §9), written from the spec text.

`canonical_url(url)` follows the eleven numbered steps of §9 literally;
`canonical_key(method, url)` is `METHOD SP canonical-URL`. A URL with no
canonical form raises `BadURL` (error code `bad-url`).
"""

import re

SPECIAL_SCHEMES = ("http", "https", "ws", "wss", "ftp", "file")
DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21"}

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+\-.]*\Z")
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_KEPT_IN_PATH = _UNRESERVED | frozenset(b"!$&'()*+,;=:@/")
_KEPT_IN_QUERY = _KEPT_IN_PATH | frozenset(b"?")
_HEX = frozenset(b"0123456789ABCDEFabcdef")
_FORBIDDEN_HOST = frozenset(range(0x21)) | frozenset(b"#%/:<>?@[\\]^|")


class BadURL(ValueError):
    """The URL has no canonical form (`bad-url`)."""


def canonical_key(method: str, url: str) -> str:
    """The record key: upper-cased method (ASCII), one space, canonical URL."""
    return ascii_upper(method) + " " + canonical_url(url)


def canonical_url(url: str) -> str:
    """The canonical form of an absolute URL (§9 steps 1 to 11)."""
    url = strip_controls(url)                                   # step 1
    url = url.split("#", 1)[0]                                  # step 2
    scheme, rest = split_scheme(url)                            # step 3
    if scheme in SPECIAL_SCHEMES:                               # step 4
        before, question, after = rest.partition("?")
        rest = before.replace("\\", "/") + question + after
    authority = None
    if rest.startswith("//"):                                   # step 5
        authority, rest = split_authority(rest[2:])
        authority = canonical_authority(scheme, authority)      # steps 5 and 6
    path, question, query = rest.partition("?")                 # step 7
    if authority is not None and path == "":
        path = "/"
    path = normalize_percent(path, _KEPT_IN_PATH)               # step 8
    path = remove_dot_segments(path)                            # step 9
    if authority is None and path.startswith("//"):              # step 11: not read back as an authority
        path = "/." + path
    out = scheme + ":"                                          # step 11
    if authority is not None:
        out += "//" + authority
    out += path
    if question:                                                # step 10: an empty query is kept
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
    """Step 5: the authority runs to the next `/`, `?` or the end."""
    for i, c in enumerate(text):
        if c in "/?":
            return text[:i], text[i:]
    return text, ""


def canonical_authority(scheme: str, authority: str) -> str:
    """Steps 5 and 6: drop user information, canonicalize the host, normalize or drop the port."""
    hostport = authority.rpartition("@")[2]
    host, port = split_port(hostport)
    host = canonical_host(host)
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


def canonical_host(host: str) -> str:
    """Step 6: an IP literal (`[...]`) MUST hold a valid IPv6 address and is written in its
    shortest form (else bad-url). Otherwise a host holding a `%` is
    percent-decoded; the host MUST be UTF-8 and hold no forbidden byte (else bad-url); then per
    label: ASCII lower-casing, or Unicode lower-casing and `xn--` + Punycode for a non-ASCII label."""
    if host.startswith("["):
        if not host.endswith("]"):
            raise BadURL(f"an IP literal host must end with ']': {host!r}")
        return "[" + ipv6_serialize(ipv6_parse(host[1:-1])) + "]"
    data = host.encode("utf-8")
    if b"%" in data:
        data = percent_decode(data)
    try:
        host = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadURL(f"host is not UTF-8 once percent-decoded: {host!r}") from None
    if any(b in _FORBIDDEN_HOST for b in data):
        raise BadURL(f"forbidden byte in host: {host!r}")
    labels = []
    for label in host.split("."):
        if label.isascii():
            labels.append(ascii_lower(label))
        else:
            labels.append("xn--" + label.lower().encode("punycode").decode("ascii"))
    return ".".join(labels)


def ipv6_parse(text: str) -> list[int]:
    """Step 6: the eight 16-bit pieces of an IPv6 address (WHATWG URL "IPv6 parser", literally)."""
    def bad(why: str) -> BadURL:
        return BadURL(f"not an IPv6 address ({why}): [{text}]")

    address, piece, compress, i = [0] * 8, 0, None, 0
    c = lambda: text[i] if i < len(text) else ""          # "" is the end of the input
    hexdigits, digits = "0123456789abcdefABCDEF", "0123456789"
    if c() == ":":
        if not text.startswith("::"):
            raise bad("a lone ':' at the start")
        i, piece, compress = 2, 1, 1
    while c():
        if piece == 8:
            raise bad("more than eight pieces")
        if c() == ":":
            if compress is not None:
                raise bad("two '::'")
            i, piece, compress = i + 1, piece + 1, piece + 1
            continue
        value = length = 0
        while length < 4 and c() and c() in hexdigits:
            value, i, length = value * 16 + int(c(), 16), i + 1, length + 1
        if c() == ".":                                    # an IPv4 address in the last two pieces
            if length == 0:
                raise bad("'.' without digits")
            i -= length
            if piece > 6:
                raise bad("no room for an IPv4 address")
            seen = 0
            while c():
                number = None
                if seen > 0:
                    if c() == "." and seen < 4:
                        i += 1
                    else:
                        raise bad("bad IPv4 part")
                if not c() or c() not in digits:
                    raise bad("bad IPv4 part")
                while c() and c() in digits:
                    if number == 0:
                        raise bad("IPv4 number with a leading zero")
                    number = int(c()) if number is None else number * 10 + int(c())
                    if number > 255:
                        raise bad("IPv4 number over 255")
                    i += 1
                address[piece] = address[piece] * 0x100 + number
                seen += 1
                if seen in (2, 4):
                    piece += 1
            if seen != 4:
                raise bad("IPv4 address of fewer than four numbers")
            break
        elif c() == ":":
            i += 1
            if not c():
                raise bad("ends with a single ':'")
        elif c():
            raise bad(f"unexpected {c()!r}")
        address[piece] = value
        piece += 1
    if compress is not None:
        swaps, piece = piece - compress, 7
        while piece != 0 and swaps > 0:
            address[piece], address[compress + swaps - 1] = address[compress + swaps - 1], address[piece]
            piece, swaps = piece - 1, swaps - 1
    elif piece != 8:
        raise bad("fewer than eight pieces and no '::'")
    return address


def ipv6_serialize(address: list[int]) -> str:
    """Step 6: lower-case hex without leading zeros; the first longest run of two or more zero
    pieces written `::` (WHATWG URL "IPv6 serializer")."""
    compress, best, run_start = None, 1, None
    for index in range(9):
        if index < 8 and address[index] == 0:
            run_start = index if run_start is None else run_start
            continue
        if run_start is not None and index - run_start > best:
            compress, best = run_start, index - run_start
        run_start = None
    out, ignore0 = "", False
    for index, value in enumerate(address):
        if ignore0 and value == 0:
            continue
        ignore0 = False
        if compress == index:
            out += "::" if index == 0 else ":"
            ignore0 = True
            continue
        out += "%x" % value
        if index != 7:
            out += ":"
    return out


def percent_decode(data: bytes) -> bytes:
    """`%` and two hex digits become that byte; any other byte (a lone `%` too) is kept."""
    out, i = bytearray(), 0
    while i < len(data):
        if data[i] == 0x25 and i + 2 < len(data) and data[i + 1] in _HEX and data[i + 2] in _HEX:
            out.append(int(data[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(data[i])
            i += 1
    return bytes(out)


def normalize_percent(text: str, kept: frozenset) -> str:
    """Step 8: normalize percent-encoding byte by byte over the UTF-8 of `text`."""
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
    """Step 9: RFC 3986 §5.2.4, literally."""
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
