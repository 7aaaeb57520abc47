import Foundation
import Synchronization
import Testing
import WebArcTestSupport

@testable import WebArcSearch

/// A search's independent reads (snippets, phrase checks) run as wide as the source asks: over
/// the network, wider than the cores, so that the hits' pages cost one round trip, not one each.
@Suite("Search reads made at once")
struct ConcurrentReadsTests {
    @Test("every number runs exactly once, at any width")
    func eachOnce() async throws {
        for (count, width) in [(0, 16), (1, 16), (2, 1), (100, 2), (100, 16), (7, 64)] {
            let runs = try await onOwnThread {
                let runs = Mutex([Int](repeating: 0, count: count))
                ConcurrentReads.forEach(count, width: width) { number in runs.withLock { $0[number] += 1 } }
                return runs.withLock { $0 }
            }
            #expect(runs == [Int](repeating: 1, count: count), "count \(count), width \(width)")
        }
    }

    @Test("a width beyond the cores has that many reads waiting at once")
    func wideRunsTogether() async throws {
        let width = ProcessInfo.processInfo.activeProcessorCount + 6
        // Each read waits until all `width` have started: run one after another (or only a
        // core's worth at a time), they would never all start, and the wait would time out.
        let together = try await onOwnThread {
            let started = NSCondition()
            let count = Mutex(0)
            let timedOut = Mutex(false)
            ConcurrentReads.forEach(width, width: width) { _ in
                started.lock()
                count.withLock { $0 += 1 }
                started.broadcast()
                let deadline = Date(timeIntervalSinceNow: 60)
                while count.withLock({ $0 }) < width {
                    if !started.wait(until: deadline) {
                        timedOut.withLock { $0 = true }
                        break
                    }
                }
                started.unlock()
            }
            return !timedOut.withLock { $0 }
        }
        #expect(together)
    }
}
