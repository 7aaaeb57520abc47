import Crypto

/// The MD5 of a body's uncompressed bytes: its content address in the body store.
///
/// MD5 is not collision-resistant, so this is an address, not a tamper seal; bodies that share a
/// digest are told apart by ``BodyReference/variant``. Spec: §6.3 Body entry.
public struct BodyDigest: Hashable, Comparable, Sendable, BitwiseCopyable, CustomStringConvertible {
    /// The first eight digest bytes, big-endian, so that integer order is byte order.
    public let high: UInt64
    /// The last eight digest bytes, big-endian.
    public let low: UInt64

    /// The digest of zero bytes, `d41d8cd98f00b204e9800998ecf8427e`.
    public static let ofEmpty = BodyDigest(Insecure.MD5.hash(data: [UInt8]()))

    /// Makes a digest from its 16 bytes, or returns nil for any other count.
    public init?<C: Collection>(bytes: C) where C.Element == UInt8 {
        guard bytes.count == 16 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.high = high
        self.low = low
    }

    /// Makes a digest from its two big-endian halves.
    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Makes a digest from exactly 16 bytes (the caller read 16).
    init(sixteen bytes: [UInt8]) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
        for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
        self.high = high
        self.low = low
    }

    /// Makes a digest from a finished swift-crypto MD5.
    public init(_ digest: Insecure.MD5Digest) {
        self.init(sixteen: Array(digest))
    }

    /// Parses 32 hexadecimal digits.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        self.init(bytes: bytes)
    }

    /// The 16 digest bytes in order.
    public var bytes: [UInt8] {
        (0..<16).map { index in
            index < 8
                ? UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index)))
                : UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index - 8)))
        }
    }

    /// Lower-case hexadecimal, as `md5sum` prints it.
    public var hex: String {
        let high = String(high, radix: 16)
        let low = String(low, radix: 16)
        return String(repeating: "0", count: 16 - high.count) + high + String(repeating: "0", count: 16 - low.count)
            + low
    }

    public var description: String { hex }

    public static func < (lhs: BodyDigest, rhs: BodyDigest) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

/// Names one stored body: its digest plus the variant that tells apart different bodies with one MD5.
///
/// Spec: §6.3 Body entry, §7.1 field type `bodyRef`.
public struct BodyReference: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The MD5 of the body's bytes.
    public let digest: BodyDigest
    /// 0 for the first body with this digest; 1, 2, … for different bodies sharing it.
    public let variant: UInt32

    /// Makes a reference from a digest and a variant.
    public init(digest: BodyDigest, variant: UInt32 = 0) {
        self.digest = digest
        self.variant = variant
    }

    /// The ETag value a server sends for this body: the MD5 in hex, plus the variant when non-zero.
    public var etag: String { variant == 0 ? "\"\(digest.hex)\"" : "\"\(digest.hex)-\(variant)\"" }

    public var description: String { variant == 0 ? digest.hex : "\(digest.hex)#\(variant)" }

    public static func < (lhs: BodyReference, rhs: BodyReference) -> Bool {
        (lhs.digest, lhs.variant) < (rhs.digest, rhs.variant)
    }
}
