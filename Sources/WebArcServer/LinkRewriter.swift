import WebArcHTML

/// Rewrites the links of a served HTML or CSS body so that they stay inside the server.
///
/// Two kinds of link change (see ``OriginMap`` for where origins are served):
/// - an absolute or protocol-relative URL of an archived origin (`https://cdn.example/x.css`,
///   `//cdn.example/x.css`) becomes its served path (`/_/https/cdn.example/x.css`, or `/x.css` for
///   the primary origin), when it starts a quoted string, an attribute value or a CSS `url(`;
/// - on a page of a non-primary origin, a root-relative URL (`/x.css`) in a URL-valued HTML
///   attribute, a CSS `url(…)` or an `@import "…"` gets the origin's prefix.
///
/// Tags and attributes come from ``HTMLTokenizer``; inside attribute values, text, scripts and
/// styles it scans bytes: URLs that scripts assemble at run time, JSON-escaped URLs
/// (`https:\/\/…`) and candidates after the first in a `srcset` are left as they are. URLs of
/// origins the archives do not hold are never touched, so a rewritten link is always a served
/// path. A `<meta http-equiv="refresh">` leading outside http(s) (`javascript:`, `data:`, …) is
/// removed, as the `Refresh` header is (``LinkRewriter/isUnsafeRefreshMeta(_:)``).
struct LinkRewriter {
    /// What the body is, which decides the contexts a root-relative URL is looked for in.
    enum Kind: Sendable {
        case html
        case css
    }

    let map: OriginMap
    let kind: Kind
    /// The origin of the page being served.
    let pageOrigin: Origin
    private let pagePrefix: [UInt8]

    /// HTML attributes whose value is a URL (`srcset` for its first candidate).
    static let urlAttributes: Set<String> = [
        "href", "src", "action", "formaction", "poster", "data", "background", "cite", "longdesc", "usemap",
        "icon", "manifest", "codebase", "srcset", "xlink:href",
    ]

    /// Makes a rewriter for a page of `pageOrigin`.
    init(map: OriginMap, kind: Kind, pageOrigin: Origin) {
        self.map = map
        self.kind = kind
        self.pageOrigin = pageOrigin
        pagePrefix = Array((map.servedPrefix(of: pageOrigin) ?? "").utf8)
    }

    /// The kind of body a media type names, or nil when its links are not rewritten.
    static func kind(forMediaType mediaType: String) -> Kind? {
        switch mediaType {
        case "text/html", "application/xhtml+xml": .html
        case "text/css": .css
        default: nil
        }
    }

    /// The rewritten body, or nil when no link needed a change.
    ///
    /// HTML is read as ``HTMLTokenizer`` tokens: links are looked for in attribute values and in
    /// everything that is not a tag (text, the contents of `<script>` and `<style>`); the contents
    /// of a comment are read as HTML again, so that commented-out and conditional markup
    /// (`<!--[if IE]><link href=…><![endif]-->`) is rewritten like the rest.
    /// In HTML that changed, an element with a rewritten link loses its `integrity` attribute (the
    /// hash would name the stored bytes of a CSS file that is itself rewritten, and browsers refuse
    /// the mismatch), and `<meta http-equiv="Content-Security-Policy">` elements are removed (their
    /// sources name the archived origins, not the server).
    func rewrite(_ bytes: [UInt8]) -> [UInt8]? {
        guard mayChange(bytes) else { return nil }
        var edits: [Edit] = []
        let changed =
            switch kind {
            case .html: rewriteHTML(bytes, in: bytes.indices, insideComment: false, into: &edits)
            case .css: rewriteLinks(bytes, in: bytes.indices, attribute: nil, into: &edits)
            }
        return changed ? Self.apply(edits, to: bytes) : nil
    }

    /// Whether anything in `bytes` may change, found without tokenizing: on a page of the origin
    /// served at `/`, a link that changes is absolute or protocol-relative (it holds `//`) and a
    /// refresh `<meta>` has an `http-equiv` attribute (its name, unlike its value, cannot be
    /// written with character references). Pages holding neither skip the tokenizer; pages of
    /// other origins (root-relative links change there) are always read.
    func mayChange(_ bytes: [UInt8]) -> Bool {
        guard pagePrefix.isEmpty else { return true }
        return bytes.withUnsafeBufferPointer { buffer in
            guard buffer.count >= 2 else { return false }
            for index in 0..<buffer.count - 1 {
                let byte = buffer[index]
                if byte == UInt8(ascii: "/") && buffer[index + 1] == UInt8(ascii: "/") { return true }
                if byte | 0x20 == UInt8(ascii: "e"), kind == .html, Self.matches(bytes, at: index, "equiv") {
                    return true
                }
            }
            return false
        }
    }

    /// Adds the edits for the HTML in `range` and says whether a link changed. A comment's
    /// contents are read once more as HTML, but not a comment opened inside that, which is read as
    /// text (reading each nested `<!--` again would make `<!--<!--<!--…` quadratic).
    private func rewriteHTML(
        _ bytes: [UInt8], in range: Range<Int>, insideComment: Bool, into edits: inout [Edit]
    ) -> Bool {
        var changed = false
        for token in HTMLTokenizer(bytes, in: range) {
            switch token {
            case .startTag(let tag):
                if rewriteTag(tag, in: bytes, into: &edits) { changed = true }
            case .comment(let whole) where !insideComment && Self.matches(bytes, at: whole.lowerBound, "<!--"):
                let end =
                    whole.count >= 7 && Self.matches(bytes, at: whole.upperBound - 3, "-->")
                    ? whole.upperBound - 3 : whole.upperBound
                if rewriteHTML(
                    bytes, in: (whole.lowerBound + 4)..<max(whole.lowerBound + 4, end), insideComment: true,
                    into: &edits)
                {
                    changed = true
                }
            default:
                if rewriteLinks(bytes, in: token.range, attribute: nil, into: &edits) { changed = true }
            }
        }
        return changed
    }

    /// Adds the edits for one start tag and says whether a link in it changed: its removal when
    /// it is a policy `<meta>` (not a change by itself) or an unsafe refresh, else its links and,
    /// when one changed, its `integrity` attribute.
    private func rewriteTag(_ tag: HTMLTag, in bytes: [UInt8], into edits: inout [Edit]) -> Bool {
        if Self.isPolicyMeta(tag) {
            edits.append(Edit(range: tag.range, replacement: []))
            return false
        }
        if Self.isUnsafeRefreshMeta(tag) {
            edits.append(Edit(range: tag.range, replacement: []))
            return true
        }
        var changed = false
        for attribute in tag.attributes {
            guard let value = attribute.valueRange else { continue }
            if rewriteLinks(bytes, in: value, attribute: attribute.name, into: &edits) { changed = true }
        }
        if changed, let integrity = tag.attribute("integrity") {
            edits.append(Edit(range: Self.withSpaceBefore(integrity.range, in: bytes), replacement: []))
        }
        return changed
    }

    /// Adds an edit for every link in `range` (the value of `attribute`, or text when it is nil)
    /// that must change, and says whether there was one.
    ///
    /// A link starts after a quote, `=`, `(` or backtick, or at the start of an attribute value.
    private func rewriteLinks(
        _ bytes: [UInt8], in range: Range<Int>, attribute: String?, into edits: inout [Edit]
    ) -> Bool {
        var changed = false
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = bytes[index]
            let startsValue = attribute != nil && index == range.lowerBound
            guard byte == UInt8(ascii: "/") || byte | 0x20 == UInt8(ascii: "h"),
                startsValue || (index > 0 && Self.opensURL(bytes[index - 1]))
            else {
                index += 1
                continue
            }
            let isURLAttribute = startsValue && attribute.map(Self.urlAttributes.contains) == true
            if let (end, replacement) = absoluteLink(bytes, at: index, limit: range.upperBound)
                ?? rootRelativeLink(bytes, at: index, limit: range.upperBound, isURLAttribute: isURLAttribute)
            {
                changed = true
                edits.append(Edit(range: index..<end, replacement: replacement))
                index = end
            } else {
                index += 1
            }
        }
        return changed
    }

    /// A byte after which a URL may start: a quote, `=`, `(` or a backtick.
    static func opensURL(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "=")
            || byte == UInt8(ascii: "(") || byte == UInt8(ascii: "`")
    }

    /// `http://`, `https://` or `//` then an archived origin's authority: the end of the authority
    /// and the served prefix that replaces everything before it.
    private func absoluteLink(_ bytes: [UInt8], at start: Int, limit: Int) -> (Int, [UInt8])? {
        var schemes: [String]
        var authorityStart: Int
        if Self.matches(bytes, at: start, "https://") {
            (schemes, authorityStart) = (["https"], start + 8)
        } else if Self.matches(bytes, at: start, "http://") {
            (schemes, authorityStart) = (["http"], start + 7)
        } else if Self.matches(bytes, at: start, "//") {
            (schemes, authorityStart) = (
                [pageOrigin.scheme, pageOrigin.scheme == "https" ? "http" : "https"], start + 2
            )
        } else {
            return nil
        }
        var end = authorityStart
        while end < limit, Self.isAuthorityByte(bytes[end]) { end += 1 }
        guard end > authorityStart, end == limit || Self.endsAuthority(bytes[end]) else { return nil }
        let authority = String(decoding: bytes[authorityStart..<end], as: UTF8.self)
        for scheme in schemes {
            guard let origin = Origin(scheme: scheme, rawAuthority: authority),
                let prefix = map.servedPrefix(of: origin)
            else { continue }
            let needsSlash = end == limit || bytes[end] != UInt8(ascii: "/")
            return (end, Array(prefix.utf8) + (needsSlash ? [UInt8(ascii: "/")] : []))
        }
        return nil
    }

    /// A root-relative URL at the start of a URL-valued attribute or in a CSS link context, on a
    /// page whose origin is served under a prefix.
    private func rootRelativeLink(_ bytes: [UInt8], at start: Int, limit: Int, isURLAttribute: Bool) -> (Int, [UInt8])?
    {
        guard !pagePrefix.isEmpty, bytes[start] == UInt8(ascii: "/"),
            start + 1 == limit || bytes[start + 1] != UInt8(ascii: "/"),
            isURLAttribute || isCSSLinkContext(bytes, before: start)
        else { return nil }
        return (start + 1, pagePrefix + [UInt8(ascii: "/")])
    }

    /// Whether the URL starting at `start` is a CSS `url(…)` or an `@import "…"`.
    private func isCSSLinkContext(_ bytes: [UInt8], before start: Int) -> Bool {
        var index = start - 1
        guard index >= 0 else { return false }
        let opener = bytes[index]
        if opener == UInt8(ascii: "\"") || opener == UInt8(ascii: "'") { index -= 1 }
        while index >= 0, Self.isSpace(bytes[index]) { index -= 1 }
        guard index >= 0 else { return false }
        if bytes[index] == UInt8(ascii: "(") {
            return index >= 3 && Self.matches(bytes, at: index - 3, "url")
        }
        return Self.word(before: index + 1, in: bytes) == "@import"
    }

    /// The lower-cased run of name bytes (letters, digits, `-`, `:`, `@`) that ends at `end`.
    private static func word(before end: Int, in bytes: [UInt8]) -> String {
        var start = end
        while start > 0, end - start < 32, isNameByte(bytes[start - 1]) { start -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// Whether `bytes` holds `text` at `index`, ASCII letters compared without case.
    static func matches(_ bytes: [UInt8], at index: Int, _ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index >= 0, index + count <= bytes.count else { return false }
        let pattern = text.utf8Start
        for offset in 0..<count {
            let expected = pattern[offset]
            let found = bytes[index + offset]
            if found != expected
                && !(expected >= UInt8(ascii: "a") && expected <= UInt8(ascii: "z") && found | 0x20 == expected)
            {
                return false
            }
        }
        return true
    }

    private static let authoritySymbols = Array(".-:[]_".utf8)
    private static let authorityEnds = Array("/?#\"'`) \t\r\n<>,;\\".utf8)

    private static func isAuthorityByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || authoritySymbols.contains(byte)
    }

    /// Bytes that may follow an authority in a link: path, query, fragment, or the end of the URL.
    private static func endsAuthority(_ byte: UInt8) -> Bool {
        authorityEnds.contains(byte)
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }
}
