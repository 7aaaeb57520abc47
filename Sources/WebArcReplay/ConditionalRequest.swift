import WebArc

/// The conditional request headers replay honours (RFC 9110 §13): `If-None-Match`,
/// `If-Modified-Since` and `If-Range`, judged against the validators of one stored body.
///
/// Spec: `Spec/replay.md` §4.
public enum ConditionalRequest {
    /// Whether the client's cached copy is current, so that a GET or HEAD gets 304 Not Modified.
    ///
    /// `If-None-Match` wins when present (weak comparison, `*` matches any body); otherwise
    /// `If-Modified-Since` applies when the body's `Last-Modified` is known.
    ///
    /// - Parameters:
    ///   - entityTags: the quoted tags that name the body (pass `CollectionOfOne(tag)` for one:
    ///     no allocation).
    ///   - lastModified: the body's date in seconds since 1970, when known.
    public static func isNotModified(
        ifNoneMatch: String?, ifModifiedSince: String?, entityTags: some Collection<String>, lastModified: Int64?
    ) -> Bool {
        if let ifNoneMatch {
            for wanted in ifNoneMatch.split(separator: ",") {
                let tag = opaque(wanted.trimmingSpaces)
                if tag.isEmpty { continue }
                if tag == "*" || entityTags.contains(where: { opaque(Substring($0)) == tag }) { return true }
            }
            return false
        }
        guard let ifModifiedSince, let lastModified, let since = HTTPDate.parse(String(ifModifiedSince.trimmingSpaces))
        else { return false }
        return lastModified <= since
    }

    /// Whether a `Range` header still applies given `If-Range`: the validator must match the body
    /// exactly (strong comparison for an entity tag, so a weak `W/` tag never matches; equality
    /// for a date).
    public static func rangeApplies(ifRange: String?, entityTags: some Collection<String>, lastModified: Int64?) -> Bool
    {
        guard let value = ifRange?.trimmingSpaces, !value.isEmpty else { return true }
        if value.hasPrefix("W/") { return false }
        if value.hasPrefix("\"") { return entityTags.contains { !$0.hasPrefix("W/") && $0[...] == value } }
        guard let date = HTTPDate.parse(String(value)), let lastModified else { return false }
        return date == lastModified
    }

    /// An entity tag without its weakness marker, for weak comparison.
    private static func opaque(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}
