import Crypto
import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

@Suite("Archive round trips")
struct ArchiveRoundTripTests {
    @Test("records and bodies come back as written, found by canonical URL")
    func roundTrip() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 1)
        let pages = (0..<50).map { index in
            ("http://localhost/page\(index).html", random.text(Int.random(in: 0...70_000, using: &random)))
        }
        let path = try makeArchive(
            at: folder.file("a.webarc"), pages: pages,
            metadata: ArchiveMetadata(startURL: "http://localhost/page0.html"))
        let reader = try ArchiveReader(path: path)
        #expect(reader.recordCount == 50)
        #expect(try reader.metadata.startURL == "http://localhost/page0.html")
        for (url, bytes) in pages {
            let entry = try #require(
                try reader.lookup(
                    url: url.replacingOccurrences(of: "http://localhost", with: "HTTP://LocalHost:80") + "#frag"))
            guard case .response(let response) = entry.record else {
                Issue.record("expected a response for \(url)")
                continue
            }
            #expect(response.bodyLength == UInt64(bytes.count))
            #expect(Array(try reader.body(response.body)) == bytes)
        }
        #expect(try reader.lookup(url: "http://localhost/missing") == nil)
    }

    @Test("identical bodies are stored once")
    func dedup() throws {
        let folder = try TemporaryFolder()
        let same = Array(String(repeating: "same body ", count: 1000).utf8)
        let path = try makeArchive(
            at: folder.file("d.webarc"), pages: (0..<20).map { ("http://localhost/\($0)", same) })
        let reader = try ArchiveReader(path: path)
        #expect(reader.recordCount == 20)
        #expect(reader.bodyCount == 1)
    }

    @Test("a large streamed body is chunked and byte ranges decode only what they need")
    func largeBodyAndRanges() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 2)
        let bytes = random.text(3 * ChunkEntry.maxRawLength + 1234)
        let source = folder.file("big.bin")
        try Data(bytes).write(to: URL(fileURLWithPath: source))
        let writer = try ArchiveWriter(path: folder.file("big.webarc"))
        let body = try writer.addBody(contentsOfFile: source)
        try writer.add(ResponseRecord(request: RequestRecord(url: "http://localhost/big"), body: body))
        try writer.finish()
        let reader = try ArchiveReader(path: folder.file("big.webarc"))
        #expect(try reader.chunkCount == 4)
        #expect(Array(try reader.body(body.reference)) == bytes)
        let range: Range<UInt64> = 262_000..<530_000
        #expect(Array(try reader.body(body.reference, range: range)) == Array(bytes[262_000..<530_000]))
        #expect(body.reference.digest == BodyDigest(Insecure.MD5.hash(data: bytes)))
    }
}
