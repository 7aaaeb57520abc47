import Foundation
import WebArc

/// What the live origin said about one archived response.
public enum RefreshOutcome: Sendable, Equatable {
    /// 304, or the stored status with the same bytes: the record stays, its capture date moves
    /// forward when ``RefreshOptions/redate`` is set.
    case unchanged
    /// 2xx with other bytes (or the stored error status with other bytes): the new response.
    case changed(status: Int, reason: String?, headers: [HTTPHeader], body: [UInt8])
    /// 404 or 410: the URL is gone (a tombstone in the update).
    case gone
    /// 301, 302, 303, 307 or 308: the URL now redirects to `target` (absolute, archived URL space).
    case redirected(status: Int, target: String, headers: [HTTPHeader])
    /// An error status, no answer, or an answer that cannot be stored: the stored record is kept as
    /// it was and nothing about this URL goes into the update.
    case keptAfterError(KeptReason)
}

/// Why a refresh kept a stored record instead of replacing it with the origin's answer.
public enum KeptReason: Sendable, Equatable, CustomStringConvertible {
    /// An error status other than the stored one (401, 403, 407, 408, 429, 451, any other 4xx but
    /// 404/410, every 5xx), or a status a refresh cannot store (1xx, 300, 305); `retries`: how
    /// often the URL was asked again as the answer's `Retry-After` said.
    case status(Int, retries: Int)
    /// 429 or 503 asking to wait `seconds`, longer than ``RefreshOptions/maxRetryAfter`` (`limit`).
    case retryAfterTooLong(status: Int, seconds: TimeInterval, limit: TimeInterval)
    /// No answer within ``RefreshOptions/timeout`` seconds (connecting, waiting or reading the body).
    case timedOut(seconds: TimeInterval)
    /// No HTTP answer: connection refused, reset or closed, a TLS failure; the underlying error.
    case noAnswer(String)
    /// Not asked: the `failures` requests before it to the same origin got no answer at all.
    case originUnreachable(failures: Int)
    /// The body was larger than ``RefreshOptions/maxBodyBytes`` (`limit`).
    case bodyTooLarge(limit: Int)
    /// A redirect status without a usable `Location`.
    case redirectWithoutLocation(status: Int)

    /// One line, lower case: what the origin did.
    public var description: String {
        switch self {
        case .status(let status, let retries):
            retries == 0
                ? "HTTP \(status)"
                : "HTTP \(status) after \(retries) \(retries == 1 ? "retry" : "retries") as its Retry-After asked"
        case .retryAfterTooLong(let status, let seconds, let limit):
            "HTTP \(status) asking to retry after \(Self.seconds(seconds)), more than the \(Self.seconds(limit)) allowed"
        case .timedOut(let seconds): "no answer within \(Self.seconds(seconds))"
        case .noAnswer(let error): "no answer: \(error)"
        case .originUnreachable(let failures):
            "not asked: the \(failures) requests before it to this origin got no answer"
        case .bodyTooLarge(let limit): "body larger than \(limit) bytes"
        case .redirectWithoutLocation(let status): "HTTP \(status) without a usable Location"
        }
    }

    /// `12 s`, `0.5 s`.
    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value)) s" : "\(value) s"
    }
}

/// A stored record a refresh kept after an error, and why.
public struct KeptRecord: Sendable, Equatable, CustomStringConvertible {
    /// The URL asked (after ``RefreshOptions/origin`` mapping).
    public var url: String
    /// What the origin did.
    public var reason: KeptReason

    /// A kept record of `url`, for `reason`.
    public init(url: String, reason: KeptReason) {
        self.url = url
        self.reason = reason
    }

    /// `URL: reason`.
    public var description: String { "\(url): \(reason)" }
}

/// Counts of a refresh, by outcome.
public struct RefreshSummary: Sendable, Equatable {
    /// GET responses in the archive, asked or not: what ``changeShare`` is a share of.
    public var stored = 0
    /// Responses asked again.
    public var asked = 0
    /// Answered 304.
    public var notModified = 0
    /// 304 or the same bytes.
    public var unchanged = 0
    /// Answered with other bytes: a changed record in the update.
    public var changed = 0
    /// Answered 404 or 410: a tombstone in the update.
    public var gone = 0
    /// Answered with a redirect: a redirect record in the update.
    public var redirected = 0
    /// Kept as stored after an error status or no answer (``kept`` says which and why).
    public var keptAfterError = 0
    /// Requests asked again after a 429 or 503 whose `Retry-After` said when.
    public var retried = 0
    /// Responses not asked (younger than `olderThan`, not GET, outside the origin).
    public var skipped = 0
    /// Body bytes received from the origin.
    public var bytesFetched: UInt64 = 0
    /// The update's own summary.
    public var update = UpdateBuilder.Summary()
    /// Each record kept after an error, in the order the answers came.
    public var kept: [KeptRecord] = []

    /// Changed, redirected and deleted responses as a share of the stored GET responses (0 to 1).
    public var changeShare: Double {
        stored == 0 ? 0 : Double(changed + redirected + gone) / Double(stored)
    }
}
