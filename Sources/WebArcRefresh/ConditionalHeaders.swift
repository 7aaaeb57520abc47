import WebArc

/// The validators to send when asking an origin about a stored response: only ones the origin
/// itself gave and that can match (spec-free; RFC 9110 §13).
///
/// `If-None-Match` from an `ETag` the origin sent; a packed archive's `ETag` is webarc's own MD5
/// of the body (`"<md5>"`), which no origin knows, so it is not sent. `If-Modified-Since` from
/// `Last-Modified` only without a usable `ETag`: an origin ignores it when `If-None-Match` is present.
enum ConditionalHeaders {
    static func headers(for response: ResponseRecord) -> [(String, String)] {
        let etag = response.headers.first { $0.name.lowercased() == "etag" }?.value
        if let etag, etag != response.body.etag, !etag.isEmpty {
            return [("If-None-Match", etag)]
        }
        if let modified = response.headers.first(where: { $0.name.lowercased() == "last-modified" })?.value, !modified.isEmpty {
            return [("If-Modified-Since", modified)]
        }
        return []
    }
}
