/// A bounds-checked little-endian cursor over bytes that knows its absolute file offset.
///
/// Every read that would run past the end throws ``WebArcError/truncated(section:offset:needed:available:)``
/// naming the section and the absolute offset.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var position: Int = 0
    /// Absolute file offset of `bytes[0]`.
    let baseOffset: UInt64
    /// The section name used in errors.
    let section: String

    init(_ bytes: [UInt8], baseOffset: UInt64, section: String) {
        self.bytes = bytes
        self.baseOffset = baseOffset
        self.section = section
    }

    /// Bytes not yet read.
    var remaining: Int { bytes.count - position }
    /// Absolute file offset of the next byte.
    var offset: UInt64 { baseOffset + UInt64(position) }

    private mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw WebArcError.truncated(
                section: section, offset: offset, needed: UInt64(max(count, 0)), available: UInt64(remaining))
        }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func readUInt8() throws -> UInt8 { try take(1).first! }

    mutating func readUInt16() throws -> UInt16 { UInt16(truncatingIfNeeded: try readLittleEndian(2)) }

    mutating func readUInt32() throws -> UInt32 { UInt32(truncatingIfNeeded: try readLittleEndian(4)) }

    mutating func readUInt64() throws -> UInt64 { try readLittleEndian(8) }

    mutating func readInt64() throws -> Int64 { Int64(bitPattern: try readLittleEndian(8)) }

    mutating func readBytes(_ count: Int) throws -> [UInt8] { Array(try take(count)) }

    mutating func skip(_ count: Int) throws { _ = try take(count) }

    private mutating func readLittleEndian(_ width: Int) throws -> UInt64 {
        var value: UInt64 = 0
        for (shift, byte) in try take(width).enumerated() {
            value |= UInt64(byte) << (8 * UInt64(shift))
        }
        return value
    }
}
