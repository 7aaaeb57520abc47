import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server answering from archives: `webarc serve` without the command line.
///
/// ```swift
/// let archives = try ArchiveSet(readers: [try ArchiveReader(path: "site.webarc", mapped: true)])
/// let server = try await WebArcServer.start(archives: archives, configuration: .init(port: 0))
/// print(server.url)   // http://127.0.0.1:54321/
/// ```
///
/// Built on SwiftNIO directly: one event loop per core, NIO's HTTP/1 request decoder (llhttp, with
/// header size limits), ``ArchiveResponder`` for decisions and a channel handler to write them
/// (pipelining, 400 for requests the decoder refuses, idle timeout, heads written from bytes), and
/// a thread pool as large for the work that reads the archive (so that decoding never stalls an
/// event loop). ``stop()`` stops accepting, lets requests in flight finish for up to
/// ``Configuration/shutdownGrace`` seconds, then closes everything.
public final class WebArcServer: Sendable {
    /// How to listen and how much to cache.
    public struct Configuration: Sendable {
        /// The address to bind; `127.0.0.1` unless told otherwise.
        public var host: String
        /// The port; 0 picks a free one.
        public var port: Int
        /// Bytes every cache holds together: decoded bodies, resolved targets and the readers'
        /// caches (decoded index pages, body entries, dictionaries, delta references and groups).
        public var cacheBytes: Int
        /// Event loop threads; one per core by default.
        public var threads: Int
        /// Where to log one line per request; nil logs nothing.
        public var accessLog: AccessLog?
        /// Seconds ``WebArcServer/stop()`` waits for requests in flight.
        public var shutdownGrace: Double
        /// Keep large cached bodies in shared-memory files and send them with `sendfile` (Linux).
        public var bodyFiles: Bool
        /// Seconds a connection may send nothing, between requests, before it is closed.
        public var idleTimeout: Double
        /// Threads that read archives (lookups and bodies never run on an event loop); as many as
        /// `threads` by default. Archives read over the network wait for it there, so they want
        /// more: as many as the requests a page load makes at once.
        public var readerThreads: Int?
        /// Reopens the archives after a read error it recognises (see
        /// ``ArchiveResponder/reloadAfter(_:seen:)``); nil: none.
        public var reload: ArchiveResponder.Reload?
        /// Put a small search form (the search module's search box, no script) right after the
        /// `<body>` tag of every HTML page served under a mapped path; false by default.
        public var searchBox = false

        /// Makes a configuration.
        public init(
            host: String = "127.0.0.1", port: Int = 8080, cacheBytes: Int = 64 << 20,
            threads: Int = System.coreCount, accessLog: AccessLog? = nil, shutdownGrace: Double = 2,
            bodyFiles: Bool = true,
            idleTimeout: Double = 120
        ) {
            self.host = host
            self.port = port
            self.cacheBytes = cacheBytes
            self.threads = threads
            self.accessLog = accessLog
            self.shutdownGrace = shutdownGrace
            self.bodyFiles = bodyFiles
            self.idleTimeout = idleTimeout
        }
    }

    /// The responder every connection shares.
    public let responder: ArchiveResponder
    /// The address bound.
    public let host: String
    /// The port bound (the one picked when 0 was asked for).
    public let port: Int
    private let group: MultiThreadedEventLoopGroup
    /// Threads for the work that reads the archive, off the event loops.
    private let pool: NIOThreadPool
    /// The largest streaming backlog seen, for tests.
    let streamGauge: StreamGauge
    /// What the connection handlers did, for tests to wait on.
    let handlerEvents: HandlerEvents
    private let channel: any Channel
    private let connections: ConnectionTracker
    private let stopping = Mutex<Task<Void, Never>?>(nil)
    private let grace: Double
    private let closed = CloseSignal()

    private init(
        responder: ArchiveResponder, host: String, port: Int, group: MultiThreadedEventLoopGroup, pool: NIOThreadPool,
        streamGauge: StreamGauge, handlerEvents: HandlerEvents, channel: any Channel, connections: ConnectionTracker,
        grace: Double
    ) {
        self.responder = responder
        self.host = host
        self.port = port
        self.group = group
        self.pool = pool
        self.streamGauge = streamGauge
        self.handlerEvents = handlerEvents
        self.channel = channel
        self.connections = connections
        self.grace = grace
        let closed = self.closed
        channel.closeFuture.whenComplete { _ in closed.fire() }
    }

    /// The URL to open: `http://host:port/` (IPv6 hosts in brackets).
    ///
    /// A wildcard address (`0.0.0.0`, `::`) is not one a browser can open, so the URL names the
    /// loopback address instead (`http://127.0.0.1:port/`, `http://[::1]:port/`); the server still
    /// listens on every interface.
    public var url: String { Self.url(host: host, port: port) }

    /// The URL to open for a server bound to `host` and `port`; see ``url``.
    public static func url(host: String, port: Int) -> String {
        let shown =
            switch host {
            case "0.0.0.0", "": "127.0.0.1"
            case "::", "[::]": "[::1]"
            default: host.contains(":") ? "[\(host)]" : host
            }
        return "http://\(shown):\(port)/"
    }

    /// Binds and starts serving `archives`.
    ///
    /// - Throws: ``WebArcServerError/portInUse(host:port:)``, ``WebArcServerError/permissionDenied(host:port:)``,
    ///   ``WebArcServerError/unknownHost(host:reason:)``, ``WebArcServerError/addressNotAvailable(host:port:)``
    ///   or ``WebArcServerError/cannotListen(host:port:reason:)`` when the address cannot be bound.
    public static func start(archives: ArchiveSet, configuration: Configuration = .init()) async throws -> WebArcServer
    {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.threads))
        // Each connection sends memory files through its own event loop's descriptor (see CachedBody).
        let loopNumbers = Dictionary(
            uniqueKeysWithValues: group.makeIterator().enumerated().map { (ObjectIdentifier($1), $0) })
        let responder = ArchiveResponder(
            archives: archives, cacheBytes: configuration.cacheBytes, bodyFiles: configuration.bodyFiles,
            eventLoops: loopNumbers.count,
            reload: configuration.reload, searchBox: configuration.searchBox)
        let pool = NIOThreadPool(numberOfThreads: max(1, configuration.readerThreads ?? configuration.threads))
        pool.start()
        let streamGauge = StreamGauge()
        let handlerEvents = HandlerEvents()
        let connections = ConnectionTracker()
        let accessLog = configuration.accessLog
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = 16 << 10
        limits.maxHeaderListSize = 64 << 10
        limits.maxHeaderFieldCount = 256
        let decoderLimits = limits
        let idleTimeout = TimeAmount.milliseconds(Int64(configuration.idleTimeout * 1000))
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            // NIO sets TCP_NODELAY on the listening socket only; without it on each connection a
            // body's last partial segment waits for the client's delayed ACK (40 ms).
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                connections.track(channel)
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(
                            HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: decoderLimits)),
                        ArchiveHTTPHandler(
                            responder: responder, accessLog: accessLog, pool: pool, gauge: streamGauge,
                            events: handlerEvents,
                            idleTimeout: idleTimeout,
                            loop: loopNumbers[ObjectIdentifier(channel.eventLoop)] ?? 0))
                }
            }
        do {
            let channel = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
            return WebArcServer(
                responder: responder, host: configuration.host, port: channel.localAddress?.port ?? configuration.port,
                group: group, pool: pool, streamGauge: streamGauge, handlerEvents: handlerEvents, channel: channel,
                connections: connections,
                grace: configuration.shutdownGrace)
        } catch {
            try? await pool.shutdownGracefully()
            try? await group.shutdownGracefully()
            throw WebArcServerError(listening: error, host: configuration.host, port: configuration.port)
        }
    }

    /// Stops accepting, waits up to the grace period for requests in flight, then closes every
    /// connection and the event loops. Every call returns once that is done; only the first
    /// one does the work.
    public func stop() async {
        let task = stopping.withLock { stopping in
            if let stopping { return stopping }
            let task = Task { await self.shutDown() }
            stopping = task
            return task
        }
        await task.value
    }

    private func shutDown() async {
        // Stop accepting, then ask the connections to finish; whichever comes first completes
        // `finished`: every connection closed, or the grace period.
        try? await channel.close()
        let loop = group.next()
        let finished = loop.makePromise(of: Void.self)
        connections.quiesce(on: loop).cascade(to: finished)
        let deadline = loop.scheduleTask(in: .milliseconds(Int64(grace * 1000))) { finished.succeed() }
        try? await finished.futureResult.get()
        deadline.cancel()
        // Close what the grace period left open, then the pool, while the event loops still run:
        // the pool's work and the closing connections hop back to them.
        try? await connections.closeAll(on: loop).get()
        try? await pool.shutdownGracefully()
        try? await group.shutdownGracefully()
    }

    /// Returns when the listening socket has closed (after ``stop()``).
    public func waitUntilStopped() async {
        await closed.wait()
    }
}

/// Wakes every waiter once the listening channel has closed, also waiters that come after (an
/// `EventLoopFuture` cannot be awaited once its event loop has shut down).
private final class CloseSignal: Sendable {
    private let state = Mutex<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func fire() {
        let waiters = state.withLock { state in
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if !state.fired { state.waiters.append(continuation) }
                return state.fired
            }
            if now { continuation.resume() }
        }
    }
}

/// Failures of the server itself; archive errors are answered as HTTP statuses instead.
public enum WebArcServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another program listens on the port (`EADDRINUSE`).
    case portInUse(host: String, port: Int)
    /// The port is one only a privileged program may bind, below 1024 (`EACCES`).
    case permissionDenied(host: String, port: Int)
    /// The host name does not resolve.
    case unknownHost(host: String, reason: String)
    /// The address is not one of this machine's (`EADDRNOTAVAIL`).
    case addressNotAvailable(host: String, port: Int)
    /// The address could not be bound for another reason.
    case cannotListen(host: String, port: Int, reason: String)
    /// No archive was given.
    case noArchives

    /// The error for `error`, thrown binding `host` and `port`.
    init(listening error: any Error, host: String, port: Int) {
        if let unknown = error as? SocketAddressError.UnknownHost {
            self = .unknownHost(host: host, reason: unknown.errorDescription)
            return
        }
        self.init(listening: (error as? IOError)?.errnoCode, host: host, port: port, reason: "\(error)")
    }

    /// The error for a bind of `host` and `port` that failed with `errno` (nil: not a system
    /// call's failure), `reason` describing it.
    init(listening errno: CInt?, host: String, port: Int, reason: String) {
        switch errno {
        case EADDRINUSE: self = .portInUse(host: host, port: port)
        case EACCES, EPERM: self = .permissionDenied(host: host, port: port)
        case EADDRNOTAVAIL: self = .addressNotAvailable(host: host, port: port)
        default: self = .cannotListen(host: host, port: port, reason: reason)
        }
    }

    public var description: String {
        switch self {
        case .portInUse(let host, let port):
            "cannot listen on \(Self.address(host, port)): the port is in use"
        case .permissionDenied(let host, let port):
            "cannot listen on \(Self.address(host, port)): permission denied: ports below 1024 need root or CAP_NET_BIND_SERVICE"
        case .unknownHost(let host, let reason):
            "cannot listen on \(host): no such host (\(reason.lowercased()))"
        case .addressNotAvailable(let host, let port):
            "cannot listen on \(Self.address(host, port)): the address is not one of this machine's"
        case .cannotListen(let host, let port, let reason):
            "cannot listen on \(Self.address(host, port)): \(reason)"
        case .noArchives:
            "no archive to serve: name at least one .webarc file"
        }
    }

    /// `host:port`, an IPv6 host in brackets.
    private static func address(_ host: String, _ port: Int) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
