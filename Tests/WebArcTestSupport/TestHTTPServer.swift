import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests: one request per connection, answered by a closure.
///
/// Shared by the URL protocol tests and the CLI's capture tests (a test-support target).
public final class TestHTTPServer: Sendable {
    /// A request as the server read it.
    public struct Request: Sendable {
        /// The method, as sent.
        public var method: String
        /// Path and query, as sent.
        public var target: String
        /// Header fields by lower-case name.
        public var headers: [String: String]
        /// The connection's socket, for ``waitForClose(timeout:)``.
        public var connection: Int32

        /// Waits while the client keeps this request's connection open; true when the client
        /// closed it within `timeout` seconds (a guard against a hang), false when still open.
        ///
        /// Call from the handler, which holds the connection open until it returns.
        public func waitForClose(timeout: Int) -> Bool {
            var byte: UInt8 = 0
            for _ in 0..<timeout * 10 {
                var watched = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                guard poll(&watched, 1, 100) != 0 else { continue }
                if watched.revents & Int16(POLLIN) == 0 || recv(connection, &byte, 1, Int32(MSG_PEEK)) <= 0 {
                    return true
                }
            }
            return false
        }

        /// Ends the connection without an answer, as a reset (RST): the response the handler then
        /// returns is not sent.
        public func reset() {
            var option = linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
            shutdown(connection, Int32(SHUT_RDWR))
        }

        /// Writes `bytes` on the connection now, ahead of the response the handler returns: a head
        /// and part of a body, say, before the handler stalls.
        public func sendNow(_ bytes: [UInt8]) {
            TestHTTPServer.sendAll(bytes[...], on: connection)
        }
    }

    /// What the handler answers.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// Header fields in order (`Content-Length` and `Connection` are added).
        public var headers: [(String, String)] = []
        /// The body (not sent for HEAD).
        public var body: [UInt8] = []

        /// A response with a byte body.
        public init(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A response with a UTF-8 text body.
        public init(status: Int = 200, headers: [(String, String)] = [], text: String) {
            self.init(status: status, headers: headers, body: Array(text.utf8))
        }
    }

    /// The port the server listens on.
    public let port: Int
    private let listener: Int32
    private let requests = Mutex<[Request]>([])
    private let handler: @Sendable (Request) -> Response
    private let greeting: [UInt8]?

    /// Starts listening on 127.0.0.1.
    ///
    /// - Parameter port: the port; 0 (the default): one the system picks. A test that stops the
    ///   server and then expects its port to refuse gives ``PrivatePort/next()``.
    /// - Parameter greeting: bytes written as soon as a connection is accepted, which is then
    ///   closed without reading a request: a server speaking another protocol than its client's
    ///   (plain HTTP to a TLS client). nil: requests are read and answered by `handler`.
    public init(
        port: Int = 0, greeting: [UInt8]? = nil, handler: @escaping @Sendable (Request) -> Response
    ) throws {
        self.handler = handler
        self.greeting = greeting
        let (fd, port) = try Self.boundSocket(port: port, reusingAddress: true)
        guard listen(fd, 512) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        self.port = port
        listener = fd
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The URL of `path` on this server.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Every request received so far.
    public var received: [Request] { requests.withLock { $0 } }

    /// A port on 127.0.0.1 that refuses connections: bound by a socket that never listens and
    /// stays open until the process ends, so that no server another test makes meanwhile is given
    /// it. (A stopped server's port went to the next server made, which then answered a request
    /// meant to be refused, and both tests failed.)
    public static func refusedPort() throws -> Int { try reservedPort.get() }

    // No SO_REUSEADDR: no other socket may bind the port while this one holds it.
    private static let reservedPort = Result<Int, any Error> { try boundSocket(port: 0, reusingAddress: false).port }

    /// A TCP socket bound to 127.0.0.1 on `port` (0: one the system picks), and its port.
    static func boundSocket(port: Int, reusingAddress: Bool) throws -> (descriptor: Int32, port: Int) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        if reusingAddress {
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Stops accepting connections: the port refuses them from now on.
    ///
    /// Only shuts the socket down; the accept loop closes it when its `accept` fails. Closing it
    /// here could let another server reuse the descriptor's number before this loop first calls
    /// `accept`, and this server's handler would then answer that server's requests.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            DispatchQueue.global().async { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        if let greeting {
            Self.sendAll(greeting[...], on: connection)
            return
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var headEnd: Int?
        while headEnd == nil {
            let count = read(connection, &chunk, chunk.count)
            guard count > 0 else { return }
            buffer += chunk[0..<count]
            headEnd = buffer.indices.dropLast(3).first { buffer[$0...$0 + 3].elementsEqual([13, 10, 13, 10]) }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = head[0].split(separator: " ")
        guard requestLine.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var bodyCount = buffer.count - headEnd! - 4
        let wanted = Int(headers["content-length"] ?? "0") ?? 0
        while bodyCount < wanted {
            let count = read(connection, &chunk, chunk.count)
            guard count > 0 else { break }
            bodyCount += count
        }
        let request = Request(
            method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, connection: connection)
        requests.withLock { $0.append(request) }
        let response = handler(request)
        var out = "HTTP/1.1 \(response.status) \(HTTPURLResponseReason.phrase(response.status))\r\n"
        for (name, value) in response.headers { out += "\(name): \(value)\r\n" }
        out += "Content-Length: \(request.method == "HEAD" ? 0 : response.body.count)\r\nConnection: close\r\n\r\n"
        var bytes = Array(out.utf8)
        if request.method != "HEAD" { bytes += response.body }
        Self.sendAll(bytes[...], on: connection)
    }

    /// Writes all of `bytes` on `connection`, or as much as the client took before it went away.
    static func sendAll(_ bytes: ArraySlice<UInt8>, on connection: Int32) {
        var sent = bytes.startIndex
        while sent < bytes.endIndex {
            // A client that went away must not raise SIGPIPE in the test process.
            #if canImport(Glibc)
            let count = bytes[sent...].withUnsafeBytes {
                send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            #else
            let count = bytes[sent...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            #endif
            guard count > 0 else { return }
            sent += count
        }
    }
}

/// Reason phrases for the statuses tests use.
public enum HTTPURLResponseReason {
    /// The phrase for `status`, or `Status`.
    public static func phrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 500: "Internal Server Error"
        default: "Status"
        }
    }
}
