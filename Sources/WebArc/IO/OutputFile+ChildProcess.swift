import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension OutputFile {
    /// Removes what process `pid` of this host left beside `target` when a signal stopped it before
    /// it could clean up: its temporary (`.NAME.tmp-PID-HOST-XXXXXX`), its intermediates
    /// (`.NAME-PURPOSE.tmp-PID-HOST-XXXXXX`) and whatever a library named after them (libzim writes
    /// `TEMPORARY.tmp` and index files beside it), files or folders, owned by this user.
    ///
    /// For the parent of a child that wrote `target`: `pid` must not have been reaped yet
    /// (`waitid` with `WNOWAIT`), so that it names no other process. The target itself is never
    /// touched. Errors are ignored: what cannot be removed stays.
    package static func removeTemporaries(ofProcess pid: Int32, beside target: String) {
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[..<$0]) } ?? "."
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        let folder = directory.isEmpty ? "/" : directory
        let owner = ".tmp-\(pid)-\(StaleTemporaries.host)-"
        guard !name.isEmpty, let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for entry in entries where entry.hasPrefix("." + name) && entry.contains(owner) {
            let rest = entry.dropFirst(1 + name.count)
            // `.NAME.tmp-…` or `.NAME-PURPOSE.tmp-…`: not the temporaries of a longer name.
            guard rest.hasPrefix(owner) || rest.hasPrefix("-") else { continue }
            let path = folder + "/" + entry
            var info = stat()
            guard lstat(path, &info) == 0, info.st_uid == getuid() else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                try? FileManager.default.removeItem(atPath: path)
            } else {
                unlink(path)
            }
        }
    }
}
