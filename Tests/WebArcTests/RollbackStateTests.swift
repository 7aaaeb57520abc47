import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// Rollback protection (spec §12.4): per key, the highest sequence accepted and its digest.
@Suite("Rollback state")
struct RollbackStateTests {
    @Test("accept 5, refuse 3, accept 5 again for the same archive, refuse another archive with 5, accept 6")
    func sequences() throws {
        let folder = try TemporaryFolder()
        let key = SigningKey()
        let archives = try (0..<4).map { index in
            try makeArchive(
                at: folder.file("a\(index).webarc"), pages: [("http://example.com/", Array("release \(index)".utf8))])
        }
        func sign(_ index: Int, _ sequence: UInt64) throws {
            try ArchiveSigner.sign(path: archives[index], with: key, sequence: sequence)
        }
        try sign(0, 5)
        try sign(1, 3)
        try sign(2, 5)
        try sign(3, 6)
        let policy = TrustPolicy(
            trusting: [key.publicKey], rollbackState: try RollbackState(directory: folder.file("state")))
        func check(_ index: Int) throws -> TrustDecision { try ArchiveReader(path: archives[index]).checkTrust(policy) }
        let first = try check(0)
        let length = { (index: Int) in try ArchiveReader(path: archives[index]).archiveLength }
        #expect(
            try policy.rollbackState!.entry(for: key.keyID)
                == RollbackState.Entry(sequence: 5, archiveDigest: first.archiveDigest))
        #expect(throws: WebArcError.rolledBack(keyID: "\(key.keyID)", sequence: 3, accepted: 5, offset: try length(1)))
        { try check(1) }
        #expect(try check(0).accepted.first?.sequence == 5)
        #expect(throws: WebArcError.rolledBack(keyID: "\(key.keyID)", sequence: 5, accepted: 5, offset: try length(2)))
        { try check(2) }
        #expect(try check(3).accepted.first?.sequence == 6)
        #expect(try policy.rollbackState!.entry(for: key.keyID)?.sequence == 6)
        #expect(throws: WebArcError.self) { try check(0) }
        // Without state, every one of them is accepted.
        #expect(try ArchiveReader(path: archives[1]).checkTrust(policy.withoutRollbackState).accepted.count == 1)
    }

    @Test("the spec's rollback vectors: rollback-5 first, then rollback-3 and rollback-same-sequence are refused")
    func vectors() throws {
        for name in ["rollback-3", "rollback-same-sequence"] {
            let folder = try TemporaryFolder()
            let policy = TrustPolicy(
                trusting: [SignatureCheckTests.test1], rollbackState: try RollbackState(directory: folder.file("state"))
            )
            _ = try ArchiveReader(path: SignatureCheckTests.vectors + "/invalid/rollback-5.webarc").checkTrust(
                policy, now: SignatureCheckTests.now)
            let expected = try SignatureCheckTests.expected(name)
            let error = #expect(throws: WebArcError.self) {
                try ArchiveReader(path: SignatureCheckTests.vectors + "/invalid/\(name).webarc").checkTrust(
                    policy, now: SignatureCheckTests.now)
            }
            #expect(error?.code == expected.code, "\(name)")
            #expect(error?.offset == expected.offset, "\(name)")
        }
    }

    @Test("each trusted key that verifies keeps its own record; any rolled back refuses the archive")
    func perKey() throws {
        let folder = try TemporaryFolder()
        let (a, b) = (SigningKey(), SigningKey())
        let old = try makeArchive(at: folder.file("old.webarc"), pages: [("http://example.com/", [1])])
        let new = try makeArchive(at: folder.file("new.webarc"), pages: [("http://example.com/", [2])])
        try ArchiveSigner.sign(path: old, with: a, sequence: 5)
        try ArchiveSigner.sign(path: old, with: b, sequence: 5)
        try ArchiveSigner.sign(path: new, with: b, sequence: 6)
        let state = try RollbackState(directory: folder.file("state"))
        let policy = TrustPolicy(trusting: [a.publicKey, b.publicKey], rollbackState: state)
        _ = try ArchiveReader(path: new).checkTrust(policy)
        #expect(try state.entry(for: a.keyID) == nil)
        // a's sequence 5 is new to the state, but b's 5 is older than the accepted 6.
        #expect(throws: WebArcError.self) { try ArchiveReader(path: old).checkTrust(policy) }
        #expect(try state.entry(for: a.keyID) == nil, "nothing is recorded for a refused archive")
    }

    @Test("a state file that does not parse is refused, never read as nothing accepted")
    func corruptState() throws {
        let folder = try TemporaryFolder()
        let key = SigningKey()
        let state = try RollbackState(directory: folder.file("state"))
        try "garbage\n".write(toFile: state.file(for: key.keyID), atomically: true, encoding: .utf8)
        let error = #expect(throws: WebArcError.self) { try state.entry(for: key.keyID) }
        #expect(error?.code == "bad-rollback-state")
        #expect(error?.description.contains("delete it to reset") == true)
    }

    /// FuzzSigningFiles, FailCases/FuzzSigningFiles/state-too-long.state: a state file over the
    /// key files' 1 KiB was refused as a bad key file, without the way to reset it.
    @Test("a state file too long to read is a bad rollback state, not a bad key file")
    func stateTooLong() throws {
        let folder = try TemporaryFolder()
        let key = SigningKey()
        let state = try RollbackState(directory: folder.file("state"))
        let path = state.file(for: key.keyID)
        try String(repeating: "7", count: 1100).write(toFile: path, atomically: true, encoding: .utf8)
        #expect(
            throws: WebArcError.badRollbackState(
                path: path, reason: "1100 bytes is too long for a state file: delete it to reset this key")
        ) {
            try state.entry(for: key.keyID)
        }
    }

    @Test("the state directory is created 0700; a file in its place is refused")
    func directory() throws {
        let folder = try TemporaryFolder()
        _ = try RollbackState(directory: folder.file("state"))
        #expect(try KeyFileTests.mode(folder.file("state")) == 0o700)
        try "x".write(toFile: folder.file("file"), atomically: true, encoding: .utf8)
        #expect(
            throws: WebArcError.io(
                path: folder.file("file"), operation: .opening("open state directory"), errno: ENOTDIR)
        ) {
            try RollbackState(directory: folder.file("file"))
        }
    }
}
