/// RFC 4648 base32 (upper case, no padding needed for 20-byte SHA-1 digests), as WARC digests use it.
enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Encodes bytes; pads with `=` to a multiple of 8 characters.
    static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var output: [UInt8] = []
        var buffer: UInt64 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt64(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int((buffer >> UInt64(bits)) & 31)])
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt64(5 - bits)) & 31)]) }
        while output.count % 8 != 0 { output.append(UInt8(ascii: "=")) }
        return String(decoding: output, as: UTF8.self)
    }
}
