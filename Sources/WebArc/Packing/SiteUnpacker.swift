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
    /// Memory is bounded whatever the number of records: the records are read once in key order and
    /// each response's file is planned (path, body entry, modification time) into a sort by path
    /// spilled to a temporary file (`SpilledSort`); the plan is then read back in path order,
    /// where two URLs that map to one file are neighbours and a file needed as a folder is followed
    /// by the files under it, and the files are written as they come, folder by folder, on every core.
    ///
    /// - Throws: `outputExists` when `folder` exists and is not empty and `overwrite` is false;
    ///   `io` on write errors (files written so far stay, each complete).
    public func unpack(_ reader: ArchiveReader, into folder: String, progress: Progress? = nil) throws -> Summary {
        var summary = Summary()
        // Skipped URLs are reported as the whole plan used to be made: the records that are not
        // files, then names and clashes in key order, then files needed as folders.
        var skipped: [(phase: Int, order: Int, skipped: Skipped)] = []
        let plan = SpilledSort<PlannedFile>(prefix: "webarc-unpack")
        var origins = Set<[UInt8]>()
        var unsafeOrigins = 0
        var order = 0
        var totals = (files: 0, bytes: UInt64(0))
        try reader.forEachEntryDecodedAhead { entry in
            defer { order += 1 }
            guard case .response(let response) = entry.record, response.request.method == "GET" else {
                if case .redirect = entry.record {
                    summary.redirects += 1
                } else {
                    skipped.append((0, order, Skipped(url: entry.key, reason: "not a GET response")))
                }
                return
            }
            let canonical = String(entry.key.dropFirst(4))
            var origin: [UInt8] = []
            let segments: ArraySlice<String>
            if let path = UnpackPlan.relativePath(forCanonicalURL: canonical, includeOrigin: true) {
                origin = Array(path[0].utf8)
                origins.insert(origin)
                segments = path.dropFirst()
            } else if let path = UnpackPlan.relativePath(forCanonicalURL: canonical, includeOrigin: false) {
                // A name only without its origin folder: written when the archive has one origin.
                unsafeOrigins += 1
                segments = path[...]
            } else {
                skipped.append((1, order, Skipped(url: canonical, reason: Self.unsafeName)))
                return
            }
            let modified = restoresModificationTimes ? Self.lastModified(response.headers) : nil
            try plan.append(
                PlannedFile(
                    order: order, url: canonical, origin: origin, segments: segments.map { Array($0.utf8) },
                    body: try reader.bodyEntry(response.body), modified: modified))
            totals.files += 1
            totals.bytes += response.bodyLength
        }
        let withOrigin = origins.count > 1
        var sorted = try plan.sorted()
        if !withOrigin && unsafeOrigins > 0 && !origins.isEmpty {
            // One origin folder, left out: the URLs whose origin is no safe name sort with the others.
            let again = SpilledSort<PlannedFile>(prefix: "webarc-unpack")
            while var file = try sorted.next() {
                file.origin = []
                try again.append(file)
            }
            sorted = try again.sorted()
        }
        try prepare(folder)
        let writer = FileBatchWriter(
            unpacker: self, reader: reader, root: folder, fresh: isEmptyFolder(folder), progress: progress,
            totals: totals)
        var next = try sorted.next()
        while let file = next {
            next = try sorted.next()
            let path = (withOrigin ? [file.origin] : []) + file.segments
            if withOrigin && file.origin.isEmpty {
                skipped.append((1, file.order, Skipped(url: file.url, reason: Self.unsafeName)))
                writer.drop(file)
                continue
            }
            // Keyed by bytes: String equality would merge "café" precomposed and decomposed, which
            // are two different file names.
            let joined = { String(decoding: Array(path.joined(separator: [UInt8(ascii: "/")])), as: UTF8.self) }
            while let other = next, other.path(withOrigin: withOrigin) == path {
                if other.body.reference == file.body.reference {
                    summary.duplicates += 1
                } else {
                    skipped.append(
                        (
                            1, other.order,
                            Skipped(
                                url: other.url,
                                reason: "\(joined()) is already written from another URL with a different body")
                        ))
                }
                writer.drop(other)
                next = try sorted.next()
            }
            // In path order (segment by segment) the files under a folder follow it at once.
            if let other = next, other.path(withOrigin: withOrigin).starts(with: path) {
                skipped.append(
                    (2, file.order, Skipped(url: file.url, reason: "\(joined()) is needed as a folder for other URLs")))
                writer.drop(file)
                continue
            }
            try writer.add(path: path.map { String(decoding: $0, as: UTF8.self) }, file: file)
        }
        try writer.finish()
        summary.filesWritten = writer.written
        summary.bytesWritten = writer.bytes
        summary.skipped = skipped.sorted { ($0.phase, $0.order) < ($1.phase, $1.order) }.map(\.skipped)
        return summary
    }

    private static let unsafeName = "no safe file name (not http(s), or a name over 255 bytes)"

    /// Whether `folder` holds nothing: then no file or folder under it needs a look before it is made.
    private func isEmptyFolder(_ folder: String) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [""]).isEmpty
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

    /// Makes the folder `directory` (its parent exists): an existing one is used, a file or a
    /// symbolic link in the way is refused.
    fileprivate static func makeFolder(_ directory: String, fresh: Bool) throws {
        var info = stat()
        if !fresh && lstat(directory, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw WebArcError.io(
                    path: directory, operation: .creating("create folder (a file or link is in the way)"),
                    errno: EEXIST)
            }
        } else if mkdir(directory, 0o755) != 0 {
            // Made since it was looked at: only a folder that is now there will do.
            let code = errno
            guard code == EEXIST, lstat(directory, &info) == 0 else {
                throw WebArcError.io(path: directory, operation: .creating("create folder"), errno: code)
            }
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw WebArcError.io(
                    path: directory, operation: .creating("create folder (a file or link is in the way)"),
                    errno: EEXIST)
            }
        }
    }

    /// Writes the file `name` in `directory` (which exists) unnamed, named when complete
    /// (``UnnamedFile``), or where that cannot be done or a file is replaced, through a temporary
    /// name renamed into place: never a partly written file under its name. In a `fresh` folder
    /// (empty when the unpack began, each name written once) nothing is looked up first.
    fileprivate func write(
        _ reader: ArchiveReader, body: BodyEntry, modified: Int64?, name: String, in directory: String, fresh: Bool
    ) throws {
        let target = directory + "/" + name
        var info = stat()
        let exists = !fresh && lstat(target, &info) == 0
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
        if fresh {
            // Nothing was looked up: a name that appeared meanwhile is not replaced.
            guard link(temporary, target) == 0 else {
                let code = errno
                unlink(temporary)
                throw code == EEXIST
                    ? WebArcError.outputExists(path: target)
                    : WebArcError.io(path: target, operation: .creating("create"), errno: code)
            }
            unlink(temporary)
            return
        }
        try FileWriting.rename(temporary, onto: target)
    }

    /// A file to write, as the plan sorted by path holds it: its record's position in key order, the
    /// URL it answers, its origin folder (empty when that is no safe name) and path below it, its
    /// body entry (the copy in the record's leaf), and its modification time in seconds since 1970
    /// (nil: the time it is written).
    fileprivate struct PlannedFile: SpilledSortElement, Sendable {
        var order: Int
        var url: String
        var origin: [UInt8]
        var segments: [[UInt8]]
        var body: BodyEntry
        var modified: Int64?

        /// The path under the output folder, as bytes, segment by segment.
        func path(withOrigin: Bool) -> [[UInt8]] { withOrigin ? [origin] + segments : segments }

        /// By origin, then path segment by segment (so that a folder's files follow it), each segment
        /// as bytes; then key order.
        static func precedes(_ lhs: PlannedFile, _ rhs: PlannedFile) -> Bool {
            func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
                for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
                return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
            }
            let origins = compare(lhs.origin, rhs.origin)
            if origins != 0 { return origins < 0 }
            for (a, b) in zip(lhs.segments, rhs.segments) {
                let order = compare(a, b)
                if order != 0 { return order < 0 }
            }
            if lhs.segments.count != rhs.segments.count { return lhs.segments.count < rhs.segments.count }
            return lhs.order < rhs.order
        }

        func encode(into writer: inout ByteWriter) {
            writer.write(UInt64(order))
            writer.writeLengthPrefixed(Array(url.utf8))
            writer.writeLengthPrefixed(origin)
            writer.write(UInt32(segments.count))
            for segment in segments { writer.writeLengthPrefixed(segment) }
            writer.write(UInt8(modified == nil ? 0 : 1))
            writer.write(modified ?? 0)
            writer.write(body.origin.page)
            writer.write(UInt64(body.origin.position))
            body.serialize(into: &writer)
        }

        static func decode(_ reader: inout ByteReader) throws -> PlannedFile {
            let order = Int(try reader.readUInt64())
            let url = String(decoding: reader.bytes[try reader.readLengthPrefixed(what: "url")], as: UTF8.self)
            let origin = Array(reader.bytes[try reader.readLengthPrefixed(what: "origin")])
            var segments: [[UInt8]] = []
            for _ in 0..<(try reader.readUInt32()) {
                segments.append(Array(reader.bytes[try reader.readLengthPrefixed(what: "segment")]))
            }
            let hasModified = try reader.readUInt8() == 1
            let modified = try reader.readInt64()
            let page = try reader.readUInt64()
            let position = Int(try reader.readUInt64())
            var body = try BodyEntry(parsing: &reader, page: page)
            body.origin.position = position
            return PlannedFile(
                order: order, url: url, origin: origin, segments: segments, body: body,
                modified: hasModified ? modified : nil)
        }

        var heldSize: Int {
            url.utf8.count + origin.count + segments.reduce(0) { $0 + $1.count + 32 } + body.encodedSize
                + body.chunks.count * 48 + 4 * 48 + 160
        }
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
    private func copy(_ reader: ArchiveReader, body: BodyEntry, to fd: Int32, path target: String) throws {
        var chunks = try reader.makeChunkIterator(for: body)
        while let bytes = try chunks.next() {
            if let code = bytes.withUnsafeBytes({ FileWriting.writeAll($0, to: fd) }) {
                throw WebArcError.io(path: target, operation: .transferring("write"), errno: code)
            }
        }
    }
}

/// Writes the planned files, in path order, in batches on every core: the producer makes each
/// batch's folders first (each folder once: in path order a folder's files are contiguous), then
/// one worker per core decodes, verifies and writes the batch's files, each taking the next.
private final class FileBatchWriter {
    private let unpacker: SiteUnpacker
    private let reader: ArchiveReader
    private let root: String
    private let fresh: Bool
    private let progress: SiteUnpacker.Progress?
    /// Files and bytes to write in all: the plan's, less those found not to be written so far.
    private var totals: (files: Int, bytes: UInt64)
    private(set) var written = 0
    private(set) var bytes: UInt64 = 0
    private var batch: [(directory: String, name: String, file: SiteUnpacker.PlannedFile)] = []
    private var batchBytes: UInt64 = 0
    /// The folders below the root made (or found) for the last file, outermost first.
    private var folders: [String] = []
    private var directory: String

    /// Files written at once, at most.
    static let batchFiles = 1024

    init(
        unpacker: SiteUnpacker, reader: ArchiveReader, root: String, fresh: Bool, progress: SiteUnpacker.Progress?,
        totals: (files: Int, bytes: UInt64)
    ) {
        self.unpacker = unpacker
        self.reader = reader
        self.root = root
        self.fresh = fresh
        self.progress = progress
        self.totals = totals
        directory = root
    }

    /// A planned file that is not written (skipped or a duplicate).
    func drop(_ file: SiteUnpacker.PlannedFile) {
        totals.files -= 1
        totals.bytes -= file.body.length
    }

    /// Queues `file` at `path` (below the root), making its folders.
    func add(path: [String], file: SiteUnpacker.PlannedFile) throws {
        let wanted = path.dropLast()
        var common = 0
        while common < folders.count, common < wanted.count,
            folders[common].utf8.elementsEqual(wanted[wanted.startIndex + common].utf8)
        {
            common += 1
        }
        if common < folders.count {
            folders.removeLast(folders.count - common)
            directory = root + folders.map { "/" + $0 }.joined()
        }
        for segment in wanted.dropFirst(common) {
            directory += "/" + segment
            try SiteUnpacker.makeFolder(directory, fresh: fresh)
            folders.append(segment)
        }
        batch.append((directory, path[path.count - 1], file))
        batchBytes += file.body.length
        if batch.count >= Self.batchFiles || batchBytes >= 64 << 20 { try flush() }
    }

    /// Writes the files still queued.
    func finish() throws { try flush() }

    private func flush() throws {
        guard !batch.isEmpty else { return }
        let work = batch
        batch = []
        batchBytes = 0
        let state = Mutex((next: 0, written: written, bytes: bytes, failure: (any Error)?.none))
        let workers = max(1, min(AvailableCores.count, 8, work.count))
        // The progress callback is called under the lock, one call at a time, never concurrently.
        let shared = UncheckedSendable((unpacker: unpacker, progress: progress, totals: totals))
        let (reader, fresh) = (reader, fresh)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let (unpacker, progress, totals) = shared.value
            while true {
                let index: Int? = state.withLock { state in
                    guard state.failure == nil, state.next < work.count else { return nil }
                    state.next += 1
                    return state.next - 1
                }
                guard let index else { return }
                let item = work[index]
                do {
                    try unpacker.write(
                        reader, body: item.file.body, modified: item.file.modified, name: item.name,
                        in: item.directory, fresh: fresh)
                    state.withLock {
                        $0.written += 1
                        $0.bytes += item.file.body.length
                        progress?($0.written, totals.files, $0.bytes, totals.bytes)
                    }
                } catch {
                    state.withLock { if $0.failure == nil { $0.failure = error } }
                    return
                }
            }
        }
        let outcome = state.withLock { $0 }
        written = outcome.written
        bytes = outcome.bytes
        if let failure = outcome.failure { throw failure }
    }
}

/// A value handed to worker threads whose use the code around it keeps safe (here: a callback
/// called only under a lock).
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
