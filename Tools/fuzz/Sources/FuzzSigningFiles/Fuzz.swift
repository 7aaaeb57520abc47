// Key files and rollback state files (spec §12.3, §12.4) as `TrustPolicy` and `webarc sign` read
// them from disk: the input is written as the state file of the vectors' key test1 in a scratch
// state directory (removed after each run), loaded as a public key, a private key and that key's
// rollback state, and then the trust decision of the vector signed.webarc (test1, sequence 7) is
// admitted against it. Every failure must be a WebArcError of the right case; a key that loads
// writes back the input byte for byte; admission refuses exactly an older or different release
// and leaves a state that reads back as the one admitted.
import Foundation
import FuzzSupport
import WebArc

let vectors =
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path + "/Spec/vectors"
let signer = try! PublicKey(contentsOf: vectors + "/keys/test1.pub")
let decision = try! ArchiveReader(path: vectors + "/valid/signed.webarc").checkTrust(TrustPolicy(trusting: [signer]))
let sequence = decision.verified[0].sequence
let state = try! RollbackState(directory: ScratchDirectory.path + "/state")
let path = state.file(for: signer.keyID)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSigningFiles(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
        fatalError("cannot write \(path)")
    }
    defer { unlink(path) }
    switch load({ try PublicKey(contentsOf: path) }) {
    case .success(let key):
        precondition(Array(key.fileText.utf8) == bytes, "public key \(key) loads from other bytes than its text")
    case .failure(let error): checkKeyFileError(error)
    }
    switch load({ try SigningKey(contentsOf: path) }) {
    case .success(let key):
        precondition(Array(key.fileText.utf8) == bytes, "private key \(key.keyID) loads from other bytes than its text")
    case .failure(let error): checkKeyFileError(error)
    }
    let before = load { try state.entry(for: signer.keyID) }
    if case .failure(let error) = before {
        guard case .badRollbackState = error else {
            preconditionFailure("a state file that does not parse threw \(error)")
        }
    }
    switch (before, load { try state.admit(decision) }) {
    case (.success(let entry?), .failure(.rolledBack)):
        precondition(
            entry.sequence > sequence || (entry.sequence == sequence && !isAdmitted(entry)), "refused over \(entry)")
    case (.success(let entry), .success):
        precondition(entry.map { $0.sequence < sequence || isAdmitted($0) } ?? true, "admitted over \(entry!)")
        let after = load { try state.entry(for: signer.keyID) }
        guard case .success(let entry?) = after, isAdmitted(entry) else {
            preconditionFailure("admitted, then the state reads \(after)")
        }
    case (.failure(.badRollbackState), .failure(.badRollbackState)):
        break
    case let (before, result):
        preconditionFailure("state \(before), admitting: \(result)")
    }
    return 0
}

/// Whether `entry` records the decision: its sequence and archive digest.
func isAdmitted(_ entry: RollbackState.Entry) -> Bool {
    entry.sequence == sequence && entry.archiveDigest == decision.archiveDigest
}

/// A key file that does not load is a bad key file, or one whose key ID is not its key's.
func checkKeyFileError(_ error: WebArcError) {
    switch error {
    case .badKeyFile, .keyIDMismatch: break
    default: preconditionFailure("a key file that does not load threw \(error)")
    }
}

/// What `body` returns, or the WebArcError it throws; any other error stops the run.
func load<Value>(_ body: () throws -> Value) -> Result<Value, WebArcError> {
    do {
        return .success(try body())
    } catch let error as WebArcError {
        return .failure(error)
    } catch {
        fatalError("threw \(error), not a WebArcError")
    }
}
