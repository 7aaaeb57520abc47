import Foundation

/// Finds the resources a page uses in its HTML or CSS, for `.webarchive` export: what a browser
/// would load to show the page, not the pages it links to.
enum PageLinks {
    /// A URL found in a page, resolved, and whether it is a frame's document.
    struct Link: Equatable {
        var url: String
        var isFrame: Bool
    }

    private static let tag = try! NSRegularExpression(pattern: #"<([A-Za-z][A-Za-z0-9-]*)\b([^>]*)>"#)
    private static let attribute = try! NSRegularExpression(
        pattern: #"([A-Za-z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))"#)
    private static let cssURL = try! NSRegularExpression(
        pattern: #"url\(\s*(?:"([^"]*)"|'([^']*)'|([^)\s]*))\s*\)|@import\s+(?:"([^"]*)"|'([^']*)')"#)
    private static let stylesheetRels: Set<String> = [
        "stylesheet", "icon", "shortcut", "apple-touch-icon", "preload", "prefetch", "manifest", "mask-icon", "modulepreload",
    ]

    /// Resources and frames an HTML document loads: `src`, `srcset`, `poster` and `data` of any
    /// tag, `href` of `<link>` with a resource `rel`, `url()` in styles; `<iframe>`/`<frame>` are
    /// frames; `<a>` and `<area>` links are not resources. `<base href>` is honoured.
    static func html(_ text: String, base: String) -> [Link] {
        var base = base
        var links: [Link] = []
        let whole = NSRange(text.startIndex..., in: text)
        for match in tag.matches(in: text, range: whole) {
            let name = substring(text, match.range(at: 1)).lowercased()
            var attributes: [String: String] = [:]
            let body = substring(text, match.range(at: 2))
            for pair in attribute.matches(in: body, range: NSRange(body.startIndex..., in: body)) {
                let value = (2...4).lazy.map { substring(body, pair.range(at: $0)) }.first { !$0.isEmpty } ?? ""
                attributes[substring(body, pair.range(at: 1)).lowercased()] = decodeEntities(value)
            }
            if name == "base", let href = attributes["href"], let resolved = Capture.resolve(href, against: base) {
                base = resolved
                continue
            }
            var found: [String] = []
            switch name {
            case "a", "area": break
            case "link":
                let rels = Set((attributes["rel"] ?? "").lowercased().split(separator: " ").map(String.init))
                if !rels.isDisjoint(with: stylesheetRels), let href = attributes["href"] { found.append(href) }
            default:
                for key in ["src", "poster", "data", "background"] { if let value = attributes[key] { found.append(value) } }
                for key in ["srcset", "imagesrcset"] {
                    for candidate in (attributes[key] ?? "").split(separator: ",") {
                        if let url = candidate.split(separator: " ").first { found.append(String(url)) }
                    }
                }
            }
            if let style = attributes["style"] { found += css(style) }
            let isFrame = name == "iframe" || name == "frame"
            for reference in found where !reference.isEmpty && !reference.hasPrefix("data:") && !reference.hasPrefix("javascript:") {
                if let url = Capture.resolve(reference, against: base) { links.append(Link(url: url, isFrame: isFrame)) }
            }
        }
        for reference in css(text) {
            if let url = Capture.resolve(reference, against: base) { links.append(Link(url: url, isFrame: false)) }
        }
        return links
    }

    /// URL references in CSS (`url(...)` and `@import`), unresolved.
    static func css(_ text: String) -> [String] {
        cssURL.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            (1...5).lazy.map { substring(text, match.range(at: $0)) }.first { !$0.isEmpty }
        }.filter { !$0.hasPrefix("data:") }
    }

    private static func substring(_ text: String, _ range: NSRange) -> String {
        guard range.location != NSNotFound, let bounds = Range(range, in: text) else { return "" }
        return String(text[bounds])
    }

    private static func decodeEntities(_ value: String) -> String {
        value.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#38;", with: "&")
    }
}
