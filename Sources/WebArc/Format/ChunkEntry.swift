/// Where one chunk's stored bytes are, how to decode them, and the SHA-256 of the decoded bytes.
///
/// Spec: §6.2 Chunk entry.
package struct ChunkEntry: Hashable, Sendable {
    /// Bytes in an encoded entry.
    package static let size = 56
    /// The most bytes one chunk decodes to; a 2.0 writer cuts bodies into chunks of exactly this.
    package static let maxRawLength = Int(FormatBounds.maxChunkLength)
    /// The most bytes of a dictionary chunk that codec 2 uses (its last ones).
    package static let maxDictionaryLength = 65_536

    /// How a chunk's bytes are stored.
    package enum Codec: UInt8, Sendable {
        case raw = 0
        case lz4 = 1
        /// One LZ4 block decoded with a dictionary: the last 64 KiB of another chunk (feature bit 1).
        case lz4Dictionary = 2
        /// One Zstandard frame decoded with another chunk's whole bytes as history (feature bit 2).
        case zstdDelta = 3
        /// One Zstandard frame decoded alone, without a dictionary (feature bit 3, since 2.4).
        case zstd = 4
    }

    /// Absolute offset of the stored bytes (in this archive for layer 0, in a base otherwise).
    package var offset: UInt64
    /// Stored bytes, at least 1.
    package var storedLength: UInt32
    /// Decoded bytes, 1 to 262 144.
    package var rawLength: UInt32
    /// The codec byte as stored; unknown values are kept so that the error can name them.
    package var codecValue: UInt8
    /// 0: stored in this archive; n > 0: in the n-th base of the metadata's `bases` (spec §13).
    package var layer: UInt8
    /// SHA-256 of the chunk's decoded bytes.
    package var digest: SHA256Hash
    /// Empty, or the one entry that follows this one in a body entry: a codec-2 chunk's dictionary
    /// reference, or a codec-3 chunk's reference (itself followed by its dictionary when codec 2).
    private var dictionaryStorage: [ChunkEntry] = []

    init(
        offset: UInt64, storedLength: UInt32, rawLength: UInt32, codec: Codec, layer: UInt8 = 0, digest: SHA256Hash,
        dictionary: ChunkEntry? = nil
    ) {
        self.offset = offset
        self.storedLength = storedLength
        self.rawLength = rawLength
        codecValue = codec.rawValue
        self.layer = layer
        self.digest = digest
        dictionaryStorage = dictionary.map { [$0] } ?? []
    }

    /// Decodes one entry, and the entries that follow it: for codec 2 its dictionary reference, for
    /// codec 3 its reference and, when that is codec 2, the reference's dictionary reference.
    init(parsing reader: inout ByteReader) throws {
        try self.init(parsingSingle: &reader, what: "chunk entry")
        if codecValue == Codec.lz4Dictionary.rawValue {
            dictionaryStorage = [try ChunkEntry(parsingSingle: &reader, what: "dictionary reference")]
        } else if codecValue == Codec.zstdDelta.rawValue {
            var reference = try ChunkEntry(parsingSingle: &reader, what: "delta reference")
            if reference.codecValue == Codec.lz4Dictionary.rawValue {
                reference.dictionaryStorage = [try ChunkEntry(parsingSingle: &reader, what: "dictionary reference")]
            }
            dictionaryStorage = [reference]
        }
    }

    /// Steps over one entry and the entries that follow it, checking the layout exactly as
    /// ``init(parsing:)`` does (the same errors at the same positions) without building anything.
    static func skip(_ reader: inout ByteReader) throws {
        let codec = try skipSingle(&reader, what: "chunk entry")
        if codec == Codec.lz4Dictionary.rawValue {
            _ = try skipSingle(&reader, what: "dictionary reference")
        } else if codec == Codec.zstdDelta.rawValue,
            try skipSingle(&reader, what: "delta reference") == Codec.lz4Dictionary.rawValue
        {
            _ = try skipSingle(&reader, what: "dictionary reference")
        }
    }

    /// Steps over one 56-byte entry and nothing after it, returning its codec byte.
    private static func skipSingle(_ reader: inout ByteReader, what: String) throws -> UInt8 {
        try reader.require(UInt64(size), what: what)
        try reader.skip(16)
        let codec = try reader.readUInt8()
        try reader.skip(size - 17)
        return codec
    }

    /// Decodes one 56-byte entry and nothing after it; `what` names it in errors.
    private init(parsingSingle reader: inout ByteReader, what: String) throws {
        try reader.require(UInt64(Self.size), what: what)
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
    package var codec: Codec? { Codec(rawValue: codecValue) }

    /// For a codec-2 chunk, the chunk whose last decoded bytes are its dictionary.
    package var dictionary: ChunkEntry? { codecValue == Codec.lz4Dictionary.rawValue ? dictionaryStorage.first : nil }

    /// For a codec-3 chunk, the chunk whose decoded bytes are its history.
    package var reference: ChunkEntry? { codecValue == Codec.zstdDelta.rawValue ? dictionaryStorage.first : nil }

    /// The entries that follow this one in its body entry, each with its role: a codec-2 chunk's
    /// dictionary reference; a codec-3 chunk's reference and, when that is codec 2, its dictionary.
    var followingEntries: [(entry: ChunkEntry, role: Role)] {
        guard let next = dictionaryStorage.first else { return [] }
        if codecValue == Codec.zstdDelta.rawValue {
            return [(next, .deltaReference)] + next.followingEntries.map { ($0.entry, .dictionary) }
        }
        return [(next, .dictionary)]
    }

    /// Makes a codec-3 entry: `reference` (as this archive sees it) follows it in the body entry.
    init(
        offset: UInt64, storedLength: UInt32, rawLength: UInt32, layer: UInt8 = 0, digest: SHA256Hash,
        reference: ChunkEntry
    ) {
        self.init(
            offset: offset, storedLength: storedLength, rawLength: rawLength, codec: .zstdDelta, layer: layer,
            digest: digest)
        dictionaryStorage = [reference]
    }

    /// The entry as an archive `depth` layers above this one sees it: `layer` (and its dictionary
    /// reference's) increased by `depth` (spec Appendix C step 11).
    func relayered(by depth: UInt8) -> ChunkEntry {
        var copy = self
        copy.layer &+= depth
        copy.dictionaryStorage = dictionaryStorage.map { $0.relayered(by: depth) }
        return copy
    }

    /// Bytes the entry takes in a body entry (its dictionary reference included).
    var encodedSize: Int { Self.size + dictionaryStorage.reduce(0) { $0 + $1.encodedSize } }

    /// Bytes the parsed entry holds in memory, its dictionary or delta reference included.
    var cachedSize: Int {
        MemoryLayout<ChunkEntry>.stride
            + dictionaryStorage.reduce(dictionaryStorage.isEmpty ? 0 : 32) {
                $0 + $1.cachedSize
            }
    }

    /// The stored extent, or nil when `offset + storedLength` overflows.
    var end: UInt64? {
        let (end, overflow) = offset.addingReportingOverflow(UInt64(storedLength))
        return overflow ? nil : end
    }

    /// What an entry is to the body entry that holds it.
    enum Role: Sendable {
        /// One of the body's chunks: any codec.
        case chunk
        /// A codec-2 chunk's dictionary reference: codec 0 or 1.
        case dictionary
        /// A codec-3 chunk's reference: codec 0, 1 or 2.
        case deltaReference
        /// The one chunk of a slice (spec §6.3), a group: codec 0, 1 or 4, up to 2 MiB decoded.
        case group
    }

    /// Why `codec` may not serve in `role` (spec §6.2, §6.3), or nil when it may.
    func roleProblem(_ codec: Codec, _ role: Role) -> String? {
        switch (role, codec) {
        case (.dictionary, .lz4Dictionary), (.dictionary, .zstdDelta), (.dictionary, .zstd):
            "a dictionary reference has codec \(codec.rawValue)"
        case (.deltaReference, .zstdDelta), (.deltaReference, .zstd): "a delta reference has codec \(codec.rawValue)"
        case (.group, .lz4Dictionary), (.group, .zstdDelta): "a slice's chunk has codec \(codec.rawValue)"
        default: nil
        }
    }

    /// Checks the entry against spec §6.2 and §10 before any byte of it is read: a known codec
    /// allowed in its role, then ``boundsProblem(bodyDataEnd:)``.
    ///
    /// - Parameters:
    ///   - context: the body, the chunk's position in it and the page the body entry was read from.
    ///   - bodyDataEnd: the end of the body data the chunk is stored in (its layer's).
    ///   - role: a chunk, a dictionary reference or a delta reference.
    /// - Throws: `unsupportedCodec`, `corruptIndex` (at the page), `amplification` (at the chunk).
    func validate(_ context: ChunkContext, bodyDataEnd: UInt64, role: Role = .chunk) throws {
        guard let codec else {
            throw WebArcError.unsupportedCodec(
                codec: codecValue, body: context.body, chunk: context.index, page: context.page)
        }
        if let reason = roleProblem(codec, role) { throw context.corrupt(reason) }
        switch boundsProblem(bodyDataEnd: bodyDataEnd, role: role) {
        case .corrupt(let reason)?: throw context.corrupt(reason)
        case .amplification?:
            throw WebArcError.amplification(offset: offset, storedLength: storedLength, rawLength: rawLength)
        case nil: break
        }
    }

    /// A bound of spec §6.2 a chunk entry of known codec breaks.
    enum BoundsProblem: Equatable {
        /// `corrupt-index`, named at the page holding the body entry.
        case corrupt(String)
        /// `amplification`, named at the chunk.
        case amplification
    }

    /// The first bound the entry breaks, in the spec's order: raw length 1…256 KiB, a stored byte at
    /// least, raw lengths equal for codec 0, the LZ4 bound otherwise, the extent inside
    /// `[16, bodyDataEnd)`, then the decode ratio.
    func boundsProblem(bodyDataEnd: UInt64, role: Role = .chunk) -> BoundsProblem? {
        let maxRaw = role == .group ? FormatBounds.maxGroupLength : FormatBounds.maxChunkLength
        guard rawLength >= 1, rawLength <= maxRaw else {
            return .corrupt("raw length \(rawLength) is not 1 to \(maxRaw)")
        }
        guard storedLength >= 1 else { return .corrupt("stored length 0") }
        if codec == .raw {
            guard storedLength == rawLength else {
                return .corrupt("raw chunk stores \(storedLength) bytes for \(rawLength)")
            }
        } else if codec == .zstdDelta || codec == .zstd {
            guard storedLength < rawLength else {
                return .corrupt("Zstandard chunk stores \(storedLength) bytes for \(rawLength)")
            }
        } else if UInt64(storedLength) > FormatBounds.maxLZ4StoredLength(rawLength: rawLength) {
            return .corrupt("LZ4 chunk stores \(storedLength) bytes for \(rawLength), over the LZ4 bound")
        }
        guard let end, offset >= UInt64(Lead.size), end <= bodyDataEnd else {
            return .corrupt("extent [\(offset), +\(storedLength)) is outside the body data 16..<\(bodyDataEnd)")
        }
        if codec == .zstdDelta {
            let allowed = FormatBounds.maxDecodeRatio * UInt64(storedLength) + UInt64(reference?.rawLength ?? 0)
            if UInt64(rawLength) > allowed { return .amplification }
        } else if codec != .raw && !FormatBounds.ratioAllowed(stored: storedLength, raw: rawLength) {
            return .amplification
        }
        return nil
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

    func corrupt(_ reason: String) -> WebArcError {
        .corruptIndex(page: page, position: position, reason: "body \(body) chunk \(index): \(reason)")
    }
}
