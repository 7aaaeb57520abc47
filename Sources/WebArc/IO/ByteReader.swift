/// A bounds-checked little-endian cursor over bytes that knows where they came from.
///
/// Every read that would run past the end throws the error of the reader's ``Region``: a truncated
/// file names the absolute offset (`truncated`), a short page names the page and the byte inside it
/// (`corrupt-page`), a short object names its page and byte (`corrupt-index`). Lengths read from
/// disk are checked against ``remaining`` before anything is allocated for them.
struct ByteReader {
    /// Where the bytes came from, which decides the error a short read throws.
    enum Region: Sendable {
        /// Bytes of the file; `offset` is the absolute offset of `bytes[0]`.
        case file(section: String, offset: UInt64)
        /// A decoded page stored at `offset`; positions are bytes of the decoded page.
        case page(offset: UInt64)
        /// An object inside the decoded page stored at `page`.
        case object(page: UInt64)
    }

    let bytes: [UInt8]
    /// Index in `bytes` of the next byte; for a page, the position inside the decoded page.
    private(set) var position: Int
    /// Index in `bytes` past the last byte this reader may read.
    let end: Int
    let region: Region

    /// A reader over `bytes[range]` (all of `bytes` by default).
    init(_ bytes: [UInt8], region: Region, range: Range<Int>? = nil) {
        self.bytes = bytes
        self.region = region
        position = range?.lowerBound ?? 0
        end = range?.upperBound ?? bytes.count
    }

    /// Bytes not yet read.
    var remaining: Int { end - position }
    var isAtEnd: Bool { position == end }

    /// The error for a structure that needs `needed` bytes where fewer remain.
    func shortRead(_ needed: Int, what: String = "") -> WebArcError {
        let reason = "\(what.isEmpty ? "" : what + ": ")needs \(needed) bytes, \(remaining) remain"
        switch region {
        case .file(let section, let offset):
            return .truncated(
                section: section, offset: offset + UInt64(position), needed: UInt64(max(needed, 0)),
                available: UInt64(remaining))
        case .page(let offset):
            return .corruptPage(page: offset, position: position, reason: reason)
        case .object(let page):
            return .corruptIndex(page: page, position: position, reason: reason)
        }
    }

    /// Throws the region's error unless `count` more bytes remain (a length read from disk is
    /// checked with this before anything is allocated for it).
    /// `what` is made only on failure (a message costs more than many a check).
    func require(_ count: UInt64, what: @autoclosure () -> String = "") throws {
        guard count <= UInt64(remaining) else { throw shortRead(Int(clamping: count), what: what()) }
    }

    private mutating func take(_ count: Int) throws -> Range<Int> {
        guard count >= 0, count <= remaining else { throw shortRead(count) }
        defer { position += count }
        return position..<position + count
    }

    mutating func readUInt8() throws -> UInt8 { bytes[try take(1).lowerBound] }

    mutating func readUInt16() throws -> UInt16 { UInt16(truncatingIfNeeded: try readLittleEndian(2)) }

    mutating func readUInt32() throws -> UInt32 { UInt32(truncatingIfNeeded: try readLittleEndian(4)) }

    mutating func readUInt64() throws -> UInt64 { try readLittleEndian(8) }

    mutating func readInt64() throws -> Int64 { Int64(bitPattern: try readLittleEndian(8)) }

    /// Reads `count` bytes as a new array.
    mutating func readBytes(_ count: Int) throws -> [UInt8] { Array(bytes[try take(count)]) }

    /// Reads `count` bytes as a slice sharing the reader's storage.
    mutating func readSlice(_ count: Int) throws -> ArraySlice<UInt8> { bytes[try take(count)] }

    /// The range of the next `count` bytes, which the reader steps over.
    mutating func readRange(_ count: Int) throws -> Range<Int> { try take(count) }

    mutating func skip(_ count: Int) throws { _ = try take(count) }

    /// A `u32` length followed by that many bytes, as their range (checked before use).
    /// `what` is made only on failure: a list's items name their list (`an item of "headers"`),
    /// and making that text for each item was a tenth of the record checks' time in `verify`.
    mutating func readLengthPrefixed(what: @autoclosure () -> String) throws -> Range<Int> {
        let length = try readUInt32()
        try require(UInt64(length), what: what())
        return try take(Int(length))
    }

    /// A reader over the next `count` bytes with its own region; this reader steps over them.
    mutating func subReader(_ count: Int, region: Region) throws -> ByteReader {
        ByteReader(bytes, region: region, range: try take(count))
    }

    private mutating func readLittleEndian(_ width: Int) throws -> UInt64 {
        let range = try take(width)
        var value: UInt64 = 0
        for index in range.reversed() { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
