import Testing

@testable import WebArc

/// The analyses a writer keeps from its pipeline's workers until it finishes (``AnalysesAhead``):
/// within a budget, and only for the response they were made for.
@Suite("Analyses ahead")
struct AnalysesAheadTests {
    static let page = IndexableResponse(
        url: "http://localhost/a.html", status: 200, mediaType: "text/html", charset: nil, length: 5)

    static func reference(_ byte: UInt8) -> BodyReference {
        BodyReference(digest: BodyDigest(sixteen: Array(repeating: byte, count: 16)))
    }

    @Test("an analysis kept for a body is taken once, for the response it was made for")
    func takenForItsResponse() {
        let ahead = AnalysesAhead()
        #expect(ahead.reserve(100))
        ahead.keep(AnalysisAhead(response: Self.page, analysis: "a", bytes: 100), for: Self.reference(1))
        #expect(ahead.take(Self.reference(1), offered: Self.page) as? String == "a")
        #expect(ahead.take(Self.reference(1), offered: Self.page) == nil)

        #expect(ahead.reserve(100))
        ahead.keep(AnalysisAhead(response: Self.page, analysis: "b", bytes: 100), for: Self.reference(2))
        var other = Self.page
        other.url = "http://localhost/"
        // Another URL answers with the body first in tree order: the body is analysed again.
        #expect(ahead.take(Self.reference(2), offered: other) == nil)
        #expect(ahead.take(Self.reference(2), offered: Self.page) == nil)
    }

    @Test("the budget closes at the first analysis that does not fit, and opens as analyses are taken")
    func budgetCloses() {
        let ahead = AnalysesAhead()
        #expect(ahead.reserve(AnalysesAhead.budget - 10))
        #expect(ahead.hasRoom)
        #expect(!ahead.reserve(11))
        #expect(!ahead.hasRoom)
        ahead.keep(
            AnalysisAhead(response: Self.page, analysis: "a", bytes: AnalysesAhead.budget - 10), for: Self.reference(1))
        _ = ahead.take(Self.reference(1), offered: Self.page)
        #expect(ahead.hasRoom)
        #expect(ahead.reserve(AnalysesAhead.budget - 10))
    }
}
