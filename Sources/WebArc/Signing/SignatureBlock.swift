import Foundation

/// An Ed25519 signature of an archive digest by one key: the appendix block of type 1.
///
/// ```
/// 0 keyID (8) | 8 sequence (u64) | 16 created (i64 ms) | 24 expires (i64 ms, 0 never) | 32 reserved (24) | 56 signature (64)
/// ```
/// The signature covers the 128-byte *signed message*: a
/// domain string, the archive digest and bytes 0–55 of the block, so sequence and dates are signed.
/// Spec: §12.2 Signature block.
public struct SignatureBlock: Equatable, Sendable {
    /// The block's `length`: 120 bytes after its type and length fields.
    package static let length = 120
    /// Bytes 0–55: the fields the signature covers.
    static let signedFieldsLength = 56
    /// `webarc-signature-2\0`, padded with zeros to 32 bytes.
    static let domain: [UInt8] = Array("webarc-signature-2".utf8) + [UInt8](repeating: 0, count: 14)

    /// The signing key's ID.
    public var keyID: KeyID
    /// Chosen by the publisher, increasing release by release (rollback protection).
    public var sequence: UInt64
    /// When the block was signed, in ms since 1970.
    public var created: Int64
    /// When the signature stops being accepted, in ms since 1970; 0 for never.
    public var expires: Int64
    /// Bytes 32–55 as written (zero when written by this library); signed as they are.
    package var reserved: [UInt8]
    /// The 64-byte Ed25519 signature.
    public var signature: [UInt8]

    /// Signs `archiveDigest` with `key`.
    ///
    /// - Parameters:
    ///   - created: ms since 1970.
    ///   - expires: ms since 1970, or 0 for never.
    /// - Throws: `io` (operation `sign`) when the crypto library fails.
    package init(
        signing archiveDigest: [UInt8], with key: SigningKey, sequence: UInt64, created: Int64, expires: Int64
    ) throws {
        keyID = key.keyID
        self.sequence = sequence
        self.created = created
        self.expires = expires
        reserved = [UInt8](repeating: 0, count: 24)
        signature = []
        signature = try key.signature(for: signedMessage(archiveDigest: archiveDigest))
    }

    /// Decodes the 120 bytes of a type-1 block.
    ///
    /// - Parameter lengthFieldOffset: the appendix's `appendixLength` offset, which errors name.
    /// - Throws: ``WebArcError/badAppendix(offset:reason:)`` when the block is not 120 bytes.
    package init(parsing bytes: [UInt8], lengthFieldOffset: UInt64) throws {
        guard bytes.count == Self.length else {
            throw WebArcError.badAppendix(
                offset: lengthFieldOffset, reason: "a signature block is \(Self.length) bytes, this one \(bytes.count)")
        }
        var reader = ByteReader(bytes, region: .file(section: "signature block", offset: 0))
        keyID = KeyID(bytes: try reader.readBytes(8))
        sequence = try reader.readUInt64()
        created = try reader.readInt64()
        expires = try reader.readInt64()
        reserved = try reader.readBytes(24)
        signature = try reader.readBytes(64)
    }

    /// The 120 bytes of the block (without its type and length fields).
    package func serialize() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.length)
        writeSignedFields(into: &writer)
        writer.write(bytes: signature)
        return writer.bytes
    }

    /// The 128 bytes the signature covers: the domain (32), the archive digest (32), bytes 0–55 of
    /// the block, then 8 zero bytes.
    package func signedMessage(archiveDigest: [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: 128)
        writer.write(bytes: Self.domain)
        writer.write(bytes: archiveDigest)
        writeSignedFields(into: &writer)
        writer.writeZeros(8)
        return writer.bytes
    }

    /// Whether the signature is `key`'s over `archiveDigest` and this block's fields.
    public func isValid(for archiveDigest: [UInt8], key: PublicKey) -> Bool {
        key.keyID == keyID && key.isValidSignature(signature, for: signedMessage(archiveDigest: archiveDigest))
    }

    /// Whether the signature has expired at `now` (ms since 1970): `expires` is set and not later.
    public func hasExpired(at now: Int64) -> Bool { expires != 0 && expires <= now }

    /// `created` as a date.
    public var createdDate: Date { Self.date(created) }
    /// `expires` as a date, nil for never.
    public var expiresDate: Date? { expires == 0 ? nil : Self.date(expires) }

    /// Milliseconds since 1970 for `date`, rounded down.
    package static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    private func writeSignedFields(into writer: inout ByteWriter) {
        writer.write(bytes: keyID.bytes)
        writer.write(sequence)
        writer.write(created)
        writer.write(expires)
        writer.write(bytes: reserved)
    }
}
