/// One body in the body table: where its chunks are and how long it is.
///
/// Spec: §5.3 Body table.
public struct BodyEntry: Equatable, Sendable {
    /// Bytes a 1.0 writer uses per entry.
    public static let size = 48

    public var reference: BodyReference
    /// Uncompressed length.
    public var length: UInt64
    /// Index of the first chunk in the chunk table.
    public var firstChunk: UInt64
    public var chunkCount: UInt32

    init(reference: BodyReference, length: UInt64, firstChunk: UInt64, chunkCount: UInt32) {
        self.reference = reference
        self.length = length
        self.firstChunk = firstChunk
        self.chunkCount = chunkCount
    }

    init(parsing reader: inout ByteReader) throws {
        let digest = BodyDigest(sixteen: try reader.readBytes(16))
        let variant = try reader.readUInt32()
        try reader.skip(4)
        reference = BodyReference(digest: digest, variant: variant)
        length = try reader.readUInt64()
        firstChunk = try reader.readUInt64()
        chunkCount = try reader.readUInt32()
    }

    func serialize(into writer: inout ByteWriter) {
        writer.write(bytes: reference.digest.bytes)
        writer.write(reference.variant)
        writer.write(UInt32(0))
        writer.write(length)
        writer.write(firstChunk)
        writer.write(chunkCount)
        writer.write(UInt32(0))
    }
}

/// One stored chunk: an extent of the body data and how to decode it.
///
/// Spec: §5.4 Chunk table.
public struct ChunkEntry: Equatable, Sendable {
    /// Whether the stored bytes lie inside `section` (`BDAT`), overflow-safe.
    func lies(within section: SectionEntry) -> Bool {
        offset >= section.offset && offset <= section.end && UInt64(storedLength) <= section.end - offset
    }

    /// Bytes a 1.0 writer uses per entry.
    public static let size = 24
    /// The most bytes one chunk decodes to.
    public static let maxRawLength = 262_144

    /// How a chunk's bytes are stored.
    public enum Codec: UInt8, Sendable {
        case raw = 0
        case lz4 = 1
    }

    /// Absolute offset of the stored bytes.
    public var offset: UInt64
    public var storedLength: UInt32
    public var rawLength: UInt32
    /// The codec byte as stored; unknown values are kept so that verify can name them.
    public var codecValue: UInt8

    init(offset: UInt64, storedLength: UInt32, rawLength: UInt32, codec: Codec) {
        self.offset = offset
        self.storedLength = storedLength
        self.rawLength = rawLength
        codecValue = codec.rawValue
    }

    init(parsing reader: inout ByteReader) throws {
        offset = try reader.readUInt64()
        storedLength = try reader.readUInt32()
        rawLength = try reader.readUInt32()
        codecValue = try reader.readUInt8()
    }

    /// The codec, or nil when this reader does not know it.
    public var codec: Codec? { Codec(rawValue: codecValue) }

    func serialize(into writer: inout ByteWriter) {
        writer.write(offset)
        writer.write(storedLength)
        writer.write(rawLength)
        writer.write(codecValue)
        writer.writeZeros(7)
    }
}

/// Serializes fixed-size entries after the 16-byte table preamble.
enum FixedTableWriter {
    static func serialize<T>(_ entries: [T], entrySize: Int, encode: (T, inout ByteWriter) -> Void) -> [UInt8] {
        var writer = ByteWriter(capacity: 16 + entries.count * entrySize)
        writer.write(UInt32(entrySize))
        writer.write(UInt32(0))
        writer.write(UInt64(entries.count))
        for entry in entries { encode(entry, &writer) }
        return writer.bytes
    }
}
