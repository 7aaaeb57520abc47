/// Where one chunk's stored bytes are, how to decode them, and the SHA-256 of the decoded bytes.
///
/// Spec: §6.2 Chunk entry.
public struct ChunkEntry: Hashable, Sendable {
    /// Bytes in an encoded entry.
    public static let size = 56
    /// The most bytes one chunk decodes to; a 2.0 writer cuts bodies into chunks of exactly this.
    public static let maxRawLength = Int(FormatBounds.maxChunkLength)
    /// The most bytes of a dictionary chunk that codec 2 uses (its last ones).
    public static let maxDictionaryLength = 65_536

    /// How a chunk's bytes are stored.
    public enum Codec: UInt8, Sendable {
        case raw = 0
        case lz4 = 1
        /// One LZ4 block decoded with a dictionary: the last 64 KiB of another chunk (feature bit 1).
        case lz4Dictionary = 2
    }

    /// Absolute offset of the stored bytes (in this archive for layer 0, in a base otherwise).
    public var offset: UInt64
    public var storedLength: UInt32
    public var rawLength: UInt32
    /// The codec byte as stored; unknown values are kept so that the error can name them.
    public var codecValue: UInt8
    /// 0: stored in this archive; n > 0: in the n-th base of the metadata's `bases` (spec §13).
    public var layer: UInt8
    /// SHA-256 of the chunk's decoded bytes.
    public var digest: SHA256Hash
    /// Empty, or (codec 2) the one dictionary reference that follows the entry.
    private var dictionaryStorage: [ChunkEntry] = []

    init(offset: UInt64, storedLength: UInt32, rawLength: UInt32, codec: Codec, layer: UInt8 = 0, digest: SHA256Hash) {
        self.offset = offset
        self.storedLength = storedLength
        self.rawLength = rawLength
        codecValue = codec.rawValue
        self.layer = layer
        self.digest = digest
    }

    /// Decodes one entry, and for codec 2 the dictionary reference after it.
    init(parsing reader: inout ByteReader) throws {
        try reader.require(UInt64(Self.size), what: "chunk entry")
        offset = try reader.readUInt64()
        storedLength = try reader.readUInt32()
        rawLength = try reader.readUInt32()
        codecValue = try reader.readUInt8()
        layer = try reader.readUInt8()
        try reader.skip(6)
        digest = try SHA256Hash(parsing: &reader)
        if codecValue == Codec.lz4Dictionary.rawValue {
            var dictionary = try ChunkEntry(parsingSingle: &reader)
            dictionary.dictionaryStorage = []
            dictionaryStorage = [dictionary]
        }
    }

    /// Decodes one 56-byte entry and nothing after it (a dictionary reference).
    private init(parsingSingle reader: inout ByteReader) throws {
        try reader.require(UInt64(Self.size), what: "dictionary reference")
        offset = try reader.readUInt64()
        storedLength = try reader.readUInt32()
        rawLength = try reader.readUInt32()
        codecValue = try reader.readUInt8()
        layer = try reader.readUInt8()
        try reader.skip(6)
        digest = try SHA256Hash(parsing: &reader)
    }

    /// Encodes the entry and, for codec 2, its dictionary reference.
    func serialize(into writer: inout ByteWriter) {
        writer.write(offset)
        writer.write(storedLength)
        writer.write(rawLength)
        writer.write(codecValue)
        writer.write(layer)
        writer.writeZeros(6)
        digest.serialize(into: &writer)
        for dictionary in dictionaryStorage { dictionary.serialize(into: &writer) }
    }

    /// The codec, or nil when this format does not define it.
    public var codec: Codec? { Codec(rawValue: codecValue) }

    /// For a codec-2 chunk, the chunk whose last decoded bytes are its dictionary.
    public var dictionary: ChunkEntry? { dictionaryStorage.first }

    /// Bytes the entry takes in a body entry (its dictionary reference included).
    var encodedSize: Int { Self.size * (1 + dictionaryStorage.count) }

    /// The stored extent, or nil when `offset + storedLength` overflows.
    var end: UInt64? {
        let (end, overflow) = offset.addingReportingOverflow(UInt64(storedLength))
        return overflow ? nil : end
    }

    /// Checks the entry against spec §6.2 and §10 before any byte of it is read.
    ///
    /// - Parameters:
    ///   - context: the body, the chunk's position in it and the page the body entry was read from.
    ///   - isDictionary: whether this is a codec-2 entry's dictionary reference (codec 0 or 1 only).
    /// - Throws: `unsupportedCodec`, `corruptIndex` (at the page), `amplification` (at the chunk),
    ///   or `baseRequired` for a chunk stored in a base layer.
    func validate(_ context: ChunkContext, bodyDataEnd: UInt64, features: Trailer.Features, isDictionary: Bool = false) throws {
        func corrupt(_ reason: String) -> WebArcError {
            .corruptIndex(page: context.page, position: context.position, reason: "body \(context.body) chunk \(context.index): \(reason)")
        }
        guard let codec else {
            throw WebArcError.unsupportedCodec(codec: codecValue, body: context.body, chunk: context.index, page: context.page)
        }
        if codec == .lz4Dictionary {
            if isDictionary { throw corrupt("a dictionary reference has codec 2") }
            if !features.contains(.dictionaryCodec) { throw corrupt("codec 2 without required feature bit 1") }
        }
        guard rawLength >= 1, rawLength <= FormatBounds.maxChunkLength else {
            throw corrupt("raw length \(rawLength) is not 1 to \(FormatBounds.maxChunkLength)")
        }
        if codec == .raw {
            guard storedLength == rawLength else { throw corrupt("raw chunk stores \(storedLength) bytes for \(rawLength)") }
        } else {
            guard storedLength >= 1, UInt64(storedLength) <= FormatBounds.maxLZ4StoredLength(rawLength: rawLength) else {
                throw corrupt("LZ4 chunk stores \(storedLength) bytes for \(rawLength), outside the LZ4 bound")
            }
            guard FormatBounds.ratioAllowed(stored: storedLength, raw: rawLength) else {
                throw WebArcError.amplification(offset: offset, storedLength: storedLength, rawLength: rawLength)
            }
        }
        if layer > 0 {
            guard features.contains(.layer) else { throw corrupt("layer \(layer) without required feature bit 0") }
            throw WebArcError.baseRequired(body: context.body, chunk: context.index, layer: layer)
        }
        guard let end, offset >= UInt64(Lead.size), end <= bodyDataEnd else {
            throw corrupt("extent [\(offset), +\(storedLength)) is outside the body data 16..<\(bodyDataEnd)")
        }
    }
}

/// Which chunk of which body an error concerns, and where its entry was read.
struct ChunkContext: Sendable {
    var body: BodyReference
    /// The chunk's position in the body (0 for the first).
    var index: Int
    /// Offset of the page holding the body entry.
    var page: UInt64
    /// Position of the body entry inside the decoded page.
    var position: Int?
}
