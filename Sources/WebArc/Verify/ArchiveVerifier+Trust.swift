import Foundation

extension ArchiveVerifier {
    /// Verifies the archive at `path` and, as its `appendix` check, decides whether `policy`
    /// trusts it (spec §11.3 with a trust list, §12.4).
    ///
    /// A refusal (`unsigned`, `untrustedKey`, `badSignature`, `expired`, `rolledBack`) is a
    /// problem of the `appendix` check, so the report fails. The policy's rollback state is read,
    /// and updated, only when every other check passed: a damaged archive is never recorded as
    /// accepted.
    /// ```swift
    /// let (report, trust) = ArchiveVerifier.verify(path: "site.webarc", trusting: policy)
    /// if let trust, report.passed { print("signed by", trust.accepted[0].keyID) }
    /// ```
    /// - Returns: the report, and the decision when the policy accepts the archive.
    public static func verify(
        path: String, trusting policy: TrustPolicy, now: Date = Date(), progress: Progress? = nil
    ) -> (report: VerificationReport, trust: TrustDecision?) {
        let reader: ArchiveReader
        do {
            reader = try ArchiveReader(path: path)  // bounded memory, as verify(path:)
            reader.limitPageCache(bytes: pageCacheBytes)
        } catch {
            return (verify(path: path, progress: progress), nil)
        }
        return verify(reader, trusting: policy, now: now, progress: progress)
    }

    /// Verifies an opened archive and decides whether `policy` trusts it, as
    /// ``verify(path:trusting:now:progress:)`` does (for a reader over any byte source).
    public static func verify(
        _ reader: ArchiveReader, trusting policy: TrustPolicy, now: Date = Date(), progress: Progress? = nil
    ) -> (report: VerificationReport, trust: TrustDecision?) {
        let path = reader.path
        var report = verify(reader, progress: progress)
        // A structurally bad appendix is already reported; it has no trust decision to add.
        guard !report.problems.contains(where: { $0.check == "appendix" && $0.severity == .error }) else {
            return (report, nil)
        }
        do {
            return (report, try reader.checkTrust(report.passed ? policy : policy.withoutRollbackState, now: now))
        } catch {
            report.add(
                "appendix",
                error as? WebArcError ?? .io(path: path, operation: .transferring("check the signatures of"), errno: 0))
            return (report, nil)
        }
    }
}
