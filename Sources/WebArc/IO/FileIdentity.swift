#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which file a path named, and which version of it: device, inode, size and modification time.
///
/// A reader keeps the identity of the file it opened (``FileByteSource/identity``); when the path
/// names another identity later, the file was replaced (renamed over, as `webarc apply` does) or
/// rewritten in place (`cp` over it), and the reader's bytes are no longer the file at that path.
///
/// ```swift
/// let source = try FileByteSource(path: "site.webarc")
/// if source.identity != FileIdentity(path: "site.webarc") { print("site.webarc changed") }
/// ```
package struct FileIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The device holding the file.
    package var device: UInt64
    /// The file's inode on that device.
    package var inode: UInt64
    /// Its length in bytes.
    package var size: UInt64
    /// Its last modification, in nanoseconds since 1970.
    package var modified: Int64

    /// The identity of the file `path` names now, or nil when it cannot be looked up (it is being
    /// replaced, or was removed).
    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The identity of an open file.
    package init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }

    init(_ info: stat) {
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
        size = UInt64(clamping: info.st_size)
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        modified = Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000).partialValue &+ Int64(time.tv_nsec)
    }

    package var description: String { "inode \(inode) on device \(device), \(size) bytes, modified at \(modified) ns" }
}
