import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcServer

/// Verified reads (spec §11.2): a body whose chunk fails its SHA-256 is never answered as a
/// complete 200, and the server keeps serving everything else.
@Suite struct ServerDamageTests {
    /// Bytes LZ4 cannot shrink, so every chunk is stored raw and a flip changes content, not decoding.
    static func noise(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    static let large = noise(1 << 20, seed: 1)  // four 256 KiB chunks: streamed, never cached
    static let small = noise(3000, seed: 2)  // one chunk: decoded whole into the hot cache

    /// An archive with a large and a small body, each with one byte flipped in the chunk named,
    /// plus an undamaged page.
    static func damagedArchive(in folder: TemporaryFolder) throws -> ArchiveReader {
        let reader = try makeArchive(
            in: folder,
            [
                .page("http://localhost/large.bin", large), .page("http://localhost/small.bin", small),
                .text("http://localhost/", "<h1>fine</h1>"),
            ])
        let path = folder.file("test.webarc")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for (url, chunk) in [("http://localhost/large.bin", 2), ("http://localhost/small.bin", 0)] {
            guard case .response(let response)? = try reader.lookup(url: url)?.record else {
                throw TestFailure("no \(url)")
            }
            let offset = Int(try reader.bodyEntry(response.body).chunks[chunk].offset)
            bytes[offset + 100] ^= 0x5A
        }
        try bytes.write(to: URL(fileURLWithPath: path))
        return try ArchiveReader(path: path, mapped: true)
    }

    @Test func aStreamedBodyWithADamagedChunkIsCutShortAndTheServerGoesOn() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try Self.damagedArchive(in: folder)], cacheBytes: 1 << 20) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send("GET /large.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            // The head and the first two verified chunks may go out; the third never does, so the
            // declared length is never reached and the connection closes.
            #expect(throws: RawHTTPError.self) { _ = try client.readResponse() }
            let page = try fetch(server.port, "/")
            #expect(page.status == 200)
            #expect(page.body == Array("<h1>fine</h1>".utf8))
        }
    }

    @Test func aCachedBodyWithADamagedChunkIsNeverAnswered200() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try Self.damagedArchive(in: folder)]) { server in
            for _ in 0..<2 {  // the second request must not find a damaged body in the cache either
                let client = try RawHTTPClient(port: server.port)
                let response = try client.request("GET", "/small.bin")
                #expect(response.status == 500, "a damaged body answered \(response.status)")
                #expect(response.header("Connection") == "close")
                #expect(String(decoding: response.body, as: UTF8.self).contains("SHA-256"))
                #expect(client.isClosedByPeer())
            }
            #expect(try fetch(server.port, "/").status == 200)
        }
    }
}

/// A test's own failure with a message.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
