import Synchronization

/// How many answers are in progress on worker threads, and a wait for none: a test seam, since a
/// stopped load must leave no worker behind.
final class WorkerCount: Sendable {
    private struct State {
        var running = 0
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// Notes that a worker started.
    func begin() {
        state.withLock { $0.running += 1 }
    }

    /// Notes that a worker ended; when it was the last, wakes every wait.
    func end() {
        let woken = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for continuation in woken { continuation.resume(returning: true) }
    }

    /// The workers running now.
    var running: Int { state.withLock { $0.running } }

    /// Returns true once no worker runs (at once if none does), or false when the waiting task is
    /// cancelled first.
    func waitUntilNone() async -> Bool {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool? in
                    if state.running == 0 { return true }
                    if Task.isCancelled { return false }
                    state.waiters[id] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
        }
    }
}
