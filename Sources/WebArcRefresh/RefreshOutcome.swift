import WebArc

/// What the live origin said about one archived response.
public enum RefreshOutcome: Sendable, Equatable {
    /// 304, or 200 with the same bytes: the record stays, its capture date moves forward.
    case unchanged
    /// 200 (or another status with a body) with other bytes: the new response.
    case changed(status: Int, reason: String?, headers: [HTTPHeader], body: [UInt8])
    /// 404 or 410: the URL is gone (a tombstone in the update).
    case gone
    /// 301, 302, 303, 307 or 308: the URL now redirects to `target` (absolute, archived URL space).
    case redirected(status: Int, target: String, headers: [HTTPHeader])
    /// Anything else (5xx, a refused connection, a timeout, a body over the limit): the record is
    /// kept as it was.
    case failed(String)
}

/// Counts of a refresh, by outcome.
public struct RefreshSummary: Sendable, Equatable {
    /// Responses asked again.
    public var asked = 0
    /// Answered 304.
    public var notModified = 0
    /// 304 or the same bytes.
    public var unchanged = 0
    public var changed = 0
    public var gone = 0
    public var redirected = 0
    public var failed = 0
    /// Responses not asked (younger than `olderThan`, not GET, outside the origin).
    public var skipped = 0
    /// Body bytes received from the origin.
    public var bytesFetched: UInt64 = 0
    /// The update's own summary.
    public var update = UpdateBuilder.Summary()
    /// Each failure: the URL and why.
    public var failures: [String] = []
}
