import Foundation

/// What a refresh asks and how politely (spec-free: a tool's choices, README "Refresh").
public struct RefreshOptions: Sendable {
    /// Only responses captured longer ago than this are asked again; nil: every one. A response
    /// without a capture date (a packed archive's) always counts as old.
    public var olderThan: TimeInterval?
    /// Ask `live` where the archive says `archived`: a packed archive's `http://localhost/` is
    /// asked at where the site now lives. Both end with `/`.
    public var origin: (archived: String, live: String)?
    /// Only URLs of the archive's start URL origin (after mapping), as `capture --same-origin`.
    public var sameOrigin: Bool
    /// Requests in flight at once, across origins; one origin is asked one request at a time.
    public var concurrency: Int
    /// Requests per second to one origin, nil for no limit beyond one at a time.
    public var rate: Double?
    /// Seconds before one request fails: connecting, waiting for the answer, and each wait for
    /// more of its body. The record is kept (``KeptReason/timedOut(seconds:)``).
    public var timeout: TimeInterval
    /// A larger body fails its URL (kept as it was) instead of filling memory.
    public var maxBodyBytes: Int
    /// The capture date given to what the refresh saw (default: when it started).
    public var now: Date
    /// Move the capture date of a response the origin confirmed (304, same bytes) forward. Each
    /// such record then goes into the update, which grows with the site; off, the update holds
    /// only what changed and its metadata says when the rest was confirmed (`refreshed`).
    public var redate: Bool
    /// The largest share (0 to 1) of the archive's GET responses a refresh may change, redirect or
    /// delete; more, and it writes nothing and throws ``RefreshError/massChange(limit:summary:)``
    /// (an origin answering every URL with a login page or a redirect is misconfigured, not a new
    /// release). nil: no limit.
    public var maxChangeShare: Double?
    /// The longest `Retry-After` a 429 or 503 answer may ask for and be waited for; a longer one
    /// keeps the record (``KeptReason/retryAfterTooLong(status:seconds:limit:)``).
    public var maxRetryAfter: TimeInterval
    /// How often one URL is asked again after a 429 or 503 with a `Retry-After`. An origin that
    /// still refuses after them gets no more retries for its other URLs in this refresh.
    public var retryLimit: Int

    /// The default ``maxChangeShare``: a fifth of the archive.
    public static let defaultMaxChangeShare = 0.2

    /// Makes options: every response, no mapping, one origin at a time (one request at a time
    /// each), 30 s, 256 MiB, at most a fifth of the archive changed, `Retry-After` waited for up to
    /// 60 s twice per URL.
    public init(
        olderThan: TimeInterval? = nil, origin: (archived: String, live: String)? = nil, sameOrigin: Bool = false,
        concurrency: Int = 1, rate: Double? = nil, timeout: TimeInterval = 30, maxBodyBytes: Int = 256 << 20,
        now: Date = Date(),
        redate: Bool = false, maxChangeShare: Double? = defaultMaxChangeShare, maxRetryAfter: TimeInterval = 60,
        retryLimit: Int = 2
    ) {
        self.olderThan = olderThan
        self.origin = origin
        self.sameOrigin = sameOrigin
        self.concurrency = concurrency
        self.rate = rate
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
        self.now = now
        self.redate = redate
        self.maxChangeShare = maxChangeShare
        self.maxRetryAfter = maxRetryAfter
        self.retryLimit = retryLimit
    }

    /// The URL to ask for an archived URL, or nil when it is outside the mapped origin and
    /// `sameOrigin` asks to stay inside.
    func liveURL(for archived: String) -> String {
        guard let origin, archived.hasPrefix(origin.archived) else { return archived }
        return origin.live + archived.dropFirst(origin.archived.count)
    }

    /// The archived URL for a live one (a redirect target), the mapping undone.
    func archivedURL(for live: String) -> String {
        guard let origin, live.hasPrefix(origin.live) else { return live }
        return origin.archived + live.dropFirst(origin.live.count)
    }
}
