import Crypto

/// A SHA-256 value, its 32 bytes held inline: a chunk's or page's digest, or a body hash.
///
/// Unlike ``BodyDigest`` (MD5, an address), these bind bytes to the archive digest (spec §11.1).
/// Spec: §5.1 `digest`, §6.2 `digest`, §6.3 `sha256`.
public struct SHA256Hash: Hashable, Sendable, CustomStringConvertible {
    /// The digest bytes as four big-endian words, in order.
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// The hash of zero bytes, `e3b0c442…b855`.
    public static let ofEmpty = SHA256Hash(SHA256.hash(data: [UInt8]()))

    /// Makes a value from exactly 32 bytes, or returns nil for any other count.
    public init?<C: Collection>(bytes: C) where C.Element == UInt8 {
        guard bytes.count == 32 else { return nil }
        // The bytes laid down in order are the four words big-endian.
        var big: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &big) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        words = (UInt64(bigEndian: big.0), UInt64(bigEndian: big.1), UInt64(bigEndian: big.2), UInt64(bigEndian: big.3))
    }

    /// Makes a value from a finished swift-crypto SHA-256.
    public init(_ digest: SHA256.Digest) {
        self.init(bytes: Array(digest))!
    }

    /// The SHA-256 of `bytes`.
    public static func of<C: Collection>(_ bytes: C) -> SHA256Hash where C.Element == UInt8 {
        if let contiguous = bytes as? [UInt8] { return SHA256Hash(SHA256.hash(data: contiguous)) }
        if let slice = bytes as? ArraySlice<UInt8> { return slice.withUnsafeBytes { of($0) } }
        return SHA256Hash(SHA256.hash(data: Array(bytes)))
    }

    /// The SHA-256 of the bytes in `buffer`.
    public static func of(_ buffer: UnsafeRawBufferPointer) -> SHA256Hash {
        var hasher = SHA256()
        hasher.update(bufferPointer: buffer)
        return SHA256Hash(hasher.finalize())
    }

    /// The 32 bytes in order.
    public var bytes: [UInt8] {
        let big = (words.0.bigEndian, words.1.bigEndian, words.2.bigEndian, words.3.bigEndian)
        return withUnsafeBytes(of: big) { Array($0) }
    }

    /// Lower-case hexadecimal, as `sha256sum` prints it.
    public var hex: String {
        [words.0, words.1, words.2, words.3].map { word in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    public var description: String { hex }

    public static func == (lhs: SHA256Hash, rhs: SHA256Hash) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    func serialize(into writer: inout ByteWriter) { writer.write(bytes: bytes) }

    init(parsing reader: inout ByteReader) throws {
        self.init(bytes: try reader.readSlice(32))!
    }
}
