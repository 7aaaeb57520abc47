import Foundation
import WebArcHTML

/// The URLs capture follows from an HTML page or a stylesheet: the page's references
/// (``PageLinks``, from WebArcHTML) resolved against its base. Frames are requisites here: capture
/// records them as it records images. Only http and https URLs are kept, without their fragment,
/// each once, in document order.
extension PageLinks {
    /// Absolute URLs to fetch, by how capture follows them.
    struct Followed: Equatable {
        /// Links to other pages, followed with `--depth`.
        var pages: [URL] = []
        /// What the page needs to display, its frames included.
        var requisites: [URL] = []
    }

    /// The links of an HTML document found at `baseURL`.
    static func html(_ bytes: some Collection<UInt8>, baseURL: URL) -> Followed {
        let links = PageLinks(html: Array(bytes))
        let base = links.base.flatMap { resolve($0, against: baseURL) } ?? baseURL
        let pages = links.references.filter { $0.kind == .page }.map(\.url)
        let requisites = links.references.filter { $0.kind != .page }.map(\.url)
        return Followed(pages: resolved(pages, against: base), requisites: resolved(requisites, against: base))
    }

    /// The requisites of a stylesheet found at `baseURL`.
    static func css(_ bytes: some Collection<UInt8>, baseURL: URL) -> Followed {
        Followed(pages: [], requisites: resolved(CSSReferences.urls(in: bytes), against: baseURL))
    }

    /// Absolute http(s) URLs for `references`, without fragments, each once.
    static func resolved(_ references: [String], against base: URL) -> [URL] {
        var seen = Set<String>()
        return references.compactMap { resolve($0, against: base) }.filter { seen.insert($0.absoluteString).inserted }
    }

    /// The absolute http(s) URL `reference` names at `base`, without its fragment.
    static func resolve(_ reference: String, against base: URL) -> URL? {
        let text = reference.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, !text.hasPrefix("#") else { return nil }
        let url =
            URL(string: text, relativeTo: base)
            ?? text.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed.union(["#", "%"]))
            .flatMap { URL(string: $0, relativeTo: base) }
        guard let absolute = url?.absoluteURL, let scheme = absolute.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            absolute.host != nil, var components = URLComponents(url: absolute, resolvingAgainstBaseURL: false)
        else { return nil }
        components.fragment = nil
        return components.url
    }
}
