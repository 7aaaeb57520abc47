import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// Key files (spec §12.3): the exact text, the 0600 mode, and every way a file is refused.
@Suite("Key files")
struct KeyFileTests {
    static let vectorKeys = SignatureCheckTests.vectors + "/keys"

    @Test("keygen writes NAME.key 0600 and NAME.pub 0644 in the spec's one-line format")
    func writeFormatsAndModes() throws {
        let folder = try TemporaryFolder()
        let key = SigningKey()
        try key.write(to: folder.file("publisher"), overwrite: false)
        let privateText = try String(contentsOfFile: folder.file("publisher.key"), encoding: .utf8)
        let publicText = try String(contentsOfFile: folder.file("publisher.pub"), encoding: .utf8)
        #expect(privateText == "webarc-ed25519-private \(Data(key.seed).base64EncodedString()) \(key.keyID)\n")
        #expect(
            publicText
                == "webarc-ed25519-public \(Data(key.publicKey.rawRepresentation).base64EncodedString()) \(key.keyID)\n"
        )
        #expect(privateText.utf8.count == 23 + 44 + 1 + 16 + 1)
        #expect("\(key.keyID)".allSatisfy { "0123456789abcdef".contains($0) })
        #expect(try Self.mode(folder.file("publisher.key")) == 0o600)
        #expect(try Self.mode(folder.file("publisher.pub")) == 0o644)
        let again = try SigningKey(contentsOf: folder.file("publisher.key"))
        #expect(again.seed == key.seed)
        #expect(try PublicKey(contentsOf: folder.file("publisher.pub")) == key.publicKey)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 2, "no temporary file left")
    }

    @Test("an existing key file is not overwritten unless asked, and then neither file is written")
    func refusesOverwrite() throws {
        let folder = try TemporaryFolder()
        try SigningKey().write(to: folder.file("k"), overwrite: false)
        let before = try String(contentsOfFile: folder.file("k.key"), encoding: .utf8)
        try FileManager.default.removeItem(atPath: folder.file("k.pub"))
        #expect(throws: WebArcError.outputExists(path: folder.file("k.key"))) {
            try SigningKey().write(to: folder.file("k"), overwrite: false)
        }
        #expect(try String(contentsOfFile: folder.file("k.key"), encoding: .utf8) == before)
        #expect(!FileManager.default.fileExists(atPath: folder.file("k.pub")))
        let replacement = SigningKey()
        try replacement.write(to: folder.file("k"), overwrite: true)
        #expect(try SigningKey(contentsOf: folder.file("k.key")).seed == replacement.seed)
        #expect(try Self.mode(folder.file("k.key")) == 0o600)
    }

    @Test("the spec's test keys read, and their key IDs are the first 8 bytes of SHA-256 of the public key")
    func vectorKeysRead() throws {
        let key = try SigningKey(contentsOf: Self.vectorKeys + "/test1.key")
        let publicKey = try PublicKey(contentsOf: Self.vectorKeys + "/test1.pub")
        #expect(key.publicKey == publicKey)
        #expect("\(publicKey.keyID)" == "4fcf4323e73084f8")
        #expect(key.seed == SHA256Hash.of(Array("webarc test key 1".utf8)).bytes)
        #expect(key.fileText == (try String(contentsOfFile: Self.vectorKeys + "/test1.key", encoding: .utf8)))
        #expect(try PublicKey(contentsOf: Self.vectorKeys + "/test2.pub").keyID != publicKey.keyID)
    }

    static let good = try! String(contentsOfFile: vectorKeys + "/test1.pub", encoding: .utf8)

    @Test(
        "malformed public key files are refused with the reason",
        arguments: [
            ("", "the line does not end with a line feed"),
            (String(good.dropLast()), "the line does not end with a line feed"),
            (good.replacingOccurrences(of: "\n", with: "\r\n"), "the line ends with LF only"),
            (good + good, "more than one line"),
            (good.replacingOccurrences(of: " 4fcf", with: "  4fcf"), "separated by single spaces"),
            (
                good.replacingOccurrences(of: "webarc-ed25519-public", with: "webarc-ed25519-private"),
                "it holds a private key"
            ),
            (
                good.replacingOccurrences(of: "webarc-ed25519-public", with: "ssh-ed25519"),
                "expected \"webarc-ed25519-public"
            ),
            (good.replacingOccurrences(of: "=", with: ""), "the key is not 32 bytes"),
            (good.replacingOccurrences(of: "lt9b", with: "lt9-"), "the key is not 32 bytes"),
            (good.replacingOccurrences(of: "4fcf4323e73084f8", with: "4FCF4323E73084F8"), "16 lowercase hexadecimal"),
            (good.replacingOccurrences(of: "4fcf4323e73084f8", with: "4fcf4323e73084"), "16 lowercase hexadecimal"),
        ])
    func malformed(text: String, reason: String) throws {
        let error = #expect(throws: WebArcError.self) { try PublicKey(parsing: Array(text.utf8), path: "k.pub") }
        guard case .badKeyFile(let path, let message)? = error else {
            Issue.record("expected badKeyFile, got \(String(describing: error))")
            return
        }
        #expect(path == "k.pub")
        #expect(message.contains(reason), "\(message)")
    }

    @Test("a key ID that does not match the key is refused, naming both")
    func mismatchedKeyID() throws {
        let text = Self.good.replacingOccurrences(of: "4fcf4323e73084f8", with: "3c1020c407b1a437")
        #expect(
            throws: WebArcError.keyIDMismatch(path: "k.pub", stated: "3c1020c407b1a437", computed: "4fcf4323e73084f8")
        ) {
            try PublicKey(parsing: Array(text.utf8), path: "k.pub")
        }
        let privateText = try String(contentsOfFile: Self.vectorKeys + "/test2.key", encoding: .utf8)
            .replacingOccurrences(of: "3c1020c407b1a437", with: "4fcf4323e73084f8")
        #expect(
            throws: WebArcError.keyIDMismatch(path: "k.key", stated: "4fcf4323e73084f8", computed: "3c1020c407b1a437")
        ) {
            try SigningKey(parsing: Array(privateText.utf8), path: "k.key")
        }
    }

    @Test("a public key file given where a private key is needed says so")
    func wrongKind() throws {
        let error = #expect(throws: WebArcError.self) {
            try SigningKey(parsing: Array(Self.good.utf8), path: "test1.pub")
        }
        #expect(error?.description.contains("a private key (NAME.key) is needed here") == true)
    }

    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }
}
