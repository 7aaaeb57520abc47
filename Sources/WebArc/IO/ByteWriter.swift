/// Appends little-endian integers and bytes to a growing buffer; the mirror of ``ByteReader``.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    var count: Int { bytes.count }

    /// Empties the writer, keeping its storage for what it writes next.
    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    mutating func write(_ value: UInt8) { bytes.append(value) }
    mutating func write(_ value: UInt16) { writeLittleEndian(UInt64(value), width: 2) }
    mutating func write(_ value: UInt32) { writeLittleEndian(UInt64(value), width: 4) }
    mutating func write(_ value: UInt64) { writeLittleEndian(value, width: 8) }
    mutating func write(_ value: Int64) { writeLittleEndian(UInt64(bitPattern: value), width: 8) }
    mutating func write<C: Collection>(bytes other: C) where C.Element == UInt8 { bytes.append(contentsOf: other) }
    mutating func writeZeros(_ count: Int) { bytes.append(contentsOf: repeatElement(0, count: count)) }

    /// Writes a `u32` length, then the bytes.
    mutating func writeLengthPrefixed<C: Collection>(_ other: C) where C.Element == UInt8 {
        write(UInt32(other.count))
        bytes.append(contentsOf: other)
    }

    /// Writes a `u32` length, then what `body` writes: the length is filled in afterwards.
    mutating func writeLengthPrefixed(_ body: (inout ByteWriter) -> Void) {
        let start = bytes.count
        write(UInt32(0))
        body(&self)
        let length = UInt32(bytes.count - start - 4)
        for index in 0..<4 { bytes[start + index] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(index))) }
    }

    private mutating func writeLittleEndian(_ value: UInt64, width: Int) {
        for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }
}
