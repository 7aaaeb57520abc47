extension CompactBaseView {
    /// One record of the view as a skimming pass sees it: its key and class read in place, the
    /// rest of its object not decoded yet.
    struct Skimmed: KeyedEntry {
        var key: String
        var isTombstone: Bool
        var leaf: RecordLeaf
        var index: Int
    }

    /// One key of the view as a skimming pass sees it: ``Key`` with its records not decoded.
    struct SkimmedKey {
        var ordinal: Int
        var key: String
        var firstRecord: Int
        var layer: Int
        var records: [Skimmed]
    }

    /// As ``forEachKey(_:)``, reading of each record only its key and class name: a pass that
    /// keeps a few keys or records decodes only those (``decoded(_:)``, ``decoded(_:at:)``), where
    /// decoding every record's fields and headers would be most of its time. A damaged record is
    /// thrown when it is decoded, here or by the full pass that follows (``forEachKey(_:)``).
    ///
    /// - Throws: ``WebArcError`` for a damaged page, key or class name; what `body` throws.
    func forEachSkimmedKey(_ body: (SkimmedKey) throws -> Bool) throws {
        var ordinal = 0
        var firstRecord = 0
        do {
            try stack.forEachKey({ LeafCursor($0, making: Self.skim) }) { key, layer, records in
                let skimmed = SkimmedKey(
                    ordinal: ordinal, key: key, firstRecord: firstRecord, layer: layer, records: records)
                guard try body(skimmed) else { throw Stop() }
                ordinal += 1
                firstRecord += records.count
            }
        } catch is Stop {}
    }

    /// Entry `index` of `leaf` skimmed, or nil when it is not of a record class (as
    /// ``ArchiveReader/entry(_:_:)`` leaves it out).
    @Sendable private static func skim(_ reader: ArchiveReader, _ leaf: RecordLeaf, _ index: Int) throws -> Skimmed? {
        let name = try leaf.className(index)
        guard RecordObjects.recordClasses.contains(name) else { return nil }
        return Skimmed(key: try leaf.keyText(index), isTombstone: name == "Tombstone", leaf: leaf, index: index)
    }

    /// `key` with its records decoded.
    ///
    /// - Throws: ``WebArcError`` for a damaged record.
    func decoded(_ key: SkimmedKey) throws -> Key {
        Key(
            ordinal: key.ordinal, key: key.key, firstRecord: key.firstRecord,
            records: try key.records.indices.map { try decoded(key, at: $0) })
    }

    /// Record `index` of `key`, decoded.
    ///
    /// - Throws: ``WebArcError`` for a damaged record.
    func decoded(_ key: SkimmedKey, at index: Int) throws -> Record {
        let skimmed = key.records[index]
        // A skimmed record has a record class, which decodes to a record or throws; a page that
        // said otherwise is refused, not trusted.
        guard let entry = try stack.layers[key.layer].entry(skimmed.leaf, skimmed.index) else {
            throw WebArcError.corruptIndex(
                page: skimmed.leaf.page, position: nil,
                reason: "entry \(skimmed.index) of a record leaf, skimmed as a record, decodes to none")
        }
        return Record(layer: key.layer, record: entry.record, body: entry.body)
    }
}
