import Foundation

/// The trust decision of spec §12.4, as pure functions of an archive digest and appendix bytes.
///
/// ```swift
/// let decision = try SignatureCheck.evaluate(
///     archiveDigest: reader.archiveDigest, appendix: try reader.appendixBytes(),
///     archiveLength: reader.archiveLength, trusting: [publisher], now: Date())
/// ```
/// ``TrustPolicy`` adds the rollback state; ``ArchiveSigner`` writes what this reads.
/// Spec: §12.1, §12.2, §12.4.
package enum SignatureCheck {
    /// The signature blocks (type 1) of an appendix, in order; other block types are skipped.
    ///
    /// - Parameters:
    ///   - appendix: the bytes after `archiveLength`, footer included; empty when unsigned.
    ///   - archiveLength: where the appendix starts, for error offsets.
    /// - Throws: ``WebArcError/badAppendix(offset:reason:)`` when the appendix breaks §12.1 or a
    ///   type-1 block is not 120 bytes.
    package static func signatureBlocks(in appendix: [UInt8], archiveLength: UInt64) throws -> [SignatureBlock] {
        guard !appendix.isEmpty else { return [] }
        let parsed = try ArchiveAppendix(parsing: appendix, at: archiveLength)
        let lengthField = archiveLength + UInt64(appendix.count - ArchiveAppendix.footerSize)
        return try parsed.blocks.filter { $0.type == ArchiveAppendix.signatureBlockType }.map {
            try SignatureBlock(parsing: $0.bytes, lengthFieldOffset: lengthField)
        }
    }

    /// Decides whether an archive is accepted by `trusted` keys at `now` (no rollback state).
    ///
    /// Accepted when at least one signature block is by a trusted key, verifies and has not
    /// expired. Otherwise the first that applies: no signature block (`unsigned`); blocks by
    /// other keys only (`untrustedKey`); no trusted key's signature verifies (`badSignature`);
    /// every one that verifies has expired (`expired`). Every error names `archiveLength` (spec
    /// Appendix A).
    /// - Returns: the decision, listing the verified and the accepting blocks.
    /// - Throws: `badAppendix`, `unsigned`, `untrustedKey`, `badSignature`, `expired`.
    package static func evaluate(
        archiveDigest: [UInt8], appendix: [UInt8], archiveLength: UInt64, trusting trusted: [PublicKey], now: Date
    ) throws -> TrustDecision {
        let blocks = try signatureBlocks(in: appendix, archiveLength: archiveLength)
        guard !blocks.isEmpty else { throw WebArcError.unsigned(offset: archiveLength) }
        let keys = Dictionary(trusted.map { ($0.keyID, [$0]) }, uniquingKeysWith: +)
        let byTrusted = blocks.filter { keys[$0.keyID] != nil }
        guard let firstTrusted = byTrusted.first else {
            var seen = Set<KeyID>()
            let others = blocks.map(\.keyID).filter { seen.insert($0).inserted }
            throw WebArcError.untrustedKey(keyIDs: others.map(\.description), offset: archiveLength)
        }
        let verified = byTrusted.filter { block in
            keys[block.keyID, default: []].contains { block.isValid(for: archiveDigest, key: $0) }
        }
        guard let firstVerified = verified.first else {
            throw WebArcError.badSignature(keyID: "\(firstTrusted.keyID)", offset: archiveLength)
        }
        let milliseconds = SignatureBlock.milliseconds(now)
        let accepted = verified.filter { !$0.hasExpired(at: milliseconds) }
        guard !accepted.isEmpty else {
            throw WebArcError.expired(
                keyID: "\(firstVerified.keyID)", expires: firstVerified.expires, offset: archiveLength)
        }
        return TrustDecision(
            archiveDigest: archiveDigest, archiveLength: archiveLength, verified: verified, accepted: accepted)
    }
}

/// An archive a trust list accepted, and the signature blocks that made it so.
public struct TrustDecision: Equatable, Sendable {
    /// The archive digest the blocks sign.
    public let archiveDigest: [UInt8]
    /// Where the archive ends (the offset trust errors name).
    public let archiveLength: UInt64
    /// Every block by a trusted key that verifies, expired or not, in appendix order: what the
    /// rollback state checks and records.
    public let verified: [SignatureBlock]
    /// The verified blocks that have not expired, in appendix order; never empty.
    public let accepted: [SignatureBlock]
}
