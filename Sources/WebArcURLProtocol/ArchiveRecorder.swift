import Foundation
import Synchronization
import WebArc
import WebArcReplay

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records live HTTP traffic into a new archive: each request, response, body and redirect hop.
///
/// ```swift
/// let recorder = try ArchiveRecorder(path: "site.webarc")
/// let exchange = try await recorder.record(URLRequest(url: URL(string: "https://example.com/")!))
/// try recorder.finish()
/// ```
///
/// Requests go to the network through an inner session that no webarc handler intercepts (see
/// ``RecordingURLProtocol`` to record an app's own traffic). Redirects are followed and each hop
/// is stored as a redirect record, so that ``ArchiveURLProtocol`` replays the same chain to the
/// same final response. Bodies are deduplicated as they are stored. Many exchanges may run at
/// once: each body waits in its own spool (memory up to 1 MiB, then a temporary file) and goes
/// into the writer whole, under a lock.
///
/// ``finish()`` is the close, and the only thing that writes the archive: nothing appears at the
/// path until it succeeds. A recorder that is dropped without ``finish()`` (or ``cancel()``led)
/// leaves no file, and everything it recorded is lost; there is no close on deinit.
public final class ArchiveRecorder: Sendable {
    /// Counts of what the recorder has done so far.
    public struct Statistics: Equatable, Sendable {
        /// Responses stored.
        public var responses = 0
        /// Redirect hops stored.
        public var redirects = 0
        /// Exchanges that ended in an error (nothing stored for them but redirect hops).
        public var failures = 0
        /// Distinct bodies stored.
        public var bodiesStored = 0
        /// Bodies found already stored.
        public var bodiesDeduplicated = 0
        /// Uncompressed bytes of every body received.
        public var bodyBytes: UInt64 = 0

        /// Makes statistics; every count defaults to zero.
        public init(
            responses: Int = 0, redirects: Int = 0, failures: Int = 0, bodiesStored: Int = 0,
            bodiesDeduplicated: Int = 0,
            bodyBytes: UInt64 = 0
        ) {
            self.responses = responses
            self.redirects = redirects
            self.failures = failures
            self.bodiesStored = bodiesStored
            self.bodiesDeduplicated = bodiesDeduplicated
            self.bodyBytes = bodyBytes
        }
    }

    /// One recorded exchange, as ``ArchiveRecorder/record(_:keepingBodyUpTo:following:)`` returns it.
    public struct Exchange: Sendable {
        /// The redirect hops followed, in order.
        public var redirects: [RedirectRecord]
        /// The final response as stored.
        public var response: ResponseRecord
        /// The body, when it was no longer than the limit asked for.
        public var body: Data?
    }

    private struct State {
        var writer: ArchiveWriter?
        var statistics = Statistics()
    }

    private let state: Mutex<State>
    private let network: LiveSession
    let path: String

    /// Starts a recording that will appear at `path` when finished.
    ///
    /// - Parameters:
    ///   - path: where the archive appears.
    ///   - options: whether an existing file may be replaced.
    ///   - metadata: archive metadata (start URL, creator…), written as is.
    ///   - configuration: the inner session's settings (timeouts, headers); its protocol classes
    ///     are stripped of webarc handlers.
    /// - Throws: `outputExists` when `path` exists and `options.overwrite` is false; `io`.
    public init(
        path: String, options: ArchiveWriter.Options = ArchiveWriter.Options(),
        metadata: ArchiveMetadata = ArchiveMetadata(),
        configuration: URLSessionConfiguration = .ephemeral
    ) throws {
        let writer = try ArchiveWriter(path: path, options: options)
        writer.metadata = metadata
        state = Mutex(State(writer: writer))
        network = LiveSession(configuration: configuration)
        self.path = path
    }

    /// What has been recorded so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Fetches `request` from the network and stores the exchange.
    ///
    /// - Parameters:
    ///   - request: the request to send.
    ///   - limit: return the body in ``Exchange/body`` when it is at most this many
    ///     bytes (0 keeps none).
    ///   - follows: whether to follow a live redirect to a URL (every one by default). A refused
    ///     hop is stored as a redirect record, and its target is not fetched.
    /// - Throws: the transport's `URLError` (nothing is stored); ``WebArcURLProtocolError`` for a
    ///   redirect loop or too many redirects (the hops are stored, so replay fails the same way),
    ///   for a redirect `follows` refused (`redirectNotFollowed`, the hops are stored and it is
    ///   not counted as a failure), for a recorder already finished, or for an exchange the
    ///   writer refuses.
    public func record(
        _ request: URLRequest, keepingBodyUpTo limit: Int = 0,
        following follows: @escaping @Sendable (URL) -> Bool = { _ in true }
    ) async throws -> Exchange {
        let (exchange, spool) = try await perform(request) { $0.url.map(follows) ?? false }
        return Exchange(redirects: exchange.redirects, response: exchange.response, body: try spool.bytes(upTo: limit))
    }

    /// Closes the recorder: writes the archive and renames it into place. Call it once recording
    /// is done; a recorder dropped without it leaves no file. Later exchanges fail with
    /// `recorderClosed`.
    ///
    /// - Throws: `WebArcError` (`io`, `outputExists`, `writerClosed` when already finished).
    public func finish() throws {
        let writer = state.withLock { state in
            defer { state.writer = nil }
            return Unchecked(state.writer)
        }
        guard let writer = writer.value else { throw WebArcError.writerClosed }
        try writer.finish()
    }

    /// Abandons the recording: nothing is written, the temporary file is removed, and later
    /// exchanges fail. Dropping an unfinished recorder has the same effect.
    public func cancel() {
        state.withLock { state in
            state.writer?.cancel()
            state.writer = nil
        }
    }

    /// Fetches and stores one exchange, and hands back the body's spool for relaying.
    func perform(
        _ request: URLRequest, following follows: @escaping @Sendable (URLRequest) -> Bool = { _ in true }
    )
        async throws -> (Exchange, BodySpool)
    {
        guard let firstURL = request.url else { throw WebArcURLProtocolError.badURL(url: "") }
        var method = request.httpMethod?.uppercased() ?? "GET"
        var hopRequest = LiveRecords.request(request, url: firstURL, method: method)
        var redirects: [RedirectRecord] = []
        var head: HTTPURLResponse?
        let spool = BodySpool()
        do {
            for try await event in network.events(for: request, following: follows) {
                switch event {
                case .redirect(let response, let next):
                    if let hop = LiveRecords.redirect(response, to: next, from: hopRequest, date: Date()) {
                        redirects.append(hop)
                    }
                    method =
                        next.httpMethod?.uppercased() ?? RedirectChain.method(after: response.statusCode, from: method)
                    hopRequest = LiveRecords.request(request, url: next.url ?? firstURL, method: method)
                case .response(let response):
                    head = response
                case .data(let data):
                    try spool.append(data)
                }
            }
        } catch let error as WebArcURLProtocolError {
            try store(redirects: redirects, for: firstURL)
            if case .redirectNotFollowed = error {} else { count { $0.failures += 1 } }
            throw error
        } catch {
            count { $0.failures += 1 }
            throw error
        }
        guard let head else {
            count { $0.failures += 1 }
            throw URLError(.badServerResponse, userInfo: [NSURLErrorFailingURLErrorKey: firstURL])
        }
        let response = try store(head, request: hopRequest, body: spool, redirects: redirects)
        return (Exchange(redirects: redirects, response: response, body: nil), spool)
    }

    private func store(
        _ head: HTTPURLResponse, request: RequestRecord, body: BodySpool, redirects: [RedirectRecord]
    ) throws
        -> ResponseRecord
    {
        let contentType = ContentTypeParts.of(head.value(forHTTPHeaderField: "Content-Type"))
        return try withWriter(url: request.url) { writer, statistics in
            let stored = try body.store(in: writer)
            let response = ResponseRecord(
                request: request, status: head.statusCode,
                headers: LiveRecords.headers(of: head, bodyLength: body.length),
                mimeType: contentType.mimeType, textEncoding: contentType.textEncoding, body: stored,
                captureDate: Date())
            for redirect in redirects { try writer.add(redirect) }
            try writer.add(response)
            statistics.responses += 1
            statistics.redirects += redirects.count
            statistics.bodyBytes += stored.length
            if stored.wasDeduplicated { statistics.bodiesDeduplicated += 1 } else { statistics.bodiesStored += 1 }
            return response
        }
    }

    private func store(redirects: [RedirectRecord], for url: URL) throws {
        guard !redirects.isEmpty else { return }
        try withWriter(url: url.absoluteString) { writer, statistics in
            for redirect in redirects { try writer.add(redirect) }
            statistics.redirects += redirects.count
        }
    }

    private func withWriter<T: Sendable>(url: String, _ body: (ArchiveWriter, inout Statistics) throws -> T) throws -> T
    {
        try state.withLock { state in
            guard let writer = state.writer else { throw WebArcURLProtocolError.recorderClosed(url: url) }
            do {
                return try body(writer, &state.statistics)
            } catch let error as WebArcError {
                if case .writerClosed = error { state.writer = nil }
                throw WebArcURLProtocolError.recording(url: url, error: error)
            }
        }
    }

    private func count(_ change: (inout Statistics) -> Void) {
        state.withLock { change(&$0.statistics) }
    }
}

/// A value moved out of a lock by its only owner.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
