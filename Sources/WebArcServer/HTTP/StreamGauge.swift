import Synchronization

/// The most bytes of a streamed body that were decoded but not yet handed to the kernel, over
/// every stream of a server: what backpressure keeps to about one chunk, for tests to check.
final class StreamGauge: Sendable {
    private let highWater = Atomic<Int>(0)

    /// Notes that `bytes` are decoded and waiting to be written.
    func record(_ bytes: Int) {
        highWater.max(bytes, ordering: .relaxed)
    }

    /// The largest backlog recorded.
    var maximum: Int { highWater.load(ordering: .relaxed) }
}
