import WebArc

/// The conditional and range headers of a request, judged against one stored body
/// (RFC 9110 §13, §14).
struct RequestConditions {
    /// How a `Range` header applies.
    enum RangeOutcome: Equatable {
        /// No usable range: send the whole body.
        case whole
        /// Send these bytes with 206.
        case partial(Range<UInt64>)
        /// No byte of the body is in the range: 416.
        case unsatisfiable
    }

    /// The entity tags that name the stored body: its MD5 (``BodyReference/etag``) and the
    /// `ETag` the origin sent, if any.
    var entityTags: [String]
    /// The body's date in seconds since 1970: the stored `Last-Modified`, else the capture date.
    var lastModified: Int64?

    /// Whether a GET or HEAD with these headers gets 304 Not Modified.
    ///
    /// `If-None-Match` decides when present (weak comparison; `*` matches); otherwise
    /// `If-Modified-Since` does, when the body's date is known.
    func isNotModified(ifNoneMatch: String?, ifModifiedSince: String?) -> Bool {
        if let ifNoneMatch {
            let wanted = ifNoneMatch.split(separator: ",").map { Self.opaque(trimmed($0)) }
            return wanted.contains { tag in tag == "*" || entityTags.contains { Self.opaque($0) == tag } }
        }
        guard let ifModifiedSince, let lastModified, let since = HTTPDate.parse(trimmed(ifModifiedSince)) else {
            return false
        }
        return lastModified <= since
    }

    /// How `range` applies to a body of `length` bytes, given `If-Range`.
    ///
    /// One range is served (`bytes=a-b`, `bytes=a-`, `bytes=-n`); several ranges, another unit or a
    /// syntax error are ignored as RFC 9110 allows. An `If-Range` that does not match the body
    /// exactly (strong comparison, or the same date) also turns the range off.
    func range(_ range: String?, ifRange: String?, length: UInt64) -> RangeOutcome {
        guard let range else { return .whole }
        if let ifRange = ifRange.map(trimmed), !ifRange.isEmpty {
            let matches = ifRange.hasPrefix("\"") ? entityTags.contains(ifRange)
                : HTTPDate.parse(ifRange).map { $0 == lastModified } ?? false
            if !matches { return .whole }
        }
        let spec = trimmed(range)
        guard spec.lowercased().hasPrefix("bytes="), !spec.contains(",") else { return .whole }
        let parts = spec.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            .map { trimmed($0) }
        guard parts.count == 2 else { return .whole }
        if parts[0].isEmpty {
            guard let suffix = Self.number(parts[1]) else { return .whole }
            return suffix == 0 || length == 0 ? .unsatisfiable : .partial(length - min(suffix, length)..<length)
        }
        guard let first = Self.number(parts[0]) else { return .whole }
        var end = length
        if !parts[1].isEmpty {
            guard let last = Self.number(parts[1]), last >= first else { return .whole }
            end = min(last + 1, length)
        }
        return first < length ? .partial(first..<end) : .unsatisfiable
    }

    private static func number(_ text: String) -> UInt64? {
        text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ? UInt64(text) : nil
    }

    private static func opaque(_ tag: String) -> String { tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag }
}

/// The text without surrounding spaces and tabs.
func trimmed(_ text: some StringProtocol) -> String {
    String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
}
