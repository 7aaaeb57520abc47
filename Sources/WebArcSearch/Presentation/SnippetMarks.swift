/// A snippet as HTML with the words a query matched in `<mark>`: the snippet is analysed as the
/// index analysed the page (``Analyzer``), so "Running" is marked for the query `run`.
package enum SnippetMarks {
    /// `snippet` escaped for HTML, each word matching one of `query`'s words, phrase words or
    /// prefixes wrapped in `<mark>…</mark>`.
    package static func html(_ snippet: String, query: SearchQuery?) -> String {
        guard let query else { return HTMLText.escape(snippet) }
        var words: Set<String> = []
        var prefixes: [String] = []
        for clause in query.clauses {
            switch clause {
            case .word(let term): words.insert(term)
            case .phrase(let terms): words.formUnion(terms)
            case .prefix(let prefix): prefixes.append(prefix)
            }
        }
        var output = ""
        var last = snippet.startIndex
        for token in Analyzer.tokens(snippet) where token.range.lowerBound >= last {
            let matched =
                words.contains(token.term)
                || prefixes.contains { prefix in
                    !prefix.isEmpty
                        && (token.term.hasPrefix(prefix)
                            || Analyzer.fold(String(snippet[token.range])).hasPrefix(prefix))
                }
            guard matched else { continue }
            output += HTMLText.escape(snippet[last..<token.range.lowerBound])
            output += "<mark>" + HTMLText.escape(snippet[token.range]) + "</mark>"
            last = token.range.upperBound
        }
        return output + HTMLText.escape(snippet[last...])
    }
}
