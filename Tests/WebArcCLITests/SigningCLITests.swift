import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// `keygen`, `sign`, `verify --trust`, `serve --trust` and `info` through the real binary (spec §12).
@Suite("webarc signing commands", .serialized)
struct SigningCLITests {
    /// A scratch folder holding a packed sample site (`site.webarc`), a key pair `pub` and another `other`.
    struct Setup {
        let scratch: TemporaryFolder
        var archive: String { scratch.file("site.webarc") }

        init() async throws {
            scratch = try TemporaryFolder()
            let pack = try await CLIRunner.runDetached([
                "pack", CLITests.sampleSite, "-o", scratch.file("site.webarc"), "-q",
            ])
            #expect(pack.status == 0, "\(pack.stderr)")
            for name in ["pub", "other"] {
                #expect(try await CLIRunner.runDetached(["keygen", "-o", scratch.file(name)]).status == 0)
            }
        }

        func run(_ arguments: [String]) async throws -> CLIRunner.Result { try await CLIRunner.runDetached(arguments) }
        func sign(_ extra: [String] = [], key: String = "pub", archive: String? = nil) async throws -> CLIRunner.Result
        {
            try await CLIRunner.runDetached(
                ["sign", archive ?? self.archive, "--key", scratch.file(key + ".key")] + extra)
        }
        func verify(
            _ extra: [String] = [], key: String = "pub", archive: String? = nil
        ) async throws -> CLIRunner.Result {
            try await CLIRunner.runDetached(
                ["verify", archive ?? self.archive, "--trust", scratch.file(key + ".pub"), "-q"] + extra)
        }
        func bytes(_ path: String? = nil) throws -> [UInt8] {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: path ?? archive)))
        }
        func write(_ bytes: [UInt8], to path: String? = nil) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: path ?? archive))
        }
    }

    @Test("keygen writes NAME.key (0600) and NAME.pub, refuses to overwrite without --force")
    func keygen() async throws {
        let scratch = try TemporaryFolder()
        let made = try await CLIRunner.runDetached(["keygen", "-o", scratch.file("publisher")])
        #expect(made.status == 0, "\(made.stderr)")
        let keyID = try #require(
            made.text.split(separator: " ").dropFirst().first.map(String.init)?.replacingOccurrences(of: ":", with: ""))
        let privateText = try String(contentsOfFile: scratch.file("publisher.key"), encoding: .utf8)
        let publicText = try String(contentsOfFile: scratch.file("publisher.pub"), encoding: .utf8)
        #expect(privateText.wholeMatch(of: /webarc-ed25519-private [A-Za-z0-9+\/]{43}= [0-9a-f]{16}\n/) != nil)
        #expect(publicText.wholeMatch(of: /webarc-ed25519-public [A-Za-z0-9+\/]{43}= [0-9a-f]{16}\n/) != nil)
        #expect(privateText.hasSuffix(" \(keyID)\n") && publicText.hasSuffix(" \(keyID)\n"))
        let mode =
            try FileManager.default.attributesOfItem(atPath: scratch.file("publisher.key"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let again = try await CLIRunner.runDetached(["keygen", "-o", scratch.file("publisher")])
        #expect(again.status == 73)
        #expect(again.stderr.contains("already exists: use --force"))
        #expect(try String(contentsOfFile: scratch.file("publisher.key"), encoding: .utf8) == privateText)
        #expect(try await CLIRunner.runDetached(["keygen", "-o", scratch.file("publisher"), "--force"]).status == 0)
        #expect(try String(contentsOfFile: scratch.file("publisher.key"), encoding: .utf8) != privateText)
    }

    @Test("sign keeps the archive bytes identical, prints key ID and digest; re-signing replaces the key's block")
    func signKeepsBytes() async throws {
        let setup = try await Setup()
        let original = try setup.bytes()
        let info =
            try await JSONSerialization.jsonObject(with: try setup.run(["info", setup.archive, "--json"]).stdout)
            as! [String: Any]
        let signed = try await setup.sign(["--sequence", "5"])
        #expect(signed.status == 0, "\(signed.stderr)")
        let keyID = try PublicKey(contentsOf: setup.scratch.file("pub.pub")).keyID
        #expect(signed.text.contains("signed by key \(keyID), sequence 5"))
        #expect(signed.text.contains("archive digest \(info["archiveDigest"] as! String)"))
        let after = try setup.bytes()
        #expect(Array(after[0..<original.count]) == original)
        #expect(after.count == original.count + 144)
        #expect(try await setup.sign(["--sequence", "6"]).status == 0)
        #expect(try await setup.sign(key: "other").status == 0)
        let described =
            try await JSONSerialization.jsonObject(with: try setup.run(["info", setup.archive, "--json"]).stdout)
            as! [String: Any]
        let signatures = try #require(described["signatures"] as? [[String: Any]])
        #expect(
            signatures.map { $0["keyID"] as? String } == [
                "\(keyID)", "\(try PublicKey(contentsOf: setup.scratch.file("other.pub")).keyID)",
            ])
        #expect(signatures.first?["sequence"] as? Int == 6)
        #expect(Array(try setup.bytes()[0..<original.count]) == original)
        #expect(try await setup.run(["info", setup.archive]).text.contains("signature    key \(keyID), sequence 6"))
    }

    @Test("verify --trust accepts a signed archive and reports it, in text and in --json")
    func verifyAccepts() async throws {
        let setup = try await Setup()
        #expect(try await setup.sign(["--sequence", "7", "--expires", "+30d"]).status == 0)
        let text = try await CLIRunner.runDetached(["verify", setup.archive, "--trust", setup.scratch.file("pub.pub")])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.text.contains("trusted: signed by key"))
        let json = try await setup.verify(["--json"])
        #expect(json.status == 0)
        let object = try JSONSerialization.jsonObject(with: json.stdout) as! [String: Any]
        let signature = try #require(object["signature"] as? [String: Any])
        #expect(signature["trusted"] as? Bool == true)
        #expect((signature["accepted"] as? [[String: Any]])?.first?["sequence"] as? Int == 7)
        #expect(try await setup.verify(key: "other", archive: setup.archive).status == 65)
        let both = try await CLIRunner.runDetached(
            [
                "verify", setup.archive, "--trust", setup.scratch.file("other.pub"), "--trust",
                setup.scratch.file("pub.pub"), "-q",
            ])
        #expect(both.status == 0)
    }

    @Test("verify --trust refuses unsigned, a wrong key, expired; --json says why")
    func verifyRefuses() async throws {
        let setup = try await Setup()
        let unsigned = try await setup.verify()
        #expect(unsigned.status == 65)
        #expect(unsigned.stderr.contains("error [appendix]: the archive is not signed"))
        #expect(try await setup.sign().status == 0)
        let wrong = try await setup.verify(key: "other")
        #expect(wrong.status == 65)
        #expect(wrong.stderr.contains("error [appendix]: the archive is signed only by keys that are not trusted"))
        let json = try await setup.verify(["--json"], key: "other")
        let signature =
            (try JSONSerialization.jsonObject(with: json.stdout) as! [String: Any])["signature"] as! [String: Any]
        #expect(signature["trusted"] as? Bool == false)
        #expect(signature["code"] as? String == "untrusted-key")
        let expiring = try await setup.sign(["--expires", "2020-01-01", "--force"])
        #expect(expiring.status == 0)
        #expect(expiring.stderr.contains("warning: the signature expires in the past"))
        let expired = try await setup.verify()
        #expect(expired.status == 65)
        #expect(expired.stderr.contains("error [appendix]: the signature by key"))
        #expect(expired.stderr.contains("expired at 2020-01-01T00:00:00Z"))
    }

    @Test(
        "verify --trust refuses a changed trailer byte (trailer-checksum, or bad-signature when the check is redone) and a changed signature byte"
    )
    func verifyRefusesTampering() async throws {
        let setup = try await Setup()
        let archiveLength = try ArchiveReader(path: setup.archive).archiveLength
        #expect(try await setup.sign().status == 0)
        let signed = try setup.bytes()
        let trailer = Int(archiveLength) - 256

        var flipped = signed
        flipped[trailer + 232] ^= 1  // a reserved trailer byte
        try setup.write(flipped)
        let checksum = try await setup.verify()
        #expect(checksum.status == 65)
        let checksumJSON =
            try await JSONSerialization.jsonObject(with: try setup.verify(["--json"]).stdout) as! [String: Any]
        #expect((checksumJSON["signature"] as? [String: Any])?["code"] as? String == "trailer-checksum")
        #expect(checksum.stderr.contains("error [open]: trailer check mismatch"))

        // The same change with trailerCheck recomputed, as an attacker would: the archive opens,
        // its digest changed, the signature no longer matches.
        let check = SHA256Hash.of(flipped[trailer..<trailer + 240]).bytes.prefix(8)
        flipped.replaceSubrange(trailer + 240..<trailer + 248, with: check)
        try setup.write(flipped)
        let forged = try await setup.verify()
        #expect(forged.status == 65)
        #expect(forged.stderr.contains("error [appendix]: the signature by trusted key"), "\(forged.stderr)")

        var badSignature = signed
        badSignature[Int(archiveLength) + 8 + 56 + 10] ^= 0x40  // inside the Ed25519 signature
        try setup.write(badSignature)
        let tampered = try await setup.verify()
        #expect(tampered.status == 65)
        #expect(tampered.stderr.contains("does not verify"))
        let tamperedJSON =
            try await JSONSerialization.jsonObject(with: try setup.verify(["--json"]).stdout) as! [String: Any]
        #expect((tamperedJSON["signature"] as? [String: Any])?["code"] as? String == "bad-signature")
        #expect((tamperedJSON["problems"] as? [[String: Any]])?.last?["check"] as? String == "appendix")

        var badSequence = signed
        badSequence[Int(archiveLength) + 8 + 8] ^= 1  // the signed sequence
        try setup.write(badSequence)
        #expect(try await setup.verify().stderr.contains("does not verify"))
    }

    @Test("verify --state: accept 5, refuse 3, accept 5 again for the same archive, refuse another archive with 5")
    func rollback() async throws {
        let setup = try await Setup()
        let state = setup.scratch.file("state")
        try setup.scratch.write("other/index.html", "<p>another release</p>")
        let otherArchive = setup.scratch.file("other.webarc")
        #expect(try await setup.run(["pack", setup.scratch.file("other"), "-o", otherArchive, "-q"]).status == 0)
        #expect(try await setup.sign(["--sequence", "5"]).status == 0)
        #expect(try await setup.verify(["--state", state]).status == 0)
        #expect(try await setup.sign(["--sequence", "3"]).status == 0)
        let older = try await setup.verify(["--state", state])
        #expect(older.status == 65)
        #expect(older.stderr.contains("error [appendix]: sequence 3 signed by key"))
        #expect(try await setup.sign(["--sequence", "5"]).status == 0)
        #expect(try await setup.verify(["--state", state]).status == 0)
        #expect(try await setup.sign(["--sequence", "5"], archive: otherArchive).status == 0)
        let replaced = try await setup.verify(["--state", state], archive: otherArchive)
        #expect(replaced.status == 65)
        #expect(replaced.stderr.contains("already accepted for another archive"))
        #expect(try await setup.verify(archive: otherArchive).status == 0, "without state it is trusted")
    }

    @Test("serve --trust refuses an archive that does not verify before listening, exit 65")
    func serveRefuses() async throws {
        let setup = try await Setup()
        let unsigned = try await CLIRunner.runDetached(
            ["serve", "--trust", setup.scratch.file("pub.pub"), setup.archive, "--port", "0"], timeout: 30)
        #expect(unsigned.status == 65)
        #expect(unsigned.text.isEmpty, "no URL: the server never listened")
        #expect(unsigned.stderr.contains("refused, not trusted (unsigned)"))
        #expect(try await setup.sign(key: "other").status == 0)
        let wrong = try await CLIRunner.runDetached(
            ["serve", "--trust", setup.scratch.file("pub.pub"), setup.archive, "--port", "0"], timeout: 30)
        #expect(wrong.status == 65)
        #expect(wrong.stderr.contains("untrusted-key"))
        let noKey = try await CLIRunner.runDetached(
            ["serve", "--trust", setup.scratch.file("absent.pub"), setup.archive, "--port", "0"], timeout: 30)
        #expect(noKey.status == 66)
    }

    @Test("serve --trust starts on a trusted archive")
    func serveAccepts() async throws {
        let setup = try await Setup()
        await #expect(try setup.sign().status == 0)
        let serving = try ServeProcess(
            binary: CLIRunner.binary,
            arguments: [
                "--trust", setup.scratch.file("pub.pub"), "--state", setup.scratch.file("state"), setup.archive,
                "--port", "0", "--quiet",
            ])
        #expect(serving.url.hasPrefix("http://127.0.0.1:"))
        #expect(serving.stop(with: SIGTERM).status == 0)
    }

    @Test("key and option errors: missing key 66, malformed key 65, --state without --trust 64")
    func optionErrors() async throws {
        let setup = try await Setup()
        await #expect(try setup.run(["sign", setup.archive, "--key", setup.scratch.file("absent.key")]).status == 66)
        try setup.scratch.write("bad.key", "webarc-ed25519-private nonsense 0000000000000000\n")
        let bad = try await setup.run(["sign", setup.archive, "--key", setup.scratch.file("bad.key")])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("is not a webarc key file"))
        let pubAsKey = try await setup.run(["sign", setup.archive, "--key", setup.scratch.file("pub.pub")])
        #expect(pubAsKey.status == 65)
        #expect(pubAsKey.stderr.contains("a private key (NAME.key) is needed here"))
        await #expect(try setup.run(["verify", setup.archive, "--state", setup.scratch.file("s")]).status == 64)
        await #expect(
            try setup.run(["sign", setup.archive, "--key", setup.scratch.file("pub.key"), "--expires", "soon"]).status
                == 64)
        await #expect(
            try setup.run(["sign", setup.archive, "--key", setup.scratch.file("pub.key"), "--expires", "+3x"]).status
                == 64)
        await #expect(
            try setup.run(["sign", setup.scratch.file("none.webarc"), "--key", setup.scratch.file("pub.key")]).status
                == 66)
    }

    @Test("--help of keygen and sign shows examples and the sequence default")
    func help() async throws {
        let sign = try await CLIRunner.runDetached(["sign", "--help"])
        #expect(sign.text.contains("webarc sign site.webarc --key publisher.key --sequence 42 --expires +90d"))
        #expect(sign.text.contains("current Unix time in seconds"))
        #expect(try await CLIRunner.runDetached(["keygen", "--help"]).text.contains("webarc keygen -o publisher"))
        #expect(try await CLIRunner.runDetached(["verify", "--help"]).text.contains("--trust"))
        #expect(try await CLIRunner.runDetached(["serve", "--help"]).text.contains("--state"))
    }
}
