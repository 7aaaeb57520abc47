import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files this process is writing, so that a process stopped by Ctrl-C or SIGTERM can
/// remove them: an interrupted pack, unpack or import leaves neither a half-written output nor a
/// hidden temporary file behind.
package enum PendingOutputs {
    private static let paths = Mutex<Set<String>>([])
    private static let folders = Mutex<Set<String>>([])

    /// Records a temporary file that is being written.
    package static func register(_ path: String) { _ = paths.withLock { $0.insert(path) } }

    /// Forgets a temporary file that was renamed into place or removed.
    package static func unregister(_ path: String) { _ = paths.withLock { $0.remove(path) } }

    /// Records a temporary folder whose contents are being written (an unpack's staging folder),
    /// removed whole with all in it.
    package static func registerFolder(_ path: String) { _ = folders.withLock { $0.insert(path) } }

    /// Forgets a temporary folder that was emptied into place or removed.
    package static func unregisterFolder(_ path: String) { _ = folders.withLock { $0.remove(path) } }

    /// The temporary files being written now.
    package static var current: Set<String> { paths.withLock { $0 } }

    /// Removes every temporary file and folder still being written (call it from a signal source's
    /// handler, not from an asynchronous signal handler).
    package static func removeAll() {
        paths.withLock { pending in
            for path in pending { unlink(path) }
            pending.removeAll()
        }
        folders.withLock { pending in
            // Writers may still add a file while a folder is removed: a second pass takes it.
            for path in pending {
                var passes = 0
                while passes < 3 && FileManager.default.fileExists(atPath: path) {
                    try? FileManager.default.removeItem(atPath: path)
                    passes += 1
                }
            }
            pending.removeAll()
        }
    }
}
