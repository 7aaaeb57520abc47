import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// Codec 3 (spec §6.2): Zstandard frames against a reference, and the checks on hostile frames.
@Suite struct DeltaCodecTests {
    let reference: [UInt8] = {
        var random = SeededGenerator(seed: 11)
        return random.text(80_000)
    }()

    var changed: [UInt8] {
        var bytes = reference
        bytes.insert(contentsOf: Array("<p>one added line</p>\n".utf8), at: 40_000)
        return bytes
    }

    func encode(_ raw: [UInt8], against reference: [UInt8]) -> [UInt8]? {
        raw.withUnsafeBytes { raw in
            reference.withUnsafeBytes { ZstdDelta.encode(raw, reference: $0, shorterThan: raw.count) }
        }
    }

    @Test("a page given one added line codes to tens of bytes and decodes back")
    func roundTrip() throws {
        let frame = try #require(encode(changed, against: reference))
        #expect(frame.count < 100, "\(frame.count) bytes")
        #expect(ZstdDelta.decode(frame, rawLength: changed.count, reference: reference) == changed)
        #expect(ZstdDelta.decode(frame, rawLength: changed.count, reference: Array(reference.dropLast())) != changed)
    }

    @Test("frames that break §6.2 are refused: trailing bytes, another content size, a skippable frame, garbage")
    func hostileFrames() throws {
        let frame = try #require(encode(changed, against: reference))
        #expect(ZstdDelta.decode(frame + [0], rawLength: changed.count, reference: reference) == nil)
        #expect(ZstdDelta.decode(frame + frame, rawLength: changed.count, reference: reference) == nil)
        #expect(ZstdDelta.decode(frame, rawLength: changed.count - 1, reference: reference) == nil)
        #expect(ZstdDelta.decode(frame, rawLength: changed.count + 1, reference: reference) == nil)
        let skippable: [UInt8] = [0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 1, 2, 3, 4]
        #expect(ZstdDelta.decode(skippable, rawLength: 4, reference: reference) == nil)
        var random = SeededGenerator(seed: 3)
        for _ in 0..<200 {
            var mutated = frame
            mutated[Int.random(in: 0..<mutated.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            let decoded = ZstdDelta.decode(mutated, rawLength: changed.count, reference: reference)
            #expect(decoded == nil || decoded!.count == changed.count)
        }
        #expect(ZstdDelta.decode([0x28, 0xB5, 0x2F, 0xFD], rawLength: 10, reference: reference) == nil)
    }

    @Test("a reference that starts with the zstd dictionary magic is never tried")
    func dictionaryMagic() {
        let magic: [UInt8] = [0x37, 0xA4, 0x30, 0xEC] + reference
        #expect(encode(changed, against: magic) == nil)
    }

    @Test("chunk entry bounds for codec 3: stored shorter than raw, ratio bound counts the reference")
    func bounds() {
        let digest = SHA256Hash.of([UInt8]())
        let reference = ChunkEntry(offset: 16, storedLength: 100, rawLength: 100, codec: .raw, digest: digest)
        func delta(stored: UInt32, raw: UInt32) -> ChunkEntry {
            ChunkEntry(offset: 16, storedLength: stored, rawLength: raw, digest: digest, reference: reference)
        }
        #expect(delta(stored: 10, raw: 2_000).boundsProblem(bodyDataEnd: 1_000) == nil)
        #expect(delta(stored: 10, raw: 10).boundsProblem(bodyDataEnd: 1_000) != nil)
        #expect(delta(stored: 10, raw: 255 * 10 + 100).boundsProblem(bodyDataEnd: 1_000) == nil)
        #expect(delta(stored: 10, raw: 255 * 10 + 101).boundsProblem(bodyDataEnd: 1_000) == .amplification)
    }

    @Test("a codec-3 entry round-trips through a body entry with its reference (and that reference's dictionary)")
    func entryEncoding() throws {
        let digest = SHA256Hash.of(Array("x".utf8))
        let dictionary = ChunkEntry(offset: 16, storedLength: 5, rawLength: 9, codec: .lz4, layer: 1, digest: digest)
        let codec2 = ChunkEntry(
            offset: 40, storedLength: 5, rawLength: 9, codec: .lz4Dictionary, layer: 1, digest: digest,
            dictionary: dictionary)
        let delta = ChunkEntry(offset: 60, storedLength: 3, rawLength: 9, digest: digest, reference: codec2)
        let body = BodyEntry(
            reference: BodyReference(digest: BodyDigest.ofEmpty), length: 9, sha256: digest, chunks: [delta])
        var writer = ByteWriter()
        body.serialize(into: &writer)
        #expect(writer.bytes.count == BodyEntry.headSize + 3 * ChunkEntry.size)
        var reader = ByteReader(writer.bytes, region: .page(offset: 0))
        let parsed = try BodyEntry(parsing: &reader, page: 0)
        #expect(parsed.chunks[0].reference == codec2)
        #expect(parsed.chunks[0].reference?.dictionary == dictionary)
        #expect(parsed.chunks[0].followingEntries.map { $0.role } == [ChunkEntry.Role.deltaReference, .dictionary])
    }
}

/// `Writer.order` (spec §13.2): runs of record-tree positions.
@Suite struct InsertionOrderTests {
    @Test("positions round-trip as the fewest runs; the tree's own order stores nothing")
    func runs() throws {
        #expect(InsertionOrder(positions: [0, 1, 2, 3]).isTreeOrder)
        let order = InsertionOrder(positions: [2, 3, 0, 1, 4, 300, 5])
        #expect(order.runs.count == 5)
        let decoded = try InsertionOrder(encoded: order.encoded())
        #expect(decoded == order)
        #expect(throws: InsertionOrder.Problem.self) { try decoded.positions(count: 7) }
        let complete = InsertionOrder(positions: [2, 3, 0, 1, 6, 4, 5])
        #expect(try InsertionOrder(encoded: complete.encoded()).positions(count: 7) == [2, 3, 0, 1, 6, 4, 5])
        #expect(try InsertionOrder(positions: [1, 0]).positions(count: 2) == [1, 0])
    }

    @Test("positions read from the runs as asked for are the listed ones, for orders of few and many runs")
    func positionsFromRuns() throws {
        var generator = SeededGenerator(seed: 37)
        for runCount in [1, 2, 5, 40, 700] {
            // A permutation of 0..<count made of `runCount` runs, shuffled.
            var runs: [Range<Int>] = []
            var start = 0
            for _ in 0..<runCount {
                let length = Int.random(in: 1...30, using: &generator)
                runs.append(start..<start + length)
                start += length
            }
            runs.shuffle(using: &generator)
            let listed = runs.flatMap { Array($0) }
            let order = try InsertionOrder(encoded: InsertionOrder(positions: listed).encoded())
            let positions = try order.positionsInOrder(count: listed.count)
            #expect(positions.count == listed.count)
            #expect(Array(positions) == listed)
            #expect(try order.positions(count: listed.count) == listed)
            for index in stride(from: 0, to: listed.count, by: 7) { #expect(positions[index] == listed[index]) }
        }
        #expect(Array(try InsertionOrder().positionsInOrder(count: 4)) == [0, 1, 2, 3])
        // Runs that overlap, or leave a gap, while their lengths add up to the count.
        #expect(throws: InsertionOrder.Problem.self) {
            try InsertionOrder(positions: [0, 1, 1, 3]).positionsInOrder(count: 4)
        }
        #expect(throws: InsertionOrder.Problem.self) {
            try InsertionOrder(positions: [3, 2, 2, 0]).positionsInOrder(count: 4)
        }
    }

    @Test(
        "malformed orders are refused: a position twice, one out of range, a missing one, a zero run, an endless integer"
    )
    func malformed() throws {
        #expect(throws: InsertionOrder.Problem.self) { try InsertionOrder(positions: [1, 1]).positions(count: 2) }
        #expect(throws: InsertionOrder.Problem.self) { try InsertionOrder(positions: [1, 2]).positions(count: 2) }
        #expect(throws: InsertionOrder.Problem.self) { try InsertionOrder(positions: [1]).positions(count: 2) }
        #expect(throws: InsertionOrder.Problem.self) { try InsertionOrder(encoded: [0, 0]) }
        #expect(throws: InsertionOrder.Problem.self) { try InsertionOrder(encoded: [0x80]) }
        #expect(throws: InsertionOrder.Problem.self) {
            try InsertionOrder(encoded: [UInt8](repeating: 0xFF, count: 12))
        }
        let huge = InsertionOrder(positions: [Int(Int32.max)])
        #expect(throws: InsertionOrder.Problem.self) { try huge.positions(count: 3) }
    }
}
