extension ArchiveReader {
    /// The first key, in key order, that is not below `bound` and names a record this reader knows
    /// (a `Response`, `Redirect` or `Tombstone`); nil when there is none.
    ///
    /// One descent to the leaf whose range holds `bound`, then on through the following leaves only
    /// until such a key is met: a caller that skips whole ranges of keys (one origin's, say) visits
    /// a sorted tree in a few page reads per range instead of reading every leaf. Only keys and
    /// class names are read; no record is decoded.
    ///
    /// - Throws: page and index errors.
    package func firstRecordKey(notBelow bound: [UInt8]) throws -> [UInt8]? {
        var found: [UInt8]?
        /// Returns false once a key is found.
        func walk(_ reference: PageReference) throws -> Bool {
            switch try page(reference, .node(.records)) {
            case .interior(let interior):
                let first = interior.childIndex(for: bound) ?? 0
                for index in first..<interior.children.count {
                    guard try walk(try child(of: interior, at: index, parent: reference)) else { return false }
                }
                return true
            case .recordLeaf(let leaf):
                for index in leaf.firstIndex(notBelow: bound)..<leaf.entries.count
                where RecordObjects.recordClasses.contains(try leaf.className(index)) {
                    found = Array(leaf.key(index))
                    return false
                }
                return true
            default:
                return true
            }
        }
        _ = try walk(trailer.recordRoot)
        return found
    }
}
