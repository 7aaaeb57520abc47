import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// Signing a file: the archive's bytes never change, the appendix is added or its key's block replaced.
@Suite("Archive signer")
struct ArchiveSignerTests {
    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test("signing keeps bytes [0, archiveLength) identical and appends a verifiable block")
    func keepsArchiveBytes() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 12)
        let path = try makeArchive(
            at: folder.file("site.webarc"),
            pages: [("http://example.com/", random.text(300_000)), ("http://example.com/b", random.bytes(5000))])
        let original = try Self.bytes(path)
        let digest = try ArchiveReader(path: path).archiveDigest
        let key = SigningKey()
        let block = try ArchiveSigner.sign(
            path: path, with: key, sequence: 9, expires: Date(timeIntervalSinceNow: 3600))
        let signed = try Self.bytes(path)
        #expect(Array(signed[0..<original.count]) == original)
        #expect(signed.count == original.count + 8 + 120 + 16)
        #expect(Array(signed.suffix(8)) == ArchiveAppendix.endMagic)
        let reader = try ArchiveReader(path: path)
        #expect(reader.archiveDigest == digest)
        #expect(reader.archiveLength == UInt64(original.count))
        #expect(try reader.signatureBlocks() == [block])
        #expect(try reader.checkTrust(TrustPolicy(trusting: [key.publicKey])).accepted == [block])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["site.webarc"],
            "no temporary file left")
        let report = ArchiveVerifier.verify(path: path)
        #expect(report.passed, "\(report.problems)")
    }

    @Test("re-signing with the same key replaces its block in place; another key adds one; other blocks stay")
    func replacesSameKey() throws {
        let folder = try TemporaryFolder()
        let path = try makeArchive(at: folder.file("a.webarc"), pages: [("http://example.com/", [1, 2, 3])])
        let archiveLength = try ArchiveReader(path: path).archiveLength
        let original = try Self.bytes(path)
        // An unknown block type first, as a future writer might add.
        try Data(original + ArchiveAppendix.encode([(126, [9, 9])])).write(to: URL(fileURLWithPath: path))
        let (a, b) = (SigningKey(), SigningKey())
        try ArchiveSigner.sign(path: path, with: a, sequence: 1)
        try ArchiveSigner.sign(path: path, with: b, sequence: 1)
        let replacement = try ArchiveSigner.sign(path: path, with: a, sequence: 2)
        let signed = try Self.bytes(path)
        #expect(Array(signed[0..<original.count]) == original)
        let appendix = try ArchiveAppendix(parsing: Array(signed[Int(archiveLength)...]), at: archiveLength)
        #expect(appendix.blocks.map(\.type) == [126, 1, 1])
        #expect(appendix.blocks[0].bytes == [9, 9])
        let blocks = try ArchiveReader(path: path).signatureBlocks()
        #expect(blocks.map(\.keyID) == [a.keyID, b.keyID])
        #expect(blocks.first == replacement)
        #expect(signed.count == original.count + 8 + 2 + 2 * (8 + 120) + 16)
    }

    @Test("signing keeps the file's permissions")
    func keepsMode() throws {
        let folder = try TemporaryFolder()
        let path = try makeArchive(at: folder.file("a.webarc"), pages: [("http://example.com/", [1])])
        chmod(path, 0o640)
        try ArchiveSigner.sign(path: path, with: SigningKey(), sequence: 1)
        #expect(try KeyFileTests.mode(path) == 0o640)
    }

    @Test("a damaged archive or appendix is refused and the file is left as it was")
    func refusesDamage() throws {
        let folder = try TemporaryFolder()
        let path = try makeArchive(at: folder.file("a.webarc"), pages: [("http://example.com/", [1])])
        var bytes = try Self.bytes(path)
        bytes[bytes.count - 20] ^= 1  // inside trailerCheck
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: WebArcError.self) { try ArchiveSigner.sign(path: path, with: SigningKey(), sequence: 1) }
        #expect(try Self.bytes(path) == bytes)
        bytes[bytes.count - 20] ^= 1
        // A signature block of 119 bytes.
        let cut = bytes + ArchiveAppendix.encode([(1, [UInt8](repeating: 0, count: 119))])
        try Data(cut).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: WebArcError.self) {
            try ArchiveSigner.sign(path: path, with: SigningKey(), sequence: 1)
        }
        #expect(error?.code == "bad-appendix")
        #expect(try Self.bytes(path) == cut)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["a.webarc"])
    }

    @Test("an appendix that would grow past 1 MiB is refused")
    func appendixBound() throws {
        let big = ArchiveAppendix.encode([(77, [UInt8](repeating: 0, count: 1_048_576 - 16 - 8 - 60))])
        let block = try SignatureBlock(
            signing: [UInt8](repeating: 0, count: 32), with: SigningKey(), sequence: 1, created: 0, expires: 0)
        let error = #expect(throws: WebArcError.self) {
            try ArchiveSigner.replacing(block, in: big, archiveLength: 1000)
        }
        #expect(error?.code == "bad-appendix")
    }
}
