import Testing
import WebArcTestSupport

@testable import WebArcSearch

/// The merge and ranking steps of query evaluation against the plain set and sort they replace,
/// on seeded random lists.
@Suite struct MatchOrderTests {
    /// `count` distinct documents below `range`, ascending, each with a score of a few values (so
    /// that equal scores are common).
    static func scored(_ count: Int, below range: Int, _ generator: inout SeededGenerator) -> [ScoredDocument] {
        var documents: Set<Int> = []
        while documents.count < min(count, range) { documents.insert(Int(generator.next() % UInt64(range))) }
        return documents.sorted().map { ScoredDocument(document: $0, score: Double(generator.next() % 5) / 4) }
    }

    @Test func intersectionKeepsCommonDocumentsWithScoresAddedInOrder() {
        var generator = SeededGenerator(seed: 3)
        for (short, long) in [(0, 10), (5, 2_000), (300, 400), (1_000, 1_000), (40, 0)] {
            let first = Self.scored(short, below: 3_000, &generator)
            let second = Self.scored(long, below: 3_000, &generator)
            let scores = Dictionary(uniqueKeysWithValues: second.map { ($0.document, $0.score) })
            let expected = first.compactMap { match in
                scores[match.document].map { ScoredDocument(document: match.document, score: match.score + $0) }
            }
            let found = QueryEvaluation.intersect(first, second)
            #expect(found.map(\.document) == expected.map(\.document))
            #expect(found.map(\.score) == expected.map(\.score))
        }
    }

    @Test func postingsFilteredToCandidatesAreThoseTheCandidatesHold() {
        var generator = SeededGenerator(seed: 4)
        for (candidates, postings) in [(3, 5_000), (2_000, 50), (0, 100), (100, 0)] {
            let held = Self.scored(candidates, below: 10_000, &generator)
            let list = Self.scored(postings, below: 10_000, &generator).map {
                Posting(document: $0.document, frequency: 1, inTitle: false, lengthCode: 1)
            }
            let wanted = Set(held.map(\.document))
            #expect(
                DocumentOrder.filter(list, to: held).map(\.document)
                    == list.map(\.document).filter(wanted.contains))
            #expect(DocumentOrder.filter(list, to: nil).count == list.count)
        }
    }

    @Test func rankedMatchesComeBestFirstAsAFullSortOrdersThem() {
        var generator = SeededGenerator(seed: 5)
        for count in [0, 1, 2, 17, 1_000] {
            let matches = Self.scored(count, below: 5_000, &generator).shuffled(using: &generator)
            let sorted = matches.sorted { $0.score != $1.score ? $0.score > $1.score : $0.document < $1.document }
            var ranked = RankedMatches(matches)
            #expect(ranked.count == count)
            #expect(ranked.best(3).map(\.document) == sorted.prefix(3).map(\.document))
            #expect(ranked.best(count).map(\.document) == sorted.map(\.document))
            #expect(ranked.match(at: count) == nil)
            #expect(ranked.count == count)
        }
    }
}
