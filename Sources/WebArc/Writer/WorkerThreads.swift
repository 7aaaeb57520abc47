import Foundation

/// The worker threads of a pipeline (pack's, apply's), started together and joined together.
///
/// Threads of their own rather than Dispatch's pool: a worker blocks on its pipeline's condition
/// for as long as the writer is behind, and the workers keep to a core each (``AvailableCores``).
final class WorkerThreads {
    private let group = DispatchGroup()

    /// Starts `count` threads, each running `work` with its number (`0..<count`).
    init(count: Int, work: @escaping @Sendable (Int) -> Void) {
        for number in 0..<count {
            group.enter()
            Thread.detachNewThread { [group] in
                work(number)
                group.leave()
            }
        }
    }

    /// Waits until every thread has returned (the caller told them to stop first).
    func join() {
        group.wait()
    }
}

extension NSCondition {
    /// Makes `change` under the lock, then wakes every thread waiting on the condition.
    func broadcast(after change: () -> Void) {
        lock()
        change()
        broadcast()
        unlock()
    }
}
