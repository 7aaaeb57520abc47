#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file created without a name in a folder (Linux `O_TMPFILE`) and named once it is complete.
///
/// Writing each file through a temporary name and renaming it costs two changes of the folder
/// (add the temporary name; move it) where `tar` makes one; creating files is most of what unpack
/// asks of the kernel. An unnamed file is named
/// with one `linkat`, and a process that dies before that leaves nothing behind. Where the system
/// has no `O_TMPFILE` (Darwin, some file systems), or the process is portable
/// (``Platform/portable``), ``create(in:)`` returns nil and the caller keeps its temporary name.
package enum UnnamedFile {
    /// Opens a new unnamed regular file in `folder` for writing (mode 0644 less the umask), or nil
    /// when unnamed files cannot be made there.
    package static func create(in folder: String) -> Int32? {
        #if os(Linux)
        guard canLink, !Platform.portable else { return nil }
        // O_TMPFILE is `__O_TMPFILE | O_DIRECTORY`, a macro Swift does not import.
        let fd = open(folder, __O_TMPFILE | O_DIRECTORY | O_WRONLY | O_CLOEXEC, 0o644)
        return fd >= 0 ? fd : nil
        #else
        return nil
        #endif
    }

    /// Opens a new unnamed regular file in the folder open as `folder`, as ``create(in:)`` does.
    package static func create(inFolder folder: Int32) -> Int32? {
        #if os(Linux)
        guard canLink, !Platform.portable else { return nil }
        let fd = openat(folder, ".", __O_TMPFILE | O_DIRECTORY | O_WRONLY | O_CLOEXEC, 0o644)
        return fd >= 0 ? fd : nil
        #else
        return nil
        #endif
    }

    /// Names the unnamed file open as `descriptor` `name` in the folder open as `folder`, as
    /// ``link(_:to:)`` does: 0, or the `errno` of `linkat`.
    package static func link(_ descriptor: Int32, to name: String, inFolder folder: Int32) -> Int32 {
        linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", folder, name, AT_SYMLINK_FOLLOW) == 0 ? 0 : errno
    }

    /// Whether ``link(_:to:)`` can work: it names the file through /proc, which a container may
    /// lack.
    private static let canLink = access("/proc/self/fd", F_OK) == 0

    /// Names the unnamed file open as `descriptor` `path`: 0, or the `errno` of `linkat` (EEXIST
    /// when `path` exists, even as a symbolic link, which is never followed or replaced).
    package static func link(_ descriptor: Int32, to path: String) -> Int32 {
        // The descriptor's /proc link, which linkat follows to the file; AT_EMPTY_PATH would need
        // CAP_DAC_READ_SEARCH.
        linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 ? 0 : errno
    }
}
