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
///
/// A site can have millions: the path to read is not kept whole but made when asked for, from
/// the folder it was found in (one string that every file of the folder shares) and its name.
package struct ScannedFile: Sendable, Equatable {
    /// Path relative to the folder, `/`-separated, as it will appear in the URL.
    package var relativePath: String
    /// The folder the file was listed in (links resolved), or the whole path to read when
    /// ``readsName`` is false (a link to a file).
    private var location: String
    /// Whether the path to read is ``location``, `/` and the file's name.
    private var readsName: Bool
    package var size: UInt64
    /// Modification time, seconds since 1970.
    package var modified: Int64

    /// A file read at `readPath` (symlinks resolved).
    package init(relativePath: String, readPath: String, size: UInt64, modified: Int64) {
        self.relativePath = relativePath
        location = readPath
        readsName = false
        self.size = size
        self.modified = modified
    }

    /// A file read at `folder`, `/`, and the last segment of `relativePath`.
    init(relativePath: String, folder: String, size: UInt64, modified: Int64) {
        self.relativePath = relativePath
        location = folder
        readsName = true
        self.size = size
        self.modified = modified
    }

    /// The folder the file was listed in (links resolved), or nil for a link to a file.
    var folder: String? { readsName ? location : nil }

    /// The path to read (symlinks resolved).
    package var readPath: String {
        guard readsName else { return location }
        let name = relativePath.lastIndex(of: "/").map { relativePath[relativePath.index(after: $0)...] }
        return location + "/" + (name ?? relativePath[...])
    }

    package static func == (lhs: ScannedFile, rhs: ScannedFile) -> Bool {
        lhs.relativePath == rhs.relativePath && lhs.readPath == rhs.readPath && lhs.size == rhs.size
            && lhs.modified == rhs.modified
    }
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
///
/// Folders are listed in parallel, each on its own (``FolderListing``), every core taking the next
/// folder found as soon as it is free: a listing's `fstatat` and `faccessat` per entry are most of
/// a large site's scan, and pack's workers wait for it. Everything found is sorted by path, so
/// nothing depends on the threads.
package struct FolderScanner {
    package let root: String
    package let outsideLinks: OutsideLinkPolicy

    /// Files found, sorted by relative path bytes.
    package private(set) var files = ScannedFiles()
    /// Problems found, sorted by relative path bytes.
    package private(set) var problems: [ScanProblem] = []
    /// Links left out under ``OutsideLinkPolicy/skip``, sorted by relative path bytes.
    package private(set) var skippedLinks: [ScanProblem] = []
    /// Memory the files found take before a sorted run of them is spilled (see
    /// ``ScannedFiles/Collector``); a list that spills is parked in scratch files.
    package var runBytes = 8 << 20

    /// Makes a scanner for `root`.
    package init(root: String, outsideLinks: OutsideLinkPolicy) {
        self.root = root
        self.outsideLinks = outsideLinks
    }

    /// Walks the folder.
    ///
    /// - Throws: `io` when the root itself is missing or not a folder, or when the list of files
    ///   cannot be written to or read from its scratch files.
    package mutating func scan() throws {
        guard let real = Self.realPath(root) else {
            throw WebArcError.io(path: root, operation: .opening("open"), errno: errno)
        }
        var info = stat()
        guard stat(real, &info) == 0 else {
            throw WebArcError.io(path: root, operation: .opening("open"), errno: errno)
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw WebArcError.io(path: root, operation: .opening("open folder"), errno: ENOTDIR)
        }
        let policy = FolderListing.Policy(realRoot: real, outsideLinks: outsideLinks)
        let root = FolderListing.Folder(path: real, relative: "", ancestors: [FolderListing.identity(info)])
        // Each folder's files join the sorted runs as its listing ends: neither the listings nor
        // a large site's list are held (see ``ScannedFiles/Collector``).
        let found = ScannedFiles.Collector(runBytes: runBytes, root: real)
        var failure: (any Error)?
        FolderListing.listAll(from: root, policy: policy, threads: AvailableCores.count) { listing in
            do {
                for file in listing.files where failure == nil { try found.append(file) }
            } catch {
                failure = error
            }
            problems += listing.problems
            skippedLinks += listing.skippedLinks
        }
        if let failure { throw failure }
        files = try found.finish()
        problems.sort { UTF8Text.precedes($0.path, $1.path) }
        skippedLinks.sort { UTF8Text.precedes($0.path, $1.path) }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
