import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcSearch

/// Index version 3 (spec §17.2, format 2.5: block-coded postings under `Archive.searchIndex3`)
/// against version 2 on the same pages: the same hits, order, scores and snippets, whatever blocks
/// the skip table lets a query pass over.
@Suite struct SearchIndexV3Tests {
    /// 400 pages of words from a small vocabulary (seeded), some common (every page), some rare, so
    /// that lists run from one posting to several blocks, and a rare word meets a common one.
    static let pages: [(path: String, html: String)] = {
        var generator = SeededGenerator(seed: 31)
        let common = ["the", "a", "river", "blue", "water", "map", "of", "json"]
        let rare = (0..<120).map { "w\($0)" }
        var pages: [(path: String, html: String)] = []
        for number in 0..<400 {
            let title = (0..<2).map { _ in common[Int.random(in: 0..<common.count, using: &generator)] }
            var text = (0..<Int.random(in: 5..<200, using: &generator)).map { _ in
                common[Int.random(in: 0..<common.count, using: &generator)]
            }
            text += (0..<3).map { _ in rare[Int.random(in: 0..<rare.count, using: &generator)] }
            text.shuffle(using: &generator)
            pages.append(
                (
                    "p/\(number).html",
                    "<title>\(title.joined(separator: " "))</title><p>\(text.joined(separator: " "))</p>"
                ))
        }
        return pages
    }()

    static let queries = [
        "the", "river", "json", "w7", "w7 the", "the w7", "river water", "blue river map", "\"blue river\"",
        "\"the river\" w3", "w1 w2", "riv*", "w1* the", "w99 \"of the\"", "json a of the", "nothing", "w5 nothing",
    ]

    @Test func version3AnswersAsVersion2() throws {
        // Block-coded postings are smaller.
        let v3 = try SearchIndexVersionTests.expectSameAnswers(
            Self.pages, older: 2, newer: 3, queries: Self.queries, limits: [1, 3, 10, 60, 500], suggest: "blue",
            in: try TemporaryFolder())
        #expect(ArchiveVerifier.verify(v3).problems.isEmpty)
    }

    /// Blocked lists of versions 3 and 4: the skip entries' bounds must not change the first
    /// results, whether one thread walks the lists or every core a part of them (each leader
    /// block its own run, so that the parts interleave).
    @Test(arguments: [UInt64(3), 4], [TopWalk.Split(), TopWalk.Split(blocksPerPart: 1, run: 1)])
    func theFirstResultsAreThoseOfTheWholeEvaluation(version: UInt64, split: TopWalk.Split) throws {
        let folder = try TemporaryFolder()
        try SearchIndexVersionTests.write(Self.pages, version: version, to: folder.file("index.webarc"))
        let index = try #require(try IndexView(try ArchiveReader(path: folder.file("index.webarc"))))
        for query in Self.queries {
            var whole = QueryEvaluation(index: index)
            var all = try whole.run(SearchQuery.parse(query))
            for count in [1, 2, 10, 100] {
                var top = QueryEvaluation(index: index)
                top.split = split
                // A prefix with other clauses is evaluated whole.
                guard var first = try top.runTop(SearchQuery.parse(query), count: count) else {
                    #expect(query == "w1* the")
                    continue
                }
                let expected = all.best(count)
                let found = first.best(count)
                #expect(found.map(\.document) == expected.map(\.document), "\(query) top \(count)")
                #expect(found.map(\.score) == expected.map(\.score), "\(query) top \(count)")
                #expect(top.phrasesToCheck == whole.phrasesToCheck, "\(query)")
            }
        }
    }

    @Test func aVersion3IndexIsUnderItsOwnKeyAndBit() throws {
        let folder = try TemporaryFolder()
        try SearchIndexVersionTests.write(Self.pages, version: 3, to: folder.file("v3.webarc"))
        let reader = try ArchiveReader(path: folder.file("v3.webarc"))
        // A 2.4 reader knows `search` and `searchIndex` only: it finds neither, so no index.
        #expect(try reader.metadata.searchIndex == nil)
        #expect(try reader.metadata.searchIndexV2 == nil)
        #expect(try reader.metadata.searchIndexV3 != nil)
        #expect(reader.trailer.optionalFeatures == Trailer.OptionalFeatures.searchIndexV3)
        #expect(reader.trailer.minorVersion == 5)
        #expect(try reader.metadata.writer?.search == 3)
        // `the` is in nearly every page: four blocks behind a skip table.
        let index = try #require(try IndexView(reader))
        let (shard, entry) = try #require(try index.lookup(Array("the".utf8)))
        #expect(entry.documentFrequency > 384)
        #expect(try index.termPostings(shard, entry).blockCount == 4)
        let documents = try index.postings(shard, entry).map(\.document)
        #expect(documents.count == entry.documentFrequency)
        #expect(zip(documents, documents.dropFirst()).allSatisfy { $0 < $1 })
    }

    /// Spec §17.2's block coding written plainly, value array by value array: the encoder, which
    /// writes each block in one pass, must give the same bytes.
    static func plainBlocks(_ postings: [Posting]) -> [UInt8] {
        var table: [UInt8] = []
        var blocks: [UInt8] = []
        var previous = -1
        for start in stride(from: 0, to: postings.count, by: BlockPostings.blockSize) {
            let block = postings[start..<min(postings.count, start + BlockPostings.blockSize)]
            let minLength = block.map(\.lengthCode).min()!
            var deltas: [UInt64] = []
            var last = previous
            for posting in block {
                deltas.append(UInt64(posting.document - last - 1))
                last = posting.document
            }
            let packed = block.map { UInt64($0.frequency - 1) << 1 | ($0.inTitle ? 1 : 0) }
            let lengths = block.map { UInt64($0.lengthCode - minLength) }
            let widths = [deltas, packed, lengths].map { UInt64.bitWidth - ($0.max() ?? 0).leadingZeroBitCount }
            LEB128.append(UInt64(last - previous - (previous < 0 ? 1 : 0)), to: &table)
            let maxFrequency = block.map(\.frequency).max()!
            LEB128.append(UInt64(maxFrequency) << 1 | (block.contains(where: \.inTitle) ? 1 : 0), to: &table)
            table.append(minLength)
            table += widths.map(UInt8.init)
            var bits = BitWriter()
            for (values, width) in zip([deltas, packed, lengths], widths) {
                for value in values { bits.append(value, width: width) }
            }
            blocks += bits.finish()
            previous = last
        }
        return table + blocks
    }

    @Test("the bit writer lays bits out as one written a bit at a time would, across words and byte pads")
    func bitWriterMatchesBitByBit() {
        var generator = SeededGenerator(seed: 64)
        for _ in 0..<200 {
            var writer = BitWriter()
            var reference: [Bool] = []
            for _ in 0..<Int.random(in: 0..<300, using: &generator) {
                if Int.random(in: 0..<40, using: &generator) == 0 {
                    writer.padToByte()
                    while reference.count % 8 != 0 { reference.append(false) }
                    continue
                }
                let width = [0, 1, 7, 13, 32, 33, 40, 63, 64].randomElement(using: &generator)!
                let value = UInt64.random(in: 0...UInt64.max, using: &generator)
                writer.append(value, width: width)
                for bit in 0..<width { reference.append(value >> UInt64(bit) & 1 == 1) }
            }
            while reference.count % 8 != 0 { reference.append(false) }
            let expected = stride(from: 0, to: reference.count, by: 8).map { start in
                (0..<8).reduce(UInt8(0)) { $0 | (reference[start + $1] ? 1 << UInt8($1) : 0) }
            }
            #expect(writer.finish() == expected)
        }
    }

    @Test func blocksAreCodedAsTheSpecWritesThem() {
        var generator = SeededGenerator(seed: 17)
        for count in [32, 127, 128, 129, 255, 256, 257, 1000, 5000] {
            var document = Int.random(in: -1..<3, using: &generator)
            // Lengths over the whole byte, or within a few codes (narrow offsets).
            let maxLength: UInt8 = Bool.random(using: &generator) ? 255 : 3
            let postings = (0..<count).map { _ in
                document += Int.random(in: 1..<(1 << Int.random(in: 1..<24, using: &generator)), using: &generator)
                return Posting(
                    document: document,
                    frequency: Int.random(in: 1..<(1 << Int.random(in: 1..<33, using: &generator)), using: &generator),
                    inTitle: Int.random(in: 0..<5, using: &generator) == 0,
                    lengthCode: UInt8.random(in: 0...maxLength, using: &generator))
            }
            #expect(BlockPostings.encode(postings) == Self.plainBlocks(postings), "\(count) postings")
        }
    }

    /// Seeded lists of several lengths, coded and decoded back; then every byte of one cut off or
    /// changed: each is refused as `corruptPage` or decodes to postings that are still in order.
    @Test func blocksRoundTripAndRefuseDamage() throws {
        var generator = SeededGenerator(seed: 5)
        for count in [1, 31, 32, 127, 128, 129, 300, 1000] {
            var document = -1
            let postings = (0..<count).map { _ in
                document += Int.random(in: 1..<(count < 200 ? 5000 : 40), using: &generator)
                return Posting(
                    document: document,
                    frequency: Int.random(in: 1..<(1 << Int.random(in: 1..<20, using: &generator)), using: &generator),
                    inTitle: Bool.random(using: &generator), lengthCode: UInt8.random(in: 0...255, using: &generator))
            }
            let bytes = BlockPostings.encode(postings)
            let list = try TermPostings(bytes, count: count, documentCount: 1 << 30, version: 3, page: 7)
            let decoded = try list.all()
            #expect(decoded.map(\.document) == postings.map(\.document))
            #expect(decoded.map(\.frequency) == postings.map(\.frequency))
            #expect(decoded.map(\.inTitle) == postings.map(\.inTitle))
            #expect(decoded.map(\.lengthCode) == postings.map(\.lengthCode))
            #expect(list.blockCount == (count < 32 ? 1 : (count + 127) / 128))
        }
        let postings = (0..<300).map {
            Posting(document: $0 * 3, frequency: 1 + $0 % 5, inTitle: $0 % 7 == 0, lengthCode: 40)
        }
        let bytes = BlockPostings.encode(postings)
        #expect(throws: WebArcError.self) {
            _ = try TermPostings(Array(bytes.dropLast()), count: 300, documentCount: 1000, version: 3, page: 7).all()
        }
        #expect(throws: WebArcError.self) {
            _ = try TermPostings(bytes + [0], count: 300, documentCount: 1000, version: 3, page: 7).all()
        }
        // Documents past `documentCount`.
        #expect(throws: WebArcError.self) {
            _ = try TermPostings(bytes, count: 300, documentCount: 800, version: 3, page: 7).all()
        }
        for position in bytes.indices {
            var damaged = bytes
            damaged[position] ^= 0x5A
            do {
                let decoded = try TermPostings(damaged, count: 300, documentCount: 1000, version: 3, page: 7).all()
                #expect(zip(decoded, decoded.dropFirst()).allSatisfy { $0.document < $1.document })
            } catch let error as WebArcError {
                guard case .corruptPage(let page, _, _) = error else {
                    Issue.record("\(error) at byte \(position)")
                    continue
                }
                #expect(page == 7)
            }
        }
    }
}
