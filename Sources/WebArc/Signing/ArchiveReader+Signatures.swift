import Foundation

extension ArchiveReader {
    /// The archive's signature blocks, in appendix order (empty when unsigned).
    ///
    /// - Throws: `badAppendix`; `io` when the file cannot be read.
    public func signatureBlocks() throws -> [SignatureBlock] {
        try SignatureCheck.signatureBlocks(in: try appendixBytes(), archiveLength: archiveLength)
    }

    /// Decides whether `policy` accepts this archive, and records it in the policy's rollback state.
    ///
    /// Call it before serving anything from the archive.
    /// - Throws: ``WebArcError`` `badAppendix`, `unsigned`, `untrustedKey`, `badSignature`,
    ///   `expired`, `rolledBack` (spec §12.4), and `badRollbackState` or `io` when the rollback
    ///   state cannot be read or written.
    public func checkTrust(_ policy: TrustPolicy, now: Date = Date()) throws -> TrustDecision {
        try policy.check(
            archiveDigest: archiveDigest, appendix: try appendixBytes(), archiveLength: archiveLength, now: now)
    }
}
