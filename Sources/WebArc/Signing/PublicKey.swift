import Crypto
import Foundation

/// An Ed25519 public key that checks webarc signatures, with its key ID.
///
/// ```swift
/// let publisher = try PublicKey(contentsOf: "publisher.pub")
/// let policy = TrustPolicy(trusting: [publisher])
/// ```
/// Spec: §12.3 Key files.
public struct PublicKey: Equatable, Sendable, CustomStringConvertible {
    /// The 32-byte key (RFC 8032).
    public let rawRepresentation: [UInt8]
    /// The first 8 bytes of the key's SHA-256.
    public let keyID: KeyID

    /// Wraps a 32-byte Ed25519 public key.
    ///
    /// - Throws: ``WebArcError/badKeyFile(path:reason:)`` (path `<key>`) when the bytes are not a key.
    public init(rawRepresentation bytes: [UInt8]) throws {
        guard bytes.count == 32, (try? Curve25519.Signing.PublicKey(rawRepresentation: bytes)) != nil else {
            throw WebArcError.badKeyFile(path: "<key>", reason: "\(bytes.count) bytes are not an Ed25519 public key")
        }
        rawRepresentation = bytes
        keyID = KeyID(publicKey: bytes)
    }

    /// Parses the text of a `NAME.pub` file.
    ///
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - path: names the file in errors.
    /// - Throws: ``WebArcError/badKeyFile(path:reason:)`` when it does not parse;
    ///   ``WebArcError/keyIDMismatch(path:stated:computed:)`` when its key ID is not its key's.
    public init(parsing bytes: [UInt8], path: String) throws {
        let (raw, stated) = try KeyFile.parse(bytes, kind: .publicKey, path: path)
        do { try self.init(rawRepresentation: raw) } catch {
            throw WebArcError.badKeyFile(path: path, reason: "the 32 bytes are not an Ed25519 public key")
        }
        guard stated == keyID else {
            throw WebArcError.keyIDMismatch(path: path, stated: "\(stated)", computed: "\(keyID)")
        }
    }

    /// Reads a `NAME.pub` file.
    ///
    /// - Throws: as ``init(parsing:path:)``, or `io` when the file cannot be read.
    public init(contentsOf path: String) throws {
        try self.init(parsing: try KeyFile.read(path), path: path)
    }

    /// The `NAME.pub` file's text: `webarc-ed25519-public <base64> <keyID>` and a line feed.
    public var fileText: String { KeyFile.text(.publicKey, key: rawRepresentation, keyID: keyID) }

    /// Whether `signature` is this key's Ed25519 signature of `message`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation) else { return false }
        return key.isValidSignature(signature, for: message)
    }

    /// The key ID.
    public var description: String { "\(keyID)" }
}
