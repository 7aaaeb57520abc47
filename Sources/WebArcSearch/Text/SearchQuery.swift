/// A parsed search query: clauses a page must all match.
///
/// ```swift
/// let query = try SearchQuery.parse(#"json dumps "sort keys" pyth*"#)
/// // [.word("json"), .word("dump"), .phrase(["sort", "key"]), .prefix("pyth")]
/// ```
///
/// Syntax: words separated by spaces (all must match), `"a phrase"` (its words next to each other,
/// in order; straight or curly quotes; a quote left open runs to the end), and `pyth*` (any term
/// that starts with `pyth`).
/// Terms go through the same ``Analyzer`` as page text, so `Running` finds `runs`. A word the
/// analyzer splits (`built-in`, `東京`) is a phrase of its parts; a compound (`os.path`) is the
/// compound's term. A prefix is folded but not stemmed, and must be at least
/// ``minimumPrefixLength`` scalars long once folded (a shorter one is a word).
///
/// Hostile input stays cheap: the text is cut to ``maxInputBytes`` at a scalar boundary, at most
/// ``maxClauses`` clauses are kept (repeats dropped first) and a phrase keeps its first
/// ``maxPhraseTerms`` terms.
public struct SearchQuery: Sendable, Equatable {
    /// One condition on a page.
    public enum Clause: Sendable, Hashable {
        /// The page has this term.
        case word(String)
        /// The page has these terms at consecutive positions, in this order.
        case phrase([String])
        /// The page has a term that starts with this (folded, not stemmed) text.
        case prefix(String)
    }

    /// The clauses, in the order they were written; a page matches when it matches all of them.
    public var clauses: [Clause]

    /// The longest query text read, in UTF-8 bytes; the rest is ignored.
    public static let maxInputBytes = 1024
    /// The most clauses a query keeps.
    public static let maxClauses = 32
    /// The most terms a phrase keeps.
    public static let maxPhraseTerms = 32
    /// The shortest prefix, in scalars once folded.
    public static let minimumPrefixLength = 2

    /// Makes a query from its clauses.
    public init(clauses: [Clause]) {
        self.clauses = clauses
    }

    /// Parses the text a user typed.
    ///
    /// - Throws: ``SearchQueryError/empty`` when the text holds no word, and
    ///   ``SearchQueryError/lonePrefix`` when it holds only `*`.
    public static func parse(_ text: String) throws(SearchQueryError) -> SearchQuery {
        var parser = QueryParser()
        parser.parse(TextBuffer.prefix(text, bytes: maxInputBytes))
        guard !parser.clauses.isEmpty else { throw parser.sawStar ? .lonePrefix : .empty }
        return SearchQuery(clauses: parser.clauses)
    }

}

/// Why a query cannot be run.
public enum SearchQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The query holds no word: it is empty, blank or only punctuation.
    case empty
    /// The query is only `*`, which would match every page.
    case lonePrefix

    /// One lower-case line: what is wrong and what to type instead.
    public var description: String {
        switch self {
        case .empty: "empty query: type one or more words"
        case .lonePrefix: "a lone '*' would match every page: put at least two letters before it, as in pyth*"
        }
    }
}

/// Reads query text into clauses (see ``SearchQuery``).
private struct QueryParser {
    var clauses: [SearchQuery.Clause] = []
    private var seen: Set<SearchQuery.Clause> = []
    /// Whether a `*` stood alone (for the error when nothing else is there).
    var sawStar = false
    /// What opens and closes a phrase: straight quotes, and the curly ones phones type.
    private static let quotes: Set<Unicode.Scalar> = ["\"", "\u{201C}", "\u{201D}", "\u{201E}"]

    /// Splits on scalars, not Characters: a Prepend scalar (U+0600) joins the space after it into
    /// one grapheme, which would hide a word boundary.
    mutating func parse(_ text: String) {
        var rest = Substring(text).unicodeScalars
        while !rest.isEmpty, clauses.count < SearchQuery.maxClauses {
            rest = rest.drop { $0.properties.isWhitespace }
            guard let first = rest.first else { break }
            if Self.quotes.contains(first) {
                let body = rest.dropFirst()
                let close = body.firstIndex(where: Self.quotes.contains) ?? body.endIndex
                addPhrase(String(Substring(body[..<close])))
                rest = close < body.endIndex ? body[body.index(after: close)...] : body[body.endIndex...]
                continue
            }
            let end = rest.firstIndex { $0.properties.isWhitespace || Self.quotes.contains($0) } ?? rest.endIndex
            addChunk(Substring(rest[..<end]))
            rest = rest[end...]
        }
    }

    private mutating func add(_ clause: SearchQuery.Clause) {
        guard clauses.count < SearchQuery.maxClauses, seen.insert(clause).inserted else { return }
        clauses.append(clause)
    }

    /// A quoted phrase: its word and part terms in order (compounds give their parts).
    private mutating func addPhrase(_ text: String) {
        var terms: [String] = []
        Analyzer.analyzeWhile(text) { term in
            if term.kind != .compound { terms.append(term.term) }
            return terms.count < SearchQuery.maxPhraseTerms
        }
        addTerms(terms)
    }

    /// One word, or a phrase of at most ``SearchQuery/maxPhraseTerms`` terms.
    private mutating func addTerms(_ terms: [String]) {
        let terms = Array(terms.prefix(SearchQuery.maxPhraseTerms))
        switch terms.count {
        case 0: break
        case 1: add(.word(terms[0]))
        default: add(.phrase(terms))
        }
    }

    /// Text between spaces: one word, a compound, several words (a phrase), or a prefix.
    private mutating func addChunk(_ chunk: Substring) {
        var text = chunk
        let isPrefix = text.last == "*"
        while text.last == "*" { text = text.dropLast() }
        text = Substring(text.drop { $0 == "*" })
        var words: [(term: String, kind: Analyzer.Kind, folded: String, word: Int)] = []
        let source = String(text)
        Analyzer.analyzeWhile(source) { term in
            let folded =
                isPrefix
                ? Analyzer.fold(String(decoding: source.utf8[utf8Range(term.source, in: source)], as: UTF8.self)) : ""
            words.append((term.term, term.kind, folded, term.word))
            return words.count < SearchQuery.maxPhraseTerms * 2
        }
        guard !words.isEmpty else {
            if isPrefix { sawStar = true }
            return
        }
        if isPrefix {
            // The last word (a compound as written) is the prefix; words before it are a phrase or a word.
            let lastWord = words[words.count - 1].word
            let prefix = Analyzer.term(Array(words.first { $0.word == lastWord }!.folded.utf8))
            let before = words.filter { $0.word != lastWord && $0.kind != .compound }.map(\.term)
            addTerms(before)
            if prefix.unicodeScalars.count >= SearchQuery.minimumPrefixLength {
                add(.prefix(prefix))
            } else {
                addTerms(words.filter { $0.word == lastWord }.prefix(1).map(\.term))
            }
            return
        }
        let wordCount = Set(words.map(\.word)).count
        if wordCount == 1 {
            add(.word(words[0].term))
        } else {
            addTerms(words.filter { $0.kind != .compound }.map(\.term))
        }
    }

    private func utf8Range(_ range: Range<Int>, in text: String) -> Range<String.Index> {
        let utf8 = text.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        return lower..<utf8.index(lower, offsetBy: range.count)
    }
}
