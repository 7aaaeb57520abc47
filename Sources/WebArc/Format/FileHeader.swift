import Crypto

/// The fixed 128-byte record at the start of every archive.
///
/// Spec: §4 File header.
public struct FileHeader: Equatable, Sendable {
    /// `\x89WEBARC\n`.
    public static let magic: [UInt8] = [0x89, 0x57, 0x45, 0x42, 0x41, 0x52, 0x43, 0x0A]
    /// Bytes in the header.
    public static let size = 128
    /// The major version this library reads and writes.
    public static let supportedMajor: UInt16 = 1
    /// The minor version this library writes.
    public static let currentMinor: UInt16 = 0
    /// Offset of `headerCheck`; the check covers the bytes before it.
    static let checkOffset = 120

    public var majorVersion: UInt16 = FileHeader.supportedMajor
    public var minorVersion: UInt16 = FileHeader.currentMinor
    public var flags: UInt32 = 0
    /// Length of the archive proper; an appendix may follow.
    public var archiveLength: UInt64 = 0
    /// Start of the index (everything after the body bytes).
    public var indexOffset: UInt64 = 0
    /// Start of the section table, which ends at `archiveLength`.
    public var sectionTableOffset: UInt64 = 0
    public var sectionCount: UInt32 = 0
    public var sectionEntrySize: UInt32 = UInt32(SectionEntry.size)
    /// SHA-256 of bytes `[indexOffset, archiveLength)`.
    public var indexDigest: [UInt8] = [UInt8](repeating: 0, count: 32)

    /// Makes a header with every field at its default.
    public init() {}

    /// Decodes the header from its 128 bytes, checking magic, major version and check value in
    /// that order (spec §4 steps 1–4).
    ///
    /// - Throws: `notAnArchive`, `unsupportedVersion`, `headerChecksum`.
    public init(parsing bytes: [UInt8], path: String) throws {
        guard bytes.count >= 8, Array(bytes[0..<8]) == Self.magic else { throw WebArcError.notAnArchive(path: path) }
        var reader = ByteReader(bytes, baseOffset: 0, section: "header")
        try reader.skip(8)
        majorVersion = try reader.readUInt16()
        minorVersion = try reader.readUInt16()
        guard majorVersion == Self.supportedMajor else {
            throw WebArcError.unsupportedVersion(
                major: majorVersion, minor: minorVersion, supportedMajor: Self.supportedMajor)
        }
        guard bytes.count >= Self.size else {
            // Spec Appendix A: a truncation names the first missing byte, the file's length.
            throw WebArcError.truncated(
                section: "header", offset: UInt64(bytes.count), needed: UInt64(Self.size - bytes.count), available: 0)
        }
        let stored = Array(bytes[Self.checkOffset..<Self.size])
        guard stored == Self.check(bytes[0..<Self.checkOffset]) else {
            throw WebArcError.headerChecksum(offset: UInt64(Self.checkOffset))
        }
        flags = try reader.readUInt32()
        archiveLength = try reader.readUInt64()
        indexOffset = try reader.readUInt64()
        sectionTableOffset = try reader.readUInt64()
        sectionCount = try reader.readUInt32()
        sectionEntrySize = try reader.readUInt32()
        indexDigest = try reader.readBytes(32)
    }

    /// Checks the cross-field rules of spec §3 and §4 step 5–6 against the file size.
    ///
    /// - Throws: `truncated` when the file is shorter than `archiveLength`; `badHeader` otherwise.
    public func validate(fileSize: UInt64) throws {
        guard archiveLength <= fileSize else {
            throw WebArcError.truncated(
                section: "archive", offset: fileSize, needed: archiveLength - fileSize, available: 0)
        }
        func bad(_ field: String, _ offset: UInt64, _ reason: String) -> WebArcError {
            .badHeader(field: field, offset: offset, reason: reason)
        }
        guard indexOffset >= UInt64(Self.size), indexOffset <= sectionTableOffset else {
            throw bad("indexOffset", 24, "\(indexOffset) is not between 128 and the section table")
        }
        guard sectionTableOffset <= archiveLength else {
            throw bad("sectionTableOffset", 32, "\(sectionTableOffset) is past archiveLength \(archiveLength)")
        }
        guard sectionEntrySize >= UInt32(SectionEntry.size) else {
            throw bad("sectionEntrySize", 44, "\(sectionEntrySize) is below \(SectionEntry.size)")
        }
        guard sectionCount >= 1, sectionCount <= 1024 else {
            throw bad("sectionCount", 40, "\(sectionCount) is not between 1 and 1024")
        }
        guard UInt64(sectionCount) * UInt64(sectionEntrySize) == archiveLength - sectionTableOffset else {
            throw bad("sectionCount", 40, "\(sectionCount) entries of \(sectionEntrySize) bytes do not end at archiveLength")
        }
    }

    /// Encodes the header, computing `headerCheck`.
    public func serialize() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.size)
        writer.write(bytes: Self.magic)
        writer.write(majorVersion)
        writer.write(minorVersion)
        writer.write(flags)
        writer.write(archiveLength)
        writer.write(indexOffset)
        writer.write(sectionTableOffset)
        writer.write(sectionCount)
        writer.write(sectionEntrySize)
        writer.write(bytes: indexDigest)
        writer.writeZeros(Self.checkOffset - writer.count)
        let check = Self.check(writer.bytes[0..<Self.checkOffset])
        writer.write(bytes: check)
        return writer.bytes
    }

    /// SHA-256 of all 128 header bytes: the digest a signature would cover (spec §10).
    public func archiveDigest() -> [UInt8] { Array(SHA256.hash(data: serialize())) }

    static func check(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        Array(Array(SHA256.hash(data: Array(bytes)))[0..<8])
    }
}
