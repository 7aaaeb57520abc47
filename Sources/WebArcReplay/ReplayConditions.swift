/// The request headers that change which bytes of a stored body are sent: `Range`, `If-Range`,
/// `If-None-Match` and `If-Modified-Since`. Every other request header is ignored by replay.
public struct ReplayConditions: Sendable, Equatable {
    /// The `Range` header, if any.
    public var range: String?
    /// The `If-Range` header, if any.
    public var ifRange: String?
    /// The `If-None-Match` header, if any.
    public var ifNoneMatch: String?
    /// The `If-Modified-Since` header, if any.
    public var ifModifiedSince: String?

    /// Makes a set of conditions from the header values.
    public init(
        range: String? = nil, ifRange: String? = nil, ifNoneMatch: String? = nil, ifModifiedSince: String? = nil
    ) {
        self.range = range
        self.ifRange = ifRange
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
    }

    /// The conditions among `headers`, names compared without case (the first of a repeated name).
    public init(headers: [String: String]) {
        func value(_ name: String) -> String? {
            headers.first { $0.key.utf8.count == name.utf8.count && $0.key.lowercased() == name }?.value
        }
        self.init(
            range: value("range"), ifRange: value("if-range"), ifNoneMatch: value("if-none-match"),
            ifModifiedSince: value("if-modified-since"))
    }
}

/// Which bytes of a stored response go out, once conditionals and `Range` are applied.
///
/// Spec: `Spec/replay.md` §4.
public enum BodyDecision: Equatable, Sendable {
    /// The stored status and the whole body.
    case whole
    /// 304 Not Modified: no body, the validators repeated.
    case notModified
    /// 206 Partial Content with these bytes.
    case partial(Range<UInt64>)
    /// 416 Range Not Satisfiable: no body, `Content-Range: bytes */length`.
    case unsatisfiable

    /// Applies `conditions` to a stored response of `status` whose body has `length` bytes.
    ///
    /// A 2xx honours `If-None-Match` / `If-Modified-Since` (304); a 200 honours one `Range`
    /// (GET and HEAD alike) unless `If-Range` names another body. Nothing else changes a stored
    /// answer. Allocates nothing: the server calls it for every request of a cached page.
    ///
    /// - Parameters:
    ///   - entityTags: the quoted tags that name the body (``BodyReference/etag``, and for the URL
    ///     protocol the stored `ETag` too).
    ///   - lastModified: the body's date in seconds since 1970 (stored `Last-Modified`, else the
    ///     capture date), when known.
    public init(
        status: Int, length: UInt64, entityTags: some Collection<String>, lastModified: Int64?,
        conditions: ReplayConditions
    ) {
        if (200..<300).contains(status), conditions.ifNoneMatch != nil || conditions.ifModifiedSince != nil,
            ConditionalRequest.isNotModified(
                ifNoneMatch: conditions.ifNoneMatch, ifModifiedSince: conditions.ifModifiedSince,
                entityTags: entityTags,
                lastModified: lastModified)
        {
            self = .notModified
            return
        }
        guard status == 200, conditions.range != nil,
            ConditionalRequest.rangeApplies(
                ifRange: conditions.ifRange, entityTags: entityTags, lastModified: lastModified)
        else {
            self = .whole
            return
        }
        switch ByteRangeRequest(header: conditions.range, length: length) {
        case .whole: self = .whole
        case .partial(let range): self = .partial(range)
        case .unsatisfiable: self = .unsatisfiable
        }
    }

    /// `Content-Range` for a 206 or 416 of a body of `length` bytes; nil for the other answers.
    public func contentRange(length: UInt64) -> String? {
        switch self {
        case .partial(let range): "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)"
        case .unsatisfiable: "bytes */\(length)"
        case .whole, .notModified: nil
        }
    }
}
