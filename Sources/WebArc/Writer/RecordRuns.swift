/// The records a writer was given, sorted into record-tree order (spec Appendix C step 5) with
/// memory bounded by the run size whatever their number: an external merge sort (``SpilledSort``).
///
/// A merge sort because the tree is written in one pass in key order, the runs are written and
/// read sequentially (as fast as the disk streams), and the result is the same sequence whatever
/// the run size: the order is total (key, date, insertion order), so the archive's bytes do not
/// depend on where runs were cut. Records that never fill a run are sorted in memory, without a
/// scratch file. ``SpilledSort/sorted()`` may be called again: a search index reads them first.
typealias RecordRuns = SpilledSort<PendingRecord>

/// Records in tree order: held in memory, or merged from sorted runs.
typealias SortedRecords = SpilledSortIterator<PendingRecord>

extension SpilledSort where Element == PendingRecord {
    /// A sort of records whose runs spill to a temporary file named `webarc-records…`.
    ///
    /// - Parameter runBytes: memory of the records held before a run is spilled.
    convenience init(runBytes: Int = 32 << 20) {
        self.init(prefix: "webarc-records", runBytes: runBytes)
    }
}

extension PendingRecord: SpilledSortElement {
    /// Whether `lhs` comes before `rhs` in the record tree (spec Appendix C step 5): key, then
    /// `captureDate` descending (absent last), then insertion order descending.
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

    /// The memory a held record takes, about: its bytes, and for each of its buffers (key, object,
    /// URL, a response's media type and charset) a header and the allocator's rounding; the struct.
    var heldSize: Int {
        key.count + object.count + url.utf8.count + 3 * 48 + 128
            + (response.map { ($0.mediaType?.utf8.count ?? 0) + ($0.charset?.utf8.count ?? 0) + 2 * 48 } ?? 0)
    }

    /// A record as a run stores it: key, object, date, order, body, URL, then a response's status,
    /// media type and charset for a search index (status 0: none).
    func encode(into writer: inout ByteWriter) {
        writer.writeLengthPrefixed(key)
        writer.writeLengthPrefixed(object)
        writer.write(UInt8(date == nil ? 0 : 1))
        writer.write(date ?? 0)
        writer.write(UInt64(order))
        writer.write(UInt8(body == nil ? 0 : 1))
        writer.write(bytes: body?.digest.bytes ?? [UInt8](repeating: 0, count: 16))
        writer.write(body?.variant ?? 0)
        writer.writeLengthPrefixed(Array(url.utf8))
        writer.write(UInt16(response?.status ?? 0))
        for text in [response?.mediaType, response?.charset] {
            writer.write(UInt8(text == nil ? 0 : 1))
            writer.writeLengthPrefixed(Array((text ?? "").utf8))
        }
    }

    /// Decodes one record written by ``encode(into:)``.
    static func decode(_ reader: inout ByteReader) throws -> PendingRecord {
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
}
