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
    /// while the body's MD5 and SHA-256 are computed. From a source that is still downloading
    /// (`verify URL`), bodies are checked in file order (by their first chunk), so that the body
    /// data is read front to back once, while it arrives; from a file, the long ones go first
    /// (``checkingOrder(_:inFileOrder:)``). Workers take the next body as they free up. Memory
    /// holds the entries of one group of body leaves (up to ``groupChunkLimit`` chunk entries; an
    /// archive whose body tree is larger is checked group by group), one chunk per core and lane,
    /// and the outcomes of the bodies that failed; never body bytes.
    func startBodyChecks() -> BodyCheckJob {
        let job = BodyCheckJob()
        let reader = self.reader
        let leaves = bodyLeaves
        let declaredBases = metadataReadable ? (try? reader.metadata)?.bases.count : nil
        let laneHashing = self.laneHashing
        let progress = self.progress
        job.group.enter()
        DispatchQueue.global().async {
            let found = Self.checkAllBodies(
                reader: reader, leaves: leaves, declaredBases: declaredBases, laneHashing: laneHashing,
                progress: progress)
            job.found.withLock { $0 = found }
            job.group.leave()
        }
        return job
    }

    /// Waits for the body checks and adds their problems, extents and counts to this verification.
    func finishBodyChecks(_ job: BodyCheckJob) {
        job.group.wait()
        let found = job.found.withLock { $0 }
        chunkExtents = found.extents
        for (body, outcome) in found.failures {
            for problem in outcome.chunkProblems { add("chunks", problem) }
            if let problem = outcome.digestProblem { add("body-digests", problem) }
            if let warning = outcome.warning {
                warn("chunks", code: "base-required", warning, offset: body.origin.page)
            }
            if !outcome.chunkProblems.isEmpty || outcome.digestProblem != nil { failedBodies.insert(body.reference) }
        }
        report.bodies += found.bodies
        report.bodyBytes &+= found.bodyBytes
        nameUsersOfFailedBodies()
    }

    /// Checks every body of the body leaves `leaves` (those of them that read), group by group.
    private static func checkAllBodies(
        reader: ArchiveReader, leaves: [PageReference], declaredBases: Int?, laneHashing: Bool,
        progress: ArchiveVerifier.Progress?
    ) -> FoundInBodies {
        func forEachLeaf(_ visit: (BodyLeaf) -> Void) {
            for reference in leaves {
                guard case .bodyLeaf(let leaf)? = try? reader.page(reference, .node(.bodies)) else { continue }
                visit(leaf)
            }
        }
        var total: UInt64 = 0
        var bodyTotal = 0
        forEachLeaf { leaf in
            total = leaf.entries.reduce(total) { $0 &+ $1.length }
            bodyTotal += leaf.entries.count
        }
        let counter = BodyProgress(progress, bodies: bodyTotal, bytes: total)
        var found = FoundInBodies()
        var group: [BodyEntry] = []
        var groupChunks = 0
        func flush() {
            guard !group.isEmpty else { return }
            checkGroup(
                group, reader: reader, declaredBases: declaredBases, laneHashing: laneHashing, progress: counter,
                into: &found)
            group = []
            groupChunks = 0
        }
        forEachLeaf { leaf in
            if groupChunks > 0 && groupChunks + leaf.entries.reduce(0, { $0 + $1.chunks.count }) > Self.groupChunkLimit
            {
                flush()
            }
            group += leaf.entries
            groupChunks += leaf.entries.reduce(0) { $0 + $1.chunks.count }
        }
        flush()
        return found
    }

    /// Checks a group of bodies (in body-tree order) on every core, then keeps what each found in
    /// body-tree order.
    private static func checkGroup(
        _ bodies: [BodyEntry], reader: ArchiveReader, declaredBases: Int?, laneHashing lanes: Bool,
        progress: BodyProgress,
        into found: inout FoundInBodies
    ) {
        for body in bodies { found.collectExtents(body, bodyDataEnd: reader.trailer.bodyDataEnd) }
        let order = checkingOrder(bodies, inFileOrder: reader.source.arrivesInFileOrder)
        reader.announceBaseChunks(of: order.map { bodies[$0] })
        let workers = max(1, min(AvailableCores.count, 8))
        let queue = BodyQueue(bodies, order: order, workers: workers)
        let outcomes = Mutex<[Int: BodyOutcome]>([:])
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            func record(_ index: Int, _ outcome: BodyOutcome) {
                if !outcome.chunkProblems.isEmpty || outcome.digestProblem != nil || outcome.warning != nil {
                    outcomes.withLock { $0[index] = outcome }
                }
                progress.checked(bodies[index])
            }
            if lanes {
                var checker = BodyLaneChecker(reader: reader, bodies: bodies, declaredBases: declaredBases)
                checker.run(queue, done: record)
            } else {
                while let index = queue.next() {
                    record(index, Self.check(bodies[index], reader: reader, declaredBases: declaredBases))
                }
            }
        }
        let results = outcomes.withLock { $0 }
        for (index, body) in bodies.enumerated() {
            if let outcome = results[index] { found.failures.append((body, outcome)) }
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
        body.chunks.count == 1 && UInt64(body.chunks[0].rawLength) == body.length ? nil : SHA256()
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
        guard index == 0, var hash = bodyHash else {
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
        let entries =
            body.chunks.enumerated().map { ($0, $1, ChunkEntry.Role.chunk) }
            + body.chunks.enumerated().flatMap { index, chunk in
                chunk.followingEntries.map { (index, $0.entry, $0.role) }
            }
        for (index, chunk, role) in entries {
            guard let codec = chunk.codec else {
                outcome.chunkProblems.append(
                    .unsupportedCodec(codec: chunk.codecValue, body: body.reference, chunk: index, page: page))
                continue
            }
            if role == .dictionary && (codec == .lz4Dictionary || codec == .zstdDelta) {
                outcome.chunkProblems.append(
                    context(index).corrupt("a dictionary reference has codec \(codec.rawValue)"))
                continue
            }
            if role == .deltaReference && codec == .zstdDelta {
                outcome.chunkProblems.append(context(index).corrupt("a delta reference has codec 3"))
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
                if case .corrupt(let reason)? = chunk.boundsProblem(bodyDataEnd: store.trailer.bodyDataEnd) {
                    outcome.chunkProblems.append(context(index).corrupt(reason))
                }
                continue
            }
            switch chunk.boundsProblem(bodyDataEnd: bodyDataEnd) {
            case .corrupt(let reason)?: outcome.chunkProblems.append(context(index).corrupt(reason))
            case .amplification?:
                outcome.chunkProblems.append(
                    .amplification(offset: chunk.offset, storedLength: chunk.storedLength, rawLength: chunk.rawLength))
            case nil: break
            }
        }
        if body.chunkLengthSum != body.length {
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

    /// Bytes of the bodies not yet taken.
    var bytesLeft: UInt64 { bytesFrom[min(taken.load(ordering: .relaxed), order.count)] }
}

/// The body checks running in the background: signalled when done, with what they found.
final class BodyCheckJob: Sendable {
    let group = DispatchGroup()
    let found = Mutex(FoundInBodies())
}

/// What the body checks found: the bodies that failed or warned (in body-tree order, group by
/// group), counts, and the extents `layout` needs.
struct FoundInBodies: Sendable {
    var failures: [(body: BodyEntry, outcome: Verification.BodyOutcome)] = []
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
                extents.add(chunk.offset, end, .chunk)
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
