// The search query parser (WebArcSearch's SearchQuery) on any bytes decoded as UTF-8 with
// replacement, as a query from a URL is: it either refuses the query with one of its two errors
// or returns at most 32 clauses of bounded, analysed terms; the same text parses the same way,
// and a query written twice (when both copies fit in the 1 KiB kept) parses as it does once.
import WebArcSearchText

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSearchQuery(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let result = parse(text)
    precondition(result == parse(text), "parsing is not deterministic")
    if case .success(let query) = result {
        precondition(!query.clauses.isEmpty && query.clauses.count <= SearchQuery.maxClauses)
        precondition(Set(query.clauses).count == query.clauses.count, "repeated clause")
        for clause in query.clauses {
            switch clause {
            case .word(let term):
                checkTerm(term)
            case .phrase(let terms):
                precondition(terms.count >= 2 && terms.count <= SearchQuery.maxPhraseTerms)
                terms.forEach(checkTerm)
            case .prefix(let prefix):
                checkTerm(prefix)
                precondition(prefix.unicodeScalars.count >= SearchQuery.minimumPrefixLength)
                precondition(Analyzer.fold(prefix) == prefix, "prefix \(prefix) is not folded")
            }
        }
    }
    // Counted as scalars, as the parser reads them: U+0600 and a `"` after it are one Character.
    let quotes = text.unicodeScalars.filter { "\"\u{201C}\u{201D}\u{201E}".unicodeScalars.contains($0) }.count
    if text.utf8.count * 2 + 1 <= SearchQuery.maxInputBytes, quotes % 2 == 0 {
        precondition(parse(text + " " + text) == result, "a query written twice parses differently")
    }
    return 0
}

private func parse(_ text: String) -> Result<SearchQuery, SearchQueryError> {
    do throws(SearchQueryError) {
        return .success(try SearchQuery.parse(text))
    } catch {
        return .failure(error)
    }
}

private func checkTerm(_ term: String) {
    precondition(!term.isEmpty && term.utf8.count <= Analyzer.maxTermBytes, "term \(term.debugDescription)")
    precondition(!term.unicodeScalars.contains { $0.properties.isWhitespace }, "term \(term.debugDescription)")
}
