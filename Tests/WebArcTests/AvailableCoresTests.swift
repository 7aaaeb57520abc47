import Foundation
import Testing

@testable import WebArc

/// `AvailableCores`, the worker count of `pack`, `verify`, `unpack` and `apply`: Foundation's answer
/// without its cost.
@Suite("Available cores")
struct AvailableCoresTests {
    @Test("the count is what ProcessInfo.activeProcessorCount answers on this machine")
    func matchesFoundation() {
        #expect(AvailableCores.count == ProcessInfo.processInfo.activeProcessorCount)
        #expect(AvailableCores.count >= 1)
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
