import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// One HTTP response as the remote sources use it: status, headers, body, the URL it came from.
struct FetchedResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var bytes: [UInt8]
    /// The URL that answered, after redirects.
    var finalURL: String
}

/// The bytes a request asks for: `count` bytes at `offset`, the last `count` bytes, or everything
/// from `offset` on.
enum ByteRange: Sendable, Equatable, CustomStringConvertible {
    case span(UInt64, Int)
    case suffix(Int)
    case from(UInt64)

    /// The `Range` header's value after `bytes=`.
    var description: String {
        switch self {
        case .span(let offset, let count): "\(offset)-\(offset + UInt64(count) - 1)"
        case .suffix(let count): "-\(count)"
        case .from(let offset): "\(offset)-"
        }
    }
}

/// AsyncHTTPClient with the retry policy of ``RemoteConfiguration``: one shared client per
/// timeout setting, kept for the life of the process (their event loops are NIO's singleton
/// group, never the caller's thread).
final class RemoteClient: Sendable {
    let client: HTTPClient
    let configuration: RemoteConfiguration
    let tls: TLSConfiguration?
    private let requestCount = Atomic<Int>(0)
    private let byteCount = Atomic<Int>(0)

    private struct Key: Hashable {
        let connect: TimeInterval
        let read: TimeInterval
        let redirects: Int
        let http1Only: Bool
    }

    private static let clients = Mutex<[Key: HTTPClient]>([:])
    /// Time zero of the trace's `at` figures (the first client made).
    private static let epoch = NIODeadline.now()

    /// - Parameter http1Only: for long streaming transfers: HTTP/1.1 connections (one per request
    ///   in flight), which TCP alone paces, instead of HTTP/2 streams held back by its flow-control
    ///   windows on a long round trip (measurements: Tools/bench/NOTES.md, 'RemoteClient').
    init(configuration: RemoteConfiguration, http1Only: Bool = false) {
        _ = Self.epoch
        self.configuration = configuration
        let key = Key(
            connect: configuration.connectTimeout, read: configuration.readTimeout,
            redirects: configuration.maxRedirects,
            http1Only: http1Only)
        client = Self.clients.withLock { clients in
            if let client = clients[key] { return client }
            var settings = HTTPClient.Configuration(
                redirectConfiguration: .follow(max: key.redirects, allowCycles: false),
                timeout: .init(
                    connect: .nanoseconds(Int64(key.connect * 1e9)), read: .nanoseconds(Int64(key.read * 1e9))),
                decompression: .disabled)
            if key.http1Only { settings.httpVersion = .http1Only }
            // The pool's own retries wait out the whole connect timeout before reporting anything,
            // so an untrusted certificate took a timeout to fail and a refused connection several:
            // a failed attempt fails at once here, and `attempt` retries what is worth retrying.
            settings.connectionPool.retryConnectionEstablishment = false
            // Over HTTP/1.1 each read in flight takes a connection of its own: as many are kept as
            // a search keeps reads in flight, and made ahead once the first is open, so that a wave
            // of reads does not wait a round trip for each connection it adds.
            settings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 16
            if !key.http1Only { settings.connectionPool.preWarmedHTTP1ConnectionCount = 8 }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
            clients[key] = client
            return client
        }
        switch configuration.effectiveTrustRoots {
        case .default:
            tls = nil
        case let roots:
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = roots
            self.tls = tls
        }
    }

    /// Requests sent and body bytes received so far.
    var statistics: (requests: Int, bytes: UInt64) {
        (requestCount.load(ordering: .relaxed), UInt64(byteCount.load(ordering: .relaxed)))
    }

    /// GETs `range` of `url` (the whole file when nil), retrying 5xx answers, resets, closed
    /// connections and timeouts with exponential backoff.
    ///
    /// - Parameters:
    ///   - maxBytes: a longer body fails with `rangesNotSupported` (a 200 to a range request) or
    ///     `badResponse`, without being read to its end.
    ///   - stream: when set, body bytes go to it as they arrive instead of into the response.
    func get(
        _ url: String, range: ByteRange?, validator: Validator?, maxBytes: Int, stream: BodyStream? = nil
    ) -> EventLoopFuture<FetchedResponse> {
        let loop = client.eventLoopGroup.any()
        let promise = loop.makePromise(of: FetchedResponse.self)
        attempt(1, url: url, range: range, validator: validator, maxBytes: maxBytes, stream: stream, promise: promise)
        return promise.futureResult
    }

    private func attempt(
        _ attempt: Int, url: String, range: ByteRange?, validator: Validator?, maxBytes: Int, stream: BodyStream?,
        promise: EventLoopPromise<FetchedResponse>
    ) {
        let started = NIODeadline.now()
        let shown = range.map { "bytes=\($0)" } ?? "whole file"
        @Sendable func retry(_ reason: String) -> Bool {
            guard attempt <= configuration.retries else { return false }
            let delay = configuration.delay(beforeRetry: attempt)
            configuration.trace?(
                "webarc: retry \(attempt)/\(configuration.retries) of GET \(url) \(shown) in \(String(format: "%.2f", delay)) s: \(reason)"
            )
            promise.futureResult.eventLoop.scheduleTask(in: .nanoseconds(Int64(delay * 1e9))) {
                self.attempt(
                    attempt + 1, url: url, range: range, validator: validator, maxBytes: maxBytes, stream: stream,
                    promise: promise)
            }
            return true
        }
        var headers = HTTPHeaders()
        headers.add(name: "User-Agent", value: configuration.userAgent)
        headers.add(name: "Accept-Encoding", value: "identity")
        if let range { headers.add(name: "Range", value: "bytes=\(range)") }
        if let precondition = validator?.precondition {
            headers.add(name: precondition.name, value: precondition.value)
        }
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: url, method: .GET, headers: headers, tlsConfiguration: tls)
        } catch {
            promise.fail(RemoteError.badURL(url: url))
            return
        }
        requestCount.wrappingAdd(1, ordering: .relaxed)
        let delegate = CollectingDelegate(url: url, expectRange: range != nil, maxBytes: maxBytes, stream: stream)
        client.execute(request: request, delegate: delegate).futureResult.whenComplete { result in
            let milliseconds = Double((NIODeadline.now() - started).nanoseconds) / 1e6
            switch result {
            case .success(let response):
                self.byteCount.wrappingAdd(delegate.received, ordering: .relaxed)
                let at = Double((started - Self.epoch).nanoseconds) / 1e6
                self.configuration.trace?(
                    "webarc: GET \(url) \(shown) -> \(response.status), \(delegate.received) bytes, at \(String(format: "%.1f", at)) ms, "
                        + "took \(String(format: "%.1f", milliseconds)) ms")
                if [500, 502, 503, 504].contains(response.status), stream?.hasData != true,
                    retry("HTTP \(response.status)")
                {
                    return
                }
                promise.succeed(response)
            case .failure(let error):
                self.byteCount.wrappingAdd(delegate.received, ordering: .relaxed)
                let mapped = Self.map(error, url: url, range: range)
                if stream?.isDone == true {
                    // Ended on purpose: the stream has its bytes (the rest is another request's).
                    let at = Double((started - Self.epoch).nanoseconds) / 1e6
                    self.configuration.trace?(
                        "webarc: GET \(url) \(shown) -> \(delegate.status), \(delegate.received) bytes, at \(String(format: "%.1f", at)) ms, "
                            + "took \(String(format: "%.1f", milliseconds)) ms, stopped at its end")
                } else {
                    self.configuration.trace?(
                        "webarc: GET \(url) \(shown) failed after \(String(format: "%.1f", milliseconds)) ms: \(mapped)"
                    )
                }
                if Self.isRetryable(mapped), stream?.hasData != true, stream?.isDone != true, retry(mapped.description)
                {
                    return
                }
                promise.fail(mapped)
            }
        }
    }

    /// Translates the client's errors into ``RemoteError``s naming the URL.
    static func map(_ error: any Error, url: String, range: ByteRange?) -> RemoteError {
        if let error = error as? RemoteError { return error }
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout, .connectTimeout, .deadlineExceeded, .writeTimeout:
                return .timedOut(url: url, range: range?.description)
            case .invalidURL, .emptyHost, .emptyScheme:
                return .badURL(url: url)
            case .redirectLimitReached, .redirectCycleDetected:
                return .badResponse(url: url, reason: "\(error)")
            default:
                return .connection(url: url, reason: "\(error)")
            }
        }
        if let error = error as? NIOSSLError {
            if case .uncleanShutdown = error { return .connection(url: url, reason: "TLS connection closed early") }
            return .tls(url: url, reason: tlsReason(error))
        }
        if error is BoringSSLError || error is NIOSSLExtraError { return .tls(url: url, reason: tlsReason(error)) }
        if let error = error as? IOError { return connectionFailure(url: url, errno: error.errnoCode) }
        if let error = error as? NIOConnectionError {
            if let io = error.connectionErrors.first?.error as? IOError {
                return connectionFailure(url: url, errno: io.errnoCode)
            }
            // No address to try (the name did not resolve) or none that answered.
            return .unreachable(url: url, reason: error.connectionErrors.first.map { "\($0.error)" } ?? "\(error)")
        }
        return .connection(url: url, reason: "\(error)")
    }

    /// A failed socket call: `unreachable` when no connection could be made (refused, no route),
    /// `connection` otherwise (reset, broken pipe: a connection that was made and failed).
    static func connectionFailure(url: String, errno code: CInt) -> RemoteError {
        let reason = connectionReason(code)
        return [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL].contains(code)
            ? .unreachable(url: url, reason: reason) : .connection(url: url, reason: reason)
    }

    /// BoringSSL's reason code (`CERTIFICATE_VERIFY_FAILED`) with what it means for the user,
    /// instead of the library's nested error dump; the dump when it names no code.
    static func tlsReason(_ error: any Error) -> String {
        let text = "\(error)"
        guard let code = text.firstMatch(of: /OPENSSL_internal:([A-Z0-9_]+)/)?.1 else { return text }
        switch code {
        case "CERTIFICATE_VERIFY_FAILED": return "the server's certificate is not trusted (CERTIFICATE_VERIFY_FAILED)"
        default: return String(code)
        }
    }

    /// The system's words for a failed connection (`connection refused`), with its errno.
    static func connectionReason(_ code: CInt) -> String {
        "\(String(cString: strerror(code)).lowercased()) (errno \(code))"
    }

    static func isRetryable(_ error: RemoteError) -> Bool {
        switch error {
        case .timedOut, .connection, .unreachable: true
        default: false
        }
    }
}

/// Where a streamed body goes, part by part (``DownloadedByteSource``).
protocol BodyStream: AnyObject, Sendable {
    /// Called with the response head before any body part; throwing ends the request.
    func begin(status: Int, headers: HTTPHeaders) throws
    /// Called with each body part in order; throwing ends the request.
    func write(_ buffer: ByteBuffer) throws
    /// True once a body part was written (a retry would then repeat bytes; the stream resumes instead).
    var hasData: Bool { get }
    /// True once the stream holds all it wants: a request it ended then is not retried.
    var isDone: Bool { get }
}

/// Collects one response, refusing a body over `maxBytes` as soon as its head or its bytes say so.
///
/// AsyncHTTPClient calls a delegate on the request's event loop only, one call at a time, which
/// is what makes its unsynchronised state safe (hence `@unchecked Sendable`).
final class CollectingDelegate: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = FetchedResponse

    let url: String
    let expectRange: Bool
    let maxBytes: Int
    let stream: BodyStream?
    /// The response's status, once its head arrived.
    private(set) var status = 0
    private var headers = HTTPHeaders()
    private var body: [UInt8] = []
    private var finalURL: String
    private let receivedCount = Atomic<Int>(0)

    var received: Int { receivedCount.load(ordering: .relaxed) }

    init(url: String, expectRange: Bool, maxBytes: Int, stream: BodyStream?) {
        self.url = url
        self.expectRange = expectRange
        self.maxBytes = maxBytes
        self.stream = stream
        finalURL = url
    }

    func didVisitURL(task: HTTPClient.Task<FetchedResponse>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        finalURL = request.url.absoluteString
    }

    func didReceiveHead(task: HTTPClient.Task<FetchedResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        status = Int(head.status.code)
        headers = head.headers
        let length = head.headers.first(name: "content-length").flatMap { Int($0) }
        // An error page's body is not kept (nor limited): the status says what went wrong.
        guard (200..<300).contains(status) else { return task.eventLoop.makeSucceededVoidFuture() }
        if let length, length > maxBytes {
            let error: RemoteError =
                expectRange && status == 200
                ? .rangesNotSupported(url: url)
                : .badResponse(url: url, reason: "HTTP \(status) with \(length) bytes, at most \(maxBytes) expected")
            return task.eventLoop.makeFailedFuture(error)
        }
        if let stream {
            do { try stream.begin(status: status, headers: headers) } catch {
                return task.eventLoop.makeFailedFuture(error)
            }
        } else if let length {
            body.reserveCapacity(length)
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<FetchedResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        receivedCount.wrappingAdd(buffer.readableBytes, ordering: .relaxed)
        guard (200..<300).contains(status) else { return task.eventLoop.makeSucceededVoidFuture() }
        if let stream {
            do { try stream.write(buffer) } catch { return task.eventLoop.makeFailedFuture(error) }
            return task.eventLoop.makeSucceededVoidFuture()
        }
        guard body.count + buffer.readableBytes <= maxBytes else {
            let error: RemoteError =
                expectRange && status == 200
                ? .rangesNotSupported(url: url)
                : .badResponse(url: url, reason: "HTTP \(status) with more than \(maxBytes) bytes")
            return task.eventLoop.makeFailedFuture(error)
        }
        body.append(contentsOf: buffer.readableBytesView)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<FetchedResponse>) throws -> FetchedResponse {
        FetchedResponse(status: status, headers: headers, bytes: body, finalURL: finalURL)
    }
}
