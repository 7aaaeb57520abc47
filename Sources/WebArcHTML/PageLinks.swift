/// The URLs an HTML page refers to, as written: links to other pages, the resources it needs to
/// display (stylesheets, scripts, images, fonts), and the documents of its frames. Capture follows
/// them and `.webarchive` export gathers them; each resolves them itself (``base`` first).
///
/// It reads the tokens of ``HTMLTokenizer``: tags and their attributes, not comments or the
/// contents of `script`, `textarea` and `title`; the contents of `style` elements and `style`
/// attributes are read as CSS (``CSSReferences``).
///
/// | kind | from |
/// | --- | --- |
/// | page | `a href`, `area href` |
/// | frame | `iframe src`, `frame src` |
/// | requisite | `link href` and `imagesrcset` with a ``requisiteRelations`` `rel`; `src` of `script`, `embed`, `audio`, `track`; `src`, `poster`, `srcset` of `img`, `source`, `video`; `input type=image src`; `object data`; SVG `image href` (or `xlink:href`); `background` and `style` of any tag |
///
/// Attribute values are taken with their character references decoded (as a browser parses
/// them), then trimmed of ASCII whitespace; `rel` and `type` compare ASCII case-insensitively and
/// `rel` splits at ASCII whitespace (the HTML standard's rules). Within a tag, references come in
/// the order of the table's attributes, `background` and then `style` last. References that name
/// no other resource (empty, `#…`, `data:`, `javascript:`) are left out.
///
/// ```swift
/// let links = PageLinks(html: Array(page.utf8))
/// let base = links.base.flatMap { resolve($0, against: pageURL) } ?? pageURL
/// let images = links.references.filter { $0.kind == .requisite }.compactMap { resolve($0.url, against: base) }
/// ```
package struct PageLinks: Equatable, Sendable {
    /// What a reference is to the page that makes it.
    package enum Kind: Equatable, Sendable {
        /// Another page, reached by following a link.
        case page
        /// A resource the page loads to display itself.
        case requisite
        /// A document the page shows in a frame (`iframe`, `frame`).
        case frame
    }

    /// One reference: the URL as written (decoded, trimmed, not resolved) and its kind.
    package struct Reference: Equatable, Sendable {
        /// The URL as written in the page, character references decoded.
        package var url: String
        /// What the URL is to the page.
        package var kind: Kind

        /// Makes a reference.
        package init(_ url: String, _ kind: Kind) {
            self.url = url
            self.kind = kind
        }
    }

    /// The `href` of the first `<base>` that has one (decoded, trimmed, not resolved): resolved against
    /// the page's own URL it is the base every reference resolves against; nil: the page's URL is.
    package var base: String?
    /// Every reference, in document order.
    package var references: [Reference]

    /// `link` relations whose target a page needs to display.
    package static let requisiteRelations: Set<String> = [
        "stylesheet", "icon", "shortcut", "apple-touch-icon", "apple-touch-icon-precomposed", "mask-icon", "preload",
        "modulepreload", "manifest",
    ]

    /// The references of the HTML document `bytes`.
    package init(html bytes: [UInt8]) {
        base = nil
        references = []
        for token in HTMLTokenizer(bytes) {
            guard case .startTag(let tag) = token else {
                if case .rawText("style", let range) = token { add(CSSReferences.urls(in: bytes[range]), .requisite) }
                continue
            }
            func value(_ name: String) -> String? { tag.attribute(name)?.decodedValue }
            switch tag.name {
            case "base":
                if base == nil, let href = value("href") { base = Self.trimmed(href) ?? "" }
            case "a", "area":
                add(value("href"), .page)
            case "link":
                let relations = Set(Self.lowercasedWords(value("rel") ?? ""))
                if !relations.isDisjoint(with: Self.requisiteRelations) {
                    add(value("href"), .requisite)
                    add(SourceSet.urls(in: value("imagesrcset") ?? ""), .requisite)
                }
            case "iframe", "frame":
                add(value("src"), .frame)
            case "script", "embed", "audio", "track":
                add(value("src"), .requisite)
            case "img", "source", "video":
                add(value("src"), .requisite)
                add(value("poster"), .requisite)
                add(SourceSet.urls(in: value("srcset") ?? ""), .requisite)
            case "input":
                if ASCII.lowercasedString(Array((value("type") ?? "").utf8)[...]) == "image" {
                    add(value("src"), .requisite)
                }
            case "object":
                add(value("data"), .requisite)
            case "image":
                add(value("href") ?? value("xlink:href"), .requisite)
            default:
                break
            }
            if tag.name != "base" {
                add(value("background"), .requisite)
                if let style = value("style") { add(CSSReferences.urls(in: Array(style.utf8)), .requisite) }
            }
        }
    }

    private mutating func add(_ reference: String?, _ kind: Kind) {
        guard let url = reference.flatMap(Self.trimmed), !url.hasPrefix("#") else { return }
        let scheme = ASCII.lowercasedString(Array(url.utf8.prefix(11))[...])
        guard !scheme.hasPrefix("data:"), !scheme.hasPrefix("javascript:") else { return }
        references.append(Reference(url, kind))
    }

    /// `text` without the ASCII whitespace around it; nil when nothing is left.
    private static func trimmed(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard let first = bytes.firstIndex(where: { !ASCII.isSpace($0) }),
            let last = bytes.lastIndex(where: { !ASCII.isSpace($0) })
        else { return nil }
        return first == 0 && last == bytes.count - 1 ? text : String(decoding: bytes[first...last], as: UTF8.self)
    }

    private mutating func add(_ references: [String], _ kind: Kind) {
        for reference in references { add(reference, kind) }
    }

    /// `text`'s words (split at ASCII whitespace), ASCII letters lower-cased.
    private static func lowercasedWords(_ text: String) -> [String] {
        Array(text.utf8).split(whereSeparator: ASCII.isSpace).map(ASCII.lowercasedString)
    }
}
