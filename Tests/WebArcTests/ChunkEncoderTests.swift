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
