/// The 16 bytes at offset 0: magic and version.
///
/// The lead is not covered by a digest; it holds nothing a reader uses beyond the checks of
/// opening, and its version must agree with the trailer's.
/// Spec: §4.1 Lead.
package struct Lead: Equatable, Sendable {
    /// `\x89WEBARC\n`.
    package static let magic: [UInt8] = [0x89, 0x57, 0x45, 0x42, 0x41, 0x52, 0x43, 0x0A]
    /// Bytes in the lead.
    package static let size = 16
    /// The major version this library reads and writes.
    package static let supportedMajor: UInt16 = 2
    /// The minor version this library writes for an archive without a search index (every
    /// such archive is a 2.1 file, byte for byte as before 2.2).
    package static let currentMinor: UInt16 = 1
    /// The newest minor version this library reads and writes: 2.2 adds the search index (spec
    /// §17), 2.3 its version 2 under `Archive.searchIndex`, 2.4 grouped bodies (§6.3), 2.5 the
    /// index's version 3 under `Archive.searchIndex3`, 2.6 its version 4 under `Archive.searchIndex4`.
    package static let newestMinor: UInt16 = 6

    /// The minor version of an archive whose index has rules `searchVersion` (`Writer.search`; nil:
    /// no index): 1 without one, 2 with a version 1 index (`Archive.search`), 3 with a later one
    /// (spec §15, §17).
    ///
    /// An archive with a version 4 index is a 2.6 file, with a version 3 index a 2.5 file; otherwise
    /// one that may hold grouped bodies (its writer groups, or a base has them) is a 2.4 file
    /// whatever its index.
    package static func minor(searchVersion: UInt64?, grouped: Bool = false) -> UInt16 {
        if searchVersion == 4 { return 6 }
        if searchVersion == 3 { return 5 }
        if grouped { return 4 }
        return switch searchVersion {
        case nil: currentMinor
        case 1: 2
        default: 3
        }
    }

    /// The major version: 2.
    package var majorVersion: UInt16 = Lead.supportedMajor
    /// The minor version, equal to the trailer's.
    package var minorVersion: UInt16 = Lead.currentMinor
    /// The reserved bytes 12–15 as stored (zero when written; a verifier reports other values).
    package var reserved: UInt32 = 0

    /// Makes the lead a 2.0 writer writes.
    package init() {}

    /// Decodes the lead from the first bytes of a file of `fileLength` bytes, checking opening steps
    /// 1–2 in order (spec §4.3).
    ///
    /// - Parameter bytes: the first `min(16, fileLength)` bytes.
    /// - Throws: `empty`, `notAnArchive`, `truncated` (at the file length), `unsupportedVersion`.
    package init(parsing bytes: [UInt8], fileLength: UInt64, path: String) throws {
        guard fileLength > 0 else { throw WebArcError.empty(path: path) }
        guard bytes.count >= 8, Array(bytes[0..<8]) == Self.magic else { throw WebArcError.notAnArchive(path: path) }
        guard bytes.count >= Self.size else {
            throw WebArcError.truncated(
                section: "lead", offset: fileLength, needed: UInt64(Self.size) - fileLength, available: 0)
        }
        var reader = ByteReader(bytes, region: .file(section: "lead", offset: 0))
        try reader.skip(8)
        majorVersion = try reader.readUInt16()
        minorVersion = try reader.readUInt16()
        reserved = try reader.readUInt32()
        guard majorVersion == Self.supportedMajor else {
            throw WebArcError.unsupportedVersion(
                major: majorVersion, minor: minorVersion, supportedMajor: Self.supportedMajor)
        }
    }

    /// Encodes the lead.
    package func serialize() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.size)
        writer.write(bytes: Self.magic)
        writer.write(majorVersion)
        writer.write(minorVersion)
        writer.write(reserved)
        return writer.bytes
    }
}
