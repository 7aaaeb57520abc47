import WebArc

/// The archives a replay answers from, in search order, and the lookup every front end shares:
/// the canonical key first, then the fuzzy rules of ``MatchRule``.
///
/// ```swift
/// let archives = ReplayArchives(readers: [try ArchiveReader(path: "update.webarc"), try ArchiveReader(path: "base.webarc")])
/// if let match = try archives.find(method: "GET", url: "http://localhost/_static/pydoctheme.css?2022.1") {
///     print(match.url, match.rule)   // http://localhost/_static/pydoctheme.css queryDropped
/// }
/// ```
///
/// For each URL tried, the first archive holding its key decides (spec §13): a response or a
/// redirect answers; a tombstone (an update deleting the URL) answers "not found" for the
/// archives below. A tombstone on the request's own key ends the lookup: a deleted URL is never
/// answered through a fuzzy rule. A tombstone on a URL a rule tried only skips that URL.
///
/// Spec: `Spec/replay.md` §2, §3.
public struct ReplayArchives: Sendable {
    /// The archives in search order: list an update before the base it updates.
    public let readers: [ArchiveReader]
    /// The fuzzy rules tried after the exact key (all by default).
    public var rules: Set<MatchRule>

    /// Makes a set of `readers` searched in order, with `rules` tried on a miss.
    public init(readers: [ArchiveReader], rules: Set<MatchRule> = MatchRule.fuzzy) {
        self.readers = readers
        self.rules = rules
    }

    /// What the archives hold for one canonical key.
    public enum KeyLookup: Sendable {
        /// A response or redirect (never a tombstone), from archive `archive` of ``readers``.
        case found(ArchiveEntry, archive: Int)
        /// The first archive holding the key holds a tombstone.
        case deleted
        /// No archive holds the key.
        case absent
    }

    /// The layered lookup of one canonical key.
    ///
    /// - Throws: ``WebArcError`` when an index is damaged.
    public func lookup(key: String) throws -> KeyLookup {
        for (index, reader) in readers.enumerated() {
            guard let first = try reader.lookup(key: key) else { continue }
            if case .tombstone = first.record { return .deleted }
            guard Self.isPartial(first.record) else { return .found(first, archive: index) }
            // A full answer before a partial one (spec/replay.md §2): with `import --keep all` a
            // newer 206 or 304 capture sits before the 200 of its URL, and replaying it to a plain
            // GET would hand a browser a fragment. A partial capture answers only when it is all
            // the archive has.
            let full = try reader.lookupAll(key: key).first { !Self.isPartial($0.record) }
            return .found(full ?? first, archive: index)
        }
        return .absent
    }

    /// A stored 206 Partial Content or 304 Not Modified: an answer to one conditional or range
    /// request, not the resource.
    static func isPartial(_ record: ArchiveRecord) -> Bool {
        if case .response(let response) = record { return response.status == 206 || response.status == 304 }
        return false
    }

    /// The record the archives answer `method` `url` with, or nil.
    ///
    /// A HEAD falls back to the GET record of each URL tried.
    ///
    /// - Throws: ``WebArcError/badURL(url:reason:)`` when `url` has no canonical form; other
    ///   ``WebArcError`` cases when an index is damaged.
    public func find(method: String, url: String) throws -> ReplayMatch? {
        let key = try URLKey.key(method: method, url: url)
        let space = key.firstIndex(of: " ")!
        let method = String(key[..<space])
        let canonical = String(key[key.index(after: space)...])
        let methods = method == "HEAD" ? ["HEAD", "GET"] : [method]
        var tried: Set<String> = []
        /// Looks `candidate` up under each method; `stop` is set when the exact key is deleted.
        func attempt(_ candidate: String, _ rule: MatchRule) throws -> (match: ReplayMatch?, deleted: Bool) {
            guard tried.insert(candidate).inserted else { return (nil, false) }
            for method in methods {
                switch try lookup(key: method + " " + candidate) {
                case .found(let entry, let archive):
                    return (ReplayMatch(entry: entry, archive: archive, url: candidate, rule: rule), false)
                case .deleted:
                    return (nil, true)
                case .absent:
                    continue
                }
            }
            return (nil, false)
        }
        let exact = try attempt(canonical, .exact)
        if let match = exact.match { return match }
        if exact.deleted || rules.isEmpty { return nil }

        let parts = CanonicalURL(canonical)
        if rules.contains(.emptyQuery) {
            let other: String? = parts.query == nil ? canonical + "?" : parts.query!.isEmpty ? String(parts.base) : nil
            if let other, let match = try attempt(other, .emptyQuery).match { return match }
        }
        if rules.contains(.queryOrder), let query = parts.query, let wanted = CanonicalURL.sortedParameters(query) {
            for method in methods {
                if let match = try reordered(method: method, base: parts.base, parameters: wanted, tried: &tried) {
                    return match
                }
            }
        }
        if rules.contains(.directoryIndex), let other = parts.directoryIndexVariant,
            let match = try attempt(other, .directoryIndex).match
        {
            return match
        }
        if rules.contains(.queryDropped), parts.query != nil {
            if let match = try attempt(String(parts.base), .queryDropped).match { return match }
            if let other = CanonicalURL.directoryIndexVariant(of: parts.base),
                let match = try attempt(other, .queryDropped).match
            {
                return match
            }
        }
        return nil
    }

    /// A stored URL of `base` whose query holds the same parameters in another order.
    private func reordered(
        method: String, base: Substring, parameters: [Substring], tried: inout Set<String>
    ) throws -> ReplayMatch? {
        let prefix = method + " " + String(base) + "?"
        for reader in readers {
            let key = try reader.firstKey(withPrefix: prefix) { query in
                CanonicalURL.sortedParameters(Substring(String(decoding: query, as: UTF8.self))) == parameters
            }
            // The key may be shadowed (or deleted) by an archive above: look it up through the layers.
            guard let key, tried.insert(String(key.dropFirst(method.utf8.count + 1))).inserted else { continue }
            if case .found(let entry, let archive) = try lookup(key: key) {
                return ReplayMatch(
                    entry: entry, archive: archive, url: String(key.dropFirst(method.utf8.count + 1)), rule: .queryOrder
                )
            }
        }
        return nil
    }
}

/// A record found for a request, and how.
public struct ReplayMatch: Sendable {
    /// The record's entry (a response or a redirect, never a tombstone).
    public let entry: ArchiveEntry
    /// The index in ``ReplayArchives/readers`` of the archive that answered.
    public let archive: Int
    /// The canonical URL the record was found under.
    public let url: String
    /// The rule that found it.
    public let rule: MatchRule
}
