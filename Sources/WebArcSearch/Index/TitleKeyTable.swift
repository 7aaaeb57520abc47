/// The title keys of an index's documents (spec §17.2 title shards), held in one byte buffer so
/// that a million titles cost their bytes and 16 bytes each, not an array apiece.
struct TitleKeyTable {
    private struct Entry {
        var start: UInt32
        var length: UInt32
        var document: Int32
    }

    private var bytes: [UInt8] = []
    private var entries: [Entry] = []

    /// Number of keys held.
    var count: Int { entries.count }

    /// Adds a document's key (at most 128 bytes: a title key).
    mutating func append(_ key: [UInt8], document: Int32) {
        if bytes.count + key.count > Int(UInt32.max) { return }
        entries.append(Entry(start: UInt32(bytes.count), length: UInt32(key.count), document: document))
        bytes += key
    }

    private func key(_ entry: Entry) -> ArraySlice<UInt8> {
        bytes[Int(entry.start)..<Int(entry.start) + Int(entry.length)]
    }

    /// Sorts the keys by bytes, equal keys by document (the shards' order).
    mutating func sort() {
        let bytes = self.bytes
        entries.sort { left, right in
            let lhs = bytes[Int(left.start)..<Int(left.start) + Int(left.length)]
            let rhs = bytes[Int(right.start)..<Int(right.start) + Int(right.length)]
            return lhs == rhs ? left.document < right.document : lhs.lexicographicallyPrecedes(rhs)
        }
    }

    /// The `index`-th key and its document, in the current order.
    subscript(index: Int) -> (key: ArraySlice<UInt8>, document: Int32) {
        (key(entries[index]), entries[index].document)
    }

    /// Frees the keys.
    mutating func removeAll() {
        bytes = []
        entries = []
    }
}
