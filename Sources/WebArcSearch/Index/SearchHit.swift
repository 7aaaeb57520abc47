/// One page a search found: where it is, its title, a snippet of its text with the matched words,
/// and its BM25 score (higher is better).
public struct SearchHit: Sendable, Equatable {
    /// The page's URL as captured.
    public var url: String
    /// The page's title (its URL when it has none).
    public var title: String
    /// A short passage of the page's visible text around the matched words.
    public var snippet: String
    /// The page's BM25 score for the query, title boost included.
    public var score: Double

    /// Makes a hit.
    public init(url: String, title: String, snippet: String, score: Double) {
        self.url = url
        self.title = title
        self.snippet = snippet
        self.score = score
    }
}

/// A page whose title (or URL) starts with what was typed: a suggestion while typing.
public struct Suggestion: Sendable, Equatable {
    /// The page's title.
    public var title: String
    /// The page's URL as captured.
    public var url: String

    /// Makes a suggestion.
    public init(title: String, url: String) {
        self.title = title
        self.url = url
    }
}
