import WebArc

/// The conditional request headers the server honours (RFC 9110 §13): `If-None-Match`,
/// `If-Modified-Since` and `If-Range`.
enum ConditionalRequest {
    /// Whether the client's cached copy is current, so that a GET or HEAD gets 304 Not Modified.
    ///
    /// `If-None-Match` wins when present (weak comparison, `*` matches any body); otherwise
    /// `If-Modified-Since` applies when the body's `Last-Modified` is known.
    static func isNotModified(ifNoneMatch: String?, ifModifiedSince: String?, etag: String, lastModified: Int64?) -> Bool {
        if let ifNoneMatch {
            return entityTags(ifNoneMatch).contains { $0 == "*" || opaque($0) == opaque(etag) }
        }
        guard let ifModifiedSince, let lastModified, let since = HTTPDate.parse(String(ifModifiedSince.trimmingSpaces))
        else { return false }
        return lastModified <= since
    }

    /// Whether a `Range` header still applies given `If-Range`: the validator must match the current
    /// body exactly (strong comparison for an entity tag, equality for a date).
    static func rangeApplies(ifRange: String?, etag: String, lastModified: Int64?) -> Bool {
        guard let value = ifRange?.trimmingSpaces, !value.isEmpty else { return true }
        if value.hasPrefix("\"") || value.hasPrefix("W/") { return value == etag }
        guard let date = HTTPDate.parse(String(value)), let lastModified else { return false }
        return date == lastModified
    }

    /// The entity tags of a comma-separated list, spaces trimmed.
    private static func entityTags(_ list: String) -> [Substring] {
        list.split(separator: ",").map(\.trimmingSpaces).filter { !$0.isEmpty }
    }

    /// An entity tag without its weakness marker, for weak comparison.
    private static func opaque(_ tag: some StringProtocol) -> Substring {
        let tag = Substring(tag)
        return tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}
