import Crypto
import Foundation
import Testing
import WebArcTestSupport

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
        let bytes = shared + random.text(1000)
        let raw = shared.prefix(15_000) + random.text(2000)
        for level in [1, 3, 12] {
            for dictionary in [LZ4Dictionary(bytes, placement: .prefix), LZ4Dictionary(bytes, placement: .apart)] {
                let coded = raw.withUnsafeBytes { ChunkEncoder.encode($0, level: level, dictionary: dictionary) }
                let plain = raw.withUnsafeBytes { ChunkEncoder.encode($0, level: level) }
                #expect(coded.codec == .lz4Dictionary)
                #expect(coded.stored.count < plain.stored.count / 2)
                #expect(try ChunkEncoder.decode(coded) == Array(raw))
                // The template is copied for each block: coding twice gives the same block.
                #expect(
                    raw.withUnsafeBytes { ChunkEncoder.encode($0, level: level, dictionary: dictionary) }.stored
                        == coded.stored)
            }
        }
    }

    @Test(
        "the dictionary's placement: right before the chunk (liblz4's prefix mode) a match at the chunk's first byte reaches back into the dictionary's last byte, apart it cannot; both decode, and each block is the one liblz4 gives (known answers made with ctypes)"
    )
    func placement() throws {
        let dictionary =
            Array(String(repeating: "<html><head><title>dictionary</title></head><body>", count: 10).utf8)
            + Array("Q".utf8)
        let raw =
            Array("<p>first paragraph</p>".utf8) + (32..<127).map { UInt8($0) }
            + Array("Q<p>first paragraph</p> and more text to end the block with literals.....".utf8)
        let prefixed = raw.withUnsafeBytes {
            ChunkEncoder.encode($0, level: 1, dictionary: LZ4Dictionary(dictionary, placement: .prefix))
        }
        let apart = raw.withUnsafeBytes {
            ChunkEncoder.encode($0, level: 1, dictionary: LZ4Dictionary(dictionary, placement: .apart))
        }
        // Tools/make-vectors/lz4block.py, compress_with_dict(raw, dictionary, prefix=True / False).
        let middle =
            "3c703e6669727374207061726167726170683c2f703e202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f40414243444546"
            + "4748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e"
        let end =
            "f022616e64206d6f7265207465787420746f20656e642074686520626c6f636b2077697468206c69746572616c732e2e2e2e2e"
        #expect(hex(prefixed.stored) == "ff66" + middle + "760005" + end)
        #expect(hex(apart.stored) == "ff67" + middle + "51760004" + end)
        for coded in [prefixed, apart] {
            #expect(coded.codec == .lz4Dictionary)
            #expect(LZ4.decode(coded.stored, rawLength: raw.count, dictionary: dictionary[...]) == raw)
        }
    }

    @Test(
        "a block longer than a chunk, against a dictionary placed right before it, is coded on a fresh load (no room after the dictionary) and decodes with it"
    )
    func prefixedLongBlock() throws {
        var random = SeededGenerator(seed: 12)
        let shared = random.text(30_000)
        let raw = Array(shared.prefix(20_000)) + random.text(ChunkEntry.maxRawLength + 40_000)
        for level in [1, 3] {
            let dictionary = LZ4Dictionary(shared, placement: .prefix)
            var block = [UInt8](repeating: 0, count: LZ4.compressBound(raw.count))
            let written = try #require(
                raw.withUnsafeBytes { source in
                    block.withUnsafeMutableBytes { dictionary.compress(source, into: $0, level: level) }
                })
            #expect(written < raw.count)
            #expect(LZ4.decode(Array(block.prefix(written)), rawLength: raw.count, dictionary: shared[...]) == raw)
        }
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

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
    /// chunk's digest and the body hash are swift-crypto's SHA-256 and the MD5 its MD5 whether
    /// they are hashed in one pass (SHA-NI) or apart, and the chunks are the same bytes either way.
    @Test(
        "a streamed body's MD5, chunk digests and body hash equal swift-crypto's, hashed in one pass or apart, whatever the pieces"
    )
    func streamedBodyDigests() throws {
        var random = SeededGenerator(seed: 7)
        let chunk = ChunkEntry.maxRawLength
        for (round, length) in [0, 1, 63, 64, chunk - 1, chunk, chunk + 1, 2 * chunk + 63, 3 * chunk + 1000, 5 * chunk]
            .enumerated()
        {
            let body = round % 2 == 0 ? random.bytes(length) : random.text(length)
            var outcomes: [(chunks: [ChunkEncoder.Encoded], md5: BodyDigest, sha256: SHA256Hash)] = []
            for pairs in [true, false] {
                var stream = RawBodyStream(
                    level: 1, slot: (position: 1, isAnchor: false, dictionary: nil), pairs: pairs)
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
                let expected = stride(from: 0, to: body.count, by: chunk).map {
                    SHA256Hash.of(body[$0..<min($0 + chunk, body.count)])
                }
                #expect(chunks.map(\.digest) == expected, "round \(round): chunk digests")
            }
            #expect(outcomes[0].chunks.map(\.stored) == outcomes[1].chunks.map(\.stored), "round \(round): same chunks")
        }
    }
}
