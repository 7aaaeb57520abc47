/// Where in an input file something was found: the file, a byte offset, and for gzip input the
/// offset inside the decompressed stream.
///
/// For WARC input `offset` is the start of the record, or for gzip input the start of the gzip
/// member that holds the record's first byte (the offset `warcio index` prints); when the record
/// starts inside a member (whole-file gzip), `decompressedOffset` says how far in. For HAR input
/// `offset` is the first byte of the entry and `item` names it (`entry 12`); for a `.webarchive`
/// `item` names the resource (`WebSubresources[3]`) and there is no offset.
public struct InputLocation: Hashable, Sendable, CustomStringConvertible {
    /// The input file's path, as given.
    public var file: String
    /// Byte offset in the file.
    public var offset: UInt64?
    /// Offset inside the decompressed stream of the gzip member at `offset`, when not 0.
    public var decompressedOffset: UInt64?
    /// A name for the item inside the file, such as `entry 12`.
    public var item: String?

    /// Makes a location.
    public init(file: String, offset: UInt64? = nil, decompressedOffset: UInt64? = nil, item: String? = nil) {
        self.file = file
        self.offset = offset
        self.decompressedOffset = decompressedOffset == 0 ? nil : decompressedOffset
        self.item = item
    }

    /// `file entry 3 at offset 120 (0x78), decompressed offset 512`.
    public var description: String {
        var text = file
        if let item { text += " \(item)" }
        if let offset { text += " at offset \(Self.hex(offset))" }
        if let decompressedOffset { text += ", decompressed offset \(decompressedOffset)" }
        return text
    }

    static func hex(_ value: UInt64) -> String { "\(value) (0x\(String(value, radix: 16)))" }
}
