import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import WebArc
import WebArcReplay

/// Asks an origin about one stored response: a conditional GET that does not follow redirects,
/// its body collected up to a limit, asked again when a 429 or 503 says when.
///
/// A refresh never replaces a stored response with an error: 404 and 410 delete the URL, 2xx and
/// redirects replace it, and every other status (401, 403, 407, 408, 429, 451, 5xx, …) or a
/// request without an answer keeps the record, unless the stored response has that same error
/// status (an archived 403 page may be updated by a newer 403 page).
struct OriginFetcher: Sendable {
    let client: HTTPClient
    let options: RefreshOptions

    /// The outcome of asking `live` about `response`, and what it cost.
    ///
    /// - Parameters:
    ///   - mayRetry: whether a 429 or 503 with a `Retry-After` of at most
    ///     ``RefreshOptions/maxRetryAfter`` is waited for and asked again (up to
    ///     ``RefreshOptions/retryLimit`` times).
    ///   - previous: the stored body, read only when the origin sent a body with the stored status.
    func ask(
        _ response: ResponseRecord, live: String, mayRetry: Bool, previous: @Sendable () throws -> [UInt8]
    ) async -> Answer {
        var retries = 0
        while true {
            do {
                let answer = try await client.execute(
                    request(for: response, live: live), timeout: .milliseconds(Int64(options.timeout * 1000)))
                let status = Int(answer.status.code)
                var refused = false
                if status == 429 || status == 503,
                    let wait = RetryAfter.seconds(answer.headers.first(name: "retry-after"), now: Date())
                {
                    guard wait <= options.maxRetryAfter else {
                        let reason = KeptReason.retryAfterTooLong(
                            status: status, seconds: wait, limit: options.maxRetryAfter)
                        return Answer(outcome: .keptAfterError(reason), retries: retries, refusedAfterRetries: true)
                    }
                    if mayRetry && retries < options.retryLimit {
                        // Read the rest of the refusal so that its connection can serve the retry.
                        _ = try? await answer.body.collect(upTo: 1 << 20)
                        retries += 1
                        try await Task.sleep(for: .seconds(wait))
                        continue
                    }
                    refused = true
                }
                var result = try await classify(
                    answer, status: status, response: response, live: live, retries: retries, previous: previous)
                result.retries = retries
                result.refusedAfterRetries = refused
                return result
            } catch is NIOTooManyBytesError {
                return Answer(outcome: .keptAfterError(.bodyTooLarge(limit: options.maxBodyBytes)), retries: retries)
            } catch let error as HTTPClientError where Self.timeouts.contains(error) {
                return Answer(
                    outcome: .keptAfterError(.timedOut(seconds: options.timeout)), retries: retries, unreachable: true)
            } catch {
                return Answer(
                    outcome: .keptAfterError(.noAnswer(Self.describe(error))), retries: retries, unreachable: true)
            }
        }
    }

    /// A conditional GET of `live` with the validators `response`'s origin gave.
    func request(for response: ResponseRecord, live: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: live)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: "webarc-refresh/2.1")
        for (name, value) in OriginValidators.headers(for: response) { request.headers.add(name: name, value: value) }
        return request
    }

    /// What an HTTP answer means for the stored `response`.
    func classify(
        _ answer: HTTPClientResponse, status: Int, response: ResponseRecord, live: String, retries: Int,
        previous: @Sendable () throws -> [UInt8]
    ) async throws -> Answer {
        let headers = answer.headers.map { HTTPHeader($0.name, $0.value) }
        switch status {
        case 304:
            return Answer(outcome: .unchanged, notModified: true)
        case 404, 410:
            return Answer(outcome: .gone)
        case 301, 302, 303, 307, 308:
            guard let location = answer.headers.first(name: "location"),
                let target = URL(string: location, relativeTo: URL(string: live))?.absoluteURL.absoluteString
            else { return Answer(outcome: .keptAfterError(.redirectWithoutLocation(status: status))) }
            return Answer(
                outcome: .redirected(
                    status: status, target: options.archivedURL(for: target), headers: Self.stored(headers)))
        case 200...299:
            break
        default:
            // An error never replaces a stored response, except one archived with that same status.
            guard status == response.status, status >= 400 else {
                return Answer(outcome: .keptAfterError(.status(status, retries: retries)))
            }
        }
        let body = Array(buffer: try await answer.body.collect(upTo: options.maxBodyBytes))
        if status == response.status, let old = try? previous(), old == body {
            return Answer(outcome: .unchanged, bytes: body.count)
        }
        return Answer(
            outcome: .changed(
                status: status, reason: nil, headers: Self.stored(headers, length: body.count), body: body),
            bytes: body.count)
    }

    /// One answer: its outcome, the body bytes received, whether it was a 304, whether the origin
    /// could not be reached at all (no HTTP answer), the retries after `Retry-After`, and whether
    /// the origin still refused with 429 or 503 when it had no retry left (or asked for too long a
    /// wait).
    struct Answer: Sendable {
        var outcome: RefreshOutcome
        var bytes = 0
        var notModified = false
        var retries = 0
        var refusedAfterRetries = false
        var unreachable = false
    }

    /// The client errors that mean the origin did not answer in time.
    static let timeouts: [HTTPClientError] = [.deadlineExceeded, .readTimeout, .connectTimeout, .tlsHandshakeTimeout]

    /// A transport error in words.
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed {
            return "the connection was closed before an answer"
        }
        return String(describing: error)
    }

    /// Headers as an archive stores them (spec §7.3): none of the hop-by-hop and length headers
    /// replay never sends (``StoredHeaders/dropped``), `Content-Length` that of the stored body.
    static func stored(_ headers: [HTTPHeader], length: Int? = nil) -> [HTTPHeader] {
        var kept = headers.filter { !StoredHeaders.dropped.contains($0.name.lowercased()) }
        if let length { kept.append(HTTPHeader("Content-Length", String(length))) }
        return kept
    }
}
