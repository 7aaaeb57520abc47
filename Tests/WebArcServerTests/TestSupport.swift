import Foundation
import Synchronization
import Testing
import WebArc
import WebArcServer
import WebArcTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// One record to put in a test archive.
enum TestRecord {
    case page(String, [UInt8], headers: [HTTPHeader] = [], mimeType: String? = nil, status: Int = 200)
    case redirect(String, to: String, status: Int = 301)

    static func text(_ url: String, _ body: String, type: String = "text/html") -> TestRecord {
        .page(url, Array(body.utf8), headers: [HTTPHeader("Content-Type", "\(type); charset=utf-8")], mimeType: type)
    }
}

/// Writes an archive of `records` and opens it mapped, as the server does.
func makeArchive(
    in folder: TemporaryFolder, name: String = "test.webarc", _ records: [TestRecord], startURL: String? = nil
)
    throws -> ArchiveReader
{
    let path = folder.file(name)
    let writer = try ArchiveWriter(path: path)
    writer.metadata = ArchiveMetadata(startURL: startURL)
    for record in records {
        switch record {
        case .page(let url, let bytes, let headers, let mimeType, let status):
            let body = try writer.addBody(bytes)
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: url), status: status, headers: headers, mimeType: mimeType, body: body))
        case .redirect(let url, let target, let status):
            try writer.add(RedirectRecord(request: RequestRecord(url: url), status: status, target: target))
        }
    }
    try writer.finish()
    return try ArchiveReader(path: path, mapped: true)
}

/// Starts a server on 127.0.0.1 port 0 for `readers`, runs `body`, and stops the server.
func withServer<T>(
    _ readers: [ArchiveReader], cacheBytes: Int = 8 << 20, _ body: (WebArcServer) async throws -> T
) async throws -> T {
    let server = try await WebArcServer.start(
        archives: try ArchiveSet(readers: readers), configuration: .init(port: 0, cacheBytes: cacheBytes, threads: 2))
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// An HTTP response as read off the socket.
struct RawResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    /// The first value of a header, compared without case.
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Failures of the raw test client.
enum RawHTTPError: Error {
    case connect(Int32)
    case closedEarly(received: Int)
    case malformed(String)
}

/// A blocking HTTP/1.1 client over one TCP connection, sending bytes exactly as given so that tests
/// can craft any request and see every redirect and header as it came.
final class RawHTTPClient {
    private let socket: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; `receiveBuffer` sets a (small) `SO_RCVBUF` first.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(socket)
            throw RawHTTPError.connect(errno)
        }
    }

    deinit { close(socket) }

    /// Sends raw bytes.
    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let wrote = bytes.withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
            }
            guard wrote > 0 else { throw RawHTTPError.closedEarly(received: done) }
            done += wrote
        }
    }

    /// Sends a GET (or another method) for `target` with extra header lines and reads the response.
    func request(_ method: String = "GET", _ target: String, headers: [String] = []) throws -> RawResponse {
        let lines = ["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1"] + headers
        try send(lines.joined(separator: "\r\n") + "\r\n\r\n")
        return try readResponse(isHead: method == "HEAD")
    }

    /// Reads one response; a HEAD response or a 204/304 has no body whatever its headers say.
    func readResponse(isHead: Bool = false) throws -> RawResponse {
        let headEnd = try fill { $0.firstRange(of: [13, 10, 13, 10])?.upperBound }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw RawHTTPError.malformed(head) }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawHTTPError.malformed(head) }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = RawResponse(status: status, headers: headers, body: [])
        if isHead || status == 204 || status == 304 { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            _ = try fill { $0.count >= length ? length : nil }
            response.body = Array(buffer.prefix(length))
            buffer.removeFirst(length)
        } else {
            while (try? fill { _ in nil }) != nil {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Waits until at least `count` bytes have arrived, keeping them for the next read.
    func waitForBytes(_ count: Int) throws {
        _ = try fill { $0.count >= count ? count : nil }
    }

    /// Whether the server has closed the connection (reads return end of file).
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, 0) == 0
    }

    /// Reads until `done` returns a value (or the peer closes, which throws).
    private func fill(_ done: ([UInt8]) -> Int?) throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let value = done(buffer) { return value }
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress!, $0.count, 0) }
            guard count > 0 else { throw RawHTTPError.closedEarly(received: buffer.count) }
            buffer += chunk[..<count]
        }
    }
}

/// One request on a fresh connection.
func fetch(_ port: Int, _ target: String, method: String = "GET", headers: [String] = []) throws -> RawResponse {
    try RawHTTPClient(port: port).request(method, target, headers: headers)
}

/// Runs `body` on `count` threads at once and awaits all of them (holding no cooperative thread,
/// which the server may need meanwhile); returns the failures.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) async -> [String] {
    let failures = Mutex<[String]>([])
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            do { try body(index) } catch { failures.withLock { $0.append("client \(index): \(error)") } }
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }
    return failures.withLock { $0 }
}
