import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcSearch

/// Index version 4 (spec §17.2, format 2.6: Rice-coded postings, length codes in norm pages, under
/// `Archive.searchIndex4`) against version 3 on the same pages: the same hits, order, scores and
/// snippets, in fewer bytes.
@Suite struct SearchIndexV4Tests {
    @Test func version4AnswersAsVersion3() throws {
        let v4 = try SearchIndexVersionTests.expectSameAnswers(
            SearchIndexV3Tests.pages, older: 3, newer: 4, queries: SearchIndexV3Tests.queries,
            limits: [1, 3, 10, 60, 500], suggest: "blue", in: try TemporaryFolder())
        #expect(ArchiveVerifier.verify(v4).problems.isEmpty)
    }

    @Test func aVersion4IndexIsUnderItsOwnKeyAndBitWithNormPages() throws {
        let folder = try TemporaryFolder()
        try SearchIndexVersionTests.write(SearchIndexV3Tests.pages, version: 4, to: folder.file("v4.webarc"))
        let reader = try ArchiveReader(path: folder.file("v4.webarc"))
        // A 2.5 reader knows the first three keys only: it finds none, so no index.
        #expect(try reader.metadata.searchIndex == nil)
        #expect(try reader.metadata.searchIndexV2 == nil)
        #expect(try reader.metadata.searchIndexV3 == nil)
        #expect(try reader.metadata.searchIndexV4 != nil)
        #expect(reader.trailer.optionalFeatures == Trailer.OptionalFeatures.searchIndexV4)
        #expect(reader.trailer.minorVersion == 6)
        #expect(try reader.metadata.writer?.search == 4)
        let index = try #require(try IndexView(reader))
        #expect(index.root.normSpan == IndexFormat.normSpan)
        #expect(index.root.normPages.count == 1)
        // Each posting's length code is its document's, as the document page gives its length.
        let (shard, entry) = try #require(try index.lookup(Array("the".utf8)))
        #expect(try index.termPostings(shard, entry).blockCount == 4)
        for posting in try index.postings(shard, entry) {
            #expect(posting.lengthCode == LengthCode.encode(try index.document(posting.document).length))
        }
    }

    /// Spec §17.2's Rice coding written plainly, bit by bit as a string of 0 and 1: the encoder
    /// must give the same bytes.
    static func plainRice(_ postings: [Posting]) -> [UInt8] {
        func bytes(_ bits: [Bool]) -> [UInt8] {
            stride(from: 0, to: bits.count, by: 8).map { start in
                bits[start..<min(bits.count, start + 8)].enumerated().reduce(UInt8(0)) { $0 | ($1.1 ? 1 << $1.0 : 0) }
            }
        }
        func rice(_ values: [UInt64], limit: Int) -> (k: Int, bits: [Bool]) {
            let k = (0...limit).min { a, b in
                let cost = { (k: Int) in values.reduce(UInt64(0)) { $0 + ($1 >> UInt64(k)) + 1 + UInt64(k) } }
                return (cost(a), a) < (cost(b), b)
            }!
            var bits: [Bool] = []
            for value in values {
                bits += Array(repeating: true, count: Int(value >> UInt64(k))) + [false]
                bits += (0..<k).map { value >> UInt64($0) & 1 == 1 }
            }
            return (k, bits)
        }
        var table: [UInt8] = []
        var blocks: [UInt8] = []
        var previous = -1
        for start in stride(from: 0, to: postings.count, by: BlockPostings.blockSize) {
            let block = Array(postings[start..<min(postings.count, start + BlockPostings.blockSize)])
            let deltas = zip([previous] + block.map(\.document), block).map { UInt64($1.document - $0 - 1) }
            let packed = block.map { UInt64($0.frequency - 1) << 1 | ($0.inTitle ? 1 : 0) }
            let (deltaK, deltaBits) = rice(deltas, limit: 40)
            let (packedK, packedBits) = rice(packed, limit: 33)
            let coded = bytes(deltaBits + packedBits)
            let last = block.last!.document
            LEB128.append(UInt64(last - previous - (previous < 0 ? 1 : 0)), to: &table)
            LEB128.append(
                UInt64(block.map(\.frequency).max()!) << 1 | (block.contains(where: \.inTitle) ? 1 : 0), to: &table)
            table += [block.map(\.lengthCode).min()!, UInt8(deltaK), UInt8(packedK)]
            LEB128.append(UInt64(coded.count), to: &table)
            blocks += coded
            previous = last
        }
        return table + blocks
    }

    /// Postings of `count` documents with gaps and counts of many sizes, length codes from `norms`.
    static func postings(_ count: Int, seed: UInt64, norms: [UInt8]) -> [Posting] {
        var generator = SeededGenerator(seed: seed)
        var document = -1
        return (0..<count).map { _ in
            document += Int.random(in: 1..<(1 << Int.random(in: 1..<12, using: &generator)), using: &generator)
            return Posting(
                document: document,
                frequency: Int.random(in: 1..<(1 << Int.random(in: 1..<20, using: &generator)), using: &generator),
                inTitle: Int.random(in: 0..<5, using: &generator) == 0, lengthCode: norms[document % norms.count])
        }
    }

    /// Length codes of documents, one of every 251 so that any document has one.
    static let norms: [UInt8] = (0..<251).map { UInt8(($0 * 37) % 251) }

    static func lookup(documentCount: Int, span: Int) -> NormLookup {
        let codes = (0..<documentCount).map { norms[$0 % norms.count] }
        return NormLookup(span: span, documentCount: documentCount) { number in
            codes[(number * span)..<min(documentCount, (number + 1) * span)]
        }
    }

    @Test func blocksAreCodedAsTheSpecWritesThemAndRoundTrip() throws {
        for (count, seed) in [(32, 1), (127, 2), (128, 3), (129, 4), (300, 5), (1000, 6), (5000, 7)] as [(Int, UInt64)]
        {
            let postings = Self.postings(count, seed: seed, norms: Self.norms)
            let bytes = RicePostings.encode(postings)
            #expect(bytes == Self.plainRice(postings), "\(count) postings")
            // Norm pages of a few documents each: the fill crosses many pages.
            let documentCount = postings.last!.document + 1
            let list = try TermPostings(
                bytes, count: count, documentCount: documentCount, version: 4,
                norms: Self.lookup(documentCount: documentCount, span: 7), page: 7)
            let decoded = try list.all()
            #expect(decoded.map(\.document) == postings.map(\.document))
            #expect(decoded.map(\.frequency) == postings.map(\.frequency))
            #expect(decoded.map(\.inTitle) == postings.map(\.inTitle))
            #expect(decoded.map(\.lengthCode) == postings.map(\.lengthCode))
        }
        // A short list: int delta, int packed, no length code.
        let short = Self.postings(5, seed: 9, norms: Self.norms)
        #expect(RicePostings.encode(short).count == BlockPostings.version2(short).count - 5)
    }

    @Test func damagedBlocksAreRefused() throws {
        let postings = Self.postings(300, seed: 11, norms: Self.norms)
        let documentCount = postings.last!.document + 1
        let norms = Self.lookup(documentCount: documentCount, span: 64)
        let bytes = RicePostings.encode(postings)
        func decode(_ bytes: [UInt8], documentCount: Int = documentCount, norms: NormLookup? = norms) throws {
            _ = try TermPostings(
                bytes, count: 300, documentCount: documentCount, version: 4, norms: norms, page: 7
            ).all()
        }
        #expect(throws: WebArcError.self) { try decode(Array(bytes.dropLast())) }
        #expect(throws: WebArcError.self) { try decode(bytes + [0]) }
        #expect(throws: WebArcError.self) { try decode(bytes, documentCount: documentCount - 1) }
        // A version 4 list read without its norm pages.
        #expect(throws: WebArcError.self) { try decode(bytes, norms: nil) }
        // A skip entry whose smallest length code is not the block's documents'.
        let other = Self.lookup(documentCount: documentCount + 5, span: 64)
        let shifted = NormLookup(span: 64, documentCount: documentCount) { try other.page($0 + 1) }
        #expect(throws: WebArcError.self) { try decode(bytes, norms: shifted) }
        // A one-bit in the last block's padding, when it has padding.
        var padded = bytes
        padded[padded.count - 1] |= 0x80
        if padded != bytes { #expect(throws: WebArcError.self) { try decode(padded) } }
        for position in bytes.indices {
            var damaged = bytes
            damaged[position] ^= 0x5A
            do {
                let decoded = try TermPostings(
                    damaged, count: 300, documentCount: documentCount, version: 4, norms: norms, page: 7
                ).all()
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

    /// The list writer (an apply's join codes a renumbered list through it) takes postings one
    /// by one, in any runs, and refuses one whose document does not ascend.
    @Test func theListWriterCodesAsEncodeAndRefusesADocumentOutOfOrder() {
        let postings = Self.postings(700, seed: 19, norms: Self.norms)
        var writer = RiceListWriter()
        let added = postings.map { writer.append($0) }
        #expect(added.allSatisfy { $0 })
        let last = postings.last!
        let again = writer.append(last)
        let lower = writer.append(Posting(document: last.document - 1, frequency: 1, inTitle: false, lengthCode: 0))
        #expect(!again && !lower)
        #expect(writer.count == 700)
        #expect(writer.finish() == Self.plainRice(postings))
    }

    /// A block read in part (a top-k walk's lookups) gives the postings a whole decode gives.
    @Test func aBlockReadInPartGivesTheWholeBlocksPostings() throws {
        let postings = Self.postings(1000, seed: 13, norms: Self.norms)
        let documentCount = postings.last!.document + 1
        let list = try TermPostings(
            RicePostings.encode(postings), count: 1000, documentCount: documentCount, version: 4,
            norms: Self.lookup(documentCount: documentCount, span: 7), page: 7)
        for number in 0..<list.blockCount {
            let whole = try list.block(number)
            let part = try #require(try list.partialBlock(number))
            #expect(part.documents == whole.map(\.document))
            // Every third posting, forwards, as a walk asks: each read on from the last.
            for index in stride(from: number % 3, to: whole.count, by: 3) {
                let posting = try list.posting(at: index, in: part)
                #expect(posting.document == whole[index].document)
                #expect(posting.frequency == whole[index].frequency)
                #expect(posting.inTitle == whole[index].inTitle)
                #expect(posting.lengthCode == whole[index].lengthCode)
            }
        }
    }

    /// A damaged block read in part is refused, or its postings stay within the skip entry's
    /// bounds: no weight passes the bound a walk passed blocks over by.
    @Test func aDamagedBlockReadInPartStaysWithinItsBounds() throws {
        let postings = Self.postings(300, seed: 17, norms: Self.norms)
        let documentCount = postings.last!.document + 1
        let norms = Self.lookup(documentCount: documentCount, span: 64)
        let bytes = RicePostings.encode(postings)
        var refused = 0
        for position in bytes.indices {
            var damaged = bytes
            damaged[position] ^= 0x5A
            do {
                let list = try TermPostings(
                    damaged, count: 300, documentCount: documentCount, version: 4, norms: norms, page: 7)
                for number in 0..<list.blockCount {
                    let skip = list.skip(number)
                    let part = try #require(try list.partialBlock(number))
                    for index in part.documents.indices {
                        let posting = try list.posting(at: index, in: part)
                        #expect(posting.frequency <= skip.maxFrequency)
                        #expect(!posting.inTitle || skip.anyInTitle)
                        #expect(posting.lengthCode >= skip.minLengthCode)
                    }
                }
            } catch let error as WebArcError {
                guard case .corruptPage(let page, _, _) = error else {
                    Issue.record("\(error) at byte \(position)")
                    continue
                }
                #expect(page == 7)
                refused += 1
            }
        }
        #expect(refused > 0)
    }

    @Test func aRunOfOnesPastTheBoundIsRefused() {
        // One skip entry (last document 200, count 1, length code 0, both parameters 0) and a block
        // of 9 bytes of one bits: its first value's run of ones never ends inside the block.
        var bytes: [UInt8] = []
        LEB128.append(200, to: &bytes)
        LEB128.append(2, to: &bytes)
        bytes += [0, 0, 0]
        LEB128.append(9, to: &bytes)
        bytes += [UInt8](repeating: 0xFF, count: 9)
        let norms = Self.lookup(documentCount: 1000, span: 64)
        #expect(throws: WebArcError.self) {
            _ = try TermPostings(bytes, count: 32, documentCount: 1000, version: 4, norms: norms, page: 3).all()
        }
    }

    /// A decoded list of a term on every page of a million is held whole while it is renumbered.
    @Test func aPostingTakesSixteenBytesAndClampsACountPastFourBytes() {
        #expect(MemoryLayout<Posting>.stride == 16)
        var posting = Posting(document: 3, frequency: 1 << 32, inTitle: true, lengthCode: 9)
        #expect(posting.frequency == Int(UInt32.max))
        posting.frequency = 7
        #expect(posting.frequency == 7)
    }

    @Test func aNormPageOfAnotherCountIsRefused() throws {
        let page = try SearchPage(
            parsing: SearchPage.encode(kind: .norms, children: [], payload: [1, 2, 3]), page: 99, pageArea: 0..<1000)
        #expect(try NormPage.parse(page, count: 3) == [1, 2, 3])
        #expect(throws: WebArcError.self) { _ = try NormPage.parse(page, count: 4) }
        #expect(throws: WebArcError.self) { _ = try NormPage.parse(page, count: 2) }
    }
}
