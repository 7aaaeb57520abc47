import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The serial queue on which swift-corelibs-foundation runs a task's URL protocol callbacks.
///
/// Its `URLProtocolClient` looks up the task in the session's task registry, a dictionary that
/// "must only be accessed on the owning session's work queue" and has no lock: a protocol that
/// calls its client from another thread races with tasks being added and removed, and the
/// process crashes under load (seen with a few hundred concurrent tasks). `startLoading()` runs on
/// that queue, so the handlers read it there (it is an immutable stored property of the task,
/// set before the task is resumed) and make every later client call on it.
///
/// The queue is internal to swift-corelibs-foundation and found by reflection; when it cannot be
/// found (another Foundation, a renamed field), this returns nil and the handlers answer
/// synchronously inside `startLoading()` instead: correct, but without prompt cancellation.
enum TaskWorkQueue {
    /// The work queue of `task`, read by reflection; call only from `startLoading()`.
    static func of(_ task: URLSessionTask?) -> DispatchQueue? {
        #if canImport(FoundationNetworking)
        guard let task else { return nil }
        var mirror: Mirror? = Mirror(reflecting: task)
        while let current = mirror {
            for child in current.children where child.label == "workQueue" {
                return child.value as? DispatchQueue
            }
            mirror = current.superclassMirror
        }
        #endif
        return nil
    }

    /// Whether a handler must answer inside `startLoading()`: Linux without a known work queue.
    static func mustAnswerInline(_ queue: DispatchQueue?) -> Bool {
        #if canImport(FoundationNetworking)
        queue == nil
        #else
        false
        #endif
    }
}
