import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes the planned files, in path order, in batches on every core: the producer makes each
/// batch's folders first (each folder once: in path order a folder's files are contiguous), keeping
/// the folders on its path open, then one worker per core decodes, verifies and writes the batch's
/// files, each taking the next, while the producer plans the next batch.
///
/// ```
/// producer:  plan 1 | plan 2     | plan 3     | …
/// workers:          | write 1    | write 2    | …   (batch n is written before n + 1 starts)
/// ```
final class FileBatchWriter {
    /// An open folder below the output, and its path there (for messages).
    struct Folder: Sendable {
        var name: String
        var descriptor: Int32
        var path: String
    }

    /// A file of a batch: the open folder it goes in, its name there, its plan.
    struct Item: Sendable {
        var folder: Folder
        var name: String
        var file: SiteUnpacker.PlannedFile
        var target: String { folder.path + "/" + name }
    }

    /// A batch being written, its outcome and the folders to close once it is done.
    private final class Batch: Sendable {
        let group = DispatchGroup()
        let state: Mutex<(next: Int, written: Int, bytes: UInt64, failure: (any Error)?)>
        let retired: [Int32]

        init(written: Int, bytes: UInt64, retired: [Int32]) {
            state = Mutex((0, written, bytes, nil))
            self.retired = retired
        }
    }

    private let unpacker: SiteUnpacker
    private let reader: ArchiveReader
    private let output: UnpackOutput
    private let progress: SiteUnpacker.Progress?
    /// Files and bytes to write in all: the plan's, less those found not to be written so far.
    private var totals: (files: Int, bytes: UInt64)
    private(set) var written = 0
    private(set) var bytes: UInt64 = 0
    private var batch: [Item] = []
    private var batchBytes: UInt64 = 0
    private var writing: Batch?
    private let root: Folder
    /// The folders below the root on the last file's path, outermost first, open.
    private var folders: [Folder] = []
    /// Folders left since the last batch began: closed once the batch that may use them is written.
    private var retired: [Int32] = []

    /// Files written at once, at most.
    static let batchFiles = 1024
    /// Folders left before a batch is written anyway (each holds a descriptor until then).
    static let retiredFolders = 64

    init(
        unpacker: SiteUnpacker, reader: ArchiveReader, output: UnpackOutput, progress: SiteUnpacker.Progress?,
        totals: (files: Int, bytes: UInt64)
    ) {
        self.unpacker = unpacker
        self.reader = reader
        self.output = output
        self.progress = progress
        self.totals = totals
        root = Folder(name: "", descriptor: output.descriptor, path: output.path)
    }

    deinit {
        writing?.group.wait()
        for descriptor in retired + (writing?.retired ?? []) + folders.map(\.descriptor) { close(descriptor) }
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
            folders[common].name.utf8.elementsEqual(wanted[wanted.startIndex + common].utf8)
        {
            common += 1
        }
        if common < folders.count {
            retired += folders[common...].map(\.descriptor)
            folders.removeLast(folders.count - common)
        }
        for segment in wanted.dropFirst(common) {
            folders.append(try Self.makeFolder(segment, in: folders.last ?? root, fresh: output.fresh))
        }
        batch.append(Item(folder: folders.last ?? root, name: path[path.count - 1], file: file))
        batchBytes += file.body.length
        if batch.count >= Self.batchFiles || batchBytes >= 64 << 20 || retired.count >= Self.retiredFolders {
            try flush()
        }
    }

    /// Writes the files still queued and waits for them.
    func finish() throws {
        try flush()
        try wait()
    }

    /// Makes (or, in an output that held files, finds) the folder `name` in `parent` and opens it;
    /// a file or a symbolic link in the way is refused, and never followed.
    static func makeFolder(_ name: String, in parent: Folder, fresh: Bool) throws -> Folder {
        let path = parent.path + "/" + name
        if mkdirat(parent.descriptor, name, 0o755) != 0 {
            // Also in a fresh output: a folder that differs only in case on a file system that
            // ignores case is the same folder.
            let code = errno
            guard code == EEXIST else {
                throw WebArcError.io(path: path, operation: .creating("create folder"), errno: code)
            }
        }
        let descriptor = openat(parent.descriptor, name, UnpackOutput.folderFlags)
        guard descriptor >= 0 else {
            let code = errno
            // ENOTDIR: a file; ELOOP: a symbolic link (O_NOFOLLOW).
            guard code == ENOTDIR || code == ELOOP else {
                throw WebArcError.io(path: path, operation: .creating("open folder"), errno: code)
            }
            throw WebArcError.io(
                path: path, operation: .creating("create folder (a file or link is in the way)"), errno: EEXIST)
        }
        return Folder(name: name, descriptor: descriptor, path: path)
    }

    /// Waits for the batch being written, then starts writing the queued files.
    private func flush() throws {
        try wait()
        guard !batch.isEmpty else { return }
        let work = batch
        batch = []
        batchBytes = 0
        let started = Batch(written: written, bytes: bytes, retired: retired)
        retired = []
        writing = started
        let workers = max(1, min(AvailableCores.count, 8, work.count))
        // The progress callback is called under the lock, one call at a time, never concurrently.
        let shared = UncheckedSendable((unpacker: unpacker, progress: progress, totals: totals))
        let (reader, fresh) = (reader, output.fresh)
        for _ in 0..<workers {
            DispatchQueue.global().async(group: started.group) {
                let (unpacker, progress, totals) = shared.value
                while true {
                    let index: Int? = started.state.withLock { state in
                        guard state.failure == nil, state.next < work.count else { return nil }
                        state.next += 1
                        return state.next - 1
                    }
                    guard let index else { return }
                    let item = work[index]
                    do {
                        if fresh {
                            try unpacker.writeNew(
                                reader, body: item.file.body, modified: item.file.modified, name: item.name,
                                in: item.folder.descriptor, target: item.target)
                        } else {
                            try unpacker.writeInPlace(
                                reader, body: item.file.body, modified: item.file.modified, name: item.name,
                                in: item.folder.path)
                        }
                        started.state.withLock {
                            $0.written += 1
                            $0.bytes += item.file.body.length
                            progress?($0.written, totals.files, $0.bytes, totals.bytes)
                        }
                    } catch {
                        started.state.withLock { if $0.failure == nil { $0.failure = error } }
                        return
                    }
                }
            }
        }
    }

    /// Waits for the batch being written, closes the folders it was the last to use, and throws
    /// its first failure.
    private func wait() throws {
        guard let done = writing else { return }
        writing = nil
        done.group.wait()
        for descriptor in done.retired { close(descriptor) }
        let outcome = done.state.withLock { ($0.written, $0.bytes, $0.failure) }
        written = outcome.0
        bytes = outcome.1
        if let failure = outcome.2 { throw failure }
    }
}

/// A value handed to worker threads whose use the code around it keeps safe (here: a callback
/// called only under a lock).
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
