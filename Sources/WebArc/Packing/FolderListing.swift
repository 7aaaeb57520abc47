import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One folder of a ``FolderScanner`` walk, listed on its own: its files, its problems and the
/// folders below it to list next.
struct FolderListing {
    /// A folder to list.
    struct Folder {
        /// The path to open (links resolved).
        var path: String
        /// Its path relative to the packed folder, "" for the folder itself.
        var relative: String
        /// The (device, inode) of every folder from the packed one down to this one: a link back
        /// to one of them is a loop.
        var ancestors: Set<[UInt64]>
    }

    /// What a walk follows.
    struct Policy {
        /// The packed folder, links resolved.
        var realRoot: String
        var outsideLinks: OutsideLinkPolicy

        func isInside(_ real: String) -> Bool {
            real == realRoot || real.hasPrefix(realRoot == "/" ? "/" : realRoot + "/")
        }
    }

    var files: [ScannedFile] = []
    var problems: [ScanProblem] = []
    var skippedLinks: [ScanProblem] = []
    var folders: [Folder] = []

    /// Lists `root` and every folder below it that the walk follows, on `threads` threads at
    /// once, and hands each listing to `take` (one at a time, under the walk's lock) in no
    /// particular order: the caller sorts what it keeps.
    ///
    /// The folders wait in one queue that every thread takes from as soon as it is free, and each
    /// listing's subfolders join it at once: no thread waits for the other folders of a depth to
    /// finish (walking depth by depth, two large folders at different depths were listed one after
    /// the other while the second core stood idle).
    static func listAll(
        from root: Folder, policy: Policy, threads: Int, take: (FolderListing) -> Void
    ) {
        let walk = SharedWalk(queue: [root])
        withoutActuallyEscaping(take) { take in
            // Called with the walk's lock held, so by one thread at a time.
            nonisolated(unsafe) let take = take
            DispatchQueue.concurrentPerform(iterations: max(1, threads)) { _ in
                walk.condition.lock()
                while true {
                    if let folder = walk.queue.popLast() {
                        walk.listing += 1
                        walk.condition.unlock()
                        let found = listing(of: folder, policy: policy)
                        walk.condition.lock()
                        walk.listing -= 1
                        walk.queue += found.folders
                        take(found)
                        walk.condition.broadcast()
                    } else if walk.listing == 0 {
                        break
                    } else {
                        walk.condition.wait()
                    }
                }
                walk.condition.unlock()
            }
        }
    }

    /// Lists a folder, looks up each entry relative to it (`fstatat`, not by its whole path),
    /// closes it, then visits the entries in byte order.
    static func listing(of folder: Folder, policy: Policy) -> FolderListing {
        var listing = FolderListing()
        guard let handle = opendir(folder.path) else {
            listing.problems.append(
                ScanProblem(
                    kind: .unreadable, path: folder.relative.isEmpty ? "." : folder.relative, detail: errorText(errno)))
            return listing
        }
        var names: [String] = []
        while let entry = readdir(handle) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard let name = UTF8Text.validated(bytes) else {
                // URLs and the paths this scanner reads are UTF-8: a name that is not cannot be given
                // a URL without guessing its encoding, so it is listed (shown percent-encoded).
                let shown = bytes.map {
                    $0 < 0x80 ? String(UnicodeScalar($0)) : "%" + String($0, radix: 16, uppercase: true)
                }.joined()
                listing.problems.append(
                    ScanProblem(
                        kind: .unreadable, path: folder.relative.isEmpty ? shown : folder.relative + "/" + shown,
                        detail: "file name is not UTF-8"))
                continue
            }
            if name != "." && name != ".." { names.append(name) }
        }
        names.sort { UTF8Text.precedes($0, $1) }
        let descriptor = dirfd(handle)
        let entries = names.map { name in
            var info = stat()
            let found = fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0
            let code = found ? 0 : errno
            // A regular file is checked for reading here too; a link's target is checked when followed.
            let readable =
                found && (info.st_mode & S_IFMT) == S_IFREG
                ? (faccessat(descriptor, name, R_OK, 0) == 0 ? 0 : errno) : 0
            return (name, found ? info : nil, found ? readable : code)
        }
        closedir(handle)
        for (name, info, code) in entries {
            listing.visit(
                path: folder.path + "/" + name, folder: folder.path,
                relative: folder.relative.isEmpty ? name : folder.relative + "/" + name,
                found: info, code: code,
                ancestors: folder.ancestors, policy: policy)
        }
        return listing
    }

    /// Visits one entry, given what `lstat` found (nil: the error `code`) and, for a regular file,
    /// the error of checking it for reading (0: readable); `path` is `folder`, `/` and its name.
    private mutating func visit(
        path: String, folder: String, relative: String, found: stat?, code: Int32, ancestors: Set<[UInt64]>,
        policy: Policy
    ) {
        guard var info = found else {
            problems.append(ScanProblem(kind: .unreadable, path: relative, detail: Self.errorText(code)))
            return
        }
        var readPath = path
        var unreadable = code
        if (info.st_mode & S_IFMT) == S_IFLNK {
            let target = Self.linkTarget(path)
            guard let real = FolderScanner.realPath(path), stat(real, &info) == 0 else {
                let code = errno
                problems.append(
                    ScanProblem(
                        kind: code == ELOOP ? .loop : .unreadable, path: relative,
                        detail: "→ \(target): \(Self.errorText(code))"))
                return
            }
            if !policy.isInside(real) {
                switch policy.outsideLinks {
                case .refuse:
                    problems.append(ScanProblem(kind: .linkOutside, path: relative, detail: "→ \(real)"))
                    return
                case .skip:
                    skippedLinks.append(ScanProblem(kind: .linkOutside, path: relative, detail: "→ \(real)"))
                    return
                case .follow: break
                }
            }
            readPath = real
            unreadable = (info.st_mode & S_IFMT) == S_IFREG && access(readPath, R_OK) != 0 ? errno : 0
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            let identity = Self.identity(info)
            guard !ancestors.contains(identity) else {
                problems.append(ScanProblem(kind: .loop, path: relative, detail: "→ \(readPath) is a folder above it"))
                return
            }
            folders.append(Folder(path: readPath, relative: relative, ancestors: ancestors.union([identity])))
        case S_IFREG:
            guard unreadable == 0 else {
                problems.append(ScanProblem(kind: .unreadable, path: relative, detail: Self.errorText(unreadable)))
                return
            }
            let size = UInt64(info.st_size)
            let modified = Platform.modificationTime(info)
            // Not a link: the path to read is the folder's and the name, made again when needed.
            files.append(
                readPath == path
                    ? ScannedFile(relativePath: relative, folder: folder, size: size, modified: modified)
                    : ScannedFile(relativePath: relative, readPath: readPath, size: size, modified: modified))
        default:
            let kind: String =
                switch info.st_mode & S_IFMT {
                case S_IFIFO: "FIFO"
                case S_IFSOCK: "socket"
                case S_IFCHR: "character device"
                case S_IFBLK: "block device"
                default: "special file"
                }
            problems.append(ScanProblem(kind: .special, path: relative, detail: kind))
        }
    }

    /// A folder's (device, inode).
    static func identity(_ info: stat) -> [UInt64] { [UInt64(info.st_dev), UInt64(info.st_ino)] }

    private static func linkTarget(_ path: String) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes {
            readlink(path, $0.baseAddress!.assumingMemoryBound(to: CChar.self), 4096)
        }
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : "?"
    }

    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// The state of a walk shared by its threads, guarded by `condition`: the folders not yet
/// listed and how many are being listed.
private final class SharedWalk: @unchecked Sendable {
    let condition = NSCondition()
    var queue: [FolderListing.Folder]
    var listing = 0

    init(queue: [FolderListing.Folder]) { self.queue = queue }
}
