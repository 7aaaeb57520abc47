extension ArchiveReader {
    /// The first canonical key, in key order, that starts with `prefix` and satisfies `accept`;
    /// nil when none does among the first `limit` keys with the prefix.
    ///
    /// Keys sort by bytes (spec §8), so the keys sharing a prefix (`GET http://host/path?` for
    /// every stored query of one path) are neighbours: the walk descends once to the first of
    /// them and reads on through the following leaves only while their keys keep the prefix.
    /// Only keys are compared; no record is decoded.
    ///
    /// - Parameters:
    ///   - prefix: the start of the keys wanted, e.g. `GET http://example.com/a?`.
    ///   - limit: the most keys looked at, so that a path with very many stored queries costs a
    ///     bounded scan.
    ///   - accept: called with each key's bytes after the prefix.
    /// - Throws: page and index errors.
    package func firstKey(
        withPrefix prefix: String, limit: Int = 20_000, where accept: (ArraySlice<UInt8>) -> Bool
    ) throws -> String? {
        let wanted = Array(prefix.utf8)
        var visited = 0
        var found: String?
        /// Returns false once the walk is over (a key past the prefix, the limit, or a key found).
        func walk(_ reference: PageReference) throws -> Bool {
            switch try page(reference, .node(.records)) {
            case .interior(let interior):
                let first = interior.childIndex(for: wanted) ?? 0
                for index in first..<interior.children.count {
                    // A child whose first key is past every key with the prefix holds none of them.
                    if index > first, !interior.keys[index].starts(with: wanted),
                        KeyOrder.less(wanted, interior.keys[index])
                    {
                        return false
                    }
                    guard try walk(try child(of: interior, at: index, parent: reference)) else { return false }
                }
                return true
            case .recordLeaf(let leaf):
                var index = leaf.firstIndex(notBelow: wanted)
                while index < leaf.entries.count {
                    let key = leaf.key(index)
                    guard key.starts(with: wanted), visited < limit else { return false }
                    visited += 1
                    if accept(key.dropFirst(wanted.count)) {
                        found = try leaf.keyText(index)
                        return false
                    }
                    index += 1
                }
                return true
            default:
                return false
            }
        }
        _ = try walk(trailer.recordRoot)
        return found
    }
}
