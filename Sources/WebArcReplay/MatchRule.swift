/// How a request found its record: the canonical key itself, or one of the fuzzy rules tried, in
/// this order, when the archives do not hold the key.
///
/// Canonicalization (spec §9) already makes the case of scheme and host, default ports (`:80`),
/// the case of percent escapes, escapes of unreserved bytes and dot segments irrelevant; these
/// rules cover what it deliberately keeps apart. No rule ever changes the scheme, the host or
/// (but for the last segment `index.html`) the path.
///
/// Spec: `Spec/replay.md` §3.
public enum MatchRule: String, CaseIterable, Sendable, Comparable {
    /// The canonical key of the request.
    case exact
    /// An empty query against none, either way: `/a?` finds `/a`, `/a` finds `/a?`.
    case emptyQuery
    /// The same query parameters in another order: `?b=2&a=1` finds `?a=1&b=2`. Parameters
    /// compare as a multiset of `name=value` pairs, so repeated keys may be reordered too, but
    /// their number matters (`?a=1` never finds `?a=1&a=1`).
    case queryOrder
    /// A directory and its index page, either way: `/docs/` finds `/docs/index.html` and
    /// `/docs/index.html` finds `/docs/`; the query is kept.
    case directoryIndex
    /// A query the archives lack dropped, as a static server ignores a cache-buster: `/x.css?v=2`
    /// finds `/x.css` (then `/docs/?v=2` finds `/docs/index.html`).
    case queryDropped

    /// Every fuzzy rule (all but ``exact``).
    public static let fuzzy: Set<MatchRule> = [.emptyQuery, .queryOrder, .directoryIndex, .queryDropped]

    public static func < (lhs: MatchRule, rhs: MatchRule) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// The parts of a canonical URL the fuzzy rules work on.
struct CanonicalURL: Equatable {
    /// Everything before the query: scheme, authority, path.
    var base: Substring
    /// The query without its `?`; nil when the URL has none (`""` for a trailing `?`).
    var query: Substring?

    init(_ canonical: String) {
        if let question = canonical.firstIndex(of: "?") {
            base = canonical[..<question]
            query = canonical[canonical.index(after: question)...]
        } else {
            base = canonical[...]
            query = nil
        }
    }

    /// The URL with `query` (none when nil).
    static func joined(_ base: Substring, _ query: Substring?) -> String {
        guard let query else { return String(base) }
        return String(base) + "?" + String(query)
    }

    /// The URL of the same query with the directory-index form of the path: `/dir/` and
    /// `/dir/index.html` are each other's; nil for other paths.
    var directoryIndexVariant: String? {
        Self.directoryIndexVariant(of: base).map { Self.joined($0[...], query) }
    }

    /// `base` with `index.html` added after a final `/` or removed after one; nil otherwise.
    static func directoryIndexVariant(of base: Substring) -> String? {
        // The path starts after `scheme://authority`; a bare authority has path `/` already.
        if base.hasSuffix("/") { return String(base) + "index.html" }
        if base.hasSuffix("/index.html") { return String(base.dropLast("index.html".count)) }
        return nil
    }

    /// The query's parameters as a sorted multiset of `name=value` pairs; nil when it has fewer
    /// than two (order cannot differ then).
    static func sortedParameters(_ query: Substring) -> [Substring]? {
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false)
        guard pairs.count > 1 else { return nil }
        return pairs.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
