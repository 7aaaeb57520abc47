import Dispatch
import Synchronization

extension ArchiveReader {
    /// Finds the record for a request, by canonical key (spec §8, Appendix B).
    ///
    /// - Returns: the preferred record (the newest capture), or nil when the archive has none. In
    ///   an update archive it may be a tombstone, which answers "not found".
    /// - Throws: `badURL` when `url` has no canonical form; page and index errors when a page on
    ///   the way is damaged; `bodyNotFound` when a response's body entry is not in its page.
    public func lookup(method: String = "GET", url: String) throws -> ArchiveEntry? {
        try lookup(key: try URLKey.key(method: method, url: url))
    }

    /// Finds the record for a canonical key: one page per tree level, each verified, then the
    /// first entry with the key whose class this reader knows.
    public func lookup(key: String) throws -> ArchiveEntry? {
        let wanted = Array(key.utf8)
        guard let (node, _) = try leaf(holding: wanted, in: .records), case .recordLeaf(let leaf) = node else {
            return nil
        }
        var index = leaf.firstIndex(notBelow: wanted)
        while index < leaf.entries.count, leaf.key(index).elementsEqual(wanted) {
            if let entry = try entry(leaf, index) { return entry }
            index += 1
        }
        return nil
    }

    /// Every record of a canonical key, in record-tree order (several captures newest first),
    /// skipping classes this reader does not know. A writer never splits one key's records across
    /// leaves (spec Appendix C step 5), so this reads the same pages as ``lookup(key:)``.
    public func lookupAll(key: String) throws -> [ArchiveEntry] {
        let wanted = Array(key.utf8)
        guard let (node, _) = try leaf(holding: wanted, in: .records), case .recordLeaf(let leaf) = node else {
            return []
        }
        var entries: [ArchiveEntry] = []
        var index = leaf.firstIndex(notBelow: wanted)
        while index < leaf.entries.count, leaf.key(index).elementsEqual(wanted) {
            if let entry = try entry(leaf, index) { entries.append(entry) }
            index += 1
        }
        return entries
    }

    /// Calls `body` with every record in key order (several captures of one URL newest first),
    /// skipping classes this reader does not know.
    ///
    /// - Throws: page and index errors, or what `body` throws.
    public func forEachEntry(_ body: (ArchiveEntry) throws -> Void) throws {
        try forEachLeaf(of: .records) { node, _ in
            guard case .recordLeaf(let leaf) = node else { return }
            for index in leaf.entries.indices {
                if let entry = try entry(leaf, index) { try body(entry) }
            }
        }
    }

    /// As ``forEachEntry(_:)``, with the records of up to ``leavesDecodedAhead`` leaves at a time
    /// decoded on every core before `body` sees them, in the same order: for callers that visit
    /// every record (an update's base, read whole before an apply), where decoding the records is
    /// most of the time. A leaf's entries before one that fails are visited, then its error is
    /// thrown, as ``forEachEntry(_:)`` would.
    ///
    /// - Throws: page and index errors, or what `body` throws.
    func forEachEntryDecodedAhead(_ body: (ArchiveEntry) throws -> Void) throws {
        let cursor = RecordCursor(self)
        while let entry = try cursor.next() { try body(entry) }
    }

    /// Record leaves ``forEachEntryDecodedAhead(_:)`` decodes at once (at most 4 MiB each).
    static let leavesDecodedAhead = 16

    /// Decodes entry `index` of a record leaf, or nil when its class is not a record class (a
    /// class this reader does not know is skipped unread); a response's body entry (copied in the
    /// leaf) is checked and, unless `remembering` is false, remembered for `chunks(of:)`.
    ///
    /// A walk of every record that hands each entry on with its record (``ArchiveEntry/body``)
    /// passes false: its inserts would only evict one another, each taking the cache's lock.
    /// `keepingHeaders` false checks the headers but leaves them out of the record.
    func entry(
        _ leaf: RecordLeaf, _ index: Int, remembering: Bool = true, keepingHeaders: Bool = true
    ) throws -> ArchiveEntry? {
        guard RecordObjects.recordClasses.contains(try leaf.className(index)) else { return nil }
        let object = try leaf.object(index)
        guard
            let record = try RecordObjects.record(
                object, features: trailer.requiredFeatures, keepingHeaders: keepingHeaders)
        else { return nil }
        var body: BodyEntry?
        if case .response(let response) = record {
            let entry = try bodyEntry(of: response, object: object, in: leaf)
            if remembering { bodyCache.withLock { $0.insert(entry, for: entry.reference, cost: entry.cachedSize) } }
            body = entry
        }
        return ArchiveEntry(
            key: try leaf.keyText(index), location: RecordLocation(page: leaf.page, entry: index), record: record,
            body: body)
    }

    /// The body entry a response names, from its own leaf, checked against its `bodyLength`.
    ///
    /// - Throws: `bodyNotFound` naming the page when the leaf lacks it; `corruptIndex` when the
    ///   lengths differ.
    func bodyEntry(of response: ResponseRecord, object: DecodedObject, in leaf: RecordLeaf) throws -> BodyEntry {
        guard let body = leaf.body(response.body) else {
            throw WebArcError.bodyNotFound(body: response.body, page: leaf.page)
        }
        guard body.length == response.bodyLength else {
            throw object.corrupt(
                "bodyLength \(response.bodyLength), but body \(response.body) holds \(body.length) bytes",
                at: try object.field("bodyLength", type: FieldType.uint)?.position)
        }
        return body
    }
}
