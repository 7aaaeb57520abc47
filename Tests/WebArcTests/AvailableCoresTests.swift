import Foundation
import Synchronization
import Testing

@testable import WebArc

/// `AvailableCores`, the worker count of `pack`, `verify`, `unpack` and `apply`: Foundation's answer
/// without its cost.
@Suite("Available cores")
struct AvailableCoresTests {
    @Test("the count is as many cores as Foundation counts here, no more than the CPUs listed")
    func count() {
        #expect(AvailableCores.count == ProcessInfo.processInfo.activeProcessorCount)
        #expect(AvailableCores.count >= 1 && AvailableCores.count <= AvailableCores.cpus.count)
    }

    // Thread affinity is Linux's, and a portable run (WEBARC_PORTABLE=1) leaves it alone.
    @Test(
        "the CPUs are the affinity mask's; a thread kept to a core runs only there",
        .enabled(if: !Platform.portable, "a portable run keeps no thread to a core"))
    func affinity() throws {
        #expect(AvailableCores.currentThreadCPUs() == AvailableCores.cpus)
        let last = try #require(AvailableCores.cpus.last)
        let seen = Mutex<(kept: Bool, cpus: [Int]?)>((false, nil))
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let kept = AvailableCores.keepCurrentThread(on: last)
            seen.withLock { $0 = (kept, AvailableCores.currentThreadCPUs()) }
            done.signal()
        }
        done.wait()
        #expect(seen.withLock { $0.kept && $0.cpus == [last] })
        // The calling thread is not affected, and a CPU past the mask's size is refused.
        #expect(AvailableCores.currentThreadCPUs() == AvailableCores.cpus)
        #expect(!AvailableCores.keepCurrentThread(on: 1 << 20))
    }

    @Test(
        "a portable run reads no affinity mask and keeps no thread to a core",
        .enabled(if: Platform.portable, "runs in the portable pass (WEBARC_PORTABLE=1)"))
    func portable() {
        #expect(AvailableCores.currentThreadCPUs() == nil)
        #expect(AvailableCores.cpus == Array(0..<ProcessInfo.processInfo.activeProcessorCount))
        #expect(!AvailableCores.keepCurrentThread(on: 0))
    }

    @Test("a cgroup quota is whole cores rounded up; no quota (-1 or 0) is none")
    func quotaRounding() {
        #expect(AvailableCores.cores(quota: 150_000, period: 100_000) == 2)
        #expect(AvailableCores.cores(quota: 200_000, period: 100_000) == 2)
        #expect(AvailableCores.cores(quota: 50_000, period: 100_000) == 1)
        #expect(AvailableCores.cores(quota: -1, period: 100_000) == nil)
        #expect(AvailableCores.cores(quota: 100_000, period: 0) == nil)
    }
}
