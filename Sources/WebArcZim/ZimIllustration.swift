import CZlib

/// The 48 × 48 PNG a ZIM must carry as `Illustration_48x48@1` (Kiwix shows it in its library),
/// for an archive that brings none: one flat colour, written with zlib.
enum ZimIllustration {
    /// The side in pixels.
    static let size = 48

    /// A `size` × `size` opaque RGB PNG of one colour.
    static func png(red: UInt8 = 0x2E, green: UInt8 = 0x6D, blue: UInt8 = 0xA4) -> [UInt8] {
        // Each row: filter byte 0 (none), then the pixels.
        let row = [UInt8(0)] + Array(repeatElement([red, green, blue], count: size).joined())
        let raw = Array(Array(repeating: row, count: size).joined())
        var compressedLength = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedLength))
        _ = compress2(&compressed, &compressedLength, raw, uLong(raw.count), Z_BEST_COMPRESSION)
        compressed.removeSubrange(Int(compressedLength)...)
        let header: [UInt8] = Self.bigEndian(UInt32(size)) + Self.bigEndian(UInt32(size)) + [8, 2, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", compressed)
            + chunk("IEND", [])
    }

    /// A PNG chunk: length, type, data, CRC-32 of type and data.
    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        let crc = UInt32(typed.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) })
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }
}
