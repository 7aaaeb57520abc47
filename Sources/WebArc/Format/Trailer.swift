import Crypto

/// The fixed 256 bytes that end every archive: versions, features, lengths, counts and the three
/// page references everything else is reached from.
///
/// Its SHA-256 is the *archive digest*, which commits to every byte a reader can deliver.
/// Spec: §4.2 Trailer, §4.3 Opening.
package struct Trailer: Equatable, Sendable {
    /// `\x89WEBARCT`.
    package static let magic: [UInt8] = [0x89, 0x57, 0x45, 0x42, 0x41, 0x52, 0x43, 0x54]
    /// `\nTCRABEW`, the last 8 bytes of a file without an appendix.
    package static let endMagic: [UInt8] = [0x0A, 0x54, 0x43, 0x52, 0x41, 0x42, 0x45, 0x57]
    /// Bytes in the trailer.
    package static let size = 256
    /// Offset of `trailerCheck` inside the trailer; the check covers the bytes before it.
    static let checkOffset = 240

    /// The `requiredFeatures` bits a reader must implement to read a file (spec §4.4).
    package struct Features: OptionSet, Hashable, Sendable {
        /// The bits as stored.
        package let rawValue: UInt64
        /// Makes a set from its bits.
        package init(rawValue: UInt64) { self.rawValue = rawValue }

        /// Bit 0: an update archive over a base (tombstones, chunks in a base layer; spec §13).
        package static let layer = Features(rawValue: 1 << 0)
        /// Bit 1: some chunk uses codec 2, LZ4 with a dictionary (spec §6.2).
        package static let dictionaryCodec = Features(rawValue: 1 << 1)
        /// Bit 2: some chunk uses codec 3, a Zstandard delta against a reference chunk (spec §6.2, 2.1).
        package static let deltaCodec = Features(rawValue: 1 << 2)
        /// Bit 3: some body entry is a slice of a group chunk, or some chunk uses codec 4, a
        /// Zstandard frame alone (spec §6.2, §6.3; 2.4).
        package static let groupedBodies = Features(rawValue: 1 << 3)
        /// What this library implements: it accepts these bits at open.
        package static let supported: Features = [.layer, .dictionaryCodec, .deltaCodec, .groupedBodies]
    }

    /// The `optionalFeatures` bits this library writes (spec §4.4).
    package enum OptionalFeatures {
        /// Bit 0: the archive holds a full-text index (spec §17); since 2.2.
        package static let searchIndex: UInt64 = 1 << 0
        /// Bit 1: the archive holds a full-text index of version 2 (`Archive.searchIndex`); since 2.3.
        package static let searchIndexV2: UInt64 = 1 << 1
        /// Bit 2: the archive holds a full-text index of version 3 (`Archive.searchIndex3`); since 2.5.
        package static let searchIndexV3: UInt64 = 1 << 2
        /// Bit 3: the archive holds a full-text index of version 4 (`Archive.searchIndex4`); since 2.6.
        package static let searchIndexV4: UInt64 = 1 << 3
    }

    /// The major version: 2.
    package var majorVersion: UInt16 = Lead.supportedMajor
    /// The minor version; a newer one is read normally.
    package var minorVersion: UInt16 = Lead.currentMinor
    /// Reserved; zero when written.
    package var flags: UInt32 = 0
    /// Features a reader must implement to read the file (spec §4.4).
    package var requiredFeatures: Features = []
    /// Informational bits; unknown ones are ignored.
    package var optionalFeatures: UInt64 = 0
    /// The archive's length; the trailer ends here, an appendix may follow.
    package var archiveLength: UInt64 = 0
    /// End of the body data, which starts at 16.
    package var bodyDataEnd: UInt64 = UInt64(Lead.size)
    /// Entries of the record tree, at most 2^40.
    package var recordCount: UInt64 = 0
    /// Entries of the body tree, at most 2^40.
    package var bodyCount: UInt64 = 0
    /// The metadata page.
    package var metadata: PageReference
    /// The record tree's root; its `height` is the tree's.
    package var recordRoot: PageReference
    /// The body tree's root.
    package var bodyRoot: PageReference

    init(metadata: PageReference, recordRoot: PageReference, bodyRoot: PageReference) {
        self.metadata = metadata
        self.recordRoot = recordRoot
        self.bodyRoot = bodyRoot
    }

    /// Decodes the 256 trailer bytes stored at `offset`, checking opening step 4 (spec §4.3).
    ///
    /// - Throws: `truncated` at `fileLength` when `magic` or `endMagic` differs (the file was cut or
    ///   appended to); `trailerChecksum` when `trailerCheck` does not match.
    package init(parsing bytes: [UInt8], at offset: UInt64, fileLength: UInt64) throws {
        guard bytes.count == Self.size, Array(bytes[0..<8]) == Self.magic, Array(bytes[248..<256]) == Self.endMagic
        else {
            throw WebArcError.truncated(section: "trailer", offset: fileLength, needed: UInt64(Self.size), available: 0)
        }
        guard Array(bytes[Self.checkOffset..<Self.checkOffset + 8]) == Self.check(bytes[0..<Self.checkOffset]) else {
            throw WebArcError.trailerChecksum(offset: offset + UInt64(Self.checkOffset))
        }
        var reader = ByteReader(bytes, region: .file(section: "trailer", offset: offset))
        try reader.skip(8)
        majorVersion = try reader.readUInt16()
        minorVersion = try reader.readUInt16()
        flags = try reader.readUInt32()
        requiredFeatures = Features(rawValue: try reader.readUInt64())
        optionalFeatures = try reader.readUInt64()
        archiveLength = try reader.readUInt64()
        bodyDataEnd = try reader.readUInt64()
        recordCount = try reader.readUInt64()
        bodyCount = try reader.readUInt64()
        metadata = try PageReference(parsing: &reader)
        recordRoot = try PageReference(parsing: &reader)
        bodyRoot = try PageReference(parsing: &reader)
    }

    /// Checks opening steps 5–7 (spec §4.3) for a trailer stored at `offset`, in the spec's order.
    ///
    /// - Parameter archiveEnd: where the archive ends (the file length, less any appendix).
    /// - Throws: `badTrailer` naming the field at fault; `unsupportedFeature` naming the lowest
    ///   required bit this library does not implement.
    package func validate(lead: Lead, at offset: UInt64, archiveEnd: UInt64) throws {
        func bad(_ field: String, _ at: Int, _ reason: String) -> WebArcError {
            .badTrailer(field: field, offset: offset + UInt64(at), reason: reason)
        }
        guard majorVersion == Lead.supportedMajor else {
            throw bad("majorVersion", 8, "major version \(majorVersion), the lead says \(lead.majorVersion)")
        }
        guard minorVersion == lead.minorVersion else {
            throw bad("minorVersion", 10, "minor version \(minorVersion), the lead says \(lead.minorVersion)")
        }
        let unknown = requiredFeatures.subtracting(Features.supported).rawValue
        if unknown != 0 {
            throw WebArcError.unsupportedFeature(bit: unknown.trailingZeroBitCount, offset: offset + 16)
        }
        guard archiveLength == archiveEnd else {
            throw bad("archiveLength", 32, "archiveLength \(archiveLength), but the archive ends at \(archiveEnd)")
        }
        let pagesEnd = archiveLength - UInt64(Self.size)
        guard bodyDataEnd >= UInt64(Lead.size), bodyDataEnd <= pagesEnd else {
            throw bad("bodyDataEnd", 40, "bodyDataEnd \(bodyDataEnd) is not between 16 and \(pagesEnd)")
        }
        for (name, at, reference) in [
            ("metadata", 64, metadata), ("recordRoot", 120, recordRoot), ("bodyRoot", 176, bodyRoot),
        ] {
            switch reference.violation(pageArea: bodyDataEnd..<pagesEnd) {
            case .invalid(let reason)?: throw bad(name, at, reason)
            case .amplification?:
                throw bad(name, at, "decode ratio \(reference.rawLength):\(reference.storedLength) is over 255")
            case nil: break
            }
        }
        guard recordCount <= FormatBounds.maxCount else {
            throw bad("recordCount", 48, "recordCount \(recordCount) is over 2^40")
        }
        guard bodyCount <= FormatBounds.maxCount else {
            throw bad("bodyCount", 56, "bodyCount \(bodyCount) is over 2^40")
        }
    }

    /// Encodes the trailer, computing `trailerCheck`.
    package func serialize() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.size)
        writer.write(bytes: Self.magic)
        writer.write(majorVersion)
        writer.write(minorVersion)
        writer.write(flags)
        writer.write(requiredFeatures.rawValue)
        writer.write(optionalFeatures)
        writer.write(archiveLength)
        writer.write(bodyDataEnd)
        writer.write(recordCount)
        writer.write(bodyCount)
        metadata.serialize(into: &writer)
        recordRoot.serialize(into: &writer)
        bodyRoot.serialize(into: &writer)
        writer.writeZeros(8)
        writer.write(bytes: Self.check(writer.bytes[0..<Self.checkOffset]))
        writer.write(bytes: Self.endMagic)
        return writer.bytes
    }

    static func check(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        Array(Array(SHA256.hash(data: Array(bytes)))[0..<8])
    }
}
