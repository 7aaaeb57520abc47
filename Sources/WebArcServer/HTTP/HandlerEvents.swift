import Synchronization

/// What the connection handlers of a server did that a client cannot see, for tests to wait on
/// instead of sleeping: that the server held back, kept a busy connection, or went on.
///
/// Each event is counted, and the order of the first occurrence of each is kept, so a test can ask
/// which of two outcomes came first ("the stream paused" or "the stream was decoded to its end").
/// Noting an event takes a lock; none is noted per byte or per request.
final class HandlerEvents: Sendable {
    /// Something a handler did.
    enum Event: Hashable, Sendable {
        /// A streamed body stopped decoding because the client was not taking what was written.
        case streamPaused
        /// A streamed body was decoded to its end.
        case streamDecoded
        /// Requests were left in the socket because the client was not taking the answers.
        case answersHeld
        /// An idle check found a response still in progress or unsent, and kept the connection.
        case idleCheckKeptBusyConnection
        /// An idle connection was closed.
        case idleConnectionClosed
    }

    private struct State {
        var counts: [Event: Int] = [:]
        /// The position of each event's first occurrence among all first occurrences.
        var firstSeen: [Event: Int] = [:]
        var waiters: [Int: (events: Set<Event>, continuation: CheckedContinuation<Event?, Never>)] = [:]
        var nextWaiter = 0

        /// The event of `events` that happened first, if any did.
        func earliest(of events: Set<Event>) -> Event? {
            events.compactMap { event in firstSeen[event].map { (event, $0) } }.min { $0.1 < $1.1 }?.0
        }
    }

    private let state = Mutex(State())

    /// Counts `event` and wakes the waiters for it.
    func note(_ event: Event) {
        let woken = state.withLock { state -> [CheckedContinuation<Event?, Never>] in
            state.counts[event, default: 0] += 1
            if state.firstSeen[event] == nil { state.firstSeen[event] = state.firstSeen.count }
            let ready = state.waiters.filter { $0.value.events.contains(event) }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume(returning: event) }
    }

    /// How many times `event` happened.
    func count(of event: Event) -> Int {
        state.withLock { $0.counts[event] ?? 0 }
    }

    /// The event of `events` that happened first, waiting for one when none has; nil when the
    /// waiting task is cancelled first.
    func first(of events: Set<Event>) async -> Event? {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Event?? in
                    if let event = state.earliest(of: events) { return .some(event) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = (events, continuation)
                    return .none
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: nil)
        }
    }
}
