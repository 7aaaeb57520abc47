import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for capture tests: one request per connection, answered by
/// a closure from path and query to status, headers and body.
final class LocalHTTPServer: Sendable {
    struct Response: Sendable {
        var status = 200
        var headers: [(String, String)] = []
        var body: [UInt8] = []
    }

    let port: Int
    private let listener: Int32
    private let targets = Mutex<[String]>([])
    private let handler: @Sendable (String) -> Response

    /// Starts listening on 127.0.0.1 with a port the system picks.
    init(handler: @escaping @Sendable (_ target: String) -> Response) throws {
        self.handler = handler
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// A port on 127.0.0.1 that refuses connections: bound, then closed at once.
    static func refusedPort() throws -> Int {
        let server = try LocalHTTPServer { _ in Response() }
        server.stop()
        return server.port
    }

    /// The URL of `path` on this server.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The request targets received so far, in order.
    var received: [String] { targets.withLock { $0 } }

    /// Stops accepting connections.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
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
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while !buffer.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let count = read(connection, &chunk, chunk.count)
            guard count > 0 else { return }
            buffer += chunk[0..<count]
        }
        let requestLine = String(decoding: buffer.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
        guard requestLine.count >= 2 else { return }
        let target = String(requestLine[1])
        targets.withLock { $0.append(target) }
        let response = handler(target)
        var head = "HTTP/1.1 \(response.status) Status\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + (requestLine[0] == "HEAD" ? [] : response.body)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            sent += count
        }
    }
}
