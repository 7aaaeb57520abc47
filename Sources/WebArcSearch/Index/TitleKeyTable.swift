import WebArc

/// The title keys of an index's documents (spec §17.2 title shards), sorted with bounded memory:
/// held in one byte buffer (a key's bytes and 12 bytes each, not an array apiece) until they pass
/// ``runBytes``, then sorted and written to a ``SpillFile`` as one run; ``forEachSorted(_:)``
/// merges the runs through a heap. A million titles held whole took about 90 MB.
struct TitleKeyTable {
    private struct Entry {
        var start: UInt32
        var length: UInt32
        var document: Int32
    }

    /// A key read back from a run.
    private struct RunKey: RunOrdered {
        var key: [UInt8]
        var document: Int32

        static func precedes(_ lhs: RunKey, _ rhs: RunKey) -> Bool {
            lhs.key == rhs.key ? lhs.document < rhs.document : lhs.key.lexicographicallyPrecedes(rhs.key)
        }
    }

    /// Bytes of keys and entries held before they are sorted and spilled; the runs' read buffers
    /// share the same budget in the merge.
    let runBytes: Int
    private var bytes: [UInt8] = []
    private var entries: [Entry] = []
    private var file: SpillFile?
    private var runs: [Range<UInt64>] = []

    /// Number of keys added.
    private(set) var count = 0

    /// An empty table that spills a run each time its keys pass `runBytes`.
    init(runBytes: Int = 4 << 20) {
        self.runBytes = max(1, runBytes)
    }

    /// Adds a document's key (at most 128 bytes: a title key).
    ///
    /// - Throws: `io` when a run cannot be spilled.
    mutating func append(_ key: [UInt8], document: Int32) throws {
        entries.append(Entry(start: UInt32(bytes.count), length: UInt32(key.count), document: document))
        bytes += key
        count += 1
        if bytes.count + entries.count * MemoryLayout<Entry>.stride >= runBytes { try spill() }
    }

    /// Visits every key and its document, sorted by bytes, equal keys by document (the shards'
    /// order), then frees the keys.
    ///
    /// - Throws: `io` when a run cannot be written or read back; what `visit` throws.
    mutating func forEachSorted(_ visit: (ArraySlice<UInt8>, Int32) throws -> Void) throws {
        defer { removeAll() }
        guard let file else {
            sortHeld()
            for entry in entries { try visit(key(entry), entry.document) }
            return
        }
        try spill()
        try file.finishWriting()
        let blockSize = max(16 << 10, runBytes / runs.count)
        let readers = runs.map { file.reader($0, blockSize: blockSize) }
        func next(_ run: Int) throws -> RunKey? {
            let reader = readers[run]
            guard !reader.isAtEnd else { return nil }
            let key = try reader.readBytes(try reader.readInteger())
            return RunKey(key: key, document: Int32(truncatingIfNeeded: try reader.readInteger()))
        }
        var heads = RunHeads<RunKey>(capacity: runs.count)
        for run in runs.indices {
            if let head = try next(run) { heads.insert(head, run: run) }
        }
        while let run = heads.leastRun {
            let head = heads.replaceLeast(with: try next(run))
            try visit(head.key[...], head.document)
        }
    }

    private func key(_ entry: Entry) -> ArraySlice<UInt8> {
        bytes[Int(entry.start)..<Int(entry.start) + Int(entry.length)]
    }

    /// Sorts the keys held by bytes, equal keys by document.
    private mutating func sortHeld() {
        let bytes = self.bytes
        entries.sort { left, right in
            let lhs = bytes[Int(left.start)..<Int(left.start) + Int(left.length)]
            let rhs = bytes[Int(right.start)..<Int(right.start) + Int(right.length)]
            return lhs == rhs ? left.document < right.document : lhs.lexicographicallyPrecedes(rhs)
        }
    }

    /// Writes the keys held, sorted, as one run: each its length, bytes and document.
    private mutating func spill() throws {
        guard !entries.isEmpty else { return }
        let file = try self.file ?? SpillFile(prefix: "webarc-search-titles")
        self.file = file
        sortHeld()
        let start = file.position
        for entry in entries {
            try file.integer(Int(entry.length))
            try file.write(key(entry))
            try file.integer(Int(UInt32(bitPattern: entry.document)))
        }
        runs.append(start..<file.position)
        bytes.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
    }

    /// Frees the keys and the runs.
    private mutating func removeAll() {
        bytes = []
        entries = []
        runs = []
        file = nil
        count = 0
    }
}
