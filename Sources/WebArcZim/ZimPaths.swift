import Foundation
import WebArc

/// How archive URLs and ZIM paths map onto each other: a ZIM path is a URL below the base URL,
/// percent-encoded exactly as `webarc pack` encodes a file's path, so that an archive packed from
/// a folder, exported to ZIM and imported again keeps every URL.
///
/// A URL that this rule does not give back (another origin, a query, an escape pack would not
/// write) keeps its own path in the ZIM and is listed in the ZIM's `WebArc-URLs` metadata, which
/// an import reads first.
struct ZimPaths: Sendable {
    /// The URL paths are relative to; ends with `/`.
    let baseURL: String

    /// Metadata naming the base URL of a ZIM webarc wrote.
    static let baseURLMetadata = "WebArc-BaseURL"
    /// Metadata holding a JSON object from ZIM path to URL, for the URLs ``url(forPath:)`` does not give.
    static let urlsMetadata = "WebArc-URLs"
    /// Metadata holding a JSON array of the redirect paths that stand for a response with their
    /// target's body (``ZimExportPlan/copies``).
    static let copiesMetadata = "WebArc-Copies"
    /// Metadata holding a JSON object from path to `Content-Type` of the empty responses (``ZimExportPlan/empties``).
    static let emptiesMetadata = "WebArc-Empty"

    init(baseURL: String) {
        self.baseURL = SitePacker.Options(baseURL: baseURL).baseURL
    }

    /// The URL of the entry at `path`.
    func url(forPath path: String) -> String {
        SitePacker(options: SitePacker.Options(baseURL: baseURL)).url(for: path)
    }

    /// The path a URL takes in a ZIM and whether ``url(forPath:)`` gives the URL back from it;
    /// nil for a URL that is not http(s), or whose path would be empty (the base URL itself).
    ///
    /// Below the base URL, the path is the rest of the URL with its path percent-decoded (as a
    /// Kiwix reader decodes a request) and its query kept after `?`; on another http(s) origin, the
    /// host (and port) then the same, as warc2zim names entries.
    func path(forURL url: String) -> (path: String, exact: Bool)? {
        let url = String(url.prefix { $0 != "#" })
        let rest: Substring
        if url.hasPrefix(baseURL) {
            rest = url.dropFirst(baseURL.count)
        } else {
            let scheme = url.prefix { $0 != ":" }.lowercased()
            guard scheme == "http" || scheme == "https", url.dropFirst(scheme.count).hasPrefix("://") else {
                return nil
            }
            rest = url.dropFirst(scheme.count + 3)
        }
        let query = rest.firstIndex(of: "?")
        let encoded = query.map { rest[..<$0] } ?? rest
        var path = encoded.removingPercentEncoding ?? String(encoded)
        if let query { path += rest[query...] }
        guard !path.isEmpty else { return nil }
        return (path, url.hasPrefix(baseURL) && self.url(forPath: path) == url)
    }
}
