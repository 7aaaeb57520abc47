import Foundation
import Testing
import WebArc
import WebArcTestSupport
import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class TrustedReplay: ArchiveURLProtocol {}

/// `serve(_:trusting:)`: an archive is served only once its signature is trusted (spec §12.4).
@Suite("ArchiveURLProtocol trust", .serialized, .timeLimit(.minutes(10)))
struct TrustedServingTests {
    @Test("a signed archive is served; an unsigned or untrusted one is refused before anything is served")
    func servesOnlyTrusted() async throws {
        let folder = try TemporaryFolder()
        var archive = ArchiveBuilder()
        archive.response("https://example.com/", text: "signed page")
        let unsigned = try archive.build(in: folder)
        let key = SigningKey()
        let policy = TrustPolicy(trusting: [key.publicKey])
        TrustedReplay.stopServing()
        #expect(throws: WebArcError.unsigned(offset: unsigned.archiveLength)) {
            try TrustedReplay.serve([unsigned], trusting: policy)
        }
        #expect(await LoadingAPI.async.fetch("https://example.com/", through: TrustedReplay.self).status != 200)

        try ArchiveSigner.sign(path: unsigned.path, with: SigningKey(), sequence: 1)
        let byStranger = try ArchiveReader(path: unsigned.path)
        #expect(throws: WebArcError.self) { try TrustedReplay.serve([byStranger], trusting: policy) }

        try ArchiveSigner.sign(path: unsigned.path, with: key, sequence: 1)
        try TrustedReplay.serve([try ArchiveReader(path: unsigned.path)], trusting: policy)
        let fetched = await LoadingAPI.async.fetch("https://example.com/", through: TrustedReplay.self)
        #expect(fetched.status == 200)
        #expect(fetched.text == "signed page")
        TrustedReplay.stopServing()
    }

    @Test("the rollback state refuses an older release for the URL protocol too")
    func rollback() throws {
        let folder = try TemporaryFolder()
        let key = SigningKey()
        var archive = ArchiveBuilder()
        archive.response("https://example.com/", text: "v2")
        let newer = try archive.build(in: folder, name: "v2.webarc")
        var older = ArchiveBuilder()
        older.response("https://example.com/", text: "v1")
        let old = try older.build(in: folder, name: "v1.webarc")
        try ArchiveSigner.sign(path: newer.path, with: key, sequence: 2)
        try ArchiveSigner.sign(path: old.path, with: key, sequence: 1)
        let policy = TrustPolicy(
            trusting: [key.publicKey], rollbackState: try RollbackState(directory: folder.file("state")))
        try TrustedReplay.serve([try ArchiveReader(path: newer.path)], trusting: policy)
        #expect(
            throws: WebArcError.rolledBack(keyID: "\(key.keyID)", sequence: 1, accepted: 2, offset: old.archiveLength)
        ) {
            try TrustedReplay.serve([try ArchiveReader(path: old.path)], trusting: policy)
        }
        TrustedReplay.stopServing()
    }
}
