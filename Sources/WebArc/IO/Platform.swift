#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few system interfaces whose names or fields differ between Linux (Glibc) and Darwin, so
/// that no other file needs to know which it is built on.
///
/// CI builds and tests on Linux only; the Darwin branches follow Darwin's headers
/// (`st_mtimespec`, `Darwin.write`) but are not built here.
package enum Platform {
    /// True when the process started with `WEBARC_PORTABLE=1` in its environment: every Linux or
    /// x86 fast path then stands aside for the code other platforms run (hashing by swift-crypto
    /// instead of the AVX-512 lanes and SHA-NI, no thread pinning, allocator tuning, writeback
    /// hints, `sendfile`, `O_TMPFILE` or shared-memory body files), so that CI tests that code on
    /// its x86 Linux machine with the same binary. Read once; no output depends on it.
    package static let portable: Bool = getenv("WEBARC_PORTABLE").map { strcmp($0, "1") == 0 } ?? false

    /// `write(2)`: writes up to `count` bytes from `buffer`; the count written, or -1 and `errno`.
    package static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
        #else
        Darwin.write(descriptor, buffer, count)
        #endif
    }

    /// A file's modification time in whole seconds since 1970, from `stat`.
    package static func modificationTime(_ info: stat) -> Int64 {
        #if canImport(Darwin)
        Int64(info.st_mtimespec.tv_sec)
        #else
        Int64(info.st_mtim.tv_sec)
        #endif
    }
}
