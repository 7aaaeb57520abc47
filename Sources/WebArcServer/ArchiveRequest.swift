/// What the responder needs to know about one HTTP request, independent of the transport.
///
/// The transport copies the request line and the few headers that change the answer; every other
/// request header is ignored.
package struct ArchiveRequest: Sendable, Equatable {
    /// The method as sent, e.g. `GET`.
    package var method: String
    /// The request target as sent: origin form (`/docs/?q=1`) or absolute form (`http://host/docs/`).
    package var target: String
    /// The `Range` header, if any.
    package var range: String?
    /// The `If-Range` header, if any.
    package var ifRange: String?
    /// The `If-None-Match` header, if any.
    package var ifNoneMatch: String?
    /// The `If-Modified-Since` header, if any.
    package var ifModifiedSince: String?
    /// The `Accept-Language` header, if any: the language of the search pages.
    package var acceptLanguage: String?

    /// Makes a request description.
    package init(
        method: String, target: String, range: String? = nil, ifRange: String? = nil, ifNoneMatch: String? = nil,
        ifModifiedSince: String? = nil, acceptLanguage: String? = nil
    ) {
        self.method = method
        self.target = target
        self.range = range
        self.ifRange = ifRange
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
        self.acceptLanguage = acceptLanguage
    }

    /// Whether only the head of the response is to be sent.
    package var isHead: Bool { method == "HEAD" }
}
