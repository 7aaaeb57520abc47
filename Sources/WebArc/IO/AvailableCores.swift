import Foundation

#if canImport(Glibc)
import CAffinity
import Glibc
#endif

/// The cores this process may run on: the CPUs in its affinity mask (`taskset`, a cpuset), no
/// more of them than its cgroup's CPU quota allows (cgroup v2 `cpu.max`, or v1's
/// `cpu.cfs_quota_us` over `cpu.cfs_period_us`, rounded up); at least one.
///
/// `ProcessInfo.activeProcessorCount` reads the quota too, but its first call costs a fresh
/// process Foundation's file reading and the type lookups it brings, on one core before `pack`'s
/// workers start; this reads the same few bytes with `open` and `read`. Elsewhere, and when
/// ``Platform/portable``, Foundation answers and no thread is kept to a core.
package enum AvailableCores {
    /// How many: the worker count of `pack`, `verify`, `unpack` and `apply`.
    package static let count: Int = {
        #if canImport(Glibc)
        if usesAffinity {
            let allowed = cpus.count
            return max(1, min(allowed, quota() ?? allowed))
        }
        #endif
        return ProcessInfo.processInfo.activeProcessorCount
    }()

    /// Whether the affinity mask is read and set (Linux, not portable).
    private static var usesAffinity: Bool {
        #if canImport(Glibc)
        !Platform.portable
        #else
        false
        #endif
    }

    /// The CPU numbers of the affinity mask the process started with, ascending (read on first use,
    /// before any thread is kept to a core; all online CPUs when the mask cannot be read).
    package static let cpus: [Int] = currentThreadCPUs() ?? Array(0..<max(1, onlineCPUs))

    /// The CPU numbers the calling thread may run on, ascending; nil when the mask cannot be read.
    package static func currentThreadCPUs() -> [Int]? {
        #if canImport(Glibc)
        guard usesAffinity else { return nil }
        var mask = [UInt64](repeating: 0, count: maskWords)
        guard mask.withUnsafeMutableBufferPointer({ webarc_thread_affinity($0.baseAddress!, $0.count) }) == 0 else {
            return nil
        }
        let found = (0..<maskWords * 64).filter { mask[$0 / 64] & (1 << UInt64($0 % 64)) != 0 }
        return found.isEmpty ? nil : found
        #else
        return nil
        #endif
    }

    private static var onlineCPUs: Int {
        #if canImport(Glibc)
        if usesAffinity { return sysconf(Int32(_SC_NPROCESSORS_ONLN)) }
        #endif
        return ProcessInfo.processInfo.activeProcessorCount
    }

    /// Keeps the calling thread to CPU `cpu` from now on; false when the system refuses or has no
    /// such call, or the process is portable (the thread then runs where the scheduler puts it, as
    /// before).
    @discardableResult
    package static func keepCurrentThread(on cpu: Int) -> Bool {
        #if canImport(Glibc)
        guard usesAffinity, cpu >= 0, cpu < maskWords * 64 else { return false }
        var mask = [UInt64](repeating: 0, count: maskWords)
        mask[cpu / 64] = 1 << UInt64(cpu % 64)
        return mask.withUnsafeBufferPointer { webarc_set_thread_affinity($0.baseAddress!, $0.count) } == 0
        #else
        return false
        #endif
    }

    /// 64-bit words of a CPU mask: 1024 CPUs, glibc's `cpu_set_t`.
    private static let maskWords = 16

    #if canImport(Glibc)
    /// The cgroup's CPU quota in whole cores, rounded up; nil when there is none or it cannot be read.
    static func quota() -> Int? {
        if let line = firstLine(of: "/sys/fs/cgroup/cpu.max") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let quota = Int(fields[0]), let period = Int(fields[1]) else { return nil }
            return cores(quota: quota, period: period)
        }
        guard let quota = firstLine(of: "/sys/fs/cgroup/cpu/cpu.cfs_quota_us").flatMap({ Int($0) }),
            let period = firstLine(of: "/sys/fs/cgroup/cpu/cpu.cfs_period_us").flatMap({ Int($0) })
        else { return nil }
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
