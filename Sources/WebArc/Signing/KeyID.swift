import Crypto

/// The short name of an Ed25519 public key: the first 8 bytes of its SHA-256.
///
/// Written as 16 lowercase hexadecimal digits, in byte order (`3f9a…`). It picks the trusted key a
/// signature block claims; the signature itself is what proves the key signed.
/// Spec: §12.2 (`keyID`), §12.3.
public struct KeyID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 8 bytes read as a big-endian number, so that numeric order is byte order.
    public let value: UInt64

    /// The key ID of a 32-byte public key.
    public init(publicKey: [UInt8]) {
        self.init(bytes: Array(SHA256.hash(data: publicKey)).prefix(8))
    }

    /// The key ID stored in `bytes` (8 of them, as a signature block holds it).
    init<C: Collection>(bytes: C) where C.Element == UInt8 {
        precondition(bytes.count == 8, "a key ID is 8 bytes")
        value = bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Parses 16 lowercase hexadecimal digits; nil for anything else.
    public init?(hex text: Substring) {
        guard text.utf8.count == 16,
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
            let value = UInt64(text, radix: 16)
        else { return nil }
        self.value = value
    }

    /// The 8 bytes as stored in a signature block.
    public var bytes: [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }

    /// 16 lowercase hexadecimal digits.
    public var description: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Byte order (numeric order of ``value``).
    public static func < (lhs: KeyID, rhs: KeyID) -> Bool { lhs.value < rhs.value }
}
