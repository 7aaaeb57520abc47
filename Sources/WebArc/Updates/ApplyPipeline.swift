import Foundation

/// Reads and verifies the bodies of an applied update on worker threads, a bounded window ahead of
/// the writer, and codes each for the position it takes in the new archive; the writer takes them
/// in order on the calling thread.
///
/// ```
///   workers (one per core)                                    writer (caller's thread)
///   body i: read each chunk, check its digest ─▶ ChunkRecoder ─▶ prepared body ──▶ append, in order
///           (anchor: publish its last chunk's tail)   (reuse stored bytes or code again)
/// ```
///
/// Bodies are numbered by the position they take (spec Appendix C step 13: every response's body,
/// in insertion order), so each worker knows its body's dictionary from the number alone: the tail
/// of the anchor body's last chunk, published by the worker that read the anchor. The archive's
/// bytes therefore do not depend on the number of workers or their timing. Memory is bounded:
/// at most ``windowBytes`` of bodies (and at most 256 bodies) are in flight; bodies over
/// ``BodyTransfer/wholeLimit`` are left to the writer, which streams them.
final class ApplyPipeline: @unchecked Sendable {
    /// One body to read: the archive (a layer of the stack) and its reference there, or its bytes
    /// and their MD5 (a new body of a compact update).
    struct Job {
        var reader: ArchiveReader?
        var reference: BodyReference?
        var bytes: [UInt8]?
        var md5: BodyDigest?

        init(reader: ArchiveReader, reference: BodyReference) {
            self.reader = reader
            self.reference = reference
        }

        init(bytes: [UInt8], md5: BodyDigest) {
            self.bytes = bytes
            self.md5 = md5
        }
    }

    /// What a worker hands over for one body.
    enum Output {
        /// Coded for its position; `reused` of its chunks are stored bytes copied as they are.
        case prepared(PreparedBody, reused: Int)
        /// Too large to hold: the writer copies it itself, chunk by chunk.
        case streamed
    }

    /// Bytes of bodies in flight at once.
    let windowBytes: UInt64

    private let jobs: [Job]
    private let level: Int
    private let interval: Int
    private let reuseStoredChunks: Bool
    /// The new archive's Zstandard level (spec Appendix C step 15); nil: none.
    private let zstdLevel: Int?
    private let condition = NSCondition()
    private var outputs: [Int: Result<Output, any Error>] = [:]
    private var costs: [Int: UInt64] = [:]
    private var next = 0
    private var committed = 0
    private var inFlight: UInt64 = 0
    private var cancelled = false
    /// Anchor position → its last chunk's bytes (nil: an empty anchor): the Zstandard history of its
    /// dependants, whose last 64 KiB are their LZ4 dictionary.
    private var tails: [Int: [UInt8]?] = [:]
    /// Archive → the levels its writer recipe names (nil: no recipe).
    private var levels: [ObjectIdentifier: (level: Int, zstdLevel: Int?)?] = [:]

    /// - Parameters:
    ///   - jobs: the bodies in the order they are added (position 0 first).
    ///   - level: the new archive's compression level; `dictionaryInterval` its interval.
    ///   - reuseStoredChunks: false codes every chunk again (the writer's plain path).
    init(jobs: [Job], level: Int, dictionaryInterval: Int, zstdLevel: Int? = nil, reuseStoredChunks: Bool, windowBytes: UInt64 = 8 << 20) {
        self.jobs = jobs
        self.level = level
        self.zstdLevel = zstdLevel
        interval = dictionaryInterval
        self.reuseStoredChunks = reuseStoredChunks
        self.windowBytes = windowBytes
    }

    /// Runs the workers and calls `commit` with each body's output, in order.
    ///
    /// - Throws: the first error of a worker (a damaged chunk: `chunkDigest`, `corruptChunk`, …) or
    ///   of `commit`; the workers are stopped before it returns either way.
    func run(workers: Int, commit: (Int, Output) throws -> Void) throws {
        let count = max(1, min(workers, jobs.count))
        let group = DispatchGroup()
        for _ in 0..<count {
            group.enter()
            Thread.detachNewThread { [self] in
                work()
                group.leave()
            }
        }
        defer {
            condition.lock()
            cancelled = true
            condition.broadcast()
            condition.unlock()
            group.wait()
        }
        for index in jobs.indices {
            condition.lock()
            while outputs[index] == nil { condition.wait() }
            let output = outputs.removeValue(forKey: index)!
            condition.unlock()
            try commit(index, try output.get())
            condition.lock()
            committed = index + 1
            inFlight -= costs.removeValue(forKey: index) ?? 0
            // The last body using an anchor frees its tail (anchors only move forward).
            if interval > 0, DictionaryAnchors.isAnchor(index + 1, interval: interval),
                let anchor = DictionaryAnchors.anchor(of: index, interval: interval)
            {
                tails[anchor] = nil
            }
            condition.broadcast()
            condition.unlock()
        }
    }

    private func work() {
        var cached: (anchor: Int, dictionary: LZ4Dictionary?, history: [UInt8]?)?
        while true {
            condition.lock()
            while !cancelled && next < jobs.count && !(next == committed || (next - committed < 256 && inFlight < windowBytes)) {
                condition.wait()
            }
            guard !cancelled, next < jobs.count else {
                condition.unlock()
                return
            }
            let index = next
            next += 1
            condition.unlock()
            let isAnchor = DictionaryAnchors.isAnchor(index, interval: interval)
            let result = Result<Output, any Error> {
                var dictionary: LZ4Dictionary?
                var history: [UInt8]?
                if !isAnchor, let anchor = DictionaryAnchors.anchor(of: index, interval: interval) {
                    if cached?.anchor != anchor {
                        let lastChunk = waitForTail(of: anchor)
                        cached = (anchor, lastChunk.map { LZ4Dictionary(DictionaryAnchors.tail(ofBody: $0)) }, lastChunk)
                    }
                    dictionary = cached?.dictionary
                    history = cached?.history
                }
                let zstd = zstdLevel.flatMap { level in history.map { (level: level, history: $0) } }
                return try prepare(index, isAnchor: isAnchor, dictionary: dictionary, zstd: zstd)
            }
            condition.lock()
            if isAnchor, tails.index(forKey: index) == nil { tails[index] = .some(nil) }
            outputs[index] = result
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Reads body `index` (every chunk verified) and codes it for its position.
    private func prepare(_ index: Int, isAnchor: Bool, dictionary: LZ4Dictionary?, zstd: (level: Int, history: [UInt8])?) throws -> Output {
        let job = jobs[index]
        guard let reader = job.reader, let reference = job.reference else {
            let bytes = job.bytes ?? []
            reserve(index, cost: UInt64(bytes.count))
            if isAnchor { publishTail(index, Array(DictionaryAnchors.lastChunk(ofBody: bytes))) }
            return .prepared(bytes.withUnsafeBytes { PreparedBody(raw: $0, level: level, dictionary: dictionary, md5: job.md5, zstd: zstd) }, reused: 0)
        }
        let entry = try reader.bodyEntry(reference)
        try entry.checkLength()
        if entry.length > BodyTransfer.wholeLimit {
            if isAnchor, let last = entry.chunks.indices.last {
                publishTail(index, try reader.decodeChunk(entry, index: last))
            }
            return .streamed
        }
        reserve(index, cost: entry.length)
        // A remote layer fetches the body's chunks together, as a chunk iterator has it do.
        reader.announceChunks(of: entry, range: 0..<entry.length)
        var chunks: [VerifiedChunk] = []
        chunks.reserveCapacity(entry.chunks.count)
        for (position, chunk) in entry.chunks.enumerated() {
            let context = ChunkContext(body: entry.reference, index: position, page: entry.origin.page, position: entry.origin.position)
            chunks.append(try reader.read(chunk, context))
        }
        let cut = BodyTransfer.writerCut(entry) != nil
        if isAnchor {
            let lastChunk = cut ? chunks.last?.raw ?? [] : Array(DictionaryAnchors.lastChunk(ofBody: chunks.flatMap(\.raw)))
            publishTail(index, lastChunk)
        }
        guard cut else {
            // Cut otherwise than this writer cuts: chunked again, the digests of the new cut computed.
            let known = KnownDigests(md5: entry.reference.digest, sha256: entry.sha256, chunks: nil)
            let bytes = chunks.flatMap(\.raw)
            return .prepared(
                bytes.withUnsafeBytes { PreparedBody(raw: $0, level: level, dictionary: dictionary, known: known, zstd: zstd) }, reused: 0)
        }
        let coded = ChunkRecoder.code(
            chunks, level: level, dictionary: dictionary, levelOf: { [self] in reuseStoredChunks ? levels(of: $0)?.level : nil },
            zstd: zstd, zstdLevelOf: { [self] in reuseStoredChunks ? levels(of: $0)?.zstdLevel : nil })
        let body = PreparedBody(digest: entry.reference.digest, sha256: entry.sha256, length: entry.length, chunks: coded.chunks)
        return .prepared(body, reused: coded.reused)
    }

    /// The levels the writer recipe of `archive` names, read once per archive.
    private func levels(of archive: ArchiveReader) -> (level: Int, zstdLevel: Int?)? {
        let key = ObjectIdentifier(archive)
        condition.lock()
        if let known = levels[key] {
            condition.unlock()
            return known
        }
        condition.unlock()
        let recipe = (try? archive.metadata.writer) ?? nil
        let found = recipe.map { (level: $0.level, zstdLevel: $0.zstdLevel) }
        condition.lock()
        levels[key] = .some(found)
        condition.unlock()
        return found
    }

    private func reserve(_ index: Int, cost: UInt64) {
        condition.lock()
        costs[index] = cost
        inFlight += cost
        condition.unlock()
    }

    private func waitForTail(of anchor: Int) -> [UInt8]? {
        condition.lock()
        defer { condition.unlock() }
        while tails.index(forKey: anchor) == nil && !cancelled { condition.wait() }
        return tails[anchor] ?? nil
    }

    private func publishTail(_ index: Int, _ tail: [UInt8]) {
        condition.lock()
        tails[index] = .some(tail.isEmpty ? nil : tail)
        condition.broadcast()
        condition.unlock()
    }
}
