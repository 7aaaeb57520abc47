#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How `pack` treats a symbolic link whose target lies outside the packed folder.
public enum OutsideLinkPolicy: String, Sendable, CaseIterable {
    /// Fail, listing each such link (the default: following could ship `/etc` to every kiosk).
    case refuse
    /// Include what the link points at.
    case follow
    /// Leave the link out.
    case skip
}

/// A file found under the packed folder.
public struct ScannedFile: Sendable, Equatable {
    /// Path relative to the folder, `/`-separated, as it will appear in the URL.
    public var relativePath: String
    /// The path to read (symlinks resolved).
    public var readPath: String
    public var size: UInt64
    /// Modification time, seconds since 1970.
    public var modified: Int64
}

/// Something under the folder that `pack` cannot or will not include as it stands.
public struct ScanProblem: Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem.
    public enum Kind: String, Sendable {
        case linkOutside = "link leaves the folder"
        case loop = "symbolic link loop"
        case special = "not a regular file"
        case unreadable = "unreadable"
    }

    public var kind: Kind
    /// Path relative to the folder.
    public var path: String
    /// The link target, the file type, or the system error.
    public var detail: String

    public var description: String { "\(path): \(kind.rawValue) (\(detail))" }
}

/// Walks a folder for `pack`: follows links that stay inside, applies the outside-link policy,
/// and lists loops, sockets, FIFOs (never opened) and unreadable entries.
public struct FolderScanner {
    public let root: String
    public let outsideLinks: OutsideLinkPolicy

    /// Files found, sorted by relative path bytes.
    public private(set) var files: [ScannedFile] = []
    /// Problems found, in walk order.
    public private(set) var problems: [ScanProblem] = []
    /// Links left out under ``OutsideLinkPolicy/skip``.
    public private(set) var skippedLinks: [ScanProblem] = []
    private var realRoot = ""

    /// Makes a scanner for `root`.
    public init(root: String, outsideLinks: OutsideLinkPolicy) {
        self.root = root
        self.outsideLinks = outsideLinks
    }

    /// Walks the folder.
    ///
    /// - Throws: `io` when the root itself is missing or not a folder.
    public mutating func scan() throws {
        guard let real = Self.realPath(root) else { throw WebArcError.io(path: root, operation: .opening("open"), errno: errno) }
        var info = stat()
        guard stat(real, &info) == 0 else { throw WebArcError.io(path: root, operation: .opening("open"), errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw WebArcError.io(path: root, operation: .opening("open folder"), errno: ENOTDIR) }
        realRoot = real
        walk(directory: real, relative: "", ancestors: [Self.identity(info)])
        files.sort { $0.relativePath.utf8.lexicographicallyPrecedes($1.relativePath.utf8) }
    }

    private static func identity(_ info: stat) -> [UInt64] { [UInt64(info.st_dev), UInt64(info.st_ino)] }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private func isInside(_ real: String) -> Bool {
        real == realRoot || real.hasPrefix(realRoot == "/" ? "/" : realRoot + "/")
    }

    /// Lists a folder, looks up each entry relative to it (`fstatat`, not by its whole path),
    /// closes it, then visits the entries in byte order.
    private mutating func walk(directory: String, relative: String, ancestors: Set<[UInt64]>) {
        guard let handle = opendir(directory) else {
            problems.append(ScanProblem(kind: .unreadable, path: relative.isEmpty ? "." : relative, detail: Self.errorText(errno)))
            return
        }
        var names: [String] = []
        while let entry = readdir(handle) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard let name = String(validating: bytes, as: UTF8.self) else {
                // URLs and the paths this scanner reads are UTF-8: a name that is not cannot be given
                // a URL without guessing its encoding, so it is listed (shown percent-encoded).
                let shown = bytes.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "%" + String($0, radix: 16, uppercase: true) }.joined()
                problems.append(ScanProblem(
                    kind: .unreadable, path: relative.isEmpty ? shown : relative + "/" + shown, detail: "file name is not UTF-8"))
                continue
            }
            if name != "." && name != ".." { names.append(name) }
        }
        names.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let folder = dirfd(handle)
        let entries = names.map { name in
            var info = stat()
            let found = fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0
            let code = found ? 0 : errno
            // A regular file is checked for reading here too; a link's target is checked when followed.
            let readable = found && (info.st_mode & S_IFMT) == S_IFREG ? (faccessat(folder, name, R_OK, 0) == 0 ? 0 : errno) : 0
            return (name, found ? info : nil, found ? readable : code)
        }
        closedir(handle)
        for (name, info, code) in entries {
            visit(path: directory + "/" + name, relative: relative.isEmpty ? name : relative + "/" + name, found: info, code: code, ancestors: ancestors)
        }
    }

    /// Visits one entry, given what `lstat` found (nil: the error `code`) and, for a regular file,
    /// the error of checking it for reading (0: readable).
    private mutating func visit(path: String, relative: String, found: stat?, code: Int32, ancestors: Set<[UInt64]>) {
        guard var info = found else {
            problems.append(ScanProblem(kind: .unreadable, path: relative, detail: Self.errorText(code)))
            return
        }
        var readPath = path
        var unreadable = code
        if (info.st_mode & S_IFMT) == S_IFLNK {
            let target = Self.linkTarget(path)
            guard let real = Self.realPath(path), stat(real, &info) == 0 else {
                let code = errno
                problems.append(ScanProblem(
                    kind: code == ELOOP ? .loop : .unreadable, path: relative,
                    detail: "→ \(target): \(Self.errorText(code))"))
                return
            }
            if !isInside(real) {
                switch outsideLinks {
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
            walk(directory: readPath, relative: relative, ancestors: ancestors.union([identity]))
        case S_IFREG:
            guard unreadable == 0 else {
                problems.append(ScanProblem(kind: .unreadable, path: relative, detail: Self.errorText(unreadable)))
                return
            }
            files.append(ScannedFile(relativePath: relative, readPath: readPath, size: UInt64(info.st_size), modified: Platform.modificationTime(info)))
        default:
            let kind: String = switch info.st_mode & S_IFMT {
            case S_IFIFO: "FIFO"
            case S_IFSOCK: "socket"
            case S_IFCHR: "character device"
            case S_IFBLK: "block device"
            default: "special file"
            }
            problems.append(ScanProblem(kind: .special, path: relative, detail: kind))
        }
    }

    private static func linkTarget(_ path: String) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { readlink(path, $0.baseAddress!.assumingMemoryBound(to: CChar.self), 4096) }
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : "?"
    }

    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
