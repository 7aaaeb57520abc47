import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// The trust decision of spec §12.4 on the spec's vectors and on archives signed here.
@Suite("Signature check")
struct SignatureCheckTests {
    static let vectors = repositoryRoot.appendingPathComponent("Spec/vectors").path
    static let test1 = try! PublicKey(contentsOf: vectors + "/keys/test1.pub")
    static let test2 = try! PublicKey(contentsOf: vectors + "/keys/test2.pub")
    static let now = ISO8601DateFormatter().date(from: "2026-11-24T00:00:00Z")!

    static func check(_ vector: String, trusting keys: [PublicKey], now: Date = now) throws -> TrustDecision {
        try ArchiveReader(path: vectors + "/" + vector).checkTrust(TrustPolicy(trusting: keys), now: now)
    }

    @Test("signed and signed-extra are accepted; the unknown block type is skipped")
    func validVectors() throws {
        let signed = try Self.check("valid/signed.webarc", trusting: [Self.test1])
        #expect(signed.accepted.map(\.sequence) == [7])
        let extra = try Self.check("valid/signed-extra.webarc", trusting: [Self.test1, Self.test2])
        #expect(extra.accepted.map(\.keyID) == [Self.test1.keyID, Self.test2.keyID])
        let onlyTest2 = try Self.check("valid/signed-extra.webarc", trusting: [Self.test2])
        #expect(onlyTest2.accepted.map(\.expires) == [4_102_444_800_000])
        #expect(try ArchiveReader(path: Self.vectors + "/valid/signed-extra.webarc").signatureBlocks().count == 2)
    }

    /// `Spec/vectors/invalid/expected.json` rows with `"at": "trust"` and no `acceptFirst`.
    @Test(
        "the trust vectors are refused with the code and offset expected.json lists",
        arguments: ["trust-unsigned", "trust-untrusted-key", "trust-bad-signature", "trust-expired"])
    func trustVectors(name: String) throws {
        let expected = try Self.expected(name)
        let error = #expect(throws: WebArcError.self) {
            try Self.check("invalid/\(name).webarc", trusting: [Self.test1])
        }
        #expect(error?.code == expected.code)
        #expect(error?.offset == expected.offset)
    }

    @Test("bad-appendix-blocks: a signature block of length 119 does not fill the appendix")
    func badAppendixVector() throws {
        let expected = try Self.expected("bad-appendix-blocks")
        let reader = try ArchiveReader(path: Self.vectors + "/invalid/bad-appendix-blocks.webarc")
        let error = #expect(throws: WebArcError.self) { try reader.checkTrust(TrustPolicy(trusting: [Self.test1])) }
        #expect(error?.code == "bad-appendix")
        #expect(error?.offset == expected.offset)
    }

    @Test("order of refusals: unsigned, untrusted-key, bad-signature, expired; expiry only of verified signatures")
    func refusalOrder() throws {
        let digest = [UInt8](repeating: 7, count: 32)
        let (a, b) = (SigningKey(), SigningKey())
        func block(_ key: SigningKey, expires: Int64 = 0, forged: Bool = false) throws -> (type: UInt32, bytes: [UInt8])
        {
            var signed = try SignatureBlock(signing: digest, with: key, sequence: 1, created: 0, expires: expires)
            if forged { signed.signature[0] ^= 1 }
            return (1, signed.serialize())
        }
        func decide(_ blocks: [(type: UInt32, bytes: [UInt8])], trusting keys: [SigningKey]) throws -> TrustDecision {
            try SignatureCheck.evaluate(
                archiveDigest: digest, appendix: blocks.isEmpty ? [] : ArchiveAppendix.encode(blocks),
                archiveLength: 500,
                trusting: keys.map(\.publicKey), now: Self.now)
        }
        let past = SignatureBlock.milliseconds(Self.now) - 1
        #expect(throws: WebArcError.unsigned(offset: 500)) { try decide([], trusting: [a]) }
        #expect(throws: WebArcError.unsigned(offset: 500)) { try decide([(9, [1, 2, 3])], trusting: [a]) }
        #expect(throws: WebArcError.untrustedKey(keyIDs: ["\(b.keyID)"], offset: 500)) {
            try decide([try block(b), try block(b)], trusting: [a])
        }
        #expect(throws: WebArcError.badSignature(keyID: "\(a.keyID)", offset: 500)) {
            try decide([try block(a, forged: true), try block(b)], trusting: [a])
        }
        #expect(throws: WebArcError.expired(keyID: "\(a.keyID)", expires: past, offset: 500)) {
            try decide([try block(a, forged: true), try block(a, expires: past)], trusting: [a])
        }
        #expect(throws: WebArcError.badSignature(keyID: "\(a.keyID)", offset: 500)) {
            try decide([try block(a, expires: past, forged: true)], trusting: [a])
        }
        let accepted = try decide(
            [try block(a, forged: true), try block(a, expires: past), try block(b, expires: past + 2)],
            trusting: [a, b])
        #expect(accepted.accepted.map(\.keyID) == [b.keyID])
        #expect(accepted.verified.map(\.keyID) == [a.keyID, b.keyID])
    }

    @Test("a signature expiring exactly now has expired")
    func expiryBoundary() throws {
        let key = SigningKey()
        let digest = [UInt8](repeating: 1, count: 32)
        let at = SignatureBlock.milliseconds(Self.now)
        let appendix = ArchiveAppendix.encode([
            (1, try SignatureBlock(signing: digest, with: key, sequence: 1, created: 0, expires: at).serialize())
        ])
        #expect(throws: WebArcError.expired(keyID: "\(key.keyID)", expires: at, offset: 0)) {
            try SignatureCheck.evaluate(
                archiveDigest: digest, appendix: appendix, archiveLength: 0, trusting: [key.publicKey], now: Self.now)
        }
        let before = Self.now.addingTimeInterval(-0.001)
        #expect(
            try SignatureCheck.evaluate(
                archiveDigest: digest, appendix: appendix, archiveLength: 0, trusting: [key.publicKey], now: before
            ).accepted.count == 1)
    }

    /// The code and offset `invalid/expected.json` gives for a vector.
    static func expected(_ name: String) throws -> (code: String, offset: UInt64?) {
        let data = try Data(contentsOf: URL(fileURLWithPath: vectors + "/invalid/expected.json"))
        let table = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let row = try #require(table[name + ".webarc"] as? [String: Any])
        return (try #require(row["error"] as? String), (row["offset"] as? NSNumber)?.uint64Value)
    }
}
