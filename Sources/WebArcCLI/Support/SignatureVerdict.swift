import Foundation
import WebArc
import WebArcCLISupport

/// What `verify` says about an archive's signatures: the blocks, and with a trust list the decision.
struct SignatureVerdict {
    let archive: String
    /// The signature blocks, nil when the archive or its appendix could not be read.
    let blocks: [SignatureBlock]?
    /// Whether a trust list was given.
    let policyGiven: Bool
    /// The accepted blocks when the archive passed and the trust list accepted it.
    let trusted: TrustDecision?
    /// Why it is not trusted: the `appendix` check's error, else the first error of the report.
    let refusal: VerificationReport.Problem?

    init(archive: String, report: VerificationReport, policyGiven: Bool, trust: TrustDecision?) {
        self.archive = archive
        self.policyGiven = policyGiven
        blocks = try? ArchiveReader(path: archive).signatureBlocks()
        let errors = report.problems.filter { $0.severity == .error }
        trusted = report.passed ? trust : nil
        refusal = policyGiven && trusted == nil ? (errors.first { $0.check == "appendix" } ?? errors.first) : nil
    }

    /// The `signature` object of `verify --json`: `signatures`; with `--trust`, `trusted`, and
    /// `accepted` or the refusal's `code` and `message`.
    var json: [String: Any] {
        var object: [String: Any] = ["signatures": blocks.map { $0.map(SignatureText.json) } ?? NSNull()]
        object["trusted"] = policyGiven ? trusted != nil : NSNull()
        if let trusted { object["accepted"] = trusted.accepted.map(SignatureText.json) }
        if let refusal {
            object["code"] = refusal.code
            object["message"] = refusal.message
        }
        return object
    }

    /// The accepted signatures on stdout, or without a trust list the signatures found.
    func print() {
        if let trusted {
            for block in trusted.accepted { Output.line("\(archive): trusted: signed by \(SignatureText.line(block))") }
        } else if !policyGiven {
            for block in blocks ?? [] { Output.line("\(archive): signed by \(SignatureText.line(block))") }
        }
    }
}
