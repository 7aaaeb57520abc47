import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes every response body of an archive to a file under a folder (see `UnpackPlan` for the
/// mapping), never outside it, never through a symbolic link, never over a file without `overwrite`.
/// Each file's modification time is its response's `Last-Modified` when that is an HTTP date (as
/// `pack` writes it), so packing the folder again gives the same records.
public struct SiteUnpacker {
    /// A URL that could not be written, and why.
    public struct Skipped: Sendable, Equatable, CustomStringConvertible {
        public var url: String
        public var reason: String
        public var description: String { "\(url): \(reason)" }
    }

    /// What an unpack did.
    public struct Summary: Sendable {
        public var filesWritten = 0
        public var bytesWritten: UInt64 = 0
        /// Responses whose file another response with the same body already wrote.
        public var duplicates = 0
        /// Redirect records (not files).
        public var redirects = 0
        public var skipped: [Skipped] = []
    }

    /// Progress: files done, in all, bytes done, in all.
    public typealias Progress = (_ files: Int, _ totalFiles: Int, _ bytes: UInt64, _ totalBytes: UInt64) -> Void

    public let overwrite: Bool
    /// Whether each file's modification time is set from its response's `Last-Modified`; when
    /// false (or the header is absent or not an HTTP date) a file keeps the time it was written.
    public let restoresModificationTimes: Bool

    /// Makes an unpacker.
    public init(overwrite: Bool = false, restoresModificationTimes: Bool = true) {
        self.overwrite = overwrite
        self.restoresModificationTimes = restoresModificationTimes
    }

    /// Unpacks `reader` into `folder`, creating it.
    ///
    /// - Throws: `outputExists` when `folder` exists and is not empty and `overwrite` is false;
    ///   `io` on write errors (files written so far stay, each complete).
    public func unpack(_ reader: ArchiveReader, into folder: String, progress: Progress? = nil) throws -> Summary {
        var summary = Summary()
        var responses: [PlannedFile] = []
        var origins = Set<String>()
        try reader.forEachEntry { entry in
            guard case .response(let response) = entry.record, response.request.method == "GET" else {
                if case .redirect = entry.record {
                    summary.redirects += 1
                } else {
                    summary.skipped.append(Skipped(url: entry.key, reason: "not a GET response"))
                }
                return
            }
            let canonical = String(entry.key.dropFirst(4))
            if let origin = UnpackPlan.relativePath(forCanonicalURL: canonical, includeOrigin: true)?.first {
                origins.insert(origin)
            }
            let modified = restoresModificationTimes ? Self.lastModified(response.headers) : nil
            responses.append(
                PlannedFile(
                    url: canonical, path: [], body: response.body, length: response.bodyLength, modified: modified))
        }
        let withOrigin = origins.count > 1
        // Keyed by bytes: String equality would merge "café" precomposed and decomposed, which
        // are two different file names.
        var planned: [[UInt8]: BodyReference] = [:]
        var folders = Set<[UInt8]>()
        var files: [PlannedFile] = []
        for response in responses {
            guard let path = UnpackPlan.relativePath(forCanonicalURL: response.url, includeOrigin: withOrigin) else {
                summary.skipped.append(
                    Skipped(url: response.url, reason: "no safe file name (not http(s), or a name over 255 bytes)"))
                continue
            }
            let joined = path.joined(separator: "/")
            if let existing = planned[Array(joined.utf8)] {
                if existing == response.body {
                    summary.duplicates += 1
                } else {
                    summary.skipped.append(
                        Skipped(
                            url: response.url,
                            reason: "\(joined) is already written from another URL with a different body"))
                }
                continue
            }
            planned[Array(joined.utf8)] = response.body
            for depth in 1..<path.count { folders.insert(Array(path[0..<depth].joined(separator: "/").utf8)) }
            var file = response
            file.path = path
            files.append(file)
        }
        files.removeAll { file in
            let joined = file.path.joined(separator: "/")
            guard folders.contains(Array(joined.utf8)) else { return false }
            summary.skipped.append(Skipped(url: file.url, reason: "\(joined) is needed as a folder for other URLs"))
            return true
        }
        try prepare(folder)
        let totalBytes = files.reduce(UInt64(0)) { $0 + $1.length }
        // Files are independent: one worker per core decodes, verifies and writes them, each taking
        // the next file in plan order (folders are created by whichever worker needs them first).
        let state = Mutex((next: 0, written: 0, bytes: UInt64(0), failure: (any Error)?.none))
        let workers = max(1, min(AvailableCores.count, 8, files.count))
        let plan = files
        // The progress callback is called under the lock, one call at a time, never concurrently.
        let shared = UncheckedSendable((unpacker: self, progress: progress))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let (unpacker, progress) = shared.value
            while true {
                let index: Int? = state.withLock { state in
                    guard state.failure == nil, state.next < plan.count else { return nil }
                    state.next += 1
                    return state.next - 1
                }
                guard let index else { return }
                let file = plan[index]
                do {
                    try unpacker.write(reader, body: file.body, modified: file.modified, to: file.path, under: folder)
                    state.withLock {
                        $0.written += 1
                        $0.bytes += file.length
                        progress?($0.written, plan.count, $0.bytes, totalBytes)
                    }
                } catch {
                    state.withLock { if $0.failure == nil { $0.failure = error } }
                    return
                }
            }
        }
        let outcome = state.withLock { $0 }
        summary.filesWritten = outcome.written
        summary.bytesWritten = outcome.bytes
        if let failure = outcome.failure { throw failure }
        return summary
    }

    private func prepare(_ folder: String) throws {
        var info = stat()
        if lstat(folder, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw WebArcError.outputExists(path: folder) }
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            if !contents.isEmpty && !overwrite { throw WebArcError.outputExists(path: folder) }
        } else if mkdir(folder, 0o755) != 0 {
            throw WebArcError.io(path: folder, operation: .creating("create folder"), errno: errno)
        }
    }

    /// Creates folders one by one (refusing symbolic links) and writes the file unnamed, named
    /// when complete (``UnnamedFile``), or where that cannot be done or a file is replaced, through
    /// a temporary name renamed into place: never a partly written file under its name.
    private func write(
        _ reader: ArchiveReader, body: BodyReference, modified: Int64?, to path: [String], under root: String
    ) throws {
        var directory = root
        for segment in path.dropLast() {
            directory += "/" + segment
            var info = stat()
            if lstat(directory, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw WebArcError.io(
                        path: directory, operation: .creating("create folder (a file or link is in the way)"),
                        errno: EEXIST)
                }
            } else if mkdir(directory, 0o755) != 0 {
                // Another worker may have just made it: only a folder that is now there will do.
                let code = errno
                guard code == EEXIST, lstat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw WebArcError.io(path: directory, operation: .creating("create folder"), errno: code)
                }
            }
        }
        let target = directory + "/" + path.last!
        var info = stat()
        let exists = lstat(target, &info) == 0
        if exists {
            guard overwrite, (info.st_mode & S_IFMT) == S_IFREG else { throw WebArcError.outputExists(path: target) }
        } else if let fd = UnnamedFile.create(in: directory) {
            defer { close(fd) }
            try copy(reader, body: body, to: fd, path: target)
            try setModificationTime(fd, modified, path: target)
            let code = UnnamedFile.link(fd, to: target)
            guard code == 0 else {
                throw code == EEXIST
                    ? WebArcError.outputExists(path: target)
                    : WebArcError.io(path: target, operation: .creating("create"), errno: code)
            }
            return
        }
        let temporary =
            directory + "/.webarc-unpack-\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WebArcError.io(path: temporary, operation: .creating("create"), errno: errno) }
        PendingOutputs.register(temporary)
        defer { PendingOutputs.unregister(temporary) }
        do {
            defer { close(fd) }
            try copy(reader, body: body, to: fd, path: target)
            try setModificationTime(fd, modified, path: target)
        } catch {
            unlink(temporary)
            throw error
        }
        try FileWriting.rename(temporary, onto: target)
    }

    /// A file to write: the URL it answers, its path under the folder, its body, and its
    /// modification time in seconds since 1970 (nil: the time it is written).
    private struct PlannedFile: Sendable {
        var url: String
        var path: [String]
        var body: BodyReference
        var length: UInt64
        var modified: Int64?
    }

    /// The seconds since 1970 of the first `Last-Modified` header, when it is an HTTP date.
    static func lastModified(_ headers: [HTTPHeader]) -> Int64? {
        headers.value(for: "Last-Modified").flatMap(HTTPDate.parse)
    }

    /// Sets the access and modification times of the file open as `fd`, as `touch -d` does.
    private func setModificationTime(_ fd: Int32, _ seconds: Int64?, path target: String) throws {
        guard let seconds else { return }
        var times = [timespec(tv_sec: time_t(seconds), tv_nsec: 0), timespec(tv_sec: time_t(seconds), tv_nsec: 0)]
        guard futimens(fd, &times) == 0 else {
            throw WebArcError.io(path: target, operation: .transferring("set the modification time of"), errno: errno)
        }
    }

    /// Writes the verified bytes of `body` to `fd`; errors name `target`, the file's final name.
    private func copy(_ reader: ArchiveReader, body: BodyReference, to fd: Int32, path target: String) throws {
        try reader.forEachChunk(of: body) { bytes in
            if let code = bytes.withUnsafeBytes({ FileWriting.writeAll($0, to: fd) }) {
                throw WebArcError.io(path: target, operation: .transferring("write"), errno: code)
            }
        }
    }
}

/// A value handed to worker threads whose use the code around it keeps safe (here: a callback
/// called only under a lock).
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
