import Foundation
import WebArcHTML

/// Finds the resources a page uses in its HTML or CSS, for `.webarchive` export: what a browser
/// would load to show the page, not the pages it links to.
enum PageLinks {
    /// A URL found in a page, resolved, and whether it is a frame's document.
    struct Link: Equatable {
        var url: String
        var isFrame: Bool
    }

    private static let stylesheetRels: Set<String> = [
        "stylesheet", "icon", "shortcut", "apple-touch-icon", "preload", "prefetch", "manifest", "mask-icon", "modulepreload",
    ]

    /// Resources and frames an HTML document loads, in document order: `src`, `srcset`, `poster`
    /// and `data` of any tag, `href` of `<link>` with a resource `rel`, `url()` and `@import` in
    /// `style` attributes and `<style>` elements; `<iframe>`/`<frame>` are frames; `<a>` and
    /// `<area>` links are not resources. The first `<base href>` is honoured. Tags are those of
    /// ``HTMLTokenizer``, so markup inside comments and scripts names nothing.
    static func html(_ text: String, base: String) -> [Link] {
        let bytes = Array(text.utf8)
        var base = base
        var sawBase = false
        var links: [Link] = []
        func add(_ references: [String], isFrame: Bool) {
            for reference in references where !reference.isEmpty && !reference.hasPrefix("data:") && !reference.hasPrefix("javascript:") {
                if let url = Capture.resolve(reference, against: base) { links.append(Link(url: url, isFrame: isFrame)) }
            }
        }
        for token in HTMLTokenizer(bytes) {
            guard case .startTag(let tag) = token else {
                if case .rawText("style", let range) = token { add(CSSReferences.urls(in: bytes[range]), isFrame: false) }
                continue
            }
            func value(_ name: String) -> String? { tag.attribute(name)?.decodedValue }
            if tag.name == "base" {
                if !sawBase, let href = value("href"), let resolved = Capture.resolve(href, against: base) {
                    base = resolved
                    sawBase = true
                }
                continue
            }
            var found: [String] = []
            switch tag.name {
            case "a", "area": break
            case "link":
                let rels = Set((value("rel") ?? "").lowercased().split(separator: " ").map(String.init))
                if !rels.isDisjoint(with: stylesheetRels), let href = value("href") { found.append(href) }
            default:
                for key in ["src", "poster", "data", "background"] { if let value = value(key) { found.append(value) } }
                for key in ["srcset", "imagesrcset"] { found += SourceSet.urls(in: value(key) ?? "") }
            }
            if let style = value("style") { found += CSSReferences.urls(in: Array(style.utf8)) }
            add(found, isFrame: tag.name == "iframe" || tag.name == "frame")
        }
        return links
    }

    /// URL references in CSS (`url(...)` and `@import`), unresolved (see ``CSSReferences``).
    static func css(_ text: String) -> [String] {
        CSSReferences.urls(in: Array(text.utf8))
    }
}
