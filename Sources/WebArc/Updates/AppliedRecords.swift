/// The records of an archive being applied, in record-tree order, spilled to a scratch log as
/// they are merged, and read back by position in the order the writer takes them.
///
/// ```
///   merge (tree order) ──▶ log: layer, body reference, key, body length, record object, body entry
///                                                            │ entries: log offset, body kind
///   writer (insertion order: runs of tree positions) ──▶ read back through a window of the log
///   body workers (any order) ──▶ a record's body entry read back by its own offset
/// ```
///
/// Memory holds, for each record, where it starts in the log and what kind of body it has (16
/// bytes), not the record: the decoded records of a large archive would otherwise be held whole.
/// The record's layer and its stored body's reference are logged (at a million records, holding
/// them took 48 bytes a record). A record's lookup key and body length are logged beside it, so that the anchor
/// plan and the writer need neither decode nor canonicalize it again. A stored body's entry, as the
/// record's own leaf copies it, is logged too: the body workers then find its chunks without a
/// descent of the body tree, whose leaves (in MD5 order) a walk in record order visits at random.
final class AppliedRecords {
    /// Where a record's body comes from.
    enum Body {
        /// No body (a redirect or a tombstone).
        case none
        /// The body `reference` names in the record's layer.
        case stored(BodyReference)
        /// New body `number` of a compact update.
        case new(Int)
    }

    /// A record as the writer takes it: the record, its lookup key (responses only) and the
    /// layer it is copied from.
    struct Read {
        var record: ArchiveRecord
        var key: [UInt8]?
        var reader: ArchiveReader
    }

    /// One record: where it starts in the log, and its body's source.
    private struct Entry {
        var offset: UInt64
        /// A new body's number; `Entry.noBody` or `Entry.storedBody` otherwise (its layer's
        /// reference then follows the layer in the log).
        var body: Int32
        /// Bytes of the logged body entry that ends the record's log bytes; 0: none logged.
        var entryLength: UInt32 = 0

        static let noBody: Int32 = -1
        static let storedBody: Int32 = -2
    }

    /// The layers records are copied from, by number.
    let layers: [ArchiveReader]
    /// A compact update's new bodies and their MD5s.
    private let newBodies: [[UInt8]]
    private let newBodyDigests: [BodyDigest]
    private let log = ScratchLog(prefix: "webarc-apply")
    private var entries: [Entry] = []
    /// The entries while ``park()`` holds them on disk.
    private var parked: ParkedArray<Entry>?
    /// The layers a record was taken from.
    private(set) var usedLayers = Set<Int>()
    /// The sum of the responses' body lengths, duplicates included.
    private(set) var responseBytes: UInt64 = 0
    /// Bytes of the log read last, from `windowStart`: the writer reads mostly forward.
    private var window: [UInt8] = []
    private var windowStart: UInt64 = 0
    /// Where the record read last ends.
    private var lastEnd: UInt64 = 0
    private static let windowSize = 256 << 10
    private static let jumpSize = 4 << 10
    /// Bytes of a logged body reference: its MD5 and variant.
    private static let referenceSize = 20

    /// Records copied from `layers`, with a compact update's new bodies.
    init(layers: [ArchiveReader], newBodies: [[UInt8]] = [], newBodyDigests: [BodyDigest] = []) {
        self.layers = layers
        self.newBodies = newBodies
        self.newBodyDigests = newBodyDigests
    }

    /// Records held.
    var count: Int { parked?.count ?? entries.count }

    /// Moves the entries (16 bytes a record) to a scratch file until ``unpark()``: the writer's
    /// finish reads no record from here, and builds the search index meanwhile. A record read
    /// while parked traps.
    ///
    /// - Throws: `io` when the scratch file cannot be made or written.
    func park() throws {
        if parked == nil { parked = try .moving(&entries, prefix: "webarc-apply-entries") }
    }

    /// Reads the entries back after ``park()``; does nothing when they are in memory.
    ///
    /// - Throws: `io` when the scratch file cannot be read.
    func unpark() throws {
        guard let parked else { return }
        (entries, self.parked) = (try parked.restore(), nil)
    }

    /// Appends the next record in tree order, copied from layer `layer`, its body from `body`.
    ///
    /// - Parameter entry: a stored body's entry as the record's leaf copies it (nil: the body
    ///   tree is searched for it when the body is read).
    /// - Throws: `badURL` for a response whose URL has no canonical form; `io` when the log
    ///   cannot be written.
    func append(_ record: ArchiveRecord, layer: Int, body: Body, entry bodyEntry: BodyEntry? = nil) throws {
        var bytes = ByteWriter()
        bytes.write(UInt32(layer))
        if case .stored(let reference) = body {
            bytes.write(bytes: reference.digest.bytes)
            bytes.write(reference.variant)
        }
        if case .response(let response) = record {
            bytes.writeLengthPrefixed(Array(try response.request.canonicalKey().utf8))
            bytes.write(response.bodyLength)
            responseBytes &+= response.bodyLength
        } else {
            bytes.write(UInt32.max)
            bytes.write(UInt64(0))
        }
        bytes.writeLengthPrefixed(RecordObjects.record(record).encoded())
        let recordLength = bytes.bytes.count
        var entry = Entry(offset: 0, body: Entry.noBody)
        switch body {
        case .none: break
        case .stored(let reference):
            entry.body = Entry.storedBody
            if let bodyEntry, bodyEntry.reference == reference {
                // Where it was read, so that its errors still name the base's page.
                bytes.write(bodyEntry.origin.page)
                bytes.write(UInt32(clamping: bodyEntry.origin.position))
                bodyEntry.serialize(into: &bytes)
                entry.entryLength = UInt32(bytes.bytes.count - recordLength)
            }
        case .new(let number): entry.body = Int32(number)
        }
        entry.offset = try log.append(bytes.bytes)
        entries.append(entry)
        usedLayers.insert(layer)
    }

    /// Ends the appending, so that ``storedEntry(at:)`` may be called from any thread.
    ///
    /// - Throws: `io` when the log cannot be written.
    func seal() throws {
        try log.settle()
    }

    /// The logged body entry of the record at tree position `position`, or nil when none was
    /// logged. Safe from any thread once the log is sealed.
    ///
    /// - Throws: `io` when the log cannot be read; `corruptPage` when the logged bytes do not
    ///   parse (a damaged scratch file).
    func storedEntry(at position: Int) throws -> BodyEntry? {
        let entry = entries[position]
        guard entry.entryLength > 0 else { return nil }
        let end = position + 1 < entries.count ? entries[position + 1].offset : log.length
        let bytes = try log.read(at: end - UInt64(entry.entryLength), count: Int(entry.entryLength))
        var reader = ByteReader(bytes, region: .file(section: "apply scratch", offset: end - UInt64(entry.entryLength)))
        let page = try reader.readUInt64()
        let position = Int(try reader.readUInt32())
        var parsed = try BodyEntry(parsing: &reader, page: page)
        parsed.origin.position = position
        return parsed
    }

    /// The body job of the record at tree position `position`, or nil when it has no body. Safe
    /// from any thread once the log is sealed.
    ///
    /// - Throws: `io` when the log cannot be read; `corruptPage` when the logged bytes do not
    ///   parse (a damaged scratch file).
    func job(at position: Int) throws -> ApplyPipeline.Job? {
        let entry = entries[position]
        switch entry.body {
        case Entry.noBody: return nil
        case Entry.storedBody:
            let bytes = try log.read(at: entry.offset, count: 4 + Self.referenceSize)
            var reader = ByteReader(bytes, region: .file(section: "apply scratch", offset: entry.offset))
            let layer = Int(try reader.readUInt32())
            let digest = BodyDigest(sixteen: try reader.readBytes(16))
            let reference = BodyReference(digest: digest, variant: try reader.readUInt32())
            guard layers.indices.contains(layer) else {
                throw WebArcError.corruptPage(page: 0, position: nil, reason: "the apply scratch log names no layer")
            }
            return ApplyPipeline.Job(reader: layers[layer], reference: reference)
        default:
            let number = Int(entry.body)
            return ApplyPipeline.Job(bytes: newBodies[number], md5: newBodyDigests[number])
        }
    }

    /// Whether the record at tree position `position` has a body job.
    func hasJob(at position: Int) -> Bool {
        entries[position].body != Entry.noBody
    }

    /// The lookup key and body length of the record at `position` (a response's; nil for others),
    /// without decoding the record.
    ///
    /// - Throws: `io` when the log cannot be read.
    func keyAndLength(at position: Int) throws -> (key: [UInt8], length: UInt64)? {
        var reader = try logReader(at: position)
        _ = try readLayer(&reader, position: position)
        guard let key = try readKey(&reader) else { return nil }
        return (key, try reader.readUInt64())
    }

    /// The record at tree position `position`, decoded.
    ///
    /// - Throws: `io` when the log cannot be read.
    func read(at position: Int) throws -> Read {
        var reader = try logReader(at: position)
        let layer = try readLayer(&reader, position: position)
        let key = try readKey(&reader)
        _ = try reader.readUInt64()
        let range = try reader.readLengthPrefixed(what: "record")
        let object = try DecodedObject(reader.bytes, range: range, page: 0)
        guard case .record(let record) = try RecordObjects.parse(object) else {
            throw WebArcError.corruptIndex(page: 0, position: nil, reason: "the apply scratch log holds no record")
        }
        return Read(record: record, key: key, reader: layers[layer])
    }

    /// The record's layer, past its body reference when it has one.
    private func readLayer(_ reader: inout ByteReader, position: Int) throws -> Int {
        let layer = Int(try reader.readUInt32())
        guard layers.indices.contains(layer) else {
            throw WebArcError.corruptPage(page: 0, position: nil, reason: "the apply scratch log names no layer")
        }
        if entries[position].body == Entry.storedBody { try reader.skip(Self.referenceSize) }
        return layer
    }

    /// A response's key (`UInt32.max` in place of its length: none).
    private func readKey(_ reader: inout ByteReader) throws -> [UInt8]? {
        let length = try reader.readUInt32()
        guard length != UInt32.max else { return nil }
        return try reader.readBytes(Int(length))
    }

    /// A reader over the log from the record at `position` to its end, read through the window.
    private func logReader(at position: Int) throws -> ByteReader {
        let start = entries[position].offset
        let end = position + 1 < entries.count ? entries[position + 1].offset : log.length
        let length = Int(end - start)
        if start < windowStart || end > windowStart + UInt64(window.count) {
            // A read that goes on from the last one reads ahead a window; a jump (the start of a
            // run of the insertion order) reads a little, for runs may be short.
            let ahead = start == lastEnd ? Self.windowSize : Self.jumpSize
            window = try log.read(at: start, count: max(length, ahead))
            windowStart = start
        }
        lastEnd = end
        let from = Int(start - windowStart)
        return ByteReader(
            window, region: .file(section: "apply scratch", offset: windowStart), range: from..<from + length)
    }
}
