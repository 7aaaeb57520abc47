/// A leaf of the record tree: records sorted by key, then copies of the body entries they name.
///
/// ```
/// | 2 | reserved(3) | count | bodyCount | keyLength key objectLength object | … | body entries …
/// ```
/// Spec: §5.3 Leaf pages (record leaf).
struct RecordLeaf: Sendable {
    /// Bytes before the entries.
    static let headSize = 12

    /// One record: where its key and object are in the decoded page.
    struct Entry: Sendable {
        let key: Range<Int>
        let object: Range<Int>
        /// Position of the entry (its key length) in the decoded page.
        let position: Int
    }

    /// The decoded page.
    let bytes: [UInt8]
    /// Offset of the stored page.
    let page: UInt64
    let entries: [Entry]
    /// Where each copied body entry starts in `bytes`, in the order stored (ascending by
    /// reference). The layout of every entry is checked at parse, but an entry is built only
    /// when asked for (``body(_:)``, ``body(at:)``): a lookup needs one of the hundreds a leaf
    /// holds, and a cached leaf keeps four bytes per entry rather than its chunk list.
    let bodyPositions: [UInt32]

    /// Parses a decoded record leaf stored at `page`.
    ///
    /// - Throws: `corruptPage` for a broken layout; `corruptIndex` for a body entry over a bound.
    init(parsing raw: [UInt8], page: UInt64) throws {
        bytes = raw
        self.page = page
        var reader = ByteReader(raw, region: .page(offset: page))
        try reader.skip(4)
        let count = try reader.readUInt32()
        let bodyCount = try reader.readUInt32()
        try reader.require(UInt64(count) * 8, what: "\(count) records")
        var entries: [Entry] = []
        entries.reserveCapacity(Int(count))
        for _ in 0..<count {
            let position = reader.position
            let key = try reader.readLengthPrefixed(what: "key")
            let object = try reader.readLengthPrefixed(what: "object")
            entries.append(Entry(key: key, object: object, position: position))
        }
        try reader.require(UInt64(bodyCount) * UInt64(BodyEntry.headSize), what: "\(bodyCount) body entries")
        var positions: [UInt32] = []
        positions.reserveCapacity(Int(bodyCount))
        for _ in 0..<bodyCount {
            positions.append(UInt32(reader.position))
            try BodyEntry.skip(&reader)
        }
        try reader.requireEnd("body entries")
        self.entries = entries
        bodyPositions = positions
    }

    /// Number of copied body entries.
    var bodyCount: Int { bodyPositions.count }

    /// Copied body entry `index`, built now.
    func body(at index: Int) -> BodyEntry {
        var reader = ByteReader(bytes, region: .page(offset: page), range: Int(bodyPositions[index])..<bytes.count)
        guard let entry = try? BodyEntry(parsing: &reader, page: page) else {
            preconditionFailure("body entry \(index) of the record leaf at \(page) did not parse as it did at first")
        }
        return entry
    }

    /// Every copied body entry, built now, in the order stored.
    var bodies: [BodyEntry] { bodyPositions.indices.map(body(at:)) }

    /// The reference of copied body entry `index`, read in place.
    func bodyReference(at index: Int) -> BodyReference {
        BodyEntry.reference(in: bytes, at: Int(bodyPositions[index]))
    }

    func key(_ index: Int) -> ArraySlice<UInt8> { bytes[entries[index].key] }

    /// The index of the first entry whose key is *bytes*-≥ `key` (`entries.count` when none is).
    func firstIndex<K: Collection>(notBelow key: K) -> Int where K.Element == UInt8 {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if KeyOrder.less(self.key(middle), key) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The class name of the entry's object, read without decoding the rest (a reader skips
    /// entries whose class it does not know without looking further).
    ///
    /// - Throws: `corruptIndex` when the object cannot hold its class name or it is not UTF-8.
    func className(_ index: Int) throws -> String {
        var reader = ByteReader(bytes, region: .object(page: page), range: entries[index].object)
        let name = try reader.readLengthPrefixed(what: "class name")
        guard let text = UTF8Text.validated(bytes[name]) else {
            throw WebArcError.corruptIndex(
                page: page, position: name.lowerBound, reason: "class name is not valid UTF-8")
        }
        return text
    }

    /// The entry's object, decoded.
    func object(_ index: Int) throws -> DecodedObject {
        try DecodedObject(bytes, range: entries[index].object, page: page)
    }

    /// The entry's key as text.
    ///
    /// - Throws: `corruptIndex` when it is not UTF-8.
    func keyText(_ index: Int) throws -> String {
        guard let text = UTF8Text.validated(key(index)) else {
            throw WebArcError.corruptIndex(
                page: page, position: entries[index].position, reason: "record key is not valid UTF-8")
        }
        return text
    }

    /// The encoded bytes of copied body entry `index` as stored.
    func encodedBody(_ index: Int) -> ArraySlice<UInt8> {
        let end = index + 1 < bodyPositions.count ? Int(bodyPositions[index + 1]) : bytes.count
        return bytes[Int(bodyPositions[index])..<end]
    }

    /// The copied body entry for `reference`, by binary search over the sorted references read
    /// in place; only the one found is built.
    func body(_ reference: BodyReference) -> BodyEntry? {
        var low = 0
        var high = bodyPositions.count
        while low < high {
            let middle = (low + high) / 2
            let found = bodyReference(at: middle)
            if found == reference { return body(at: middle) }
            if found < reference { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// Encodes a record leaf from `(key, object)` pairs and the body entries they name.
    static func encode(records: [(key: [UInt8], object: [UInt8])], bodies: [BodyEntry]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(Page.Kind.recordLeaf.rawValue)
        writer.writeZeros(3)
        writer.write(UInt32(records.count))
        writer.write(UInt32(bodies.count))
        for record in records {
            writer.writeLengthPrefixed(record.key)
            writer.writeLengthPrefixed(record.object)
        }
        for body in bodies { body.serialize(into: &writer) }
        return writer.bytes
    }

    /// Bytes one record entry takes.
    static func entrySize(key: [UInt8], object: [UInt8]) -> Int { 8 + key.count + object.count }
}

/// A leaf of the body tree: body entries strictly ascending by body reference.
///
/// ```
/// | 3 | reserved(3) | count | body entry | body entry | …
/// ```
/// Spec: §5.3 Leaf pages (body leaf).
struct BodyLeaf: Sendable {
    /// Bytes before the entries.
    static let headSize = 8

    let entries: [BodyEntry]
    /// The decoded page (entries are compared byte for byte with their copies).
    let bytes: [UInt8]

    /// Parses a decoded body leaf stored at `page`.
    ///
    /// - Throws: `corruptPage` for a broken layout; `corruptIndex` for a body entry over a bound.
    init(parsing raw: [UInt8], page: UInt64) throws {
        var reader = ByteReader(raw, region: .page(offset: page))
        try reader.skip(4)
        let count = try reader.readUInt32()
        try reader.require(UInt64(count) * UInt64(BodyEntry.headSize), what: "\(count) body entries")
        var entries: [BodyEntry] = []
        entries.reserveCapacity(Int(count))
        for _ in 0..<count { entries.append(try BodyEntry(parsing: &reader, page: page)) }
        try reader.requireEnd("body entries")
        self.entries = entries
        bytes = raw
    }

    /// The encoded bytes of entry `index` as stored.
    func encoded(_ index: Int) -> ArraySlice<UInt8> {
        let origin = entries[index].origin
        return bytes[origin.position..<origin.position + origin.length]
    }

    /// The entry for `reference`, by binary search.
    func entry(_ reference: BodyReference) -> BodyEntry? { Self.search(entries, reference) }

    static func search(_ entries: [BodyEntry], _ reference: BodyReference) -> BodyEntry? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            let found = entries[middle].reference
            if found == reference { return entries[middle] }
            if found < reference { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// Encodes a body leaf.
    static func encode(_ entries: [BodyEntry]) -> [UInt8] {
        var writer = ByteWriter(capacity: headSize + entries.reduce(0) { $0 + $1.encodedSize })
        writer.write(Page.Kind.bodyLeaf.rawValue)
        writer.writeZeros(3)
        writer.write(UInt32(entries.count))
        for entry in entries { entry.serialize(into: &writer) }
        return writer.bytes
    }
}

/// The page holding the `Archive` object.
///
/// ```
/// | 4 | reserved(3) | objectLength | object
/// ```
/// Spec: §5.4 Metadata page.
struct MetadataPage: Sendable {
    let bytes: [UInt8]
    let page: UInt64
    let object: Range<Int>

    /// Parses a decoded metadata page stored at `page`.
    ///
    /// - Throws: `corruptPage` for a broken layout.
    init(parsing raw: [UInt8], page: UInt64) throws {
        bytes = raw
        self.page = page
        var reader = ByteReader(raw, region: .page(offset: page))
        try reader.skip(4)
        object = try reader.readLengthPrefixed(what: "object")
        try reader.requireEnd("object")
    }

    /// The metadata, decoded.
    ///
    /// - Throws: `corruptIndex` when the object breaks §7.
    func metadata() throws -> ArchiveMetadata {
        try RecordObjects.metadata(try DecodedObject(bytes, range: object, page: page))
    }

    /// Encodes a metadata page around an encoded object.
    static func encode(object: [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: 8 + object.count)
        writer.write(Page.Kind.metadata.rawValue)
        writer.writeZeros(3)
        writer.writeLengthPrefixed(object)
        return writer.bytes
    }
}
