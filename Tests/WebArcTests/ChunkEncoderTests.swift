import Crypto
import Foundation
import Testing

@testable import WebArc

/// Spec §6.3's chunk rule as the writer applies it.
@Suite("Chunk encoder")
struct ChunkEncoderTests {
    @Test("once a chunk is stored raw, the body's later chunks are stored raw untried", arguments: [1, 9])
    func rawAfterRaw(level: Int) throws {
        var random = SeededGenerator(seed: 5)
        let body = random.bytes(ChunkEntry.maxRawLength) + random.text(100_000)
        let prepared = body.withUnsafeBytes { PreparedBody(raw: $0, level: level, dictionary: nil) }
        #expect(prepared.chunks.map(\.codec) == [.raw, .raw])
        #expect(prepared.chunks[1].untried)
        let compressible = random.text(ChunkEntry.maxRawLength) + random.bytes(1000) + random.text(100_000)
        let other = compressible.withUnsafeBytes { PreparedBody(raw: $0, level: level, dictionary: nil) }
        #expect(other.chunks.map(\.codec) == [.lz4, .lz4])
    }

    @Test("a chunk coded against a dictionary decodes with it and is smaller than without")
    func dictionary() throws {
        var random = SeededGenerator(seed: 6)
        let shared = random.text(20_000)
        let dictionary = LZ4Dictionary(shared + random.text(1000))
        let raw = shared.prefix(15_000) + random.text(2000)
        for level in [1, 3, 12] {
            let coded = raw.withUnsafeBytes { ChunkEncoder.encode($0, level: level, dictionary: dictionary) }
            let plain = raw.withUnsafeBytes { ChunkEncoder.encode($0, level: level) }
            #expect(coded.codec == .lz4Dictionary)
            #expect(coded.stored.count < plain.stored.count / 2)
            #expect(try ChunkEncoder.decode(coded) == Array(raw))
            // The template is copied for each block: coding twice gives the same block.
            #expect(raw.withUnsafeBytes { ChunkEncoder.encode($0, level: level, dictionary: dictionary) }.stored == coded.stored)
        }
    }

    @Test("an anchor's dictionary is the last 64 KiB of its last chunk")
    func anchorTail() {
        let body = (0..<(ChunkEntry.maxRawLength + 70_000)).map { UInt8($0 % 251) }
        #expect(Array(DictionaryAnchors.tail(ofBody: body)) == Array(body.suffix(65_536)))
        let short = Array(body.prefix(ChunkEntry.maxRawLength + 1000))
        #expect(Array(DictionaryAnchors.tail(ofBody: short)) == Array(short.suffix(1000)))
        #expect(DictionaryAnchors.tail(ofBody: [UInt8]()).isEmpty)
    }
}

extension ChunkEncoderTests {
    /// A body that arrives in pieces (pack's streamed files, the writer's streaming adds): each
    /// chunk's digest and the body hash are swift-crypto's SHA-256 whether a later chunk is hashed
    /// with the body in one pass (SHA-NI) or apart, and the chunks are the same bytes either way.
    @Test("a streamed body's chunk digests and body hash equal swift-crypto's, hashed in pairs or apart, whatever the pieces")
    func streamedBodyDigests() throws {
        var random = SeededGenerator(seed: 7)
        let chunk = ChunkEntry.maxRawLength
        for (round, length) in [0, 1, 63, 64, chunk - 1, chunk, chunk + 1, 2 * chunk + 63, 3 * chunk + 1000, 5 * chunk].enumerated() {
            let body = round % 2 == 0 ? random.bytes(length) : random.text(length)
            var outcomes: [(chunks: [ChunkEncoder.Encoded], md5: BodyDigest, sha256: SHA256Hash)] = []
            for pairs in [true, false] {
                var stream = RawBodyStream(level: 1, slot: (position: 1, isAnchor: false, dictionary: nil), pairs: pairs)
                var chunks: [ChunkEncoder.Encoded] = []
                var start = 0
                while start < body.count {
                    let end = min(body.count, start + Int.random(in: 1...(chunk + 5000), using: &random))
                    try stream.append(body[start..<end]) { chunks.append($0) }
                    start = end
                }
                try stream.flush { chunks.append($0) }
                outcomes.append((chunks, stream.digest, stream.sha256Hash))
            }
            for (chunks, md5, sha256) in outcomes {
                #expect(sha256 == SHA256Hash.of(body), "round \(round), \(length) bytes")
                #expect(md5 == BodyDigest(Insecure.MD5.hash(data: body)), "round \(round)")
                let expected = stride(from: 0, to: body.count, by: chunk).map { SHA256Hash.of(body[$0..<min($0 + chunk, body.count)]) }
                #expect(chunks.map(\.digest) == expected, "round \(round): chunk digests")
            }
            #expect(outcomes[0].chunks.map(\.stored) == outcomes[1].chunks.map(\.stored), "round \(round): same chunks")
        }
    }
}
