import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the handlers read by reflection from a swift-corelibs-foundation task: its work queue,
/// its session, and how the session reports the task's results.
///
/// swift-corelibs-foundation keeps each task's state in internal properties:
/// - `workQueue`, the serial queue on which it runs the task's URL protocol callbacks. Its
///   `URLProtocolClient` looks up the task in the session's task registry, a dictionary that "must
///   only be accessed on the owning session's work queue" and has no lock, so a protocol that
///   calls its client from another thread races with tasks being added and removed. The handlers
///   make every client call on this queue.
/// - `session`, the session that made the task (its delegate and delegate queue are public).
/// - the registry's *behaviour* for the task: `callDelegate`, or one of the completion-handler
///   behaviours that `dataTask(with:completionHandler:)`, `data(for:)` and the download methods
///   register. Only under `callDelegate` does every `didLoad` piece reach someone; under the
///   others the completion handler gets only the last piece.
///
/// Read only from `startLoading()`, which runs on the task's work queue (a queue that targets the
/// session's). When a field cannot be found (another Foundation, a renamed field) the reads return
/// nil and the handlers take the safe path: answer inside `startLoading()`, send bodies whole.
enum TaskInternals {
    /// How a session hands a task's results over.
    enum Behaviour: Equatable, Sendable {
        /// To the session delegate, piece by piece (or to nobody when there is no delegate).
        case delegate
        /// To a completion handler (or an async call built on one), which keeps only the last piece.
        case completionHandler
    }

    /// The work queue of `task`.
    static func workQueue(of task: URLSessionTask?) -> DispatchQueue? {
        #if canImport(FoundationNetworking)
        guard let task else { return nil }
        return field("workQueue", of: task) as? DispatchQueue
        #else
        return nil
        #endif
    }

    /// The session that made `task`.
    static func session(of task: URLSessionTask?) -> URLSession? {
        #if canImport(FoundationNetworking)
        guard let task else { return nil }
        return unwrapped(field("session", of: task)) as? URLSession
        #else
        return nil
        #endif
    }

    /// How `task`'s session reports its results; nil when that cannot be read.
    static func behaviour(of task: URLSessionTask?) -> Behaviour? {
        #if canImport(FoundationNetworking)
        guard let task, let session = session(of: task), let registry = field("taskRegistry", of: session),
            let behaviours = field("behaviours", of: registry)
        else { return nil }
        for entry in Mirror(reflecting: behaviours).children {
            let pair = Array(Mirror(reflecting: entry.value).children)
            guard pair.count == 2, let identifier = pair[0].value as? Int, identifier == task.taskIdentifier else {
                continue
            }
            let name = Mirror(reflecting: pair[1].value).children.first?.label ?? String(describing: pair[1].value)
            return name == "callDelegate" ? .delegate : .completionHandler
        }
        return nil
        #else
        return .delegate
        #endif
    }

    /// The value of the stored property `label` of `object`, searching superclasses too.
    private static func field(_ label: String, of object: Any) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == label }) { return child.value }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// `value` with any optional wrapping removed; nil for an empty optional.
    private static func unwrapped(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }
}
