import Foundation

/// The one-line text form of webarc key files, shared by ``PublicKey`` and ``SigningKey``.
///
/// ```
/// webarc-ed25519-public  <base64 of the 32-byte key>  <keyID>\n
/// webarc-ed25519-private <base64 of the 32-byte seed> <keyID>\n
/// ```
/// (one space between the fields). Spec: §12.3 Key files.
enum KeyFile {
    /// What a key file holds.
    enum Kind: String {
        case publicKey = "webarc-ed25519-public"
        case privateKey = "webarc-ed25519-private"

        var other: Kind { self == .publicKey ? .privateKey : .publicKey }
        var noun: String { self == .publicKey ? "public key (NAME.pub)" : "private key (NAME.key)" }
    }

    /// Key files are one short line; anything longer is refused before it is read.
    static let maxSize: UInt64 = 1024

    /// The file's line: kind, base64 of the key bytes, key ID, LF.
    static func text(_ kind: Kind, key: [UInt8], keyID: KeyID) -> String {
        "\(kind.rawValue) \(Data(key).base64EncodedString()) \(keyID)\n"
    }

    /// Parses a key file's bytes into its 32 key bytes and stated key ID.
    ///
    /// The stated key ID is returned for the caller to compare with the one its key gives.
    /// - Throws: ``WebArcError/badKeyFile(path:reason:)`` saying what does not parse.
    static func parse(_ bytes: [UInt8], kind: Kind, path: String) throws -> (key: [UInt8], keyID: KeyID) {
        func bad(_ reason: String) -> WebArcError { .badKeyFile(path: path, reason: reason) }
        // Bytes, not characters: Swift reads CR LF as one character.
        guard bytes.last == 0x0A else { throw bad("the line does not end with a line feed") }
        let line = bytes.dropLast()
        guard !line.contains(0x0D) else { throw bad("a carriage return (CR LF line end?): the line ends with LF only") }
        guard !line.contains(0x0A) else { throw bad("more than one line") }
        guard let text = UTF8Text.validated(line) else { throw bad("not UTF-8 text") }
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        if fields.first.map(String.init) == kind.other.rawValue {
            throw bad("it holds a \(kind.other.noun), a \(kind.noun) is needed here")
        }
        guard fields.count == 3, fields[0] == kind.rawValue[...] else {
            throw bad("expected \"\(kind.rawValue) <base64 key> <key ID>\" separated by single spaces")
        }
        guard fields[1].utf8.count == 44, let decoded = Data(base64Encoded: String(fields[1])), decoded.count == 32,
            decoded.base64EncodedString() == fields[1]
        else { throw bad("the key is not 32 bytes of padded base64 (44 characters)") }
        guard let keyID = KeyID(hex: fields[2]) else { throw bad("the key ID is not 16 lowercase hexadecimal digits") }
        return ([UInt8](decoded), keyID)
    }

    /// Reads a key file, or another one-line file as short (a rollback state), of at most
    /// ``maxSize`` bytes.
    ///
    /// - Parameter tooLong: the error for a longer file, given its size; nil for `badKeyFile`.
    /// - Throws: `io` when it cannot be read; `tooLong` or `badKeyFile` when it is too long.
    static func read(_ path: String, tooLong: ((UInt64) -> WebArcError)? = nil) throws -> [UInt8] {
        let file = try FileByteSource(path: path)
        guard file.size <= maxSize else {
            throw tooLong?(file.size)
                ?? .badKeyFile(path: path, reason: "\(file.size) bytes is too long for a key file")
        }
        return try file.read(at: 0, count: Int(file.size))
    }
}
