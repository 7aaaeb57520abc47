import Testing

@testable import WebArcSearch

@Suite struct TextSearchQueryTests {
    func clauses(_ text: String) throws -> [SearchQuery.Clause] {
        try SearchQuery.parse(text).clauses
    }

    @Test func wordsPhrasesAndPrefixes() throws {
        #expect(
            try clauses(#"JSON Dumps "Sort Keys" Pyth*"#)
                == [.word("json"), .word("dump"), .phrase(["sort", "key"]), .prefix("pyth")])
        #expect(try clauses("Éléphant* naïve") == [.prefix("elephant"), .word("naiv")])
        #expect(try clauses("“curly quotes” stay") == [.phrase(["cur", "quot"]), .word("stay")])
    }

    /// A Prepend scalar (U+0600) makes one grapheme of itself and the space after it; words are
    /// still split at that space (the fuzzer's FuzzSearchQuery crash-a5cf1f26).
    @Test func aPrependScalarDoesNotHideTheSpaceAfterIt() throws {
        #expect(try clauses("j\u{600} j\u{600}") == (try clauses("j\u{600}")))
        #expect(try clauses("json\u{600} dumps").contains(.word("dump")))
    }

    @Test func splitWordsAreAPhraseAndCompoundsOneTerm() throws {
        #expect(
            try clauses("built-in os.path.join sort_keys") == [
                .phrase(["built", "in"]), .word("os.path.join"), .word("sort_keys"),
            ])
        #expect(try clauses(#""json.dumps indent""#) == [.phrase(["json", "dump", "indent"])])
        #expect(try clauses("東京") == [.phrase(["東", "京"])])
        #expect(try clauses("os.pa*") == [.prefix("os.pa")])
        #expect(try clauses("foo-ba*") == [.word("foo"), .prefix("ba")])
        #expect(try clauses("Don’t* it’s") == [.prefix("don't"), .word("it")])
    }

    @Test func shortPrefixesAreWordsAndLoneStarsAreIgnored() throws {
        #expect(try clauses("a* 東*") == [.word("a"), .word("東")])
        #expect(try clauses("python * **") == [.word("python")])
    }

    @Test func unbalancedQuoteRunsToTheEnd() throws {
        #expect(try clauses(#"find "hello world"#) == [.word("find"), .phrase(["hello", "world"])])
        #expect(try clauses(#"one "" two ""#) == [.word("one"), .word("two")])
    }

    @Test func repeatsAreDroppedAndClausesBounded() throws {
        #expect(try clauses("a b a B") == [.word("a"), .word("b")])
        let many = (0..<10_000).map { "w\($0)" }.joined(separator: " ")
        let query = try SearchQuery.parse(many)
        #expect(query.clauses.count == SearchQuery.maxClauses)
        #expect(query.clauses.first == .word("w0"))
        let phrase = try clauses("\"" + String(repeating: "x ", count: 500) + "\"")
        #expect(phrase == [.phrase(Array(repeating: "x", count: SearchQuery.maxPhraseTerms))])
    }

    @Test func longInputIsCutAtAScalarBoundary() throws {
        // 1023 bytes of `a`, then `é` (2 bytes) across the 1 KiB line, then more.
        let text = String(repeating: "a", count: 1023) + "é" + " zzz"
        #expect(try clauses(text) == [.word(String(repeating: "a", count: Analyzer.maxTermBytes))])
        let megabyte = String(repeating: "abc ", count: 250_000)
        #expect(try clauses(megabyte) == [.word("abc")])
    }

    @Test func emptyAndStarOnlyQueriesAreRefused() {
        #expect(throws: SearchQueryError.empty) { try SearchQuery.parse("") }
        #expect(throws: SearchQueryError.empty) { try SearchQuery.parse("  \t\n ") }
        #expect(throws: SearchQueryError.empty) { try SearchQuery.parse(#"?! -- "" ()"#) }
        #expect(throws: SearchQueryError.lonePrefix) { try SearchQuery.parse("*") }
        #expect(throws: SearchQueryError.lonePrefix) { try SearchQuery.parse(" ** * ") }
        #expect(SearchQueryError.lonePrefix.description.hasPrefix("a lone '*'"))
        #expect(SearchQueryError.empty.description == "empty query: type one or more words")
    }

    @Test func invalidUTF8DecodesWithReplacementCharacters() throws {
        let decoded = String(decoding: [0x61, 0x62, 0xFF, 0xED, 0xA0, 0x80, 0x63, 0x64], as: UTF8.self)
        #expect(try clauses(decoded) == [.phrase(["ab", "cd"])])
    }
    /// Words before a prefix are a phrase of at most `maxPhraseTerms` terms, however many the
    /// chunk holds (found by FuzzSearchQuery: a phrase of 62 terms).
    @Test func wordsBeforeAPrefixMakeAPhraseWithinTheBound() throws {
        let chunk = (0..<80).map { "w\($0)" }.joined(separator: "-") + "-pyth*"
        let clauses = try SearchQuery.parse(chunk).clauses
        for clause in clauses {
            if case .phrase(let terms) = clause { #expect(terms.count <= SearchQuery.maxPhraseTerms) }
        }
        #expect(clauses.contains { if case .phrase = $0 { true } else { false } })
    }
}
