import Crypto
import Foundation
import Synchronization

extension Verification {
    /// What checking one body found.
    struct BodyOutcome: Sendable {
        var chunkProblems: [WebArcError] = []
        var digestProblem: WebArcError?
        var warning: String?
        /// Set by ``checkEntries(_:reader:declaredBases:)`` when the entries are sound: the
        /// chunks are to be decoded and the body's digests computed.
        var needsBytes = false
    }

    /// Most chunk entries one group of bodies holds in memory (about 100 bytes each).
    static let groupChunkLimit = 1 << 14

    /// `chunks` and `body-digests` in one pass over the body tree, started in the background so
    /// that the record checks (`objects`, `references`, `redirects`) run meanwhile; the bodies are
    /// checked on every core either way. ``finishBodyChecks(_:)`` waits and records what they found.
    ///
    /// Each body entry's chunk entries are checked against §6.2 (codecs, bounds, extents), then,
    /// for a body whose entries are sound, each chunk is decoded and checked against its digest
    /// while the body's MD5 and SHA-256 are computed. The bodies are checked in file order (by their
    /// first chunk): the walk of the body tree queued its entries in a ``SpilledSort`` by that order
    /// (``queue(_:_:)``), so the body data is read front to back once, while it arrives from a
    /// source still downloading (`verify URL`), and the bodies coded against one dictionary (codec
    /// 2) are checked together while the reader keeps it decoded. They are checked in groups (up to
    /// ``groupChunkLimit`` chunk entries); from a file, the long ones of a group go first
    /// (``checkingOrder(_:inFileOrder:)``). Workers take the next body as they free up. Memory
    /// holds one group's entries, one chunk per core and lane, and the outcomes of the bodies that
    /// failed; never body bytes.
    func startBodyChecks() -> BodyCheckJob {
        let job = BodyCheckJob()
        let reader = self.reader
        let declaredBases = metadataReadable ? (try? reader.metadata)?.bases.count : nil
        let laneHashing = self.laneHashing
        let counter = BodyProgress(progress, bodies: bodyTotals.bodies, bytes: bodyTotals.bytes)
        // The queue read back in file order or, when its temporary file failed, the body leaves
        // read again in tree order.
        let sorted = bodyQueueFailure == nil ? try? bodyQueue.sorted() : nil
        let bodies = UncheckedBox(value: sorted.map { QueuedBodies.sorted($0) })
        let leaves = bodyLeaves
        job.group.enter()
        DispatchQueue.global().async {
            var source = bodies.value ?? QueuedBodies.leaves(leaves, reader: reader)
            let found = Self.checkAllBodies(
                &source, reader: reader, declaredBases: declaredBases, laneHashing: laneHashing,
                progress: counter)
            job.found.withLock { $0 = found }
            job.group.leave()
        }
        return job
    }

    /// Queues the entries of a body leaf the walk read for the body checks, in file order.
    func queue(_ leaf: BodyLeaf, _ reference: PageReference) {
        guard bodyQueueFailure == nil else { return }
        do {
            for (position, entry) in leaf.entries.enumerated() {
                try bodyQueue.append(
                    QueuedBody(entry: entry, sequence: bodyQueue.count, encoded: leaf.encoded(position)))
            }
        } catch {
            bodyQueueFailure = error
        }
    }

    /// Waits for the body checks and adds their problems, extents and counts to this verification.
    func finishBodyChecks(_ job: BodyCheckJob) {
        job.group.wait()
        let found = job.found.withLock { $0 }
        chunkExtents = found.extents
        // In body-tree order, as the problems of one offset are listed.
        for failure in found.failures.sorted(by: { $0.sequence < $1.sequence }) {
            let (body, outcome) = (failure.body, failure.outcome)
            for problem in outcome.chunkProblems { add("chunks", problem) }
            if let problem = outcome.digestProblem { add("body-digests", problem) }
            if let warning = outcome.warning {
                warn("chunks", code: "base-required", warning, offset: body.origin.page)
            }
            if !outcome.chunkProblems.isEmpty || outcome.digestProblem != nil { failedBodies.insert(body.reference) }
        }
        if let error = found.readBack { add("chunks", error) }
        report.bodies += found.bodies
        report.bodyBytes &+= found.bodyBytes
        nameUsersOfFailedBodies()
    }

    /// Checks every body `source` gives, group by group.
    private static func checkAllBodies(
        _ source: inout QueuedBodies, reader: ArchiveReader, declaredBases: Int?, laneHashing: Bool,
        progress counter: BodyProgress
    ) -> FoundInBodies {
        var found = FoundInBodies()
        var group: [QueuedBody] = []
        var groupChunks = 0
        let workers = max(1, min(AvailableCores.count, 8))
        let buffers = laneHashing ? (0..<workers).map { _ in BodyLaneChecker.Buffers(reader: reader) } : []
        func flush() {
            guard !group.isEmpty else { return }
            checkGroup(
                group, reader: reader, declaredBases: declaredBases, workers: workers, laneBuffers: buffers,
                progress: counter, into: &found)
            group = []
            groupChunks = 0
        }
        do {
            while let body = try source.next() {
                if groupChunks > 0 && groupChunks + body.entry.chunks.count > Self.groupChunkLimit { flush() }
                group.append(body)
                groupChunks += body.entry.chunks.count
            }
        } catch {
            found.readBack = error
        }
        flush()
        return found
    }

    /// Checks a group of bodies on every core, then keeps what each found.
    /// `laneBuffers`, one per worker, when the lanes hash (empty otherwise).
    private static func checkGroup(
        _ queued: [QueuedBody], reader: ArchiveReader, declaredBases: Int?, workers: Int,
        laneBuffers: [BodyLaneChecker.Buffers], progress: BodyProgress, into found: inout FoundInBodies
    ) {
        let bodies = queued.map(\.entry)
        for body in bodies { found.collectExtents(body, bodyDataEnd: reader.trailer.bodyDataEnd) }
        let order = checkingOrder(bodies, inFileOrder: reader.source.arrivesInFileOrder)
        reader.announceBaseChunks(of: order.map { bodies[$0] })
        let queue = BodyQueue(bodies, order: order, workers: workers)
        let outcomes = Mutex<[Int: BodyOutcome]>([:])
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            func record(_ index: Int, _ outcome: BodyOutcome) {
                if !outcome.chunkProblems.isEmpty || outcome.digestProblem != nil || outcome.warning != nil {
                    outcomes.withLock { $0[index] = outcome }
                }
                progress.checked(bodies[index])
            }
            if !laneBuffers.isEmpty {
                var checker = BodyLaneChecker(
                    reader: reader, bodies: bodies, declaredBases: declaredBases, buffers: laneBuffers[worker])
                checker.run(queue, done: record)
            } else {
                while let index = queue.next() {
                    record(index, Self.check(bodies[index], reader: reader, declaredBases: declaredBases))
                }
            }
        }
        let results = outcomes.withLock { $0 }
        for (index, body) in queued.enumerated() {
            if let outcome = results[index] { found.failures.append((body.sequence, body.entry, outcome)) }
        }
        found.bodies += bodies.count
        found.bodyBytes &+= bodies.reduce(UInt64(0)) { $0 &+ $1.length }
    }

    /// The order in which the workers take the bodies (positions in `bodies`).
    ///
    /// From a download, file order (by first local chunk; a body with no chunk of its own, empty or
    /// only in a base, first): the bodies are checked as they arrive. From a file, the bodies over
    /// ``longBody`` first, longest first, then the others in file order: the long ones then run
    /// beside the others instead of holding one worker after the rest are done (a body's MD5 is
    /// one serial stream, so one long body can outlast all the others).
    static func checkingOrder(_ bodies: [BodyEntry], inFileOrder: Bool) -> [Int] {
        let offsets: [UInt64] = bodies.map { body in body.chunks.first(where: { $0.layer == 0 })?.offset ?? 0 }
        let fileOrder = bodies.indices.sorted { (a: Int, b: Int) -> Bool in
            offsets[a] != offsets[b] ? offsets[a] < offsets[b] : a < b
        }
        guard !inFileOrder else { return fileOrder }
        let long = fileOrder.filter { bodies[$0].length > longBody }.sorted { bodies[$0].length > bodies[$1].length }
        return long + fileOrder.filter { bodies[$0].length <= longBody }
    }

    /// Bodies longer than this are checked first from a file. The others stay in file order, where
    /// neighbours share their dictionaries (codec 2), which the reader keeps (a few) decoded.
    static let longBody: UInt64 = 1 << 20

    /// Adds the record and URL that first uses each failed body to its problems.
    private func nameUsersOfFailedBodies() {
        let users = firstUsers(of: failedBodies)
        guard !users.isEmpty else { return }
        for check in ["chunks", "body-digests"] {
            rewrite(check) { problem, error in
                guard let body = Self.body(of: error), let user = users[body] else { return }
                problem.record = user.record
                problem.url = user.url
            }
        }
    }

    /// The body an error names, if any.
    static func body(of error: WebArcError) -> BodyReference? {
        switch error {
        case .unsupportedCodec(_, let body, _, _), .corruptChunk(let body, _, _), .chunkDigest(let body, _, _),
            .bodyDigest(let body, _, _), .baseRequired(let body, _, _):
            body
        default:
            nil
        }
    }

    /// Checks one body entry of a body leaf (spec §6.2, §6.3, §11.3 `chunks` and `body-digests`),
    /// its MD5 computed by `Insecure.MD5` (where ``BodyLaneChecker`` cannot run).
    static func check(_ body: BodyEntry, reader: ArchiveReader, declaredBases: Int?) -> BodyOutcome {
        var outcome = checkEntries(body, reader: reader, declaredBases: declaredBases)
        guard outcome.needsBytes else { return outcome }
        var md5 = Insecure.MD5()
        var sha256 = bodyHashing(body)
        for index in body.chunks.indices {
            do {
                let bytes = try decodeChunk(body, index: index, reader: reader, bodyHash: &sha256)
                bytes.withUnsafeBytes { md5.update(bufferPointer: $0) }
            } catch {
                outcome.chunkProblems.append(chunkProblem(error, body, index))
                return outcome
            }
        }
        outcome.digestProblem = digestProblem(body, md5: BodyDigest(md5.finalize()), sha256: sha256)
        return outcome
    }

    /// The body-wide SHA-256 to compute while decoding, or nil for a body of one chunk: it hashes
    /// to that chunk's digest, which decoding it checks, so its body hash is compared with the
    /// digest instead of hashing the bytes twice (``digestProblem(_:md5:sha256:)``).
    static func bodyHashing(_ body: BodyEntry) -> SHA256? {
        !body.isSlice && body.chunks.count == 1 && UInt64(body.chunks[0].rawLength) == body.length ? nil : SHA256()
    }

    /// Decodes chunk `index` of `body`, checked against its digest, and adds it to `bodyHash`, the
    /// body-wide SHA-256 (``bodyHashing(_:)``). The first chunk of a body of several is hashed once
    /// for both: its digest is that of a copy of the body hash after it (SHA-256 of the same
    /// prefix), where the reader would hash it a second time; that chunk is a quarter of a MiB, and
    /// bodies of several chunks often hold much of a site's bytes.
    ///
    /// - Throws: as ``ArchiveReader/decodeChunk(_:index:)``.
    static func decodeChunk(
        _ body: BodyEntry, index: Int, reader: ArchiveReader, bodyHash: inout SHA256?
    ) throws -> [UInt8] {
        guard index == 0, !body.isSlice, var hash = bodyHash else {
            let bytes = try reader.decodeChunk(body, index: index)
            bodyHash?.update(data: bytes)
            return bytes
        }
        let bytes = try reader.decodeChunkLeavingDigest(body, index: index)
        hash.update(data: bytes)
        guard SHA256Hash(hash.finalize()) == body.chunks[index].digest else {
            throw WebArcError.chunkDigest(body: body.reference, chunk: index, offset: body.chunks[index].offset)
        }
        bodyHash = hash
        return bytes
    }

    /// The `chunks` problem for a chunk that did not read, decode or match its digest.
    static func chunkProblem(_ error: Error, _ body: BodyEntry, _ index: Int) -> WebArcError {
        error as? WebArcError ?? .corruptChunk(body: body.reference, chunk: index, offset: body.chunks[index].offset)
    }

    /// The `body-digests` problem of a body whose chunks all decoded and matched their digests:
    /// its MD5 against its reference, its SHA-256 (`sha256`, or its one chunk's digest when nil)
    /// against its entry; nil when both match.
    static func digestProblem(_ body: BodyEntry, md5 digest: BodyDigest, sha256: SHA256?) -> WebArcError? {
        digestProblem(body, md5: digest, bodyHash: sha256.map { SHA256Hash($0.finalize()) })
    }

    /// The `body-digests` problem, as ``digestProblem(_:md5:sha256:)``, with the body-wide
    /// SHA-256 already finished (nil for a body of one chunk).
    static func digestProblem(_ body: BodyEntry, md5 digest: BodyDigest, bodyHash: SHA256Hash?) -> WebArcError? {
        let hash = bodyHash ?? body.chunks[0].digest
        guard digest != body.reference.digest || hash != body.sha256 else { return nil }
        let which =
            digest != body.reference.digest
            ? "MD5 \(digest.hex)" : "SHA-256 \(hash.hex), its entry says \(body.sha256.hex)"
        return .bodyDigest(body: body.reference, offset: body.firstChunkOffset, reason: "bytes hash to \(which)")
    }

    /// The checks of a body entry that need no body bytes (codecs, features, layers, bounds, the
    /// chunks' lengths against the body's; spec §6.2, §6.3); ``BodyOutcome/needsBytes`` says
    /// whether its chunks are then decoded and hashed.
    static func checkEntries(_ body: BodyEntry, reader: ArchiveReader, declaredBases: Int?) -> BodyOutcome {
        var outcome = BodyOutcome()
        let page = body.origin.page
        let bodyDataEnd = reader.trailer.bodyDataEnd
        let features = reader.trailer.requiredFeatures
        func context(_ index: Int) -> ChunkContext {
            ChunkContext(body: body.reference, index: index, page: page, position: body.origin.position)
        }
        guard body.length <= FormatBounds.maxBodyLength else {
            outcome.chunkProblems.append(context(0).corrupt("length \(body.length) is over 2^40"))
            return outcome
        }
        var layered = false
        if body.isSlice && !features.contains(.groupedBodies) {
            outcome.chunkProblems.append(context(0).corrupt("a slice without required feature bit 3"))
        }
        if let problem = body.sliceProblem { outcome.chunkProblems.append(context(0).corrupt(problem)) }
        let entries =
            body.chunks.enumerated().map { ($0, $1, body.isSlice ? ChunkEntry.Role.group : .chunk) }
            + body.chunks.enumerated().flatMap { index, chunk in
                chunk.followingEntries.map { (index, $0.entry, $0.role) }
            }
        for (index, chunk, role) in entries {
            guard let codec = chunk.codec else {
                outcome.chunkProblems.append(
                    .unsupportedCodec(codec: chunk.codecValue, body: body.reference, chunk: index, page: page))
                continue
            }
            if let reason = chunk.roleProblem(codec, role) {
                outcome.chunkProblems.append(context(index).corrupt(reason))
                continue
            }
            if codec == .zstd && !features.contains(.groupedBodies) {
                outcome.chunkProblems.append(context(index).corrupt("codec 4 without required feature bit 3"))
                continue
            }
            if codec == .zstdDelta && !features.contains(.deltaCodec) {
                outcome.chunkProblems.append(context(index).corrupt("codec 3 without required feature bit 2"))
                continue
            }
            // Features a writer must announce (spec §4.4): a reader that does not know them refuses
            // the file at open instead of failing chunk by chunk.
            if codec == .lz4Dictionary && !features.contains(.dictionaryCodec) {
                outcome.chunkProblems.append(context(index).corrupt("codec 2 without required feature bit 1"))
                continue
            }
            if chunk.layer > 0 && !features.contains(.layer) {
                outcome.chunkProblems.append(
                    context(index).corrupt("layer \(chunk.layer) without required feature bit 0"))
                continue
            }
            if chunk.layer > 0 {
                layered = true
                if let declaredBases, Int(chunk.layer) > declaredBases {
                    outcome.chunkProblems.append(
                        context(index).corrupt("layer \(chunk.layer), but the archive names \(declaredBases) bases"))
                }
                // Over its bases, a chunk of another layer is checked against that layer's body data.
                guard let store = try? reader.store(of: chunk, context(index)) else { continue }
                if case .corrupt(let reason)? = chunk.boundsProblem(bodyDataEnd: store.trailer.bodyDataEnd, role: role)
                {
                    outcome.chunkProblems.append(context(index).corrupt(reason))
                }
                continue
            }
            switch chunk.boundsProblem(bodyDataEnd: bodyDataEnd, role: role) {
            case .corrupt(let reason)?: outcome.chunkProblems.append(context(index).corrupt(reason))
            case .amplification?:
                outcome.chunkProblems.append(
                    .amplification(offset: chunk.offset, storedLength: chunk.storedLength, rawLength: chunk.rawLength))
            case nil: break
            }
        }
        if !body.isSlice && body.chunkLengthSum != body.length {
            outcome.chunkProblems.append(
                context(0).corrupt("the chunks hold \(body.chunkLengthSum) bytes, its length is \(body.length)"))
        }
        guard outcome.chunkProblems.isEmpty else { return outcome }
        if layered && reader.bases.isEmpty {
            outcome.warning = "body \(body.reference) has chunks in a base layer: they are checked only over its bases"
            return outcome
        }
        outcome.needsBytes = true
        return outcome
    }
}

/// Counts the bodies checked and reports them as they finish, from any worker.
final class BodyProgress: Sendable {
    private let progress: ArchiveVerifier.Progress?
    private let totals: (bodies: Int, bytes: UInt64)
    private let done = Mutex<(bodies: Int, bytes: UInt64)>((0, 0))

    init(_ progress: ArchiveVerifier.Progress?, bodies: Int, bytes: UInt64) {
        self.progress = progress
        totals = (bodies, bytes)
    }

    func checked(_ body: BodyEntry) {
        guard let progress else { return }
        done.withLock { done in
            done.bodies += 1
            done.bytes &+= body.length
            progress(done.bodies, totals.bodies, done.bytes, totals.bytes)
        }
    }
}

/// The bodies of a group in the order the workers take them, each taken once: workers take the
/// next as they free up (a fixed share would leave one with the long bodies while the others wait).
final class BodyQueue: Sendable {
    private let order: [Int]
    /// Bytes of the bodies from each position of `order` to its end.
    private let bytesFrom: [UInt64]
    private let taken = Atomic<Int>(0)
    /// Workers taking from the queue.
    let workers: Int

    init(_ bodies: [BodyEntry], order: [Int], workers: Int) {
        self.order = order
        self.workers = workers
        var sums = [UInt64](repeating: 0, count: order.count + 1)
        for position in order.indices.reversed() {
            sums[position] = sums[position + 1] &+ bodies[order[position]].length
        }
        bytesFrom = sums
    }

    /// The next body to check (its position in the group), or nil when all are taken.
    func next() -> Int? {
        let position = taken.add(1, ordering: .relaxed).oldValue
        return position < order.count ? order[position] : nil
    }

    /// The next bodies to check, neighbours in the queue's order (their positions in the group),
    /// or nil when all are taken: about ``runBytes`` of them, fewer as the queue runs dry (a
    /// worker holding the last run leaves the others waiting). A worker that takes runs reads its
    /// own stretches of the body data, a window at a time (``LaneChunkReader``), where bodies
    /// taken one by one would leave every stretch half read by each worker.
    func nextRun() -> ArraySlice<Int>? {
        var start = taken.load(ordering: .relaxed)
        while start < order.count {
            let limit = min(Self.runBytes, bytesFrom[start] / UInt64(workers * 4))
            var end = start + 1
            while end < order.count && end - start < Self.runBodies && bytesFrom[start] - bytesFrom[end + 1] <= limit {
                end += 1
            }
            let (exchanged, found) = taken.compareExchange(
                expected: start, desired: end, ordering: .relaxed)
            if exchanged { return order[start..<end] }
            start = found
        }
        return nil
    }

    /// Bytes of the bodies of a run (as they decode), at most, unless it is one body.
    static let runBytes: UInt64 = 2 << 20
    /// Bodies of a run, at most.
    static let runBodies = 256

    /// Bytes of the bodies not yet taken.
    var bytesLeft: UInt64 { bytesFrom[min(taken.load(ordering: .relaxed), order.count)] }
}

/// The body checks running in the background: signalled when done, with what they found.
final class BodyCheckJob: Sendable {
    let group = DispatchGroup()
    let found = Mutex(FoundInBodies())
}

/// What the body checks found: the bodies that failed or warned (with their positions in body-tree
/// order), counts, and the extents `layout` needs.
struct FoundInBodies: Sendable {
    var failures: [(sequence: Int, body: BodyEntry, outcome: Verification.BodyOutcome)] = []
    /// The error reading the queued bodies back met, if any (the bodies after it are unchecked).
    var readBack: (any Error)?
    var bodies = 0
    var bodyBytes: UInt64 = 0
    /// The chunk and dictionary extents, added by the body checks' thread alone, read after it ends.
    var extents = LayoutExtents()

    /// Keeps the chunk and dictionary extents of `body` in this archive's body data, for `layout`.
    func collectExtents(_ body: BodyEntry, bodyDataEnd: UInt64) {
        for chunk in body.chunks {
            if chunk.layer == 0, chunk.storedLength > 0, let end = chunk.end, chunk.offset >= UInt64(Lead.size),
                end <= bodyDataEnd
            {
                // The slices of one group all name its chunk: one extent (spec §3).
                extents.add(chunk.offset, end, body.isSlice ? .group : .chunk)
            }
            // A reference outside body data is the chunk check's error, not an extent of the layout.
            for (reference, _) in chunk.followingEntries where reference.layer == 0 {
                let (end, overflow) = reference.offset.addingReportingOverflow(UInt64(reference.storedLength))
                guard !overflow, reference.offset >= UInt64(Lead.size), end <= bodyDataEnd else { continue }
                extents.add(reference.offset, end, .dictionary)
            }
        }
    }
}

/// A body entry queued for the body checks (``Verification/queue(_:_:)``): ordered by the offset of
/// its first chunk in this archive's body data (0 for a body with none), then by its position in
/// body-tree order.
struct QueuedBody: SpilledSortElement {
    let entry: BodyEntry
    /// Its position in body-tree order.
    let sequence: Int
    /// The offset it is ordered by, found once (a sort compares each body many times).
    let offset: UInt64
    /// The entry's bytes as its leaf stores them, when at hand: spilled as they are (they parse
    /// to the entry) instead of encoded again.
    let encoded: ArraySlice<UInt8>?

    init(entry: BodyEntry, sequence: Int, encoded: ArraySlice<UInt8>? = nil) {
        self.entry = entry
        self.sequence = sequence
        self.encoded = encoded
        offset = entry.chunks.first(where: { $0.layer == 0 })?.offset ?? 0
    }

    static func precedes(_ lhs: QueuedBody, _ rhs: QueuedBody) -> Bool {
        let (left, right) = (lhs.offset, rhs.offset)
        return left != right ? left < right : lhs.sequence < rhs.sequence
    }

    func encode(into writer: inout ByteWriter) {
        writer.write(UInt64(sequence))
        writer.write(entry.origin.page)
        writer.write(UInt64(entry.origin.position))
        writer.write(UInt64(entry.origin.length))
        if let encoded { writer.write(bytes: encoded) } else { entry.serialize(into: &writer) }
    }

    static func decode(_ reader: inout ByteReader) throws -> QueuedBody {
        let sequence = Int(try reader.readUInt64())
        let origin = BodyEntry.Origin(
            page: try reader.readUInt64(), position: Int(try reader.readUInt64()),
            length: Int(try reader.readUInt64()))
        var entry = try BodyEntry(parsing: &reader, page: origin.page)
        entry.origin = origin
        return QueuedBody(entry: entry, sequence: sequence)
    }

    var heldSize: Int { 160 + entry.chunks.count * 120 }
}

/// Where the body checks take their bodies from: the walk's queue in file order, or the body leaves
/// read again (when the queue's temporary file failed).
enum QueuedBodies {
    case sorted(SpilledSortIterator<QueuedBody>)
    case leaves([PageReference], reader: ArchiveReader, next: Int = 0, pending: [BodyEntry] = [], sequence: Int = 0)

    /// The next body, or nil after the last.
    ///
    /// - Throws: `io` when the queue cannot be read back.
    mutating func next() throws -> QueuedBody? {
        switch self {
        case .sorted(var iterator):
            let body = try iterator.next()
            self = .sorted(iterator)
            return body
        case .leaves(let leaves, let reader, var next, var pending, let sequence):
            while pending.isEmpty && next < leaves.count {
                if case .bodyLeaf(let leaf)? = try? reader.page(leaves[next], .node(.bodies)) {
                    pending = leaf.entries.reversed()
                }
                next += 1
            }
            guard let entry = pending.popLast() else {
                self = .leaves(leaves, reader: reader, next: next, pending: [], sequence: sequence)
                return nil
            }
            self = .leaves(leaves, reader: reader, next: next, pending: pending, sequence: sequence + 1)
            return QueuedBody(entry: entry, sequence: sequence)
        }
    }
}

/// A value handed to another thread that alone uses it from then on.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
}
