import Foundation
import Logging
import Synchronization
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcServer

/// The server's own HTTP/1 response side: heads written from pre-encoded bytes, memory files that
/// start with a response head, connection handling and refused requests, over real sockets.
@Suite struct ServerWireTests {
    /// 300 000 bytes: over the 256 KiB memory-file threshold, under the test cache's largest body.
    static let body: [UInt8] = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }

    /// Two resources with the same stored body but different headers, and one more with it.
    static func archive(in folder: TemporaryFolder) throws -> ArchiveReader {
        try makeArchive(
            in: folder,
            [
                .page(
                    "http://localhost/a.bin", body,
                    headers: [HTTPHeader("Content-Type", "application/x-first"), HTTPHeader("X-Which", "a")]),
                .page(
                    "http://localhost/b.bin", body,
                    headers: [HTTPHeader("Content-Type", "application/x-second"), HTTPHeader("X-Which", "b")]),
                .page("http://localhost/c.bin", body, headers: [HTTPHeader("Content-Type", "application/x-third")]),
            ])
    }

    @Test func everyFormOfAnswerComesRightFromOneCachedBody() async throws {
        let folder = try TemporaryFolder()
        let reader = try Self.archive(in: folder)
        let etag = try SiteFixture.etag("http://localhost/a.bin", in: reader)
        try await withServer([reader]) { server in
            let client = try RawHTTPClient(port: server.port)
            // The first GET caches the body after a.bin's head; the second is one sendfile of both.
            for _ in 0..<2 {
                let plain = try client.request("GET", "/a.bin")
                #expect(plain.status == 200)
                #expect(plain.body == Self.body)
                #expect(plain.header("Content-Type") == "application/x-first")
                #expect(plain.header("X-Which") == "a")
                #expect(plain.header("Content-Length") == "300000")
                #expect(plain.header("ETag") == etag)
            }
            // Another resource with the same body sends its own head, never a.bin's.
            let other = try client.request("GET", "/b.bin")
            #expect(other.header("Content-Type") == "application/x-second")
            #expect(other.header("X-Which") == "b")
            #expect(other.body == Self.body)
            let range = try client.request("GET", "/a.bin", headers: ["Range: bytes=1000-1999"])
            #expect(range.status == 206)
            #expect(range.header("Content-Range") == "bytes 1000-1999/300000")
            #expect(range.body == Array(Self.body[1000..<2000]))
            let suffix = try client.request("GET", "/b.bin", headers: ["Range: bytes=-10"])
            #expect(suffix.body == Array(Self.body.suffix(10)))
            let head = try client.request("HEAD", "/a.bin")
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "300000")
            let notModified = try client.request("GET", "/a.bin", headers: ["If-None-Match: \(etag)"])
            #expect(notModified.status == 304)
            #expect(notModified.header("Content-Length") == nil)
            // The connection is still in step after all of them.
            #expect(try client.request("GET", "/a.bin").body == Self.body)
        }
    }

    @Test func aBodyFirstCachedByARangeServesPlainGetsWhole() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try Self.archive(in: folder)]) { server in
            let client = try RawHTTPClient(port: server.port)
            let first = try client.request("GET", "/c.bin", headers: ["Range: bytes=50000-"])
            #expect(first.status == 206)
            #expect(first.body == Array(Self.body[50000...]))
            let whole = try client.request("GET", "/c.bin")
            #expect(whole.status == 200)
            #expect(whole.header("Content-Type") == "application/x-third")
            #expect(whole.body == Self.body)
        }
    }

    @Test func http10GetsTheSameBodyAndItsOwnConnectionHandling() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try Self.archive(in: folder)]) { server in
            #expect(try fetch(server.port, "/a.bin").body == Self.body)
            let kept = try RawHTTPClient(port: server.port)
            try kept.send("GET /a.bin HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let first = try kept.readResponse()
            #expect(first.body == Self.body)
            #expect(first.header("Connection") == "keep-alive")
            try kept.send("GET /a.bin HTTP/1.0\r\n\r\n")
            let last = try kept.readResponse()
            #expect(last.body == Self.body)
            #expect(last.header("Connection") == "close")
            #expect(kept.isClosedByPeer())
        }
    }

    @Test func storedHeadersThatCouldSplitTheResponseAreDropped() async throws {
        let folder = try TemporaryFolder()
        let reader = try makeArchive(
            in: folder,
            [
                .page(
                    "http://localhost/page.txt", Array("hello".utf8),
                    headers: [
                        HTTPHeader("Content-Type", "text/plain"), HTTPHeader("X-Split", "a\r\nX-Injected: 1"),
                        HTTPHeader("Bad Name", "b"), HTTPHeader("X-Kept", "c"),
                    ])
            ])
        try await withServer([reader]) { server in
            let response = try fetch(server.port, "/page.txt")
            #expect(response.status == 200)
            #expect(response.text == "hello")
            #expect(response.header("X-Injected") == nil)
            #expect(response.header("X-Split") == nil)
            #expect(response.header("Bad Name") == nil)
            #expect(response.header("X-Kept") == "c")
        }
    }

    @Test func aRequestTheParserRefusesGets400AndTheConnectionCloses() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send("GET /small.txt HTTP/1.1\r\nHost x\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 400)
            #expect(response.header("Connection") == "close")
            #expect(client.isClosedByPeer())
            #expect(try fetch(server.port, "/small.txt").body == SiteFixture.small)
        }
    }

    @Test func requestsPipelinedBeforeARefusedOneAreAnsweredFirst() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(
                "GET /small.txt HTTP/1.1\r\nHost: x\r\n\r\nGET /style.css HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP AT ALL\r\n\r\n"
            )
            #expect(try client.readResponse().body == SiteFixture.small)
            #expect(try client.readResponse().text == SiteFixture.css)
            #expect(try client.readResponse().status == 400)
            #expect(client.isClosedByPeer())
        }
    }

    @Test func nothingPipelinedAfterConnectionCloseIsAnswered() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send(
                "GET /small.txt HTTP/1.1\r\nHost: x\r\n\r\nGET /style.css HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    + "GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().body == SiteFixture.small)
            let last = try client.readResponse()
            #expect(last.text == SiteFixture.css)
            #expect(last.header("Connection") == "close")
            #expect(client.isClosedByPeer())
        }
    }

    @Test func aClientThatSendsAndNeverReadsGetsNoMoreAnswersThanItsSocketHolds() async throws {
        let folder = try TemporaryFolder()
        let answered = AnswerCounter()
        let log = AccessLog(logger: Logger(label: "test.access") { _ in answered })
        let server = try await WebArcServer.start(
            archives: try ArchiveSet(readers: [try Self.archive(in: folder)]),
            configuration: .init(port: 0, cacheBytes: 8 << 20, threads: 2, accessLog: log))
        let client = try RawHTTPClient(port: server.port)
        // 2000 pipelined requests for 100 KB each: 200 MB of answers, far more than the socket
        // buffers on both sides hold.
        let requests = String(repeating: "GET /a.bin HTTP/1.1\r\nHost: x\r\n\r\n", count: 2000)
        try client.send(requests)
        // The server holds the rest back once the client stops taking answers, and says so.
        let held = await withHangGuard { await server.handlerEvents.first(of: [.answersHeld]) }
        #expect(held == .answersHeld)
        let whileStalled = answered.count
        #expect(whileStalled < 1000, "answered \(whileStalled) of 2000 for a client that reads nothing")
        // Once the client reads, every answer comes, whole and in order.
        for index in 0..<2000 {
            let response = try client.readResponse()
            guard response.status == 200, response.body == Self.body else {
                Issue.record("answer \(index): \(response.status), \(response.body.count) bytes")
                break
            }
        }
        #expect(answered.count == 2000)
        await server.stop()
    }
}

/// Counts access-log lines: one per answered request.
private final class AnswerCounter: LogHandler, @unchecked Sendable {
    private let lines = Atomic<Int>(0)
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    var count: Int { lines.load(ordering: .relaxed) }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { lines.wrappingAdd(1, ordering: .relaxed) }
}
