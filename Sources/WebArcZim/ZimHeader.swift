/// The fixed 80-byte header that opens every ZIM file, read and checked before libzim sees the file.
///
/// libzim trusts several of these fields further than is safe for a hostile file (it sizes tables
/// and mappings from them), so an import first checks that every table the header names lies
/// inside the file and that the checksum ends it: a truncated or absurd file is refused here with
/// the field that is wrong.
///
/// ZIM format: header (openzim.org/wiki/ZIM_file_format), as libzim's `src/fileheader.cpp` reads it.
public struct ZimHeader: Equatable, Sendable {
    /// `ZIM\x04` read as a little-endian 32-bit number.
    public static let magic: UInt32 = 0x044D_495A
    /// Bytes of the header.
    public static let size = 80
    /// The value of a position that names nothing (a ZIM without a title index).
    static let absent = UInt64.max

    /// The format's major version: 5 or 6, the ones an import accepts.
    public var majorVersion: UInt16
    /// The format's minor version.
    public var minorVersion: UInt16
    /// Entries (dirents) of every namespace.
    public var entryCount: UInt32
    /// Clusters (compressed or stored groups of items).
    public var clusterCount: UInt32
    /// Where the table of 8-byte dirent positions, in path order, starts.
    public var pathPointerPosition: UInt64
    /// Where the v0 title index (4 bytes per entry) starts; `UInt64.max` when there is none.
    public var titleIndexPosition: UInt64
    /// Where the table of 8-byte cluster positions starts.
    public var clusterPointerPosition: UInt64
    /// Where the list of mime types starts (right after the header in every writer).
    public var mimeListPosition: UInt64
    /// The index of the main page; `UInt32.max` when there is none.
    public var mainPage: UInt32
    /// The index of the layout page, which readers ignore; `UInt32.max` when there is none.
    public var layoutPage: UInt32
    /// Where the 16-byte MD5 of everything before it lies: the last 16 bytes of the file.
    public var checksumPosition: UInt64

    /// Decodes the fields in file order from the first 80 bytes.
    ///
    /// - Throws: ``ZimError/notAZim(file:)`` without the magic number;
    ///   ``ZimError/truncated(file:what:needed:size:)`` for fewer than 80 bytes.
    public init(parsing bytes: [UInt8], file: String) throws {
        guard bytes.count >= 4, Self.uint32(bytes, 0) == Self.magic else { throw ZimError.notAZim(file: file) }
        guard bytes.count >= Self.size else {
            throw ZimError.truncated(
                file: file, what: "the header", needed: UInt64(Self.size), size: UInt64(bytes.count))
        }
        majorVersion = UInt16(truncatingIfNeeded: Self.uint32(bytes, 4))
        minorVersion = UInt16(truncatingIfNeeded: Self.uint32(bytes, 4) >> 16)
        entryCount = Self.uint32(bytes, 24)
        clusterCount = Self.uint32(bytes, 28)
        pathPointerPosition = Self.uint64(bytes, 32)
        titleIndexPosition = Self.uint64(bytes, 40)
        clusterPointerPosition = Self.uint64(bytes, 48)
        mimeListPosition = Self.uint64(bytes, 56)
        mainPage = Self.uint32(bytes, 64)
        layoutPage = Self.uint32(bytes, 68)
        checksumPosition = Self.uint64(bytes, 72)
    }

    /// Checks the fields against each other and the file's size: a known major version (5 or 6),
    /// the mime list after the header, every table inside the file before the checksum, the
    /// checksum in the file's last 16 bytes, and a main page that is an entry.
    ///
    /// - Throws: ``ZimError/truncated(file:what:needed:size:)`` when the file ends before a table
    ///   or the checksum; ``ZimError/badHeader(file:reason:)`` for any other inconsistency.
    public func validate(fileSize: UInt64, file: String) throws {
        guard majorVersion == 5 || majorVersion == 6 else {
            throw ZimError.badHeader(file: file, reason: "major version \(majorVersion), not 5 or 6")
        }
        guard mimeListPosition >= UInt64(Self.size) else {
            throw ZimError.badHeader(
                file: file, reason: "the mime list starts at \(mimeListPosition), inside the header")
        }
        let (checksumEnd, overflow) = checksumPosition.addingReportingOverflow(16)
        guard !overflow, checksumEnd <= fileSize else {
            throw ZimError.truncated(
                file: file, what: "the checksum at \(checksumPosition)", needed: overflow ? UInt64.max : checksumEnd,
                size: fileSize)
        }
        guard checksumEnd == fileSize else {
            throw ZimError.badHeader(
                file: file, reason: "the checksum at \(checksumPosition) does not end the \(fileSize)-byte file")
        }
        try checkTable(
            "the dirent pointer list", at: pathPointerPosition, count: UInt64(entryCount), width: 8, file: file)
        try checkTable(
            "the cluster pointer list", at: clusterPointerPosition, count: UInt64(clusterCount), width: 8, file: file)
        if titleIndexPosition != Self.absent {
            try checkTable("the title index", at: titleIndexPosition, count: UInt64(entryCount), width: 4, file: file)
        }
        guard mimeListPosition < checksumPosition else {
            throw ZimError.badHeader(
                file: file, reason: "the mime list at \(mimeListPosition) starts after the checksum")
        }
        guard mainPage == UInt32.max || mainPage < entryCount else {
            throw ZimError.badHeader(
                file: file, reason: "main page \(mainPage) is not one of the \(entryCount) entries")
        }
    }

    /// Checks that `count` items of `width` bytes at `position` end before the checksum.
    private func checkTable(_ what: String, at position: UInt64, count: UInt64, width: UInt64, file: String) throws {
        guard position >= UInt64(Self.size) else {
            throw ZimError.badHeader(file: file, reason: "\(what) starts at \(position), inside the header")
        }
        // count ≤ 2^32 and width ≤ 8: the product cannot overflow.
        let (end, overflow) = position.addingReportingOverflow(count * width)
        guard !overflow, end <= checksumPosition else {
            throw ZimError.truncated(
                file: file, what: "\(what) (\(count) × \(width) bytes at \(position))",
                needed: overflow ? UInt64.max : end + 16,
                size: checksumPosition + 16)
        }
    }

    private static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }

    private static func uint64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
}
