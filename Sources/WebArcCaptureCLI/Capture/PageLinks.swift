import Foundation
import WebArcHTML

/// The URLs an HTML page or a stylesheet refers to: links to other pages, and page requisites
/// (what the page needs to display: stylesheets, scripts, images, fonts, frames).
///
/// It reads the tokens of ``HTMLTokenizer``: tags and their attributes, not comments or the
/// contents of `script`, `textarea` and `title`; the contents of `style` elements and `style`
/// attributes are read as CSS (``CSSReferences``). Requisites come from `link rel=stylesheet|icon|preload|…`,
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
        let bytes = Array(bytes)
        var pageRefs: [String] = []
        var requisiteRefs: [String] = []
        var base = baseURL
        var sawBase = false
        for token in HTMLTokenizer(bytes) {
            guard case .startTag(let tag) = token else {
                if case .rawText("style", let range) = token { requisiteRefs += CSSReferences.urls(in: bytes[range]) }
                continue
            }
            let value = tag.value
            if let style = value("style") { requisiteRefs += CSSReferences.urls(in: Array(style.utf8)) }
            switch tag.name {
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
                    if let srcset = value("imagesrcset") { requisiteRefs += SourceSet.urls(in: srcset) }
                }
            case "script", "iframe", "frame", "embed", "audio", "track":
                if let src = value("src") { requisiteRefs.append(src) }
            case "img", "source", "video":
                for name in ["src", "poster"] { if let ref = value(name) { requisiteRefs.append(ref) } }
                if let srcset = value("srcset") { requisiteRefs += SourceSet.urls(in: srcset) }
            case "input":
                if value("type")?.lowercased() == "image", let src = value("src") { requisiteRefs.append(src) }
            case "object":
                if let data = value("data") { requisiteRefs.append(data) }
            case "image":
                if let href = value("href") ?? value("xlink:href") { requisiteRefs.append(href) }
            default:
                break
            }
            if let background = value("background") { requisiteRefs.append(background) }
        }
        return PageLinks(pages: resolved(pageRefs, against: base), requisites: resolved(requisiteRefs, against: base))
    }

    /// The requisites of a stylesheet found at `baseURL`.
    static func css(_ bytes: some Collection<UInt8>, baseURL: URL) -> PageLinks {
        PageLinks(pages: [], requisites: resolved(CSSReferences.urls(in: bytes), against: baseURL))
    }

    /// `link` relations whose target a page needs.
    static let requisiteRelations: Set<String> = [
        "stylesheet", "icon", "shortcut", "apple-touch-icon", "apple-touch-icon-precomposed", "mask-icon", "preload",
        "modulepreload", "manifest",
    ]

    /// Absolute http(s) URLs for `references`, without fragments, each once.
    static func resolved(_ references: [String], against base: URL) -> [URL] {
        var seen = Set<String>()
        return references.compactMap { resolve($0, against: base) }.filter { seen.insert($0.absoluteString).inserted }
    }

    /// The absolute http(s) URL `reference` names at `base`, without its fragment.
    static func resolve(_ reference: String, against base: URL) -> URL? {
        let text = HTMLEntities.decode(reference.trimmingCharacters(in: .whitespacesAndNewlines))
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
}
