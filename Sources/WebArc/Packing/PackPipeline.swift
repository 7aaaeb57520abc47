import Crypto
import Foundation

/// Reads, hashes and compresses files on worker threads, a bounded window ahead of the writer,
/// and hands them to the writer in order on the calling thread.
///
/// ```
///   workers (one per core)                                        writer (caller's thread)
///   files i…j: read once → MD5, SHA-256 ×16 → file i seen before? ──yes──▶ likely duplicate: reused
///                                                  │no                      when its body hash agrees
///                                                  ▼
///   LZ4 (chunk 0 against its anchor's dictionary) → prepared body / chunk queue ──▶ append, in order
/// ```
///
/// A worker takes whole files in batches of consecutive ones (up to 256 files and a third of the
/// window), so that their MD5s and SHA-256s are computed sixteen side by side in ``MD5Lanes`` and
/// ``SHA256Lanes`` (a batch long enough that its 256 KiB chunks fill lanes too), then codes them
/// and hands them over in order, ``handOverFiles`` at a time; a file that streams is a batch of
/// its own.
///
/// Memory is bounded: whole files up to ``wholeLimit`` are held while in flight, at most
/// ``windowBytes`` of them; larger files stream through a queue of a few chunks. A file's bytes are
/// read once and never copied whole again. The archive's bytes do not depend on the number of
/// workers or their timing: each body's dictionary follows from its position (spec Appendix C
/// step 13), and a body a worker did not code (a likely duplicate) is coded by the writer when it
/// turns out new.
final class PackPipeline: @unchecked Sendable {
    /// What a worker hands over for one file.
    enum Output {
        case prepared(PreparedBody)
        /// A file whose MD5 and length equal an earlier file's: hashed, not coded.
        case likelyDuplicate([UInt8], KnownDigests)
        /// A file that streams and whose length and body hash equal an earlier streamed file's:
        /// read and hashed once, not coded; its last chunk (for an anchor) and its length.
        case streamedDuplicate(KnownDigests, length: UInt64, lastChunk: [UInt8])
        case streamed
    }

    /// One file's place in the window.
    final class Slot {
        var output: Output?
        var chunks: [ChunkEncoder.Encoded] = []
        var streamEnd: (digest: BodyDigest, sha256: SHA256Hash, length: UInt64)?
        var failure: (any Error)?
        /// Queued chunks beyond ``PackPipeline/queuedChunks``, counted in the window.
        var borrowed = 0
        /// The folded MD5 and length under which this file is in ``PackPipeline/claimedFirst``.
        var claimedKey: UInt64?
    }

    /// Files at most this large are read whole; larger ones stream.
    let wholeLimit: UInt64
    /// Bytes of whole files in flight at once.
    let windowBytes: UInt64
    /// Chunks of a streamed file queued ahead of the writer, always (the window counts them from
    /// the file's claim).
    static let queuedChunks = 4
    /// Chunks of a streamed file queued ahead of the writer at most: those beyond
    /// ``queuedChunks`` only while the window has room, and counted in it until the writer takes
    /// them. A file that streams early in the order (while the writer still waits for the files
    /// before it) would otherwise hold its worker idle after four chunks.
    static let maxQueuedChunks = 16
    /// Files claimed ahead of the writer at most, however small (the window bounds their bytes).
    /// Several batches' worth: a limit near one batch of small files stopped the second worker at
    /// the start, while the writer had committed only the first few files.
    static let filesAhead = 1024
    /// Whole files a worker reads and hashes together (``MD5Lanes``: sixteen lanes, each taking
    /// the next file when its own ends).
    let batchFiles: Int
    /// Bytes a worker reads ahead for one batch, at most: a third of the window, and towards the
    /// end a share of what is left, so that the last batches end together.
    let batchBytes: UInt64
    /// Whole files a worker prepares before it hands them to the writer together
    /// (``handOver(_:)``): waking the writer for each file had the three threads switching
    /// contexts for every file; in groups they switch a fraction as often
    /// (measurements: Tools/bench/NOTES.md, 'PackPipeline').
    static let handOverFiles = 16
    /// Whether MD5s and SHA-256s are computed in lanes (``MD5Lanes/digests(of:lanes:)``,
    /// ``SHA256Lanes/bodyHashes(of:lanes:)``) or one by one.
    let laneHashing: Bool

    /// File `index`'s path, for those that stream (unused when the bodies come from another source).
    private let path: @Sendable (Int) -> String
    /// Reads body `index` whole: a file, or an item of another source (a ZIM's).
    private let readWhole: @Sendable (Int) throws -> [UInt8]
    /// Bodies in all, and each one's size (what `readWhole` will give, near enough), by index.
    private let count: Int
    private let size: @Sendable (Int) -> UInt64
    private let level: Int
    /// Bodies of 1 to this many bytes are handed over uncompressed: a grouping writer codes them
    /// in their group (spec Appendix C step 16); 0: none. Set before ``run``.
    var uncodedUpTo = 0
    /// Where the archive's writer places a codec-2 chunk's dictionary (step 13).
    private let placement: DictionaryPlacement
    /// Which positions are anchors (spec Appendix C step 13): set by ``run(workers:plan:prepare:commit:)``
    /// while the workers read and hash the first files; read only after ``awaitPlan()`` (or by the
    /// writer, which sets it), so the lock orders the write before every read.
    private var plannedAnchors: AnchorPlan?
    private var anchors: AnchorPlan { plannedAnchors! }
    private let firstPosition: Int
    /// The position each file's body takes (spec Appendix C step 13): a file takes the positions
    /// up to the next one's, two for a folder's index.html, whose body answers a second response
    /// (folder/).
    private let positions: FilePositions
    /// Whether a file streams and an earlier one that streams has its size: such a file is hashed
    /// before it is coded, as it is likely a duplicate (media repeated across a site).
    private let repeatsSize: [Bool]
    private let condition = NSCondition()
    /// The slots of the files claimed and not yet committed (at most ``filesAhead``), by index.
    private var slots: [Int: Slot] = [:]
    private var next = 0
    private var committed = 0
    private var inFlight: UInt64 = 0
    private var cancelled = false
    private var workerCount = 1
    /// Bytes of the files no worker has taken yet.
    private var unclaimedBytes: UInt64
    /// Anchor file index → its last chunk's bytes.
    private let tails = AnchorTails()
    /// Appendix C step 15's Zstandard level, tried by the workers; nil: off.
    private let zstdLevel: Int?
    /// MD5 and length, folded into 64 bits (``BodyKey/folded``) → the first whole file seen with
    /// them, among the files not yet committed: those committed are asked of ``isStored``, so the
    /// table holds about a window's files, not one entry a file.
    private var claimedFirst: [UInt64: Int] = [:]
    /// Whether the writer holds a body with this MD5: a committed file's or any other (see
    /// ``lookUpStoredBodies(with:)``).
    private var isStored: (@Sendable (BodyDigest) -> Bool)?

    /// Body hash and length → the first streamed file seen with them, and its MD5.
    private var streamedBodies: [StreamedKey: (index: Int, md5: BodyDigest)] = [:]

    private struct StreamedKey: Hashable {
        var sha256: SHA256Hash
        var length: UInt64
    }

    private struct BodyKey: Hashable {
        var digest: BodyDigest
        var length: Int

        /// 64 bits of the MD5 mixed with the length. Two different bodies that fold alike are
        /// only taken for likely duplicates: the writer then compares MD5, length and body hash
        /// and codes the second itself, so the archive is the same.
        var folded: UInt64 { digest.high ^ (UInt64(length) &* 0x9E37_79B9_7F4A_7C15) }
    }

    /// - Parameter spans: positions each file's body takes: one per response record it answers.
    /// - Parameter batchFiles: whole files read and hashed together at most; 1: one at a time.
    convenience init(
        files: ScannedFiles, spans: some Sequence<Int>, level: Int, zstdLevel: Int? = nil,
        placement: DictionaryPlacement,
        firstPosition: Int,
        wholeLimit: UInt64, windowBytes: UInt64, batchFiles: Int = 16 * MD5Lanes.count,
        laneHashing: Bool = MD5Lanes.isAvailable
    ) {
        // Each path and size is taken from the list when its file is read: lists of them would
        // grow with the site.
        self.init(
            path: { files[$0].readPath }, count: files.count, size: { files.size(at: $0) },
            read: {
                let file = files[$0]
                // A list parked in scratch files that could not be read back gives empty files.
                try files.checkReadable()
                return try FileInput.readAll(file.readPath, expectedSize: Int(file.size))
            },
            spans: spans, level: level,
            zstdLevel: zstdLevel, placement: placement, firstPosition: firstPosition, wholeLimit: wholeLimit,
            windowBytes: windowBytes,
            batchFiles: batchFiles, laneHashing: laneHashing)
    }

    /// `count` bodies that `read` gives whole, by index, `size` bytes each; `path` names the files
    /// of those over `wholeLimit`, which stream (none when `wholeLimit` is at least every size).
    init(
        path: @escaping @Sendable (Int) -> String, count: Int, size: @escaping @Sendable (Int) -> UInt64,
        read: @escaping @Sendable (Int) throws -> [UInt8],
        spans: some Sequence<Int>, level: Int,
        zstdLevel: Int?,
        placement: DictionaryPlacement, firstPosition: Int, wholeLimit: UInt64, windowBytes: UInt64, batchFiles: Int,
        laneHashing: Bool
    ) {
        self.batchFiles = max(1, batchFiles)
        batchBytes = max(windowBytes / 3, 1)
        self.laneHashing = laneHashing
        self.zstdLevel = zstdLevel
        positions = FilePositions(first: firstPosition, spans: spans)
        precondition(positions.count == count, "a span for each body")
        self.path = path
        self.count = count
        self.size = size
        readWhole = read
        var streamedSizes = Set<UInt64>()
        var total: UInt64 = 0
        repeatsSize = (0..<count).map { index in
            let bytes = size(index)
            total += bytes
            return bytes > wholeLimit && !streamedSizes.insert(bytes).inserted
        }
        self.level = level
        self.placement = placement
        self.firstPosition = firstPosition
        self.wholeLimit = wholeLimit
        self.windowBytes = windowBytes
        unclaimedBytes = total
    }

    /// Has the workers ask `isStored` whether the writer already holds a body (by MD5) before
    /// they code it: such a file goes to the writer as a likely duplicate, as one whose MD5 an
    /// earlier file in flight has. Set it once the writer exists (before, it holds no body of
    /// these files); `isStored` must be safe to call from any thread.
    func lookUpStoredBodies(with isStored: @escaping @Sendable (BodyDigest) -> Bool) {
        condition.lock()
        self.isStored = isStored
        condition.unlock()
    }

    /// The CPU each worker keeps to, or nil to leave them where the scheduler puts them (one
    /// worker, or more workers than CPUs).
    ///
    /// With a worker per core and the writer's thread beside them, the scheduler often had both
    /// workers take turns on one core while the other stood idle, waiting for its balancing to
    /// move a task it deemed cache-hot; a worker that lost its core this way while holding malloc's
    /// lock held up the other worker too. Kept to a core each, the workers never share one; the
    /// writer runs on either. Work is claimed batch by batch, so a worker whose core is busier
    /// (another program) just takes fewer. The archive does not depend on it
    /// (measurements: Tools/bench/NOTES.md, 'PackPipeline').
    static func coresToKeepTo(workers: Int) -> [Int]? {
        let cpus = AvailableCores.cpus
        return workers > 1 && workers <= cpus.count ? Array(cpus.prefix(workers)) : nil
    }

    /// Runs the workers; on the calling thread, meanwhile, `plan` (the anchor positions, which
    /// the workers need only to code: they read and hash the first files before it is known), then
    /// `prepare` while they code; then calls `commit` for each file in order with the writer-side
    /// handle.
    ///
    /// - Throws: the first error of `plan`, `prepare`, a worker (naming the file) or `commit`; the
    ///   workers are stopped before it returns either way.
    func run(
        workers: Int, plan: () throws -> AnchorPlan, prepare: () throws -> Void = {},
        commit: (Int, Output, Slot) throws -> Void
    ) throws {
        workerCount = max(1, min(workers, count))
        let cores = Self.coresToKeepTo(workers: workerCount)
        let threads = WorkerThreads(count: workerCount) { [self] number in
            if let cores { AvailableCores.keepCurrentThread(on: cores[number]) }
            work()
        }
        defer {
            condition.broadcast { cancelled = true }
            tails.cancel()
            threads.join()
        }
        let anchors = try plan()
        condition.lock()
        plannedAnchors = anchors
        condition.broadcast()
        condition.unlock()
        try prepare()
        for index in 0..<count {
            condition.lock()
            while slots[index]?.output == nil && slots[index]?.failure == nil { condition.wait() }
            let slot = slots[index]!
            condition.unlock()
            if let failure = slot.failure { throw failure }
            try commit(index, slot.output!, slot)
            // The slot and a tail no longer needed are freed after the lock is let go: free takes
            // malloc's lock, which a worker may hold, and the workers wait on this one.
            condition.lock()
            committed = index + 1
            inFlight -= cost(index)
            let freedSlot = slots[index]
            slots[index] = nil
            // Committed, the file's body is the writer's, which ``isStored`` answers for.
            if let key = freedSlot?.claimedKey, claimedFirst[key] == index { claimedFirst[key] = nil }
            condition.broadcast()
            condition.unlock()
            // The last file using an anchor frees its tail (anchors only move forward).
            var freedTail: [UInt8]??
            if let anchor = anchorIndex(of: index), index + 1 == count || anchorIndex(of: index + 1) != anchor {
                freedTail = tails.remove(anchor)
            }
            withExtendedLifetime((freedSlot, freedTail)) {}
        }
    }

    /// The next encoded chunk of a streamed file, or nil at its end (then `streamEnd` is set).
    func nextChunk(of slot: Slot) throws -> ChunkEncoder.Encoded? {
        condition.lock()
        defer { condition.unlock() }
        while slot.chunks.isEmpty && slot.streamEnd == nil && slot.failure == nil { condition.wait() }
        if let failure = slot.failure { throw failure }
        if slot.chunks.isEmpty { return nil }
        let chunk = slot.chunks.removeFirst()
        if slot.borrowed > max(0, slot.chunks.count - Self.queuedChunks) {
            slot.borrowed -= 1
            inFlight -= UInt64(ChunkEntry.maxRawLength)
        }
        condition.broadcast()
        return chunk
    }

    private func cost(_ index: Int) -> UInt64 {
        size(index) <= wholeLimit ? size(index) : UInt64(Self.queuedChunks * ChunkEntry.maxRawLength)
    }

    /// The file index of the anchor whose dictionary `index` uses, or nil (dictionaries off, or an
    /// anchor before the first file).
    private func anchorIndex(of index: Int) -> Int? {
        guard let anchor = anchors.anchor(of: positions.start(index)), anchor >= firstPosition else { return nil }
        // The last file starting at or before the anchor position holds it.
        var low = 0
        var high = index
        while low < high {
            let middle = (low + high + 1) / 2
            if positions.start(middle) <= anchor { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Whether one of the positions of file `index` is an anchor's, so its tail is a dictionary.
    private func needsTail(_ index: Int) -> Bool {
        (positions.start(index)..<positions.start(index + 1)).contains { anchors.isAnchor($0) }
    }

    /// Waits until the anchor plan is set; false when the run was cancelled first.
    private func awaitPlan() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while plannedAnchors == nil && !cancelled { condition.wait() }
        return plannedAnchors != nil
    }

    /// Whether the anchor plan is set already.
    private var planIsSet: Bool {
        condition.lock()
        defer { condition.unlock() }
        return plannedAnchors != nil
    }

    private func work() {
        var cached: (anchor: Int, dictionary: LZ4Dictionary?, history: [UInt8]?)?
        while let batch = claim() {
            if batch.count == 1 && size(batch[0]) > wholeLimit {
                let index = batch[0]
                let slot = slots(batch)[0]
                guard awaitPlan() else { return }
                do {
                    if repeatsSize[index], let duplicate = try hashAhead(index) {
                        condition.lock()
                        slot.output = duplicate
                        condition.broadcast()
                        condition.unlock()
                    } else {
                        try stream(index, slot: slot, slotInfo: slotInfo(index, cached: &cached).slot)
                    }
                } catch {
                    fail(index, slot: slot, error)
                }
            } else {
                prepareWhole(batch, cached: &cached)
            }
        }
    }

    /// The next files to prepare, in order: one file that streams, or whole files as many as
    /// ``batchFiles`` and ``batchBytes`` allow and the window has room for; nil when none are left
    /// or the run is cancelled. Waits while the window is full.
    private func claim() -> [Int]? {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled && next < count
            && !(next == committed || (next - committed < Self.filesAhead && inFlight + cost(next) <= windowBytes))
        {
            condition.wait()
        }
        guard !cancelled, next < count else { return nil }
        var batch: [Int] = []
        var bytes: UInt64 = 0
        let limit = max(UInt64(ChunkEntry.maxRawLength), min(batchBytes, unclaimedBytes / UInt64(2 * workerCount)))
        repeat {
            batch.append(next)
            bytes += size(next)
            inFlight += cost(next)
            slots[next] = Slot()
            next += 1
        } while size(batch[0]) <= wholeLimit && batch.count < batchFiles && next < count
            && size(next) <= wholeLimit
            && bytes + size(next) <= limit && next - committed < Self.filesAhead
            && inFlight + cost(next) <= windowBytes
        unclaimedBytes -= bytes
        return batch
    }

    private func slots(_ batch: [Int]) -> [Slot] {
        condition.lock()
        defer { condition.unlock() }
        return batch.map { slots[$0]! }
    }

    /// File `index`'s position, whether it is an anchor, and the dictionary and history (the
    /// anchor's last chunk) its position gives it; waits for its anchor's tail when needed.
    private func slotInfo(
        _ index: Int, cached: inout (anchor: Int, dictionary: LZ4Dictionary?, history: [UInt8]?)?
    ) -> (slot: (position: Int, isAnchor: Bool, dictionary: LZ4Dictionary?), history: [UInt8]?) {
        let position = positions.start(index)
        var dictionary: LZ4Dictionary?
        var history: [UInt8]?
        if !anchors.isAnchor(position), let anchor = anchorIndex(of: index) {
            if cached?.anchor != anchor {
                let lastChunk = tails.wait(for: anchor)
                cached = (
                    anchor, lastChunk.map { LZ4Dictionary(DictionaryAnchors.tail(ofBody: $0), placement: placement) },
                    lastChunk
                )
            }
            dictionary = cached?.dictionary
            history = cached?.history
        }
        return ((position, anchors.isAnchor(position), dictionary), history)
    }

    private func fail(_ index: Int, slot: Slot, _ error: any Error) {
        tails.publishNoneIfMissing(index)
        condition.lock()
        slot.failure = error
        condition.broadcast()
        condition.unlock()
    }

    private func publishTail(_ index: Int, _ lastChunk: [UInt8]) {
        guard needsTail(index) else { return }
        tails.publish(index, lastChunk: lastChunk)
    }

    /// Reads a batch of whole files, hashes them sixteen at a time (their MD5s in ``MD5Lanes``,
    /// then their SHA-256s in ``SHA256Lanes``), then codes each (or hands it over as a likely
    /// duplicate) and hands it to the writer, in order.
    ///
    /// Every file of the batch is read, and its tail published, before any waits for an anchor's
    /// tail: a later file of the batch may need an earlier one's.
    private func prepareWhole(
        _ batch: [Int], cached: inout (anchor: Int, dictionary: LZ4Dictionary?, history: [UInt8]?)?
    ) {
        let batchSlots = slots(batch)
        // The first batches are read and hashed while the writer's thread works out the plan;
        // their anchors' tails are published once it is known.
        let planned = planIsSet
        var read: [(index: Int, slot: Slot)] = []
        var contents: [[UInt8]] = []
        for (index, slot) in zip(batch, batchSlots) {
            do {
                let bytes = try readWhole(index)
                if planned && needsTail(index) { publishTail(index, Array(DictionaryAnchors.lastChunk(ofBody: bytes))) }
                read.append((index, slot))
                contents.append(bytes)
            } catch {
                fail(index, slot: slot, error)
            }
        }
        let digests = MD5Lanes.digests(of: contents, lanes: laneHashing)
        // Which files are likely duplicates of earlier ones (hashed, not coded here) is settled
        // first. Every file's SHA-256s are computed together, sixteen chunks at a time: a
        // duplicate's body hash is what lets the writer take it as equal without decoding the
        // stored body (spec §6.3).
        var earlier: [Bool] = []
        condition.lock()
        for (number, (index, slot)) in read.enumerated() {
            earlier.append(
                seenFirst(BodyKey(digest: digests[number], length: contents[number].count), at: index, slot: slot))
        }
        condition.unlock()
        let hashes = SHA256Lanes.bodyHashes(of: contents, lanes: laneHashing)
        guard awaitPlan() else { return }
        if !planned {
            for (number, (index, _)) in read.enumerated() where needsTail(index) {
                publishTail(index, Array(DictionaryAnchors.lastChunk(ofBody: contents[number])))
            }
        }
        var ready: [(Slot, Output)] = []
        defer { handOver(ready) }
        for (number, (index, slot)) in read.enumerated() {
            // Each file's bytes are let go of once handed over.
            let bytes = contents[number]
            contents[number] = []
            let digest = digests[number]
            condition.lock()
            let stop = cancelled
            condition.unlock()
            if stop { return }
            let output: Output
            let known = KnownDigests(md5: digest, sha256: hashes[number].sha256, chunks: hashes[number].chunks)
            if !earlier[number] && !bytes.isEmpty && bytes.count <= uncodedUpTo {
                let chunk = ChunkEncoder.Encoded(
                    stored: bytes, rawLength: bytes.count, codec: .raw, digest: hashes[number].sha256)
                output = .prepared(
                    PreparedBody(
                        digest: digest, sha256: hashes[number].sha256, length: UInt64(bytes.count), chunks: [chunk])
                )
            } else if !earlier[number] {
                let info = slotInfo(index, cached: &cached)
                let zstd = zstdLevel.flatMap { level in info.history.map { (level, $0) } }
                output = .prepared(
                    bytes.withUnsafeBytes {
                        PreparedBody(raw: $0, level: level, dictionary: info.slot.dictionary, known: known, zstd: zstd)
                    })
            } else {
                output = .likelyDuplicate(bytes, known)
            }
            ready.append((slot, output))
            if ready.count >= Self.handOverFiles {
                handOver(ready)
                ready.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Hands prepared files to the writer at once, with one wake-up.
    ///
    /// Nothing but the writer waits for them (an anchor's tail is published when it is read), and
    /// what the writer waits for never depends on a later file: a dependant's anchor comes before
    /// it, so holding a few back cannot deadlock.
    private func handOver(_ ready: [(Slot, Output)]) {
        guard !ready.isEmpty else { return }
        condition.lock()
        for (slot, output) in ready { slot.output = output }
        condition.broadcast()
        condition.unlock()
    }

    private func stream(
        _ index: Int, slot: Slot, slotInfo: (position: Int, isAnchor: Bool, dictionary: LZ4Dictionary?)
    ) throws {
        condition.lock()
        slot.output = .streamed
        condition.broadcast()
        condition.unlock()
        var raw = RawBodyStream(level: level, slot: slotInfo)
        var lastPiece: [UInt8] = []
        func emit(_ chunk: ChunkEncoder.Encoded) throws {
            condition.lock()
            defer { condition.unlock() }
            func mayBorrow() -> Bool {
                slot.chunks.count < Self.maxQueuedChunks && inFlight + UInt64(ChunkEntry.maxRawLength) <= windowBytes
            }
            while slot.chunks.count >= Self.queuedChunks && !mayBorrow() && !cancelled { condition.wait() }
            if cancelled { throw CancellationError() }
            slot.chunks.append(chunk)
            if slot.chunks.count > Self.queuedChunks {
                slot.borrowed += 1
                inFlight += UInt64(ChunkEntry.maxRawLength)
            }
            condition.broadcast()
        }
        try FileInput.forEachPiece(of: path(index)) { piece in
            if needsTail(index) { lastPiece = Array(piece) }
            try raw.append(piece, emit: emit)
        }
        try raw.flush(emit)
        // Pieces are chunk-sized, so the last piece is the last chunk.
        publishTail(index, lastPiece)
        condition.lock()
        slot.streamEnd = (raw.digest, raw.sha256Hash, raw.length)
        let key = StreamedKey(sha256: raw.sha256Hash, length: raw.length)
        if streamedBodies[key].map({ index < $0.index }) ?? true { streamedBodies[key] = (index, raw.digest) }
        condition.broadcast()
        condition.unlock()
    }

    /// Reads a file that streams and may repeat an earlier one, hashing it with SHA-256 alone
    /// (much cheaper than MD5), and publishes its tail: its output when an earlier streamed file
    /// has its length and body hash, and so its bytes and MD5 (spec §6.3); else nil (it is then
    /// streamed and coded, read a second time).
    private func hashAhead(_ index: Int) throws -> Output? {
        var sha256 = SHA256()
        var length: UInt64 = 0
        var lastPiece: [UInt8] = []
        try FileInput.forEachPiece(of: path(index)) { piece in
            piece.withUnsafeBytes { sha256.update(bufferPointer: $0) }
            length += UInt64(piece.count)
            if needsTail(index) { lastPiece = Array(piece) }
        }
        publishTail(index, lastPiece)
        let hash = SHA256Hash(sha256.finalize())
        condition.lock()
        defer { condition.unlock() }
        guard let earlier = streamedBodies[StreamedKey(sha256: hash, length: length)], earlier.index < index else {
            return nil
        }
        return .streamedDuplicate(
            KnownDigests(md5: earlier.md5, sha256: hash, chunks: nil), length: length, lastChunk: lastPiece)
    }

    /// Notes that file `index` has `key` and returns whether an earlier file has it too, or the
    /// writer a body with its MD5 (the caller holds the lock).
    ///
    /// The files in flight are asked first: a file leaves them (in ``run``) only once the writer
    /// has stored its body, so under the lock an earlier file is always in one or the other. A
    /// body stored but of another length (an MD5 collision) is only a likely duplicate: the writer
    /// codes it, and the archive is the same either way.
    private func seenFirst(_ key: BodyKey, at index: Int, slot: Slot) -> Bool {
        let first = claimedFirst[key.folded]
        if let first, first < index { return true }
        if isStored?(key.digest) == true { return true }
        claimedFirst[key.folded] = index
        slot.claimedKey = key.folded
        return false
    }
}

/// Where each of a pipeline's bodies starts among the archive's body positions (spec Appendix C
/// step 13): body `i` starts at the first position plus `i` plus the positions that the bodies
/// before it took beyond one each. Most take one, so only those that do not are listed (a folder's
/// index.html, which takes two): a table of every body's start would grow with the site.
struct FilePositions {
    let first: Int
    /// Bodies in all.
    let count: Int
    /// The bodies that take other than one position, in order, and the positions beyond one that
    /// it and the listed bodies before it take.
    private var others: [(index: Int, extraThrough: Int)] = []

    init(first: Int, spans: some Sequence<Int>) {
        self.first = first
        var index = 0
        var extra = 0
        for span in spans {
            if span != 1 {
                extra += span - 1
                others.append((index, extra))
            }
            index += 1
        }
        count = index
    }

    /// The first position of body `index`; of `count`, the position after the last body's.
    func start(_ index: Int) -> Int {
        // The listed bodies before `index`.
        var low = 0
        var high = others.count
        while low < high {
            let middle = (low + high) / 2
            if others[middle].index < index { low = middle + 1 } else { high = middle }
        }
        return first + index + (low == 0 ? 0 : others[low - 1].extraThrough)
    }
}
