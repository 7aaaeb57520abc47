/// The records a writer was given, sorted into record-tree order (spec Appendix C step 5) with
/// memory bounded by ``runBytes`` whatever their number: an external merge sort.
///
/// Records collect in memory; each time they pass ``runBytes`` they are sorted and written to a
/// ``ScratchLog`` as one sorted run, and ``sorted()`` merges the runs, reading each a block at a
/// time. A merge sort because the tree is written in one pass in key order, the runs are written
/// and read sequentially (as fast as the disk streams), and the result is the same sequence
/// whatever the run size: the order is total (key, date, insertion order), so the archive's bytes
/// do not depend on where runs were cut. Records that never pass ``runBytes`` are sorted in
/// memory, as before, without a scratch file.
final class RecordRuns {
    /// Bytes of records (``encodedSize(_:)``) held in memory before they are sorted and spilled as a run.
    let runBytes: Int
    private var held: [PendingRecord] = []
    /// Whether ``held`` is in tree order already (``sorted()`` was called and nothing spilled).
    private var heldInTreeOrder = false
    private var heldBytes = 0
    private var runs: [Range<UInt64>] = []
    private let log = ScratchLog(prefix: "webarc-records")

    /// Records added so far.
    private(set) var count = 0

    /// - Parameter runBytes: memory of the records held before a run is spilled.
    init(runBytes: Int = 32 << 20) {
        self.runBytes = max(1, runBytes)
    }

    /// Adds a record (its `order` is its insertion order).
    ///
    /// - Throws: `io` when a run cannot be spilled.
    func append(_ record: PendingRecord) throws {
        precondition(!heldInTreeOrder, "a record added after the records were read in tree order")
        held.append(record)
        heldBytes += Self.encodedSize(record)
        count += 1
        if heldBytes >= runBytes { try spill() }
    }

    /// The records in tree order: key, then `captureDate` descending (absent last), then insertion
    /// order descending. May be called again for another pass (a search index reads them first).
    func sorted() throws -> SortedRecords {
        if runs.isEmpty {
            if !heldInTreeOrder { held.sort(by: Self.precedes) }
            heldInTreeOrder = true
            return SortedRecords(memory: held)
        }
        try spill()
        return SortedRecords(merging: runs.map { RunReader(log: log, range: $0) })
    }

    /// Whether `lhs` comes before `rhs` in the record tree (spec Appendix C step 5).
    static func precedes(_ lhs: PendingRecord, _ rhs: PendingRecord) -> Bool {
        let order = KeyOrder.compare(lhs.key, rhs.key)
        if order != 0 { return order < 0 }
        switch (lhs.date, rhs.date) {
        case let (left?, right?) where left != right: return left > right
        case (.some, nil): return true
        case (nil, .some): return false
        default: return lhs.order > rhs.order
        }
    }

    /// Sorts the held records and writes them as one run.
    private func spill() throws {
        guard !held.isEmpty else { return }
        let start = log.length
        var writer = ByteWriter(capacity: 1 << 20)
        for record in held.sorted(by: Self.precedes) {
            Self.encode(record, into: &writer)
            if writer.count >= 1 << 20 {
                try log.append(writer.bytes)
                writer = ByteWriter(capacity: 1 << 20)
            }
        }
        try log.append(writer.bytes)
        runs.append(start..<log.length)
        held = []
        heldBytes = 0
    }

    /// The memory a held record takes, about: its bytes, and for each of its buffers (key, object,
    /// URL, a response's media type and charset) a header and the allocator's rounding; the struct.
    private static func encodedSize(_ record: PendingRecord) -> Int {
        record.key.count + record.object.count + record.url.utf8.count + 3 * 48 + 128
            + (record.response.map { ($0.mediaType?.utf8.count ?? 0) + ($0.charset?.utf8.count ?? 0) + 2 * 48 } ?? 0)
    }

    /// A record as a run stores it: key, object, date, order, body, URL, then a response's status,
    /// media type and charset for a search index (status 0: none).
    private static func encode(_ record: PendingRecord, into writer: inout ByteWriter) {
        writer.writeLengthPrefixed(record.key)
        writer.writeLengthPrefixed(record.object)
        writer.write(UInt8(record.date == nil ? 0 : 1))
        writer.write(record.date ?? 0)
        writer.write(UInt64(record.order))
        writer.write(UInt8(record.body == nil ? 0 : 1))
        writer.write(bytes: record.body?.digest.bytes ?? [UInt8](repeating: 0, count: 16))
        writer.write(record.body?.variant ?? 0)
        writer.writeLengthPrefixed(Array(record.url.utf8))
        writer.write(UInt16(record.response?.status ?? 0))
        for text in [record.response?.mediaType, record.response?.charset] {
            writer.write(UInt8(text == nil ? 0 : 1))
            writer.writeLengthPrefixed(Array((text ?? "").utf8))
        }
    }

    /// Decodes one record written by ``encode(_:into:)``.
    fileprivate static func decode(_ reader: inout ByteReader) throws -> PendingRecord {
        let key = Array(reader.bytes[try reader.readLengthPrefixed(what: "key")])
        let object = Array(reader.bytes[try reader.readLengthPrefixed(what: "object")])
        let hasDate = try reader.readUInt8() == 1
        let date = try reader.readInt64()
        let order = Int(try reader.readUInt64())
        let hasBody = try reader.readUInt8() == 1
        let digest = BodyDigest(sixteen: try reader.readBytes(16))
        let variant = try reader.readUInt32()
        let url = String(decoding: reader.bytes[try reader.readLengthPrefixed(what: "url")], as: UTF8.self)
        let status = Int(try reader.readUInt16())
        var texts: [String?] = []
        for what in ["media type", "charset"] {
            let present = try reader.readUInt8() == 1
            let text = String(decoding: reader.bytes[try reader.readLengthPrefixed(what: what)], as: UTF8.self)
            texts.append(present ? text : nil)
        }
        var record = PendingRecord(
            key: key, object: object, date: hasDate ? date : nil, order: order,
            body: hasBody ? BodyReference(digest: digest, variant: variant) : nil, url: url)
        if status != 0 { record.response = (status, texts[0], texts[1]) }
        return record
    }

    /// One spilled run read back in blocks.
    final class RunReader {
        private let log: ScratchLog
        private var next: UInt64
        private let end: UInt64
        private var block: [UInt8] = []
        private var position = 0
        /// Bytes read from the log at once.
        static let blockSize = 256 << 10

        init(log: ScratchLog, range: Range<UInt64>) {
            self.log = log
            next = range.lowerBound
            end = range.upperBound
        }

        /// The run's next record, or nil at its end.
        func read() throws -> PendingRecord? {
            if position == block.count && next == end { return nil }
            // A record is decoded from the block when it lies wholly inside; otherwise the block is
            // refilled from where the record starts, large enough for it.
            while true {
                var reader = ByteReader(block, region: .object(page: 0), range: position..<block.count)
                if let record = try? Self.decodeWhole(&reader) {
                    position = reader.position
                    return record
                }
                let keep = block.count - position
                guard next < end else {
                    throw WebArcError.io(path: "", operation: .transferring("read back a sorted run"), errno: 0)
                }
                let want = max(Self.blockSize, 2 * keep)
                let more = try log.read(at: next, count: Int(min(UInt64(want - keep), end - next)))
                next += UInt64(more.count)
                block = Array(block[position...]) + more
                position = 0
            }
        }

        private static func decodeWhole(_ reader: inout ByteReader) throws -> PendingRecord {
            try RecordRuns.decode(&reader)
        }
    }
}

/// Records in tree order: held in memory, or merged from sorted runs.
struct SortedRecords {
    /// All of them, when they were sorted in memory.
    let all: [PendingRecord]?
    private var index = 0
    private var readers: [RecordRuns.RunReader] = []
    private var heads: [PendingRecord?] = []

    init(memory: [PendingRecord]) { all = memory }

    init(merging readers: [RecordRuns.RunReader]) {
        all = nil
        self.readers = readers
    }

    /// The next record in tree order, or nil after the last.
    mutating func next() throws -> PendingRecord? {
        if let all {
            guard index < all.count else { return nil }
            index += 1
            return all[index - 1]
        }
        if heads.isEmpty { heads = try readers.map { try $0.read() } }
        // Few runs (a run per ``RecordRuns/runBytes`` of records): a scan finds the least head.
        var least: Int?
        for (number, head) in heads.enumerated() {
            guard let head else { continue }
            if let current = least, !RecordRuns.precedes(head, heads[current]!) { continue }
            least = number
        }
        guard let least else { return nil }
        let record = heads[least]
        heads[least] = try readers[least].read()
        return record
    }
}
