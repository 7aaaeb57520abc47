import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// An HTTP/1.1 server on 127.0.0.1 that serves one file with `Range`, `ETag` and `If-Match` the way
/// nginx does, and misbehaves on request: ignores `Range`, drops connections, answers 5xx, waits,
/// holds its answers until the test releases them, or has its file replaced (a new `ETag`)
/// between two requests. A test waits for the requests it expects with ``waitForRequests(upTo:until:)``. Optionally over TLS with the
/// fixed self-signed certificate in `Fixtures/`, and then optionally HTTP/2 only (ALPN `h2`,
/// swift-nio-http2 with each stream translated to the same HTTP/1 handler).
final class RangeServer: Sendable {
    /// What the next requests get.
    enum Fault: Sendable, Equatable {
        case none
        /// 200 with the whole file, whatever the `Range`.
        case ignoreRange
        /// Close the connection without an answer, for this many requests.
        case drop(Int)
        /// Send the head and half of the body, then close, for this many requests.
        case dropMidBody(Int)
        /// Answer this status, for this many requests.
        case status(Int, Int)
        /// Wait this many seconds before answering.
        case slow(Double)
        /// For answers that start at byte 0: send the head and `bytes` bytes, wait `seconds`, then
        /// the rest (a stream that lags behind the requests after it).
        case pauseFromStart(bytes: Int, seconds: Double)
    }

    struct State {
        var file: [UInt8]
        var etag: String
        var version = 1
        var fault = Fault.none
        /// Every request: its target, `Range` header and HTTP major version.
        var log: [(target: String, range: String?, version: Int)] = []
        /// Response body bytes written to the connections (in parts of ``RangeHandler/part`` bytes,
        /// each counted once the socket took it whole).
        var sent: UInt64 = 0
        /// Replace the file with this one after this many more requests.
        var pendingReplacement: (after: Int, file: [UInt8])?
        /// Connections accepted (TLS handshakes started, for https).
        var connections = 0
        /// Answers are held (``hold()``) until ``release()`` sends them.
        var holding = false
        var held: [@Sendable () -> Void] = []
    }

    let state: Mutex<State>
    /// Signalled at each request logged.
    private let arrivals = NSCondition()
    let group: MultiThreadedEventLoopGroup
    let channel: Channel
    let port: Int
    let scheme: String
    private let box: ServerBox

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let certificatePath = fixtures.appendingPathComponent("test-cert.pem").path

    /// The file's URL (`/site.webarc`); `/moved.webarc` redirects to it, anything else is 404.
    var url: String { "\(scheme)://127.0.0.1:\(port)/site.webarc" }

    /// - Parameters:
    ///   - tls: serve https with the fixture certificate.
    ///   - http2: with `tls`, offer only `h2` by ALPN and speak HTTP/2.
    init(file: [UInt8], tls: Bool = false, http2: Bool = false) throws {
        state = Mutex(State(file: file, etag: "\"v1-\(file.count)\""))
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        scheme = tls ? "https" : "http"
        let context: NIOSSLContext? =
            try tls
            ? {
                let key = try NIOSSLPrivateKey(
                    file: Self.fixtures.appendingPathComponent("test-key.pem").path, format: .pem)
                let certificates = try NIOSSLCertificate.fromPEMFile(Self.certificatePath)
                var configuration = TLSConfiguration.makeServerConfiguration(
                    certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
                if http2 { configuration.applicationProtocols = ["h2"] }
                return try NIOSSLContext(configuration: configuration)
            }() : nil
        let box = ServerBox()
        channel = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                box.server.withLock { $0 }?.state.withLock { $0.connections += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    }
                    guard http2 && tls else {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(RangeHandler(server: box))
                        return
                    }
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                            try stream.pipeline.syncOperations.addHandler(RangeHandler(server: box))
                        }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress!.port!
        self.box = box
        box.server.withLock { $0 = self }
    }

    /// Closes the listener and its connections (the server and its handlers hold each other until then).
    func stop() {
        box.server.withLock { $0 = nil }
        state.withLock { $0.held = [] }
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    func setFault(_ fault: Fault) { state.withLock { $0.fault = fault } }

    /// Replaces the file now (a new `ETag`, as a deploy would).
    func replace(with file: [UInt8]) {
        state.withLock { state in
            state.version += 1
            state.file = file
            state.etag = "\"v\(state.version)-\(file.count)\""
        }
    }

    /// Replaces the file after `requests` more requests have been answered.
    func replace(with file: [UInt8], after requests: Int) {
        state.withLock { $0.pendingReplacement = (requests, file) }
    }

    var requests: [(target: String, range: String?, version: Int)] { state.withLock { $0.log } }

    func resetLog() { state.withLock { $0.log = [] } }

    /// Whether the request log satisfies `done` within `seconds`, checked as each request arrives
    /// (the deadline only ends a wait that failed).
    func waitForRequests(
        upTo seconds: Double = 60, until done: ([(target: String, range: String?, version: Int)]) -> Bool
    ) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        arrivals.lock()
        defer { arrivals.unlock() }
        while !done(requests) {
            guard arrivals.wait(until: deadline) else { return done(requests) }
        }
        return true
    }

    /// Connections accepted so far.
    var connections: Int { state.withLock { $0.connections } }

    /// Holds the answers to the requests from now on (they are logged as they arrive) until ``release()``.
    func hold() { state.withLock { $0.holding = true } }

    /// Sends the held answers, and answers the next requests at once.
    func release() {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held = [] }
            return state.held
        }
        held.forEach { $0() }
    }

    /// False when answers are held: `send` then runs at ``release()``; true when the caller sends now.
    fileprivate func sendsNow(orWhenReleased send: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard state.holding else { return true }
            state.held.append(send)
            return false
        }
    }

    /// Response body bytes written to the connections so far.
    var bytesSent: UInt64 { state.withLock { $0.sent } }

    /// What to send for one request.
    enum Answer {
        case close
        case closeMidBody(head: HTTPResponseHead, body: [UInt8])
        case respond(HTTPResponseHead, [UInt8], delay: Double)
        case respondPaused(HTTPResponseHead, [UInt8], after: Int, seconds: Double)
    }

    func answer(_ head: HTTPRequestHead) -> Answer {
        defer {
            arrivals.lock()
            arrivals.broadcast()
            arrivals.unlock()
        }
        return state.withLock { state in
            let range = head.headers.first(name: "range")
            state.log.append((head.uri, range, head.version.major))
            if var pending = state.pendingReplacement {
                if pending.after == 0 {
                    state.pendingReplacement = nil
                    state.version += 1
                    state.file = pending.file
                    state.etag = "\"v\(state.version)-\(pending.file.count)\""
                } else {
                    pending.after -= 1
                    state.pendingReplacement = pending
                }
            }
            var delay = 0.0
            var midBody = false
            switch state.fault {
            case .none, .ignoreRange, .pauseFromStart: break
            case .drop(let count):
                if count > 0 {
                    state.fault = count > 1 ? .drop(count - 1) : .none
                    return .close
                }
            case .dropMidBody(let count):
                if count > 0 {
                    state.fault = count > 1 ? .dropMidBody(count - 1) : .none
                    midBody = true
                }
            case .status(let code, let count):
                if count > 0 {
                    state.fault = count > 1 ? .status(code, count - 1) : .none
                    return .respond(Self.head(code, ["Content-Length": "0"]), [], delay: 0)
                }
            case .slow(let seconds):
                delay = seconds
            }
            let path = head.uri.split(separator: "?").first.map(String.init) ?? head.uri
            if path == "/moved.webarc" {
                return .respond(Self.head(302, ["Location": "/site.webarc", "Content-Length": "0"]), [], delay: delay)
            }
            guard path == "/site.webarc" else {
                return .respond(Self.head(404, ["Content-Length": "9"]), Array("not found".utf8), delay: delay)
            }
            let file = state.file
            var headers = [
                "ETag": state.etag, "Accept-Ranges": "bytes",
                "Last-Modified": "Mon, 01 Jan 2024 00:00:0\(state.version % 10) GMT",
            ]
            if let condition = head.headers.first(name: "if-match"), condition != state.etag, condition != "*" {
                return .respond(Self.head(412, headers.merging(["Content-Length": "0"]) { $1 }), [], delay: delay)
            }
            var status = 200
            var body = file
            var first = 0
            if state.fault != .ignoreRange, let range, let span = Self.parse(range, size: file.count) {
                guard let span = span else {
                    headers["Content-Range"] = "bytes */\(file.count)"
                    headers["Content-Length"] = "0"
                    return .respond(Self.head(416, headers), [], delay: delay)
                }
                status = 206
                first = span.lowerBound
                body = Array(file[span])
                headers["Content-Range"] = "bytes \(span.lowerBound)-\(span.upperBound - 1)/\(file.count)"
            }
            headers["Content-Length"] = "\(body.count)"
            if midBody {
                return .closeMidBody(head: Self.head(status, headers), body: Array(body.prefix(body.count / 2)))
            }
            if case .pauseFromStart(let bytes, let seconds) = state.fault, first == 0, body.count > bytes {
                return .respondPaused(Self.head(status, headers), body, after: bytes, seconds: seconds)
            }
            return .respond(Self.head(status, headers), body, delay: delay)
        }
    }

    static func head(_ status: Int, _ headers: [String: String]) -> HTTPResponseHead {
        HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: status),
            headers: HTTPHeaders(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    /// A single `bytes=` range: nil when the header is not one (it is ignored), `.some(nil)` when
    /// it cannot be satisfied.
    static func parse(_ header: String, size: Int) -> Range<Int>?? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        if spec[0].isEmpty {
            guard let suffix = Int(spec[1]), suffix > 0 else { return nil }
            guard size > 0 else { return .some(nil) }
            return .some(max(0, size - suffix)..<size)
        }
        guard let first = Int(spec[0]) else { return nil }
        let last = spec[1].isEmpty ? size - 1 : Int(spec[1]).map { min($0, size - 1) }
        guard let last else { return nil }
        guard first < size, first <= last else { return .some(nil) }
        return .some(first..<last + 1)
    }
}

/// Lets the handler reach the server once it exists.
final class ServerBox: Sendable {
    let server = Mutex<RangeServer?>(nil)
}

final class RangeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    let box: ServerBox

    init(server: ServerBox) { box = server }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data), let server = box.server.withLock({ $0 }) else { return }
        switch server.answer(head) {
        case .close:
            context.close(promise: nil)
        case .closeMidBody(let responseHead, let body):
            context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
            writeBody(body[...], context: context, server: server)
            context.flush()
            context.close(promise: nil)
        case .respond(let responseHead, let body, let delay):
            let send = { [self] in
                context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
                writeBody(body[...], context: context, server: server)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
            let loop = context.eventLoop
            let loopBound = NIOLoopBound(send, eventLoop: loop)
            guard server.sendsNow(orWhenReleased: { loop.execute { loopBound.value() } }) else { return }
            if delay > 0 {
                loop.scheduleTask(in: .nanoseconds(Int64(delay * 1e9))) { loopBound.value() }
            } else {
                send()
            }
        case .respondPaused(let responseHead, let body, let after, let seconds):
            context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
            writeBody(body.prefix(after), context: context, server: server)
            context.flush()
            let rest = NIOLoopBound(
                { [self] in
                    writeBody(body.dropFirst(after), context: context, server: server)
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                }, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { rest.value() }
        }
    }

    /// Bytes per body write, each counted in ``RangeServer/bytesSent`` once written.
    static let part = 65536

    /// Writes `body` (not flushed) in parts of ``part`` bytes, counting each once the socket took it.
    private func writeBody(_ body: ArraySlice<UInt8>, context: ChannelHandlerContext, server: RangeServer) {
        var start = body.startIndex
        while start < body.endIndex {
            let end = min(start + Self.part, body.endIndex)
            let promise = context.eventLoop.makePromise(of: Void.self)
            let count = UInt64(end - start)
            promise.futureResult.whenSuccess { server.state.withLock { $0.sent += count } }
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body[start..<end])))), promise: promise)
            start = end
        }
    }
}
