extension ArchiveReader {
    /// Finds the record for a request, by canonical key (spec §7).
    ///
    /// - Returns: the preferred record (the newest capture), or nil when the archive has none.
    /// - Throws: `badURL` when `url` is not absolute; index errors when the table is damaged.
    public func lookup(method: String = "GET", url: String) throws -> ArchiveEntry? {
        try lookup(key: try URLKey.key(method: method, url: url))
    }

    /// Finds the record for a canonical key, by binary search over the lookup table.
    public func lookup(key: String) throws -> ArchiveEntry? {
        let wanted = Array(key.utf8)
        var low = 0
        var high = lookupTable.count
        while low < high {
            let middle = (low + high) / 2
            let (keyID, _) = try lookupEntry(middle)
            if Array(try string(keyID).utf8).lexicographicallyPrecedes(wanted) { low = middle + 1 } else { high = middle }
        }
        while low < lookupTable.count {
            let (keyID, objectID) = try lookupEntry(low)
            let found = try string(keyID)
            guard Array(found.utf8) == wanted else { return nil }
            if let record = try record(objectID) { return ArchiveEntry(key: found, objectID: objectID, record: record) }
            low += 1
        }
        return nil
    }

    /// The lookup table's entry `index`: key string id and record object id.
    func lookupEntry(_ index: Int) throws -> (key: UInt32, object: UInt32) {
        var reader = try lookupTable.entry(index, from: source)
        return (try reader.readUInt32(), try reader.readUInt32())
    }

    /// The record at position `index` of the lookup table (key order), or nil for a record class
    /// this reader does not know.
    public func entry(at index: Int) throws -> ArchiveEntry? {
        let (keyID, objectID) = try lookupEntry(index)
        guard let record = try record(objectID) else { return nil }
        return ArchiveEntry(key: try string(keyID), objectID: objectID, record: record)
    }

    /// Calls `body` with every record in key order, skipping classes this reader does not know.
    public func forEachEntry(_ body: (ArchiveEntry) throws -> Void) throws {
        let batch = 4096
        for start in stride(from: 0, to: lookupTable.count, by: batch) {
            let range = start..<min(start + batch, lookupTable.count)
            let bytes = try lookupTable.read(range, from: source)
            for (position, _) in range.enumerated() {
                var reader = ByteReader(
                    Array(bytes[position * lookupTable.entrySize..<position * lookupTable.entrySize + 8]),
                    baseOffset: lookupTable.offset(of: start + position), section: "LKUP")
                let keyID = try reader.readUInt32()
                let objectID = try reader.readUInt32()
                if let record = try record(objectID) {
                    try body(ArchiveEntry(key: try string(keyID), objectID: objectID, record: record))
                }
            }
        }
    }
}
