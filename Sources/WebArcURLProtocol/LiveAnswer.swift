import Foundation
import WebArc
import WebArcReplay

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A whole live exchange, fetched for the cache policies: the redirect hops followed, the final
/// response head and its body in memory.
///
/// Bodies are held whole because each one is both delivered to the caller and kept until the
/// writable layer is rewritten with it; an app cache fetches pages, not disk images.
struct LiveAnswer: Sendable {
    /// Each followed hop: the redirect response and the request it led to.
    var hops: [(response: HTTPURLResponse, next: URLRequest)]
    /// The final response head.
    var head: HTTPURLResponse
    /// The final response body.
    var body: Data

    /// The statuses a cache stores: full 2xx answers, and 404 / 410 (a deleted page).
    static func isStorable(status: Int) -> Bool {
        (200...299).contains(status) && status != 206 || status == 404 || status == 410
    }

    /// Fetches `request` through `session`; cancelling the calling task cancels the fetch.
    ///
    /// - Throws: the transport's `URLError`, or a ``WebArcURLProtocolError`` for a redirect loop.
    static func fetch(_ request: URLRequest, through session: LiveSession) async throws -> LiveAnswer {
        var hops: [(HTTPURLResponse, URLRequest)] = []
        var head: HTTPURLResponse?
        var body = Data()
        for try await event in session.events(for: request) {
            switch event {
            case .redirect(let response, let next): hops.append((response, next))
            case .response(let response): head = response
            case .data(let data): body.append(data)
            }
        }
        guard let head else {
            throw URLError(.badServerResponse, userInfo: [NSURLErrorFailingURLErrorKey: request.url as Any])
        }
        return LiveAnswer(hops: hops, head: head, body: body)
    }

    /// The layer entries that store this exchange for `request` (its hops as redirect records, its
    /// final response), or none when the final status is not one a cache keeps.
    func layerEntries(for request: URLRequest, date: Date = Date()) -> [LayerEntry] {
        guard Self.isStorable(status: head.statusCode), let firstURL = request.url else { return [] }
        var method = request.httpMethod?.uppercased() ?? "GET"
        var hopRequest = LiveRecords.request(Self.unconditional(request), url: firstURL, method: method)
        var entries: [LayerEntry] = []
        for (response, next) in hops {
            if let hop = LiveRecords.redirect(response, to: next, from: hopRequest, date: date) {
                entries.append(.redirect(hop))
            }
            method = next.httpMethod?.uppercased() ?? RedirectChain.method(after: response.statusCode, from: method)
            hopRequest = LiveRecords.request(Self.unconditional(request), url: next.url ?? firstURL, method: method)
        }
        let contentType = ContentTypeParts.of(head.value(forHTTPHeaderField: "Content-Type"))
        entries.append(
            .response(
                LayerResponse(
                    request: hopRequest, status: head.statusCode,
                    headers: LiveRecords.headers(of: head, bodyLength: body.count),
                    mimeType: contentType.mimeType, textEncoding: contentType.textEncoding, captureDate: date,
                    body: .bytes(body))))
        return entries
    }

    /// Request headers that ask for part of a body or for a conditional answer: a cache removes
    /// the caller's before asking the origin for a whole response to store.
    static let conditionalHeaders: Set<String> = [
        "if-none-match", "if-modified-since", "if-match", "if-unmodified-since", "if-range", "range",
    ]

    /// `request` without ``conditionalHeaders``.
    static func unconditional(_ request: URLRequest) -> URLRequest {
        var plain = request
        for name in (request.allHTTPHeaderFields ?? [:]).keys where conditionalHeaders.contains(name.lowercased()) {
            plain.setValue(nil, forHTTPHeaderField: name)
        }
        return plain
    }

    /// Sends this answer to the caller through `load`: the head, then the body as `delivery` wants it.
    func deliver(through load: ProtocolLoad, _ delivery: BodyDelivery) {
        guard load.receive(head) else { return }
        var start = 0
        let body = self.body
        let sent = try? delivery.send(through: load, length: body.count) {
            guard start < body.count else { return nil }
            defer { start += BodySpool.pieceSize }
            return [UInt8](body[start..<min(start + BodySpool.pieceSize, body.count)])
        }
        if sent == true { load.finish() }
    }
}
