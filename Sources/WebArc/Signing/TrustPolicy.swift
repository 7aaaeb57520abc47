import Foundation

/// Which keys an app or a server trusts, and where it remembers what it accepted.
///
/// ```swift
/// let policy = TrustPolicy(trusting: [try PublicKey(contentsOf: "publisher.pub")],
///                          rollbackState: try RollbackState(directory: "/var/lib/kiosk/webarc-state"))
/// let decision = try reader.checkTrust(policy)          // throws before anything is served
/// ```
/// Spec: §12.4 Trust.
public struct TrustPolicy: Sendable {
    /// The keys whose signatures are accepted.
    public var trustedKeys: [PublicKey]
    /// Where the highest accepted sequence per key is kept; nil for no rollback protection.
    public var rollbackState: RollbackState?

    /// A policy trusting `keys`, with rollback protection when `rollbackState` is given.
    public init(trusting keys: [PublicKey], rollbackState: RollbackState? = nil) {
        trustedKeys = keys
        self.rollbackState = rollbackState
    }

    /// Reads the trusted `NAME.pub` files and opens (creating it if needed) the state directory.
    ///
    /// - Throws: what ``PublicKey/init(contentsOf:)`` and ``RollbackState/init(directory:)`` throw.
    public init(trustedKeyFiles: [String], stateDirectory: String?) throws {
        self.init(
            trusting: try trustedKeyFiles.map { try PublicKey(contentsOf: $0) },
            rollbackState: try stateDirectory.map { try RollbackState(directory: $0) })
    }

    /// Decides whether an archive is accepted (``SignatureCheck/evaluate(archiveDigest:appendix:archiveLength:trusting:now:)``),
    /// then, with a rollback state, refuses an older release and records this one.
    ///
    /// - Throws: `badAppendix`, `unsigned`, `untrustedKey`, `badSignature`, `expired`,
    ///   `rolledBack`, and `badRollbackState` or `io` when the state cannot be read or written.
    package func check(
        archiveDigest: [UInt8], appendix: [UInt8], archiveLength: UInt64, now: Date = Date()
    ) throws -> TrustDecision {
        let decision = try SignatureCheck.evaluate(
            archiveDigest: archiveDigest, appendix: appendix, archiveLength: archiveLength, trusting: trustedKeys,
            now: now)
        try rollbackState?.admit(decision)
        return decision
    }

    /// This policy without its rollback state (for the bases below the top of a stack).
    public var withoutRollbackState: TrustPolicy { TrustPolicy(trusting: trustedKeys) }
}
