import Dispatch
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One load of a URL protocol instance: relays callbacks to the URL loading system until the
/// load finishes or is stopped, and never after.
///
/// Callbacks go through the task's work queue when one is known (see ``TaskInternals``): the
/// caller hops onto the queue first and takes the lock there, so a `stopLoading()` that the queue
/// runs meanwhile never waits on a caller that waits on the queue.
///
/// swift-corelibs-foundation cancels a task by calling `stopLoading()` and then failing the task
/// itself; a callback that arrives after that finds the task gone from its session and stops the
/// process. So every callback runs under the same lock that ``stop()`` takes: once `stop()` has
/// returned, nothing more reaches the client. The lock also breaks the reference cycle between
/// the protocol instance and this object when the load ends.
final class ProtocolLoad: Sendable {
    private struct State {
        var phase = Phase.idle
        var client: (any URLProtocolClient)?
        var instance: UncheckedProtocol?
        var onStop: [@Sendable () -> Void] = []
        /// A response head was sent.
        var responded = false
    }

    private let queue = Mutex<DispatchQueue?>(nil)

    private enum Phase { case idle, running, finished, stopped }

    /// A protocol instance handed back to its own client from another thread.
    ///
    /// `URLProtocol` is explicitly not `Sendable`; the loading system itself calls it from its
    /// worker threads, and this object only ever passes it back as the first client argument.
    private struct UncheckedProtocol: @unchecked Sendable {
        let value: URLProtocol
    }

    private let state = Mutex(State())

    /// Starts relaying for `instance`, through `queue` when given; false when the load was stopped
    /// before it started. Callbacks must not be sent from `queue` itself after this.
    func start(_ instance: URLProtocol, queue: DispatchQueue? = nil) -> Bool {
        self.queue.withLock { $0 = queue }
        let client = instance.client
        let box = UncheckedProtocol(value: instance)
        return state.withLock { state in
            guard state.phase == .idle else { return false }
            state = State(phase: .running, client: client, instance: box)
            return true
        }
    }

    /// Runs `action` when the load is stopped (not when it ends normally); at once if it already was.
    func onStop(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.phase == .stopped { return true }
            if state.phase != .finished { state.onStop.append(action) }
            return false
        }
        if runNow { action() }
    }

    /// Whether the load still delivers: started and neither finished nor stopped.
    var isRunning: Bool { state.withLock { $0.phase == .running } }

    /// Whether a response head reached the client (the answer has begun), or the load is not running.
    var hasResponded: Bool { state.withLock { $0.responded || $0.phase != .running } }

    /// Stops the load: no callback reaches the client after this returns.
    func stop() {
        let actions = state.withLock { state in
            let actions = state.phase == .finished ? [] : state.onStop
            state = State(phase: state.phase == .finished ? .finished : .stopped)
            return actions
        }
        for action in actions { action() }
    }

    /// Sends the response head; false when the load is no longer running.
    @discardableResult
    func receive(_ response: URLResponse) -> Bool {
        send(responding: true) { $0.urlProtocol($1, didReceive: response, cacheStoragePolicy: .notAllowed) }
    }

    /// Sends body bytes; false when the load is no longer running.
    @discardableResult
    func load(_ data: Data) -> Bool {
        send { $0.urlProtocol($1, didLoad: data) }
    }

    /// Ends the load successfully.
    func finish() {
        send(ending: true) { $0.urlProtocolDidFinishLoading($1) }
    }

    /// Ends the load with an error.
    func fail(_ error: any Error) {
        send(ending: true) { $0.urlProtocol($1, didFailWithError: error) }
    }

    @discardableResult
    private func send(
        ending: Bool = false, responding: Bool = false, _ call: (any URLProtocolClient, URLProtocol) -> Void
    ) -> Bool {
        func deliver() -> Bool {
            state.withLock { state in
                guard state.phase == .running, let instance = state.instance else { return false }
                if let client = state.client { call(client, instance.value) }
                if responding { state.responded = true }
                if ending {
                    // swift-corelibs-foundation's cancel() picks up the protocol, then later calls
                    // `protocol.client?.…didFailWithError` on the work queue; after the task has
                    // finished that lookup traps. With no client left, a late cancel does nothing.
                    instance.value.client = nil
                    state = State(phase: .finished)
                }
                return true
            }
        }
        guard let queue = queue.withLock({ $0 }) else { return deliver() }
        return queue.sync(execute: deliver)
    }
}
