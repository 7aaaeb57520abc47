import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcServer

/// A body far larger than the cache streams at the client's pace and survives a stop.
@Suite struct ServerStreamingTests {
    /// 40 MiB that LZ4 packs small, so that decoding ahead of the client would be quick and show.
    static let large: [UInt8] = {
        var block = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 / 1000) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(40 << 20)
        for number in 0..<40 {
            block[0] = UInt8(number)
            bytes += block
        }
        return bytes
    }()

    /// Whether `body` is ``large``, without printing 40 MiB when it is not.
    static func isLarge(_ body: [UInt8]) -> Bool {
        guard body != large else { return true }
        let first = (0..<min(body.count, large.count)).first { body[$0] != large[$0] } ?? min(body.count, large.count)
        Issue.record("body of \(body.count) bytes, expected \(large.count); first difference at \(first)")
        return false
    }

    static func archive(in folder: TemporaryFolder) throws -> ArchiveReader {
        try makeArchive(
            in: folder,
            [
                .page(
                    "http://localhost/large.bin", large,
                    headers: [HTTPHeader("Content-Type", "application/octet-stream")])
            ])
    }

    @Test func aStalledClientHoldsTheServerToAboutOneChunk() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try Self.archive(in: folder)], cacheBytes: 1 << 20) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send("GET /large.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            try client.waitForBytes(1 << 20)
            // Stall: the socket buffers fill and the server must stop decoding, not run ahead. The
            // server says which came first: it paused, or it decoded the whole 40 MiB.
            let first = await withHangGuard { await server.handlerEvents.first(of: [.streamPaused, .streamDecoded]) }
            #expect(first == .streamPaused)
            let stalled = server.streamGauge.maximum
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(Self.isLarge(response.body))
            #expect(stalled > 0)
            #expect(server.streamGauge.maximum <= 1 << 20, "decoded but unwritten bytes stay within a few chunks")
        }
    }

    /// Starts a server with `grace` seconds for a stop and a client that has received the first
    /// MiB of the large body (the rest is still streaming, held back by the socket buffers).
    static func streaming(in folder: TemporaryFolder, grace: Double) async throws -> (WebArcServer, RawHTTPClient) {
        let server = try await WebArcServer.start(
            archives: try ArchiveSet(readers: [try archive(in: folder)]),
            configuration: .init(port: 0, cacheBytes: 1 << 20, threads: 2, shutdownGrace: grace))
        let client = try RawHTTPClient(port: server.port)
        try client.send("GET /large.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        try client.waitForBytes(1 << 20)
        return (server, client)
    }

    @Test func stopLetsABodyInFlightFinish() async throws {
        let folder = try TemporaryFolder()
        let (server, client) = try await Self.streaming(in: folder, grace: 120)
        let stopping = Task { await server.stop() }
        await server.waitUntilStopped()
        #expect(throws: RawHTTPError.self) { try RawHTTPClient(port: server.port) }
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(Self.isLarge(response.body))
        await stopping.value
        #expect(client.isClosedByPeer())
    }

    @Test func stopCutsABodyStillStreamingAfterTheGracePeriod() async throws {
        let folder = try TemporaryFolder()
        let (server, client) = try await Self.streaming(in: folder, grace: 0.2)
        await server.stop()
        #expect(throws: RawHTTPError.self) { try client.readResponse() }
    }
}
