import Foundation
import Logging
import Synchronization
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcServer

#if canImport(Glibc)
import Glibc
#endif

/// The access log records what was sent: the status and body bytes that went out, also when a
/// damaged body made the server answer 500 instead or cut the body short.
@Suite struct AccessLogTests {
    static let large = ServerDamageTests.large  // four 256 KiB chunks, streamed with a 1 MiB cache

    /// An archive whose large body has one byte flipped in chunk `chunk`, plus an undamaged page.
    static func archive(in folder: TemporaryFolder, damagingChunk chunk: Int) throws -> ArchiveReader {
        let reader = try makeArchive(
            in: folder, [.page("http://localhost/large.bin", large), .text("http://localhost/", "<h1>fine</h1>")])
        guard case .response(let response)? = try reader.lookup(url: "http://localhost/large.bin")?.record else {
            throw TestFailure("no large.bin")
        }
        let offset = Int(try reader.bodyEntry(response.body).chunks[chunk].offset)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: reader.path))
        bytes[offset + 100] ^= 0x5A
        try bytes.write(to: URL(fileURLWithPath: reader.path))
        return try ArchiveReader(path: reader.path, mapped: true)
    }

    /// Starts a server logging to `lines` on 127.0.0.1 port 0, runs `body`, and stops it.
    static func withLoggedServer(
        _ reader: ArchiveReader, lines: LogLines, cacheBytes: Int = 1 << 20, _ body: (WebArcServer) async throws -> Void
    ) async throws {
        let log = AccessLog(logger: Logger(label: "test.access") { _ in lines })
        let server = try await WebArcServer.start(
            archives: try ArchiveSet(readers: [reader]),
            configuration: .init(port: 0, cacheBytes: cacheBytes, threads: 2, accessLog: log))
        do {
            try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func aBodyDamagedMidStreamIsLoggedWithTheBytesActuallySentAndAnErrorLine() async throws {
        let folder = try TemporaryFolder()
        let lines = LogLines()
        try await Self.withLoggedServer(try Self.archive(in: folder, damagingChunk: 2), lines: lines) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send("GET /large.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            // The head declared 1 MiB; the two verified chunks arrive, then the connection closes.
            var received = -1
            do { _ = try client.readResponse() } catch RawHTTPError.closedEarly(let count) { received = count }
            #expect(received == 2 << 18)
            // Logged before the connection closed.
            let messages = lines.messages
            #expect(messages.first == "127.0.0.1 \"GET /large.bin HTTP/1.1\" 200 524288")
            #expect(
                messages.last?.hasPrefix(
                    "body of GET /large.bin failed after 524288 of 1048576 bytes, connection closed: ") == true)
            #expect(messages.last?.contains("SHA-256") == true)
            #expect(lines.levels == [.info, .error])
        }
    }

    @Test func aBodyDamagedInItsFirstChunkAnswers500AndIsLoggedAs500() async throws {
        let folder = try TemporaryFolder()
        let lines = LogLines()
        try await Self.withLoggedServer(try Self.archive(in: folder, damagingChunk: 0), lines: lines) { server in
            let client = try RawHTTPClient(port: server.port)
            let response = try client.request("GET", "/large.bin")
            #expect(response.status == 500)
            #expect(response.header("Connection") == "close")
            #expect(client.isClosedByPeer())
            #expect(lines.messages.first == "127.0.0.1 \"GET /large.bin HTTP/1.1\" 500 \(response.body.count)")
            #expect(lines.messages.count == 2)
            #expect(
                lines.messages.last?.hasPrefix(
                    "body of GET /large.bin failed before it was sent, answered 500 instead: ") == true)
            // The page that is not damaged is logged as sent.
            let page = try fetch(server.port, "/")
            #expect(page.status == 200)
            #expect(lines.messages.last == "127.0.0.1 \"GET / HTTP/1.1\" 200 \(page.body.count)")
        }
    }

    @Test func aCachedBodyThatFailsIsLoggedAsThe500PageSent() async throws {
        let folder = try TemporaryFolder()
        let lines = LogLines()
        try await Self.withLoggedServer(
            try ServerDamageTests.damagedArchive(in: folder), lines: lines, cacheBytes: 8 << 20
        ) { server in
            let response = try fetch(server.port, "/small.bin")
            #expect(response.status == 500)
            #expect(lines.messages.first == "127.0.0.1 \"GET /small.bin HTTP/1.1\" 500 \(response.body.count)")
            #expect(
                lines.messages.last?.hasPrefix(
                    "body of GET /small.bin failed before it was sent, answered 500 instead: ") == true)
            #expect(lines.messages.count == 2)
        }
    }

    @Test func wholeStreamedAndRangedBodiesAreLoggedOnceWithTheirLength() async throws {
        let folder = try TemporaryFolder()
        let lines = LogLines()
        let reader = try makeArchive(in: folder, [.page("http://localhost/large.bin", Self.large)])
        try await Self.withLoggedServer(reader, lines: lines) { server in
            let client = try RawHTTPClient(port: server.port)
            #expect(try client.request("GET", "/large.bin").body == Self.large)
            // Logged before the last chunk went out, so it is there once the body is.
            #expect(lines.messages == ["127.0.0.1 \"GET /large.bin HTTP/1.1\" 200 1048576"])
            let part = try client.request("GET", "/large.bin", headers: ["Range: bytes=300000-700000"])
            #expect(part.status == 206)
            #expect(part.body.count == 400_001)
            #expect(lines.messages.last == "127.0.0.1 \"GET /large.bin HTTP/1.1\" 206 400001")
            #expect(lines.messages.count == 2)
        }
    }
}

/// Collects the messages a logger writes, in order.
final class LogLines: LogHandler, @unchecked Sendable {
    private let lines = Mutex<[(Logger.Level, String)]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    var messages: [String] { lines.withLock { $0.map(\.1) } }
    var levels: [Logger.Level] { lines.withLock { $0.map(\.0) } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { lines.withLock { $0.append((event.level, "\(event.message)")) } }
}
