import Foundation

/// The URLs an HTML page or a stylesheet refers to: links to other pages, and page requisites
/// (what the page needs to display: stylesheets, scripts, images, fonts, frames).
///
/// A small scanner, not an HTML parser: it reads tags and their attributes, skips comments and the
/// contents of `script`, `textarea` and `title`, and reads the contents of `style` elements and
/// `style` attributes as CSS. Requisites come from `link rel=stylesheet|icon|preload|…`,
/// `script src`, `img src|srcset`, `source src|srcset`, `video src|poster`, `audio`, `track`,
/// `embed`, `object data`, `input type=image`, `iframe`/`frame src`, SVG `image href` and
/// `background` attributes; pages from `a href` and `area href`. In CSS, every `url(…)` and
/// `@import "…"` is a requisite. `<base href>` changes the base URL. Only http and https URLs are
/// kept, without their fragment, each once, in document order.
struct PageLinks: Equatable {
    /// Links to other pages, followed with `--depth`.
    var pages: [URL] = []
    /// What the page needs to display.
    var requisites: [URL] = []

    /// The links of an HTML document found at `baseURL`.
    static func html(_ bytes: some Collection<UInt8>, baseURL: URL) -> PageLinks {
        var scanner = HTMLScanner(bytes: Array(bytes))
        var pageRefs: [String] = []
        var requisiteRefs: [String] = []
        var base = baseURL
        var sawBase = false
        while let element = scanner.nextElement() {
            let attributes = element.attributes
            func value(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
            if let style = value("style") { requisiteRefs += CSSScanner.references(in: Array(style.utf8)) }
            switch element.name {
            case "base":
                if !sawBase, let href = value("href"), let url = resolve(href, against: baseURL) {
                    base = url
                    sawBase = true
                }
            case "a", "area":
                if let href = value("href") { pageRefs.append(href) }
            case "link":
                let rel = Set((value("rel") ?? "").lowercased().split(whereSeparator: \.isWhitespace).map(String.init))
                if !rel.isDisjoint(with: requisiteRelations) {
                    if let href = value("href") { requisiteRefs.append(href) }
                    if let srcset = value("imagesrcset") { requisiteRefs += sourceSet(srcset) }
                }
            case "script", "iframe", "frame", "embed", "audio", "track":
                if let src = value("src") { requisiteRefs.append(src) }
            case "img", "source", "video":
                for name in ["src", "poster"] { if let ref = value(name) { requisiteRefs.append(ref) } }
                if let srcset = value("srcset") { requisiteRefs += sourceSet(srcset) }
            case "input":
                if value("type")?.lowercased() == "image", let src = value("src") { requisiteRefs.append(src) }
            case "object":
                if let data = value("data") { requisiteRefs.append(data) }
            case "image":
                if let href = value("href") ?? value("xlink:href") { requisiteRefs.append(href) }
            case "style":
                requisiteRefs += CSSScanner.references(in: element.text)
            default:
                break
            }
            if let background = value("background") { requisiteRefs.append(background) }
        }
        return PageLinks(pages: resolved(pageRefs, against: base), requisites: resolved(requisiteRefs, against: base))
    }

    /// The requisites of a stylesheet found at `baseURL`.
    static func css(_ bytes: some Collection<UInt8>, baseURL: URL) -> PageLinks {
        PageLinks(pages: [], requisites: resolved(CSSScanner.references(in: Array(bytes)), against: baseURL))
    }

    /// `link` relations whose target a page needs.
    static let requisiteRelations: Set<String> = [
        "stylesheet", "icon", "shortcut", "apple-touch-icon", "apple-touch-icon-precomposed", "mask-icon", "preload",
        "modulepreload", "manifest",
    ]

    /// The URLs of a `srcset` value: candidates split at commas, each a URL and a descriptor.
    static func sourceSet(_ value: String) -> [String] {
        var urls: [String] = []
        var rest = Substring(value)
        while true {
            rest = rest.drop { $0.isWhitespace || $0 == "," }
            guard !rest.isEmpty else { return urls }
            var url = rest.prefix { !$0.isWhitespace }
            rest = rest.dropFirst(url.count)
            if url.hasSuffix(",") {
                url = url.dropLast()
            } else {
                rest = rest.drop { $0 != "," }
            }
            if !url.isEmpty { urls.append(String(url)) }
        }
    }

    /// Absolute http(s) URLs for `references`, without fragments, each once.
    static func resolved(_ references: [String], against base: URL) -> [URL] {
        var seen = Set<String>()
        return references.compactMap { resolve($0, against: base) }.filter { seen.insert($0.absoluteString).inserted }
    }

    /// The absolute http(s) URL `reference` names at `base`, without its fragment.
    static func resolve(_ reference: String, against base: URL) -> URL? {
        let text = decodeEntities(reference.trimmingCharacters(in: .whitespacesAndNewlines))
        guard !text.isEmpty, !text.hasPrefix("#") else { return nil }
        let url = URL(string: text, relativeTo: base)
            ?? text.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed.union(["#", "%"]))
                .flatMap { URL(string: $0, relativeTo: base) }
        guard let absolute = url?.absoluteURL, let scheme = absolute.scheme?.lowercased(), scheme == "http" || scheme == "https",
            absolute.host != nil, var components = URLComponents(url: absolute, resolvingAgainstBaseURL: false)
        else { return nil }
        components.fragment = nil
        return components.url
    }

    /// `text` with the character references an attribute value commonly holds decoded.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#38;", with: "&")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&apos;", with: "'")
    }
}
