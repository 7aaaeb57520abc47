import Foundation

/// Reads and verifies the bodies of an applied update on worker threads, a bounded window ahead of
/// the writer, and codes each for the position it takes in the new archive; the writer takes them
/// in order on the calling thread.
///
/// ```
///   workers (one per core)                                    writer (caller's thread)
///   bodies i…j: read, decode ─▶ chunk digests ×16 ─▶ ChunkRecoder ─▶ prepared body ──▶ append, in order
///   (anchor: publish its last chunk's tail)      (reuse stored bytes or code again)
/// ```
///
/// A worker takes a run of consecutive bodies (up to ``batchBodies``) and handles it in batches of
/// up to ``batchBytes``: it reads and decodes every chunk of a batch, checks their SHA-256s
/// together, sixteen at a time (``SHA256Lanes``), then codes each body. A body with a chunk that
/// does not match is an error before any of its bytes are coded; an anchor's tail is published
/// when it is read, and a dependant coded against a damaged one is never written, for the
/// anchor's error comes first in the writer's order.
///
/// Bodies are numbered by the position they take (spec Appendix C step 13: every response's body,
/// in insertion order), so each worker knows its body's dictionary from the number alone: the tail
/// of the anchor body's last chunk, published by the worker that read the anchor. The archive's
/// bytes therefore do not depend on the number of workers or their timing. Memory is bounded:
/// a batch starts only while fewer than ``windowBytes`` of bodies (and 256 bodies) are in flight,
/// and holds at most ``batchBytes`` plus one body; bodies over ``BodyTransfer/wholeLimit`` are
/// left to the writer, which streams them.
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

    /// Bodies to read.
    private let jobCount: Int
    /// The job of body `index` (called from the workers, any number of times; it may read a
    /// scratch file, and so throw).
    private let job: (Int) throws -> Job
    /// The entry of body `index` when the caller has it at hand (from its record's leaf), so
    /// that reading it needs no descent of the body tree; nil: the body tree is searched.
    private let storedEntry: (Int) throws -> BodyEntry?
    private let level: Int
    /// Which positions are anchors (spec Appendix C step 13).
    private let anchors: AnchorPlan
    private let reuseStoredChunks: Bool
    private let copyUnchecked: Bool
    /// The new archive's Zstandard level (spec Appendix C step 15); nil: none.
    private let zstdLevel: Int?
    /// Where the new archive's writer places a codec-2 chunk's dictionary (step 13).
    private let placement: DictionaryPlacement
    private let condition = NSCondition()
    private var outputs: [Int: Result<Output, any Error>] = [:]
    private var costs: [Int: UInt64] = [:]
    private var next = 0
    private var committed = 0
    private var inFlight: UInt64 = 0
    private var cancelled = false
    /// Anchor position → its last chunk's bytes.
    private let tails = AnchorTails()
    /// Archive → its writer recipe (nil: none).
    private var recipes: [ObjectIdentifier: WriterRecipe?] = [:]

    /// - Parameters:
    ///   - jobCount, job: the bodies in the order they are added (position 0 first); `job` is
    ///     called from the worker threads.
    ///   - storedEntry: a stored body's entry if the caller has it (called from the workers).
    ///   - level: the new archive's compression level; `anchors` its anchor positions.
    ///   - reuseStoredChunks: false codes every chunk again (the writer's plain path).
    ///   - copyUnchecked: true copies a stored chunk that is reused as it is without decoding it
    ///     or checking its digest (``StoredCopy``), and codes the chunks it decodes (anchors,
    ///     bodies coded again) without checking theirs: the caller checks the written body data
    ///     instead, which holds every byte read or coded from them (a damaged chunk gives other
    ///     body data, and a damaged anchor other dictionaries for the bodies after it).
    init(
        jobCount: Int, job: @escaping (Int) throws -> Job,
        storedEntry: @escaping (Int) throws -> BodyEntry? = { _ in nil }, level: Int, anchors: AnchorPlan,
        zstdLevel: Int? = nil,
        placement: DictionaryPlacement,
        reuseStoredChunks: Bool,
        copyUnchecked: Bool = false,
        windowBytes: UInt64 = 8 << 20
    ) {
        self.jobCount = jobCount
        self.job = job
        self.storedEntry = storedEntry
        self.copyUnchecked = copyUnchecked && reuseStoredChunks && zstdLevel == nil
        self.level = level
        self.zstdLevel = zstdLevel
        self.placement = placement
        self.anchors = anchors
        self.reuseStoredChunks = reuseStoredChunks
        self.windowBytes = windowBytes
    }

    /// Runs the workers and calls `commit` with each body's output, in order.
    ///
    /// - Throws: the first error of a worker (a damaged chunk: `chunkDigest`, `corruptChunk`, …) or
    ///   of `commit`; the workers are stopped before it returns either way.
    func run(workers: Int, commit: (Int, Output) throws -> Void) throws {
        let count = max(1, min(workers, jobCount))
        let threads = WorkerThreads(count: count) { [self] _ in work(workers: count) }
        defer {
            condition.broadcast { cancelled = true }
            tails.cancel()
            threads.join()
        }
        for index in 0..<jobCount {
            condition.lock()
            while outputs[index] == nil { condition.wait() }
            let output = outputs.removeValue(forKey: index)!
            condition.unlock()
            try commit(index, try output.get())
            condition.lock()
            committed = index + 1
            inFlight -= costs.removeValue(forKey: index) ?? 0
            condition.broadcast()
            condition.unlock()
            // The last body using an anchor frees its tail (anchors only move forward).
            if anchors.isAnchor(index + 1), let anchor = anchors.anchor(of: index) {
                _ = tails.remove(anchor)
            }
        }
    }

    /// Bodies a worker takes at once, at most: their chunks' digests are checked together.
    static let batchBodies = 64
    /// Bytes of bodies a worker reads before checking and coding them, at most (beyond one body).
    static let batchBytes: UInt64 = 2 << 20

    private func work(workers: Int) {
        var cached:
            (anchor: Int, dictionary: LZ4Dictionary?, history: [UInt8]?, identity: StoredCopy.DictionaryIdentity?)?
        // The job of the body this worker handled last: the next one compares with it.
        var previous: (index: Int, job: Job)?
        while let run = take(workers: workers) {
            var start = run.lowerBound
            while start < run.upperBound && mayRead(from: start) {
                var batch: [(index: Int, fetched: Result<Fetched, any Error>, job: Job?)] = []
                var bytes: UInt64 = 0
                while start < run.upperBound && (batch.isEmpty || bytes < Self.batchBytes) {
                    let index = start
                    start += 1
                    // Each job is read once (a read of the apply log for a stored body).
                    let job = Result { try self.job(index) }
                    let fetched = Result { try fetch(index, job: job.get(), isAnchor: anchors.isAnchor(index)) }
                    if case .success(let body) = fetched { bytes += body.length }
                    batch.append((index, fetched, try? job.get()))
                }
                if !copyUnchecked {
                    Self.checkDigests(&batch) { [self] index, entry, chunk in
                        (try? job(index))?.reader.flatMap { Self.recheck(entry, chunk: chunk, in: $0) }
                    }
                }
                for (index, fetched, job) in batch {
                    let before =
                        index == 0 ? nil : previous?.index == index - 1 ? previous?.job : try? self.job(index - 1)
                    previous = job.map { (index, $0) }
                    let result = Result<Output, any Error> {
                        var dictionary: LZ4Dictionary?
                        var history: [UInt8]?
                        if !anchors.isAnchor(index), let anchor = anchors.anchor(of: index) {
                            if cached?.anchor != anchor {
                                let lastChunk = tails.wait(for: anchor)
                                cached = (
                                    anchor,
                                    lastChunk.map {
                                        LZ4Dictionary(DictionaryAnchors.tail(ofBody: $0), placement: placement)
                                    }, lastChunk,
                                    copyUnchecked ? lastChunk.map(StoredCopy.DictionaryIdentity.init(lastChunk:)) : nil
                                )
                            }
                            dictionary = cached?.dictionary
                            history = cached?.history
                        }
                        let zstd = zstdLevel.flatMap { level in history.map { (level: level, history: $0) } }
                        var body = try fetched.get()
                        if Self.repeats(job, before) {
                            if case .stored(let copy) = body { body = try copy.read() }
                            if case .chunks(let entry, let chunks) = body, BodyTransfer.writerCut(entry) != nil {
                                return .prepared(Self.repeated(entry, chunks), reused: chunks.count)
                            }
                        }
                        if case .stored(let copy) = body {
                            let identity = dictionary == nil ? nil : cached?.identity
                            if let prepared = copy.prepared(
                                level: level, dictionary: dictionary, identity: identity,
                                recipeOf: { [self] in recipe(of: $0) })
                            {
                                return .prepared(prepared, reused: prepared.chunks.count)
                            }
                            body = try copy.read()
                        }
                        return try code(body, dictionary: dictionary, zstd: zstd)
                    }
                    record(index, result)
                }
            }
        }
    }

    /// Whether a body (its job `this`) is the body before it (`before`) again (the same body of
    /// the same layer: a folder's index.html answering twice), which the writer takes as a duplicate whatever its
    /// position, so that coding it for its position (an anchor's, or against the dictionary of the
    /// anchor the body before it may be) would be thrown away.
    private static func repeats(_ this: Job?, _ before: Job?) -> Bool {
        guard let this, let before, let reference = this.reference, let reader = this.reader,
            let previous = before.reader
        else { return false }
        return previous === reader && before.reference == reference
    }

    /// A repeated body as the writer's duplicate check needs it: its digests, and its chunks'
    /// bytes held raw (no LZ4 run), which a duplicate never stores. The chunks must be cut as the
    /// writer cuts them: the last one is the anchor's dictionary.
    static func repeated(_ entry: BodyEntry, _ chunks: [VerifiedChunk]) -> PreparedBody {
        let raw = chunks.map { chunk in
            chunk.raw.withUnsafeBytes { ChunkEncoder.encode($0, level: 1, storeRaw: true, digest: chunk.entry.digest) }
        }
        return PreparedBody(digest: entry.reference.digest, sha256: entry.sha256, length: entry.length, chunks: raw)
    }

    /// The next run of bodies to read, or nil when none is left or the pipeline was cancelled.
    /// Towards the end, a run is a share of what is left, so that the workers end together.
    private func take(workers: Int) -> Range<Int>? {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled && next < jobCount && !mayTake(next) { condition.wait() }
        guard !cancelled, next < jobCount else { return nil }
        let share = max(1, (jobCount - next) / (2 * workers))
        let end = min(jobCount, next + min(Self.batchBodies, share), max(next + 1, committed + 256))
        defer { next = end }
        return next..<end
    }

    /// Waits until body `index` fits in the window (the writer's next body always does); false
    /// when the pipeline was cancelled.
    private func mayRead(from index: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled && !mayTake(index) { condition.wait() }
        return !cancelled
    }

    /// Whether body `index` may be read now: it is the writer's next, or the bodies in flight
    /// leave room for it.
    private func mayTake(_ index: Int) -> Bool {
        index == committed || (index - committed < 256 && inFlight < windowBytes)
    }

    /// Hands body `index`'s output to the writer; an anchor that published no tail (it failed)
    /// publishes none, so that its dependants do not wait for it.
    private func record(_ index: Int, _ result: Result<Output, any Error>) {
        if anchors.isAnchor(index) { tails.publishNoneIfMissing(index) }
        condition.lock()
        outputs[index] = result
        condition.broadcast()
        condition.unlock()
    }

    /// Reads body `index`: a compact update's new bytes, or each chunk of a layer's body read and
    /// decoded, its digest left to ``checkDigests(_:recheck:)``. An anchor publishes its last chunk's tail.
    private func fetch(_ index: Int, job: Job, isAnchor: Bool) throws -> Fetched {
        guard let reader = job.reader, let reference = job.reference else {
            let bytes = job.bytes ?? []
            reserve(index, cost: UInt64(bytes.count))
            if isAnchor { tails.publish(index, lastChunk: Array(DictionaryAnchors.lastChunk(ofBody: bytes))) }
            return .bytes(bytes, md5: job.md5)
        }
        let entry = try reader.bodyEntry(reference, known: storedEntry(index))
        try entry.checkLength()
        if entry.length > BodyTransfer.wholeLimit {
            if isAnchor, let last = entry.chunks.indices.last {
                tails.publish(index, lastChunk: try reader.decodeChunk(entry, index: last))
            }
            return .streamed
        }
        reserve(index, cost: entry.length)
        if entry.isSlice {
            // A slice's bytes come from its group, decoded and checked once for its neighbours.
            var bytes: [UInt8] = []
            try reader.verifyBody(entry) { bytes += $0 }
            if isAnchor { tails.publish(index, lastChunk: Array(DictionaryAnchors.lastChunk(ofBody: bytes))) }
            return .bytes(bytes, md5: entry.reference.digest)
        }
        if copyUnchecked && !isAnchor,
            let copy = try StoredCopy(entry, from: reader, dictionaries: anchors.interval > 0)
        {
            return .stored(copy)
        }
        let chunks = try Self.readChunks(of: entry, from: reader)
        if isAnchor {
            let cut = BodyTransfer.writerCut(entry) != nil
            tails.publish(
                index,
                lastChunk: cut
                    ? chunks.last?.raw ?? [] : Array(DictionaryAnchors.lastChunk(ofBody: chunks.flatMap(\.raw))))
        }
        return .chunks(entry, chunks)
    }

    /// Codes a body read and checked for its position.
    private func code(
        _ fetched: Fetched, dictionary: LZ4Dictionary?, zstd: (level: Int, history: [UInt8])?
    ) throws -> Output {
        switch fetched {
        case .bytes(let bytes, let md5):
            return .prepared(
                bytes.withUnsafeBytes {
                    PreparedBody(raw: $0, level: level, dictionary: dictionary, md5: md5, zstd: zstd)
                }, reused: 0)
        case .streamed:
            return .streamed
        case .stored(let copy):
            return try code(try copy.read(), dictionary: dictionary, zstd: zstd)
        case .chunks(let entry, let chunks):
            guard BodyTransfer.writerCut(entry) != nil else {
                // Cut otherwise than this writer cuts: chunked again, the digests of the new cut computed.
                let known = KnownDigests(md5: entry.reference.digest, sha256: entry.sha256, chunks: nil)
                let bytes = chunks.flatMap(\.raw)
                return .prepared(
                    bytes.withUnsafeBytes {
                        PreparedBody(raw: $0, level: level, dictionary: dictionary, known: known, zstd: zstd)
                    }, reused: 0)
            }
            let coded = ChunkRecoder.code(
                chunks, level: level, dictionary: dictionary,
                recipeOf: { [self] in reuseStoredChunks ? recipe(of: $0) : nil }, zstd: zstd)
            let body = PreparedBody(
                digest: entry.reference.digest, sha256: entry.sha256, length: entry.length, chunks: coded.chunks)
            return .prepared(body, reused: coded.reused)
        }
    }

    /// The writer recipe of `archive`, read once per archive.
    private func recipe(of archive: ArchiveReader) -> WriterRecipe? {
        let key = ObjectIdentifier(archive)
        condition.lock()
        if let known = recipes[key] {
            condition.unlock()
            return known
        }
        condition.unlock()
        let found = (try? archive.metadata.writer) ?? nil
        condition.lock()
        recipes[key] = .some(found)
        condition.unlock()
        return found
    }

    private func reserve(_ index: Int, cost: UInt64) {
        condition.lock()
        costs[index] = cost
        inFlight += cost
        condition.unlock()
    }
}
