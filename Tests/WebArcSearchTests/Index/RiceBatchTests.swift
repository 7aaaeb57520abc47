import Testing
import WebArc

@testable import WebArcSearch

/// Version 4's lists coded on every core a batch at a time (``RiceBatch``): the terms reach the
/// shards in the order they came, each blocked list coded as one term at a time would code it.
@Suite struct RiceBatchTests {
    /// A term's postings coded as runs hold them: `count` documents from `first`, `step` apart.
    private static func coded(first: Int, count: Int, step: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var previous: Int?
        for number in 0..<count {
            let document = first + number * step
            PostingCodec.encode(
                document: document, previous: previous, frequency: 1 + number % 3, inTitle: number % 5 == 0,
                lengthCode: UInt8(16 + number % 40), into: &bytes)
            previous = document
        }
        return bytes
    }

    /// Terms of short and blocked lists (the longest over a batch's postings on its own), with a
    /// list already coded (as a join gives one) among them.
    private static let terms: [(term: [UInt8], frequency: Int, postings: JoinedPostings)] = (0..<40).map { number in
        let term = Array("term\(1000 + number)".utf8)
        if number == 7 { return (term, 3, .rice([1, 2, 3])) }
        let count = number == 20 ? RiceBatch.batchPostings + 500 : [1, 31, 32, 200, 129][number % 5]
        return (term, count, .coded(postings: coded(first: number, count: count, step: 2 + number % 4), positions: []))
    }

    @Test(arguments: [1, 3, 4096])
    func termsGoOnInOrderEachCodedAsAlone(batchTerms: Int) throws {
        var batch = RiceBatch(version: 4, batchTerms: batchTerms)
        var received: [(term: [UInt8], frequency: Int, postings: JoinedPostings)] = []
        func sink(_ term: [UInt8], _ frequency: Int, _ postings: JoinedPostings) throws {
            received.append((term, frequency, postings))
        }
        for term in Self.terms { try batch.add(term: term.term, frequency: term.frequency, term.postings, to: sink) }
        try batch.flush(to: sink)
        #expect(received.map(\.term) == Self.terms.map(\.term))
        #expect(received.map(\.frequency) == Self.terms.map(\.frequency))
        for (got, term) in zip(received, Self.terms) {
            let name = String(decoding: term.term, as: UTF8.self)
            switch (term.postings, got.postings) {
            case (.coded(let postings, _), .rice(let rice)) where term.frequency >= BlockPostings.blockedFrom:
                let alone = RicePostings.encode(
                    try PostingCodec.postings(postings, count: term.frequency, documentCount: 1 << 40, page: 0))
                #expect(rice == alone, "\(name)")
            // A short list goes on as it came; the shard codes it.
            case (.coded(let postings, _), .coded(let passed, _)) where term.frequency < BlockPostings.blockedFrom:
                #expect(passed == postings, "\(name)")
            case (.rice(let rice), .rice(let passed)): #expect(passed == rice, "\(name)")
            default: Issue.record("\(name) came on as \(got.postings)")
            }
        }
    }

    /// A damaged blocked list fails the batch with its error after the terms before it went on,
    /// as one term at a time would.
    @Test(arguments: [1, 3, 4096])
    func aDamagedListFailsAfterTheTermsBeforeIt(batchTerms: Int) throws {
        var batch = RiceBatch(version: 4, batchTerms: batchTerms)
        var received: [[UInt8]] = []
        func sink(_ term: [UInt8], _ frequency: Int, _ postings: JoinedPostings) throws { received.append(term) }
        var terms = Self.terms.prefix(10).map { $0 }
        // A blocked list of 40 postings announced, 39 given.
        terms[4].frequency = 40
        terms[4].postings = .coded(postings: Self.coded(first: 0, count: 39, step: 1), positions: [])
        #expect(throws: WebArcError.self) {
            for term in terms { try batch.add(term: term.term, frequency: term.frequency, term.postings, to: sink) }
            try batch.flush(to: sink)
        }
        #expect(received == terms.prefix(4).map(\.term))
    }

    /// Before version 4 each term goes on at once, as it came.
    @Test func earlierVersionsPassTermsThrough() throws {
        var batch = RiceBatch(version: 3)
        var received: [[UInt8]] = []
        for term in Self.terms.prefix(5) {
            try batch.add(term: term.term, frequency: term.frequency, term.postings) { got, _, postings in
                if case .coded = postings { received.append(got) }
            }
            #expect(received.last == term.term)
        }
    }
}
