import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// `verify(path:trusting:)`: the trust decision as the `appendix` check (spec §11.3, §12.4).
@Suite("Verifier with a trust list")
struct ArchiveVerifierTrustTests {
    @Test("a trusted archive passes and is recorded; an unsigned one fails its appendix check")
    func trustedAndUnsigned() throws {
        let folder = try TemporaryFolder()
        let key = SigningKey()
        let path = try makeArchive(at: folder.file("a.webarc"), pages: [("http://example.com/", Array("page".utf8))])
        let state = try RollbackState(directory: folder.file("state"))
        let policy = TrustPolicy(trusting: [key.publicKey], rollbackState: state)
        let unsigned = ArchiveVerifier.verify(path: path, trusting: policy)
        #expect(!unsigned.report.passed)
        #expect(unsigned.trust == nil)
        #expect(unsigned.report.problems.map(\.code) == ["unsigned"])
        #expect(unsigned.report.problems.first?.check == "appendix")
        try ArchiveSigner.sign(path: path, with: key, sequence: 4)
        let signed = ArchiveVerifier.verify(path: path, trusting: policy)
        #expect(signed.report.passed, "\(signed.report.problems)")
        #expect(signed.trust?.accepted.first?.sequence == 4)
        #expect(try state.entry(for: key.keyID)?.sequence == 4)
    }

    @Test("a signed archive with a damaged chunk fails, and the rollback state does not record it")
    func damagedNotRecorded() throws {
        let folder = try TemporaryFolder()
        let key = SigningKey()
        let path = try makeArchive(
            at: folder.file("a.webarc"), pages: [("http://example.com/", Array(repeating: 65, count: 4000))])
        try ArchiveSigner.sign(path: path, with: key, sequence: 9)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[17] ^= 1  // inside the first chunk
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let state = try RollbackState(directory: folder.file("state"))
        let result = ArchiveVerifier.verify(
            path: path, trusting: TrustPolicy(trusting: [key.publicKey], rollbackState: state))
        #expect(!result.report.passed)
        #expect(!result.report.problems.contains { $0.check == "appendix" }, "the signature itself is valid")
        #expect(try state.entry(for: key.keyID) == nil)
    }

    @Test("a structurally bad appendix is reported once, as bad-appendix")
    func badAppendix() throws {
        let path = SignatureCheckTests.vectors + "/invalid/bad-appendix-blocks.webarc"
        let result = ArchiveVerifier.verify(path: path, trusting: TrustPolicy(trusting: [SignatureCheckTests.test1]))
        #expect(result.report.problems.filter { $0.check == "appendix" }.map(\.code) == ["bad-appendix"])
        #expect(result.trust == nil)
    }
}
