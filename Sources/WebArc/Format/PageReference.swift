/// Where a page is stored, how to decode it, and the SHA-256 of its stored bytes, as its parent
/// (or the trailer) names it.
///
/// Spec: §5.1 Page reference.
package struct PageReference: Hashable, Sendable {
    /// Bytes in an encoded reference.
    package static let size = 56

    /// How a page's bytes are stored.
    package enum Codec: UInt8, Sendable {
        case raw = 0
        case lz4 = 1
    }

    /// Absolute offset of the stored page.
    package var offset: UInt64
    /// Stored bytes, 1 to 4 MiB.
    package var storedLength: UInt32
    /// Decoded bytes, 1 to 4 MiB.
    package var rawLength: UInt32
    /// The codec byte as stored; values other than 0 and 1 are refused by ``violation(pageArea:)``.
    package var codecValue: UInt8
    /// 0 for a leaf or the metadata page; n for an interior page n levels above the leaves.
    package var height: UInt8
    /// SHA-256 of the stored bytes.
    package var digest: SHA256Hash

    init(offset: UInt64, storedLength: UInt32, rawLength: UInt32, codec: Codec, height: UInt8, digest: SHA256Hash) {
        self.offset = offset
        self.storedLength = storedLength
        self.rawLength = rawLength
        codecValue = codec.rawValue
        self.height = height
        self.digest = digest
    }

    init(parsing reader: inout ByteReader) throws {
        offset = try reader.readUInt64()
        storedLength = try reader.readUInt32()
        rawLength = try reader.readUInt32()
        codecValue = try reader.readUInt8()
        height = try reader.readUInt8()
        try reader.skip(6)
        digest = try SHA256Hash(parsing: &reader)
    }

    func serialize(into writer: inout ByteWriter) {
        writer.write(offset)
        writer.write(storedLength)
        writer.write(rawLength)
        writer.write(codecValue)
        writer.write(height)
        writer.writeZeros(6)
        digest.serialize(into: &writer)
    }

    /// The codec, or nil for a value this format does not define.
    package var codec: Codec? { Codec(rawValue: codecValue) }

    /// The first offset past the stored page, or nil when the sum overflows.
    var end: UInt64? {
        let (end, overflow) = offset.addingReportingOverflow(UInt64(storedLength))
        return overflow ? nil : end
    }

    /// A rule of spec §5.1 this reference breaks.
    enum Violation: Equatable {
        /// A field out of its bounds or disagreeing with another (`corrupt-page`, or `bad-trailer`).
        case invalid(String)
        /// A decode ratio over 255 (`amplification`).
        case amplification
    }

    /// The first rule of spec §5.1 this reference breaks, or nil: lengths within 1…4 MiB, a known
    /// codec with lengths that agree with it, the stored bytes inside `pageArea`, then the decode
    /// ratio (checked last: a child's ratio is named at the child when it is read).
    func violation(pageArea: Range<UInt64>) -> Violation? {
        let limit = FormatBounds.maxPageLength
        guard storedLength >= 1, storedLength <= limit else {
            return .invalid("stored length \(storedLength) is not 1 to \(limit)")
        }
        guard rawLength >= 1, rawLength <= limit else {
            return .invalid("raw length \(rawLength) is not 1 to \(limit)")
        }
        switch codec {
        case .raw:
            guard storedLength == rawLength else {
                return .invalid("raw page stores \(storedLength) bytes for \(rawLength)")
            }
        case .lz4:
            guard UInt64(storedLength) <= FormatBounds.maxLZ4StoredLength(rawLength: rawLength) else {
                return .invalid("LZ4 page stores \(storedLength) bytes for \(rawLength), over the LZ4 bound")
            }
        case nil:
            return .invalid("unknown page codec \(codecValue)")
        }
        guard let end, offset >= pageArea.lowerBound, end <= pageArea.upperBound else {
            return .invalid(
                "page [\(offset), +\(storedLength)) is outside the page area \(pageArea.lowerBound)..<\(pageArea.upperBound)"
            )
        }
        if codec == .lz4 && !FormatBounds.ratioAllowed(stored: storedLength, raw: rawLength) { return .amplification }
        return nil
    }
}
