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
    /// The layers' records are merged as they are read, each in key order through a
    /// `RecordCursor` (a batch of leaves decoded on every core): memory holds one batch per layer,
    /// not the layers' keys.
    /// - Throws: ``WebArcError`` when a page is damaged.
    public func forEachKey(_ body: (String, LayeredRecords) throws -> Void) throws {
        try forEachKey({ RecordCursor($0) }) { key, layer, entries in
            try body(key, LayeredRecords(layer: layer, entries: entries))
        }
    }

    /// As ``forEachKey(_:)``, with each layer's entries made by the cursors `cursor` opens: the
    /// records of a key, tombstones left out, with the layer holding them.
    ///
    /// - Throws: ``WebArcError`` when a page is damaged; what `body` throws.
    func forEachKey<Element: KeyedEntry>(
        _ cursor: (ArchiveReader) -> LeafCursor<Element>, _ body: (String, Int, [Element]) throws -> Void
    ) throws {
        var groups = layers.map { KeyGroups(cursor($0)) }
        var current = try groups.indices.map { try groups[$0].next() }
        while true {
            var smallest: [UInt8]?
            for group in current {
                guard let group else { continue }
                if smallest.map({ KeyOrder.less(group.bytes, $0) }) ?? true { smallest = group.bytes }
            }
            guard let smallest else { return }
            var decided: (layer: Int, entries: [Element])?
            var key = ""
            for layer in current.indices {
                guard let group = current[layer], group.bytes == smallest else { continue }
                if decided == nil {
                    decided = (layer, group.entries)
                    key = group.key
                }
                current[layer] = try groups[layer].next()
            }
            guard let decided, !decided.entries[0].isTombstone else { continue }
            try body(key, decided.layer, decided.entries.filter { !$0.isTombstone })
        }
    }
}

/// An entry of the record tree as a layered walk groups it: by key, tombstones apart.
protocol KeyedEntry: Sendable {
    /// The canonical key the record tree holds for it.
    var key: String { get }
    /// Whether it is a tombstone (spec §13.1).
    var isTombstone: Bool { get }
}

extension ArchiveEntry: KeyedEntry {
    var isTombstone: Bool { record.isTombstone }
}

/// One archive's records grouped by key, in key order, read through a cursor.
struct KeyGroups<Element: KeyedEntry> {
    private let cursor: LeafCursor<Element>
    private var ahead: Element?
    private var started = false

    init(_ cursor: LeafCursor<Element>) {
        self.cursor = cursor
    }

    /// The next key's records (several captures newest first), or nil after the last key.
    mutating func next() throws -> (key: String, bytes: [UInt8], entries: [Element])? {
        if !started {
            started = true
            ahead = try cursor.next()
        }
        guard let first = ahead else { return nil }
        var entries = [first]
        ahead = try cursor.next()
        while let entry = ahead, entry.key == first.key {
            entries.append(entry)
            ahead = try cursor.next()
        }
        return (first.key, Array(first.key.utf8), entries)
    }
}
