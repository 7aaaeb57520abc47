import Foundation

/// The result of `operation`, or nil when it has not returned within `seconds`.
///
/// A hang guard for a test that waits on an event, not a timing claim: the event decides, the
/// deadline only keeps a broken build from hanging the suite. `operation` must end when its task
/// is cancelled.
public func withHangGuard<Value: Sendable>(
    seconds: Double = 60, _ operation: @escaping @Sendable () async -> Value?
) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result
    }
}

/// The result of `operation`, run on a thread of its own, or nil when it has not returned within
/// `seconds` (the thread is then left blocked).
///
/// For code that blocks its thread (a condition wait in a pipeline) rather than awaiting: neither
/// the guard above nor Swift Testing's time limit can end a test whose thread is blocked, so a
/// deadlock would hang the whole run. `operation` and what it captures are not touched by the
/// caller until this returns.
public func withHangGuard<Value>(
    seconds: Double = 60, blocking operation: @escaping () throws -> Value
) throws -> Value? {
    let run = BlockingRun(operation)
    Thread.detachNewThread {
        run.result = Result { try run.operation() }
        run.done.signal()
    }
    guard run.done.wait(timeout: .now() + seconds) == .success else { return nil }
    return try run.result!.get()
}

/// One blocking operation handed to another thread; `result` is read only after `done` signals.
private final class BlockingRun<Value>: @unchecked Sendable {
    let operation: () throws -> Value
    var result: Result<Value, any Error>?
    let done = DispatchSemaphore(value: 0)

    init(_ operation: @escaping () throws -> Value) {
        self.operation = operation
    }
}
