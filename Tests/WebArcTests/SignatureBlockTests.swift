import Foundation
import Testing

@testable import WebArc

/// The signature block and signed message of spec §12.2, byte for byte.
@Suite("Signature block")
struct SignatureBlockTests {
    static let digest = (0..<32).map { UInt8($0) }

    @Test("the block serializes to 120 bytes in field order and parses back")
    func roundTrip() throws {
        let key = SigningKey()
        let block = try SignatureBlock(
            signing: Self.digest, with: key, sequence: 0x0102, created: 1_795_000_000_000, expires: -5)
        let bytes = block.serialize()
        #expect(bytes.count == 120)
        #expect(Array(bytes[0..<8]) == key.keyID.bytes)
        #expect(Array(bytes[8..<16]) == [0x02, 0x01, 0, 0, 0, 0, 0, 0])
        #expect(Array(bytes[24..<32]) == [0xFB, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(bytes[32..<56].allSatisfy { $0 == 0 })
        #expect(Array(bytes[56...]) == block.signature)
        #expect(try SignatureBlock(parsing: bytes, lengthFieldOffset: 0) == block)
        #expect(block.isValid(for: Self.digest, key: key.publicKey))
    }

    @Test("the signed message is the domain, the digest, bytes 0-55 of the block and 8 zeros")
    func signedMessage() throws {
        let block = try SignatureBlock(signing: Self.digest, with: SigningKey(), sequence: 7, created: 1, expires: 0)
        let message = block.signedMessage(archiveDigest: Self.digest)
        #expect(message.count == 128)
        #expect(Array(message[0..<32]) == Array("webarc-signature-2".utf8) + [UInt8](repeating: 0, count: 14))
        #expect(Array(message[32..<64]) == Self.digest)
        #expect(Array(message[64..<120]) == Array(block.serialize()[0..<56]))
        #expect(message[120...].allSatisfy { $0 == 0 })
    }

    @Test("changing any signed field, the digest or a reserved byte breaks the signature")
    func everyFieldIsSigned() throws {
        let key = SigningKey()
        let block = try SignatureBlock(signing: Self.digest, with: key, sequence: 7, created: 1, expires: 0)
        for position in [0, 8, 16, 24, 40, 55, 56, 119] {
            var bytes = block.serialize()
            bytes[position] ^= 1
            let changed = try SignatureBlock(parsing: bytes, lengthFieldOffset: 0)
            #expect(!changed.isValid(for: Self.digest, key: key.publicKey), "byte \(position)")
        }
        var digest = Self.digest
        digest[31] ^= 0x80
        #expect(!block.isValid(for: digest, key: key.publicKey))
        #expect(!block.isValid(for: Self.digest, key: SigningKey().publicKey))
    }

    @Test("the spec's signed vector carries test1's block over its archive digest")
    func vectorBlock() throws {
        let reader = try ArchiveReader(path: SignatureCheckTests.vectors + "/valid/signed.webarc")
        let blocks = try reader.signatureBlocks()
        #expect(blocks.count == 1)
        let block = try #require(blocks.first)
        #expect("\(block.keyID)" == "4fcf4323e73084f8")
        #expect(block.sequence == 7)
        #expect(block.expires == 0)
        #expect(block.createdDate == ISO8601DateFormatter().date(from: "2026-11-23T10:00:00Z"))
        let key = try SigningKey(contentsOf: KeyFileTests.vectorKeys + "/test1.key")
        #expect(block.isValid(for: reader.archiveDigest, key: key.publicKey))
        // Ed25519 is deterministic: signing the same fields again gives the vector's bytes.
        let again = try SignatureBlock(
            signing: reader.archiveDigest, with: key, sequence: 7, created: block.created, expires: 0)
        #expect(again == block)
    }

    @Test("a signature block that is not 120 bytes is bad-appendix at the length field")
    func wrongLength() throws {
        #expect(throws: WebArcError.badAppendix(offset: 99, reason: "a signature block is 120 bytes, this one 119")) {
            try SignatureBlock(parsing: [UInt8](repeating: 0, count: 119), lengthFieldOffset: 99)
        }
    }
}
