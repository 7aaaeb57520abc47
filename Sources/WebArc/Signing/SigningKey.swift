import Crypto
import Foundation

/// An Ed25519 private key that signs archives, kept in a `NAME.key` file readable by its owner only.
///
/// ```swift
/// let key = SigningKey()
/// try key.write(to: "publisher", overwrite: false)      // publisher.key (0600), publisher.pub
/// try ArchiveSigner.sign(path: "site.webarc", with: key, sequence: 7)
/// ```
/// Spec: §12.3 Key files.
public struct SigningKey: Sendable {
    /// The 32-byte seed (RFC 8032 private key).
    public let seed: [UInt8]
    /// The matching public key.
    public let publicKey: PublicKey

    /// Generates a new random key.
    public init() {
        self.init(key: Curve25519.Signing.PrivateKey())
    }

    /// Wraps a 32-byte RFC 8032 private key (the seed).
    ///
    /// - Throws: ``WebArcError/badKeyFile(path:reason:)`` (path `<key>`) when the bytes are not a seed.
    public init(seed: [UInt8]) throws {
        guard seed.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else {
            throw WebArcError.badKeyFile(path: "<key>", reason: "\(seed.count) bytes are not an Ed25519 seed")
        }
        self.init(key: key)
    }

    private init(key: Curve25519.Signing.PrivateKey) {
        seed = [UInt8](key.rawRepresentation)
        // A freshly derived public key is always 32 valid bytes.
        publicKey = try! PublicKey(rawRepresentation: [UInt8](key.publicKey.rawRepresentation))
    }

    /// Parses the text of a `NAME.key` file.
    ///
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - path: names the file in errors.
    /// - Throws: ``WebArcError/badKeyFile(path:reason:)`` when it does not parse;
    ///   ``WebArcError/keyIDMismatch(path:stated:computed:)`` when its key ID is not its key's.
    public init(parsing bytes: [UInt8], path: String) throws {
        let (seed, stated) = try KeyFile.parse(bytes, kind: .privateKey, path: path)
        do { try self.init(seed: seed) } catch {
            throw WebArcError.badKeyFile(path: path, reason: "the 32 bytes are not an Ed25519 seed")
        }
        guard stated == keyID else {
            throw WebArcError.keyIDMismatch(path: path, stated: "\(stated)", computed: "\(keyID)")
        }
    }

    /// Reads a `NAME.key` file.
    ///
    /// - Throws: as ``init(parsing:path:)``, or `io` when the file cannot be read.
    public init(contentsOf path: String) throws {
        try self.init(parsing: try KeyFile.read(path), path: path)
    }

    /// The public key's key ID.
    public var keyID: KeyID { publicKey.keyID }

    /// The `NAME.key` file's text: `webarc-ed25519-private <base64 seed> <keyID>` and a line feed.
    public var fileText: String { KeyFile.text(.privateKey, key: seed, keyID: keyID) }

    /// The Ed25519 signature of `message` (64 bytes).
    ///
    /// - Throws: `io` (operation `sign`) in the unlikely case the crypto library fails.
    public func signature(for message: [UInt8]) throws -> [UInt8] {
        do {
            return [UInt8](try Curve25519.Signing.PrivateKey(rawRepresentation: seed).signature(for: message))
        } catch {
            throw WebArcError.io(path: "<key \(keyID)>", operation: .transferring("sign with"), errno: 0)
        }
    }

    /// Writes `NAME.key` (mode 0600 from its creation) and `NAME.pub` (0644), each through a
    /// temporary file renamed into place.
    ///
    /// - Parameters:
    ///   - name: the path without extension.
    ///   - overwrite: whether existing files are replaced.
    /// - Throws: ``WebArcError/outputExists(path:)`` when either file exists and `overwrite` is
    ///   false (then neither is written); `io` when a file cannot be written.
    public func write(to name: String, overwrite: Bool) throws {
        let (privatePath, publicPath) = (name + ".key", name + ".pub")
        let privateFile = try OutputFile(targetPath: privatePath, overwrite: overwrite)
        let publicFile = try OutputFile(targetPath: publicPath, overwrite: overwrite)
        try privateFile.append(Array(fileText.utf8))
        try publicFile.append(Array(publicKey.fileText.utf8))
        try privateFile.commit(overwrite: overwrite, permissions: 0o600)
        do {
            try publicFile.commit(overwrite: overwrite)
        } catch {
            unlink(privatePath)  // never leave a private key without its public half
            throw error
        }
    }
}
