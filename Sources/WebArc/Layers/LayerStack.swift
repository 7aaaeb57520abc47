/// Archives read as one: updates over the archives below them (spec §13), top first.
///
/// ```swift
/// let stack = try LayerStack([try ArchiveReader(path: "update.webarc"), try ArchiveReader(path: "site.webarc")])
/// try stack.forEachKey { key, records in print(key, records.entries.count) }
/// ```
///
/// Each update is reopened over the archives right below it, as many as its `bases` names, in
/// that order, each over its own bases; then every update's bases are checked by archive digest
/// and length (`badBase`). Archives that are no update are layers with no bases (a stack of
/// unrelated archives is searched top first too).
public struct LayerStack: Sendable {
    /// The layers, top first, each opened over its bases.
    public let layers: [ArchiveReader]

    /// Stacks archives opened alone, top first.
    ///
    /// - Throws: `badBase` when an update names more bases than lie below it or other ones;
    ///   page errors reading a metadata page.
    public init(_ readers: [ArchiveReader]) throws {
        var stacked = [ArchiveReader?](repeating: nil, count: readers.count)
        for index in readers.indices.reversed() {
            let plain = readers[index]
            let declared = try plain.metadata.bases.count
            guard declared > 0 else {
                stacked[index] = plain
                continue
            }
            guard declared <= readers.count - index - 1 else {
                throw WebArcError.badBase(
                    reason:
                        "\(plain.path) is an update over \(declared) archive(s), \(readers.count - index - 1) listed after it: "
                        + "list an update before the archives it goes over")
            }
            let bases = stacked[(index + 1)...(index + declared)].map { $0! }
            let reader = try ArchiveReader(source: plain.source, path: plain.path, bases: bases)
            try reader.validateBases()
            stacked[index] = reader
        }
        layers = stacked.map { $0! }
    }

    /// The top layer: the update, or the only archive.
    public var top: ArchiveReader { layers[0] }
}

/// The records one layer holds for one key, as the layered view answers them (spec §13.1).
public struct LayeredRecords: Sendable {
    /// The layer holding them: its position in ``LayerStack/layers``.
    public var layer: Int
    /// Its records of that key, in its record-tree order (never a tombstone).
    public var entries: [ArchiveEntry]
}

extension LayerStack {
    /// Calls `body` with every key of the layered view in key order, with the records of the
    /// topmost layer holding it; keys that layer deletes (a tombstone) are left out.
    ///
    /// Each layer's records are read once, in key order, decoded on every core
    /// (`ArchiveReader.forEachEntryDecodedAhead(_:)`); memory holds every layer's keys.
    /// - Throws: ``WebArcError`` when a page is damaged.
    public func forEachKey(_ body: (String, LayeredRecords) throws -> Void) throws {
        var groups: [[(key: String, bytes: [UInt8], entries: [ArchiveEntry])]] = []
        for reader in layers {
            var layer: [(key: String, bytes: [UInt8], entries: [ArchiveEntry])] = []
            try reader.forEachEntryDecodedAhead { entry in
                if layer.last?.key == entry.key {
                    layer[layer.count - 1].entries.append(entry)
                } else {
                    layer.append((entry.key, Array(entry.key.utf8), [entry]))
                }
            }
            groups.append(layer)
        }
        var positions = [Int](repeating: 0, count: layers.count)
        while true {
            var smallest: (key: String, bytes: [UInt8])?
            for (layer, position) in positions.enumerated() where position < groups[layer].count {
                let group = groups[layer][position]
                if smallest.map({ KeyOrder.less(group.bytes, $0.bytes) }) ?? true {
                    smallest = (group.key, group.bytes)
                }
            }
            guard let key = smallest?.key else { return }
            var decided: LayeredRecords?
            for layer in positions.indices
            where positions[layer] < groups[layer].count && groups[layer][positions[layer]].key == key {
                if decided == nil {
                    decided = LayeredRecords(layer: layer, entries: groups[layer][positions[layer]].entries)
                }
                positions[layer] += 1
            }
            guard let decided, !decided.entries[0].record.isTombstone else { continue }
            try body(
                key, LayeredRecords(layer: decided.layer, entries: decided.entries.filter { !$0.record.isTombstone }))
        }
    }
}
