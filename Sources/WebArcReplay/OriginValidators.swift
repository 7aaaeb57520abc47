import WebArc

/// The validators to send when asking an origin about a stored response: only ones the origin
/// itself gave and that can match (RFC 9110 §13).
///
/// `If-None-Match` from an `ETag` the origin sent; a packed archive's `ETag` is webarc's own MD5
/// of the body (`"<md5>"`), which no origin knows, so it is not sent. `If-Modified-Since` from
/// `Last-Modified` only without a usable `ETag`: an origin ignores it when `If-None-Match` is
/// present. Shared by `webarc refresh` and the URL protocol's cache policies.
/// ```swift
/// for (name, value) in OriginValidators.headers(for: stored) { request.setValue(value, forHTTPHeaderField: name) }
/// ```
public enum OriginValidators {
    /// The conditional headers to send for `response`: none, `If-None-Match` or `If-Modified-Since`.
    public static func headers(for response: ResponseRecord) -> [(name: String, value: String)] {
        let etag = response.headers.first { $0.name.lowercased() == "etag" }?.value
        if let etag, etag != response.body.etag, !etag.isEmpty {
            return [("If-None-Match", etag)]
        }
        if let modified = response.headers.first(where: { $0.name.lowercased() == "last-modified" })?.value,
            !modified.isEmpty
        {
            return [("If-Modified-Since", modified)]
        }
        return []
    }
}
