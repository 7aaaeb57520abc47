import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import WebArc
import WebArcReplay

/// Asks an origin about one stored response: a conditional GET that does not follow redirects,
/// its body collected up to a limit.
struct OriginFetcher: Sendable {
    let client: HTTPClient
    let options: RefreshOptions

    /// The outcome of asking `live` (the archived URL `archived`) about `response`, and the body
    /// bytes received.
    func ask(_ response: ResponseRecord, archived: String, live: String, previous: @Sendable () throws -> [UInt8]) async -> Answer {
        var request = HTTPClientRequest(url: live)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: "webarc-refresh/2.1")
        for (name, value) in OriginValidators.headers(for: response) { request.headers.add(name: name, value: value) }
        do {
            let answer = try await client.execute(request, timeout: .milliseconds(Int64(options.timeout * 1000)))
            let status = Int(answer.status.code)
            let headers = answer.headers.map { HTTPHeader($0.name, $0.value) }
            switch status {
            case 304:
                return Answer(outcome: .unchanged, bytes: 0, notModified: true)
            case 404, 410:
                return Answer(outcome: .gone)
            case 301, 302, 303, 307, 308:
                guard let location = answer.headers.first(name: "location"),
                    let target = URL(string: location, relativeTo: URL(string: live))?.absoluteURL.absoluteString
                else { return Answer(outcome: .failed("\(status) without a usable Location")) }
                return Answer(outcome: .redirected(status: status, target: options.archivedURL(for: target), headers: Self.stored(headers)))
            case 200...299, 400...499:
                let body = Array(buffer: try await answer.body.collect(upTo: options.maxBodyBytes))
                if status == response.status, let old = try? previous(), old == body { return Answer(outcome: .unchanged, bytes: body.count) }
                return Answer(outcome: .changed(status: status, reason: nil, headers: Self.stored(headers, length: body.count), body: body), bytes: body.count)
            default:
                return Answer(outcome: .failed("HTTP \(status)"))
            }
        } catch {
            return Answer(outcome: .failed(String(describing: error)), unreachable: true)
        }
    }

    /// One answer: its outcome, the body bytes received, whether it was a 304, and whether the
    /// origin could not be reached at all (no HTTP answer).
    struct Answer: Sendable {
        var outcome: RefreshOutcome
        var bytes = 0
        var notModified = false
        var unreachable = false
    }

    /// Headers as an archive stores them (spec §7.3): none of the hop-by-hop and length headers
    /// replay never sends (``StoredHeaders/dropped``), `Content-Length` that of the stored body.
    static func stored(_ headers: [HTTPHeader], length: Int? = nil) -> [HTTPHeader] {
        var kept = headers.filter { !StoredHeaders.dropped.contains($0.name.lowercased()) }
        if let length { kept.append(HTTPHeader("Content-Length", String(length))) }
        return kept
    }
}
