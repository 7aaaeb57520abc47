import WebArc
import WebArcReplay

/// Which stored response headers go out as stored, and which the server recomputes.
///
/// Stored headers are replayed in their stored order and case, except what every replay drops
/// (``StoredHeaders``: hop-by-hop headers, `Content-Length`, a `Location` or `Refresh` leading
/// outside http(s)), and:
/// - `Content-Range`: recomputed for the bytes actually sent;
/// - `ETag`, `Last-Modified`, `Accept-Ranges` and (for redirects) `Location`: replaced by the
///   server's own values, so that conditionals and ranges work against the stored body;
/// - `Content-Security-Policy` and `Content-Security-Policy-Report-Only` of an HTML or CSS body
///   whose links were rewritten (see ``droppedWhenRewritten``).
enum ReplayedHeaders {
    /// Lower-case names the server replaces, besides those every replay drops.
    static let dropped: Set<String> = ["content-range", "etag", "last-modified", "accept-ranges", "location"]

    /// Lower-case names not replayed with a body whose links were rewritten: a policy naming the
    /// archived origins would block the served paths the links now point to.
    static let droppedWhenRewritten: Set<String> = ["content-security-policy", "content-security-policy-report-only"]

    /// The stored headers that go out unchanged.
    static func replayed(_ stored: [HTTPHeader]) -> [HTTPHeader] {
        StoredHeaders.replayable(stored, alsoDropping: dropped)
    }

    /// The `Content-Type` to send: the stored header's, else the record's media type and charset,
    /// else the type the URL's file extension suggests (`application/octet-stream` when unknown).
    static func contentType(stored: [HTTPHeader], mimeType: String?, textEncoding: String?, url: String) -> String {
        if let value = stored.value(for: "Content-Type"), !value.isEmpty { return value }
        if let mimeType, !mimeType.isEmpty {
            return textEncoding.map { "\(mimeType); charset=\($0)" } ?? mimeType
        }
        let path = url.split(separator: "?", maxSplits: 1).first ?? ""
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        return MediaTypes.mediaType(forFileName: name)
    }

    /// The media type of a `Content-Type` value: lower case, parameters dropped.
    static func mediaType(of contentType: String) -> String {
        String(contentType.split(separator: ";", maxSplits: 1).first?.trimmingSpaces ?? "").lowercased()
    }
}
