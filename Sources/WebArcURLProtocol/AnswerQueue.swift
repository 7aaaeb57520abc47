import Dispatch

/// Where an answer that blocks runs: reads from the archive, the task's work queue, a delegate
/// deciding about a stored redirect.
enum AnswerQueue {
    /// Runs `answer` on a queue of its own, which targets the overcommitting pool: many answers
    /// blocked on the global queue's few threads (or on cooperative threads) can stall it.
    static func run(_ answer: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "webarc.answer", qos: .userInitiated).async(execute: answer)
    }
}
