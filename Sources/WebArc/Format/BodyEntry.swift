/// One body: its reference, length, body hash and chunk entries.
///
/// The same entry appears in the body tree and, copied byte for byte, in every record leaf whose
/// responses name it, so a lookup finds a body's chunks in the page that holds its record.
/// Spec: §6.3 Body entry.
public struct BodyEntry: Equatable, Sendable {
    /// Bytes before the chunk entries.
    static let headSize = 68

    /// The body's MD5 and variant.
    public var reference: BodyReference
    /// Bit 0: the entry is a slice (``sliceStart``); the other bits are reserved, zero when written.
    package var flags: UInt32
    /// The body's length, the sum of its chunks' raw lengths.
    public var length: UInt64
    /// SHA-256 of the body's bytes: the body hash.
    public var sha256: SHA256Hash
    /// The chunks in order; decoded and concatenated they are the body.
    package var chunks: [ChunkEntry]
    /// For a slice (flags bit 0, since 2.4), where the body starts in its one chunk's decoded
    /// bytes, a group shared with other bodies; nil for a body that is its chunks.
    package var sliceStart: UInt32?
    /// Where the entry was read (page offset, position in the decoded page), for errors.
    var origin: Origin

    /// Where a body entry was read: its page and its bytes in the decoded page.
    struct Origin: Hashable, Sendable {
        var page: UInt64
        var position: Int
        var length: Int = 0
    }

    init(reference: BodyReference, length: UInt64, sha256: SHA256Hash, chunks: [ChunkEntry]) {
        self.reference = reference
        flags = 0
        self.length = length
        self.sha256 = sha256
        self.chunks = chunks
        origin = Origin(page: 0, position: 0)
    }

    /// Makes a slice: the body is `length` bytes from `sliceStart` of `group`'s decoded bytes.
    init(reference: BodyReference, length: UInt64, sha256: SHA256Hash, group: ChunkEntry, sliceStart: UInt32) {
        self.init(reference: reference, length: length, sha256: sha256, chunks: [group])
        flags = Self.sliceFlag
        self.sliceStart = sliceStart
    }

    /// `flags` bit 0: the entry is a slice of a group chunk (spec §6.3, feature bit 3).
    static let sliceFlag: UInt32 = 1

    /// Whether the entry is a slice of a group chunk.
    package var isSlice: Bool { sliceStart != nil }

    /// Decodes one entry from a decoded page stored at `page`.
    ///
    /// - Throws: `corruptPage` when the chunk entries run past the page (`length` is checked by
    ///   ``checkLength()`` before the body is read).
    init(parsing reader: inout ByteReader, page: UInt64) throws {
        let start = reader.position
        try reader.require(UInt64(Self.headSize), what: "body entry")
        let digest = BodyDigest(sixteen: try reader.readBytes(16))
        reference = BodyReference(digest: digest, variant: try reader.readUInt32())
        flags = try reader.readUInt32()
        length = try reader.readUInt64()
        sha256 = try SHA256Hash(parsing: &reader)
        let count = try reader.readUInt32()
        sliceStart = flags & Self.sliceFlag != 0 ? try reader.readUInt32() : nil
        origin = Origin(page: page, position: start)
        // Checked against the bytes left before anything is allocated; a count over 2^22 can never
        // fit a 4 MiB page, so this also keeps the bound of spec §10.
        try reader.require(
            UInt64(count) * UInt64(ChunkEntry.size), what: "body \(reference) with \(count) chunk entries")
        var chunks: [ChunkEntry] = []
        chunks.reserveCapacity(Int(count))
        for _ in 0..<count { chunks.append(try ChunkEntry(parsing: &reader)) }
        self.chunks = chunks
        origin.length = reader.position - start
    }

    /// Steps over one encoded entry, checking its layout exactly as ``init(parsing:page:)`` does
    /// (the same errors at the same positions) without building it: a record leaf's copies are
    /// parsed one at a time, when a lookup asks for one.
    static func skip(_ reader: inout ByteReader) throws {
        let start = reader.position
        try reader.require(UInt64(Self.headSize), what: "body entry")
        try reader.skip(20)
        let flags = try reader.readUInt32()
        try reader.skip(Self.headSize - 28)
        let count = try reader.readUInt32()
        // A slice's sliceStart follows chunkCount (spec §6.3).
        if flags & Self.sliceFlag != 0 { _ = try reader.readUInt32() }
        try reader.require(
            UInt64(count) * UInt64(ChunkEntry.size),
            what: "body \(reference(in: reader.bytes, at: start)) with \(count) chunk entries")
        for _ in 0..<count { try ChunkEntry.skip(&reader) }
    }

    /// The reference of the entry encoded at `position` of `bytes`: its first 20 bytes, which the
    /// caller has checked are there.
    static func reference(in bytes: [UInt8], at position: Int) -> BodyReference {
        var variant: UInt32 = 0
        for index in (position + 16..<position + 20).reversed() { variant = variant << 8 | UInt32(bytes[index]) }
        return BodyReference(digest: BodyDigest(bytes: bytes[position..<position + 16])!, variant: variant)
    }

    func serialize(into writer: inout ByteWriter) {
        writer.write(bytes: reference.digest.bytes)
        writer.write(reference.variant)
        writer.write(flags)
        writer.write(length)
        sha256.serialize(into: &writer)
        writer.write(UInt32(chunks.count))
        if let sliceStart { writer.write(sliceStart) }
        for chunk in chunks { chunk.serialize(into: &writer) }
    }

    /// Bytes the encoded entry takes.
    var encodedSize: Int { Self.headSize + (isSlice ? 4 : 0) + chunks.reduce(0) { $0 + $1.encodedSize } }

    /// Bytes the parsed entry holds in memory, for a cache's budget: the value, its chunk list,
    /// and a cache's entry for it.
    var cachedSize: Int {
        MemoryLayout<BodyEntry>.stride + 64 + chunks.reduce(32) { $0 + $1.cachedSize }
    }

    /// The number of chunks (dictionary references not counted).
    public var chunkCount: Int { chunks.count }

    /// Offset of the first chunk's stored bytes, where a body's errors point (0 for an empty body).
    package var firstChunkOffset: UInt64 { chunks.first?.offset ?? 0 }

    /// The sum of the chunks' raw lengths.
    var chunkLengthSum: UInt64 { chunks.reduce(0) { $0 + UInt64($1.rawLength) } }

    /// Bytes of the body that chunk `index` gives: its raw length, or a slice's length.
    func pieceLength(_ index: Int) -> UInt64 { isSlice ? length : UInt64(chunks[index].rawLength) }

    /// Why a slice's fields break spec §6.3 (one chunk, a length of at least 1, inside the
    /// chunk's decoded bytes), or nil; nil for an entry that is not a slice.
    var sliceProblem: String? {
        guard let sliceStart else { return nil }
        guard chunks.count == 1 else { return "a slice has \(chunks.count) chunk entries" }
        guard length >= 1 else { return "a slice of length 0" }
        guard UInt64(sliceStart) + length <= UInt64(chunks[0].rawLength) else {
            return
                "slice \(sliceStart)..<\(UInt64(sliceStart) + length) passes its chunk's \(chunks[0].rawLength) bytes"
        }
        return nil
    }

    /// Checks `length` against the bound of spec §10 and that the chunks add up to it (§6.3).
    ///
    /// - Throws: `corruptIndex` at the entry's page.
    func checkLength() throws {
        guard length <= FormatBounds.maxBodyLength else {
            throw WebArcError.corruptIndex(
                page: origin.page, position: origin.position, reason: "body \(reference) length \(length) is over 2^40")
        }
        if let problem = sliceProblem {
            throw WebArcError.corruptIndex(
                page: origin.page, position: origin.position, reason: "body \(reference): \(problem)")
        }
        let sum = chunkLengthSum
        guard isSlice || sum == length else {
            throw WebArcError.corruptIndex(
                page: origin.page, position: origin.position,
                reason: "body \(reference) has length \(length) but its chunks hold \(sum) bytes")
        }
    }

    /// Equal content; where the entries were read is not compared.
    public static func == (lhs: BodyEntry, rhs: BodyEntry) -> Bool {
        lhs.reference == rhs.reference && lhs.flags == rhs.flags && lhs.length == rhs.length && lhs.sha256 == rhs.sha256
            && lhs.chunks == rhs.chunks && lhs.sliceStart == rhs.sliceStart
    }
}

extension BodyReference {
    /// The body tree key: the 16 MD5 bytes, then the variant big-endian, so that byte order is
    /// (digest, variant) order (spec §5.3).
    var treeKey: [UInt8] {
        digest.bytes + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: variant >> UInt32($0)) }
    }
}
