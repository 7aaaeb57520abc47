import Foundation

/// Runs blocking `work` on a thread of its own and awaits its result, so that a test waiting
/// minutes on a child process or the disk holds none of the cooperative pool's threads (as many
/// as the machine has cores: two blocked tests stall every other async test of the run).
///
/// Record expectations in the awaiting test, not in `work`: another thread has no current test.
public func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
