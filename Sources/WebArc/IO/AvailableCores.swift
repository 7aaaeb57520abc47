#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Foundation
#endif

/// How many cores this process can use: the CPUs online, and no more than its cgroup's CPU quota (cgroup v2 `cpu.max`, or v1's `cpu.cfs_quota_us` over `cpu.cfs_period_us`),
/// rounded up; at least 1.
///
/// `ProcessInfo.activeProcessorCount` reads the quota too, but its first call costs a fresh
/// process 0.3 ms (Foundation's file reading and the type lookups it brings), on one core before
/// `pack`'s workers start; this reads the same few bytes with `open` and `read`.
package enum AvailableCores {
    /// The count, worked out once.
    package static let count: Int = {
        #if canImport(Glibc)
        let online = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return max(1, min(online, quota() ?? online))
        #else
        return ProcessInfo.processInfo.activeProcessorCount
        #endif
    }()

    #if canImport(Glibc)
    /// The cgroup's CPU quota in whole cores, rounded up; nil when there is none or it cannot be read.
    static func quota() -> Int? {
        if let line = firstLine(of: "/sys/fs/cgroup/cpu.max") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let quota = Int(fields[0]), let period = Int(fields[1]) else { return nil }
            return cores(quota: quota, period: period)
        }
        guard let quota = firstLine(of: "/sys/fs/cgroup/cpu/cpu.cfs_quota_us").flatMap({ Int($0) }),
              let period = firstLine(of: "/sys/fs/cgroup/cpu/cpu.cfs_period_us").flatMap({ Int($0) }) else { return nil }
        return cores(quota: quota, period: period)
    }

    /// `quota` microseconds of CPU every `period` as whole cores, rounded up; nil for no quota.
    static func cores(quota: Int, period: Int) -> Int? {
        guard quota > 0, period > 0 else { return nil }
        return quota / period + (quota % period == 0 ? 0 : 1)
    }

    /// The first line of a small file, or nil when it cannot be read.
    private static func firstLine(of path: String) -> Substring? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").first
    }
    #endif
}
