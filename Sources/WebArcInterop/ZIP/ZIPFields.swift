import CZlib

/// A bounds-checked little-endian cursor over a ZIP structure read from disk (APPNOTE 6.3.10 §4.3:
/// every ZIP integer is little-endian); a short read is a ``Short`` error the caller names.
struct ZIPFields {
    /// The structure ended before a field.
    struct Short: Error {}

    private let bytes: [UInt8]
    private(set) var index: Int

    init(_ bytes: [UInt8], at index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    /// Bytes not read yet.
    var remaining: Int { bytes.count - index }

    mutating func uint16() throws -> UInt16 { UInt16(truncatingIfNeeded: try integer(2)) }
    mutating func uint32() throws -> UInt32 { UInt32(truncatingIfNeeded: try integer(4)) }
    mutating func uint64() throws -> UInt64 { try integer(8) }

    mutating func bytes(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw Short() }
        defer { index += count }
        return bytes[index..<index + count]
    }

    mutating func skip(_ count: Int) throws { _ = try bytes(count) }

    private mutating func integer(_ width: Int) throws -> UInt64 {
        var value: UInt64 = 0
        for (shift, byte) in try bytes(width).enumerated() { value |= UInt64(byte) << (8 * shift) }
        return value
    }
}

/// Builds a ZIP structure, little-endian.
struct ZIPFieldWriter {
    private(set) var bytes: [UInt8] = []

    mutating func uint16(_ value: UInt16) { integer(UInt64(value), width: 2) }
    mutating func uint32(_ value: UInt32) { integer(UInt64(value), width: 4) }
    mutating func uint64(_ value: UInt64) { integer(value, width: 8) }
    mutating func append<C: Collection>(_ other: C) where C.Element == UInt8 { bytes.append(contentsOf: other) }

    private mutating func integer(_ value: UInt64, width: Int) {
        for shift in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * shift))) }
    }
}

/// The CRC-32 every ZIP entry carries (zlib's `crc32`), fed in pieces.
struct CRC32 {
    private(set) var value: UInt32 = 0

    mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        var done = 0
        // zlib takes a 32-bit length.
        while done < buffer.count {
            let piece = min(buffer.count - done, 1 << 30)
            value = UInt32(
                truncatingIfNeeded: crc32(
                    uLong(value), base.advanced(by: done).assumingMemoryBound(to: Bytef.self), uInt(piece)))
            done += piece
        }
    }

    mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }
}
