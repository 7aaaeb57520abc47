import Crypto

/// Checks bodies' chunks and digests (§11.3 `chunks` and `body-digests`) with their MD5s and their
/// chunks' SHA-256s computed sixteen at a time (``MD5Lanes``, ``SHA256Lanes``): the same checks as
/// ``Verification/check(_:reader:declaredBases:)``, at a fraction of the hashing's cost, which is
/// most of `verify`'s.
///
/// One checker runs on one worker. Each of its sixteen lanes holds one body: its current decoded
/// chunk, how far both hashes have read it, and, for a body of several chunks, its running
/// body-wide SHA-256 (swift-crypto). All busy lanes are hashed together as many whole blocks as
/// the shortest has left; a lane that runs short finishes its chunk's SHA-256 and compares it with
/// the chunk's digest before anything else is done with the chunk, then loads its body's next
/// chunk, or finishes its body's MD5 and takes the next body. A body of one chunk (most bodies)
/// has its bytes hashed once by each hash: its chunk digest is its SHA-256.
///
///     lane 0: body A  chunk 0 ████████████████▒  ← the lanes advance together, block by block;
///     lane 1: body B  chunk 1 ██████▒              B's chunk ends first: SHA-256 finished and
///     lane 2: body C  chunk 0 ███████████▒          compared, B's next chunk loaded, on we go
///
/// A body whose chunks are not whole blocks but for the last (none that webarc writes) is checked
/// by ``Verification/checkBytes(_:reader:outcome:)`` instead, on the same worker.
/// Memory: one decoded chunk (at most 256 KiB) per lane.
struct BodyLaneChecker {
    /// One body in a lane.
    private struct Lane {
        /// The body's position in the group.
        let index: Int
        let body: BodyEntry
        var outcome: BodyOutcome
        /// Body-wide SHA-256, nil for a body of one chunk (``Verification/bodyHashing(_:)``).
        var sha256: SHA256?
        /// The next chunk to decode.
        var nextChunk = 0
        /// The current chunk's decoded bytes (`nextChunk - 1`), nil before the first; neither hash
        /// has read them from `consumed` on.
        var bytes: [UInt8]?
        var consumed = 0
        /// Bytes decoded so far.
        var length: UInt64 = 0

        var unhashed: Int { (bytes?.count ?? 0) - consumed }
    }

    private typealias BodyOutcome = Verification.BodyOutcome

    /// Whether this CPU runs both sixteen-lane kernels; otherwise `verify` checks bodies one by one.
    static let isAvailable = MD5Lanes.isAvailable && SHA256Lanes.isAvailable
    /// Blocks hashed by MD5 and then by SHA-256 in one step: 16 lanes × 32 blocks of 64 bytes
    /// (32 KiB) stay in the first-level cache between the two.
    private static let stepBlocks = 32
    private static let blockSize = 64

    let reader: ArchiveReader
    let bodies: [BodyEntry]
    let declaredBases: Int?
    private var md5 = MD5Lanes()
    private var sha256 = SHA256Lanes()
    private var lanes = [Lane?](repeating: nil, count: MD5Lanes.count)

    init(reader: ArchiveReader, bodies: [BodyEntry], declaredBases: Int?) {
        precondition(MD5Lanes.count == SHA256Lanes.count && MD5Lanes.blockSize == Self.blockSize && SHA256Lanes.blockSize == Self.blockSize)
        self.reader = reader
        self.bodies = bodies
        self.declaredBases = declaredBases
    }

    /// Checks the bodies `next` names (positions in `bodies`, until nil), calling `done` with each
    /// one's outcome as it finishes (not in the order given).
    mutating func run(next: () -> Int?, done: (Int, Verification.BodyOutcome) -> Void) {
        var exhausted = false
        func take() -> Int? {
            guard !exhausted else { return nil }
            guard let index = next() else {
                exhausted = true
                return nil
            }
            return index
        }
        for lane in lanes.indices { fill(lane, take: take, done: done) }
        while true {
            let blocks = lanes.lazy.compactMap { $0.map { $0.unhashed / Self.blockSize } }.min()
            guard let blocks else { return }
            hashBlocks(blocks)
            for lane in lanes.indices where lanes[lane] != nil {
                lanes[lane]!.consumed += blocks * Self.blockSize
                if lanes[lane]!.unhashed < Self.blockSize { fill(lane, take: take, done: done) }
            }
        }
    }

    /// Whether a body's chunks end on block boundaries, all but its last: then the chunk hashes
    /// and the body's MD5 read the same blocks.
    static func fitsLanes(_ body: BodyEntry) -> Bool {
        body.chunks.dropLast().allSatisfy { Int($0.rawLength) % blockSize == 0 }
    }

    /// Leaves `lane` with a whole block to hash, or empty when no body is left: finishes its
    /// chunks and bodies and starts the next ones.
    private mutating func fill(_ lane: Int, take: () -> Int?, done: (Int, BodyOutcome) -> Void) {
        while true {
            if lanes[lane] == nil {
                guard let index = take() else { return }
                let body = bodies[index]
                let outcome = Verification.checkEntries(body, reader: reader, declaredBases: declaredBases)
                guard outcome.needsBytes else {
                    done(index, outcome)
                    continue
                }
                guard Self.fitsLanes(body) else {
                    done(index, Verification.checkBytes(body, reader: reader, outcome: outcome))
                    continue
                }
                md5.reset(lane)
                lanes[lane] = Lane(index: index, body: body, outcome: outcome, sha256: Verification.bodyHashing(body))
            }
            guard advance(lane) else { return }
            let finished = lanes[lane]!
            lanes[lane] = nil
            done(finished.index, finished.outcome)
        }
    }

    /// Brings `lane` to a whole block to hash; true when its body is finished instead (its
    /// outcome complete): all its chunks checked and both its digests compared, or a chunk failed.
    private mutating func advance(_ lane: Int) -> Bool {
        while lanes[lane]!.unhashed < Self.blockSize {
            let body = lanes[lane]!.body
            if let bytes = lanes[lane]!.bytes {
                // The current chunk has fewer than a block left: its digest decides whether its
                // bytes count.
                let index = lanes[lane]!.nextChunk - 1
                let tail = bytes[lanes[lane]!.consumed...]
                let digest = tail.withUnsafeBytes { sha256.finish(lane, tail: $0, totalLength: UInt64(bytes.count)) }
                guard digest == body.chunks[index].digest else {
                    lanes[lane]!.outcome.chunkProblems.append(.chunkDigest(body: body.reference, chunk: index, offset: body.chunks[index].offset))
                    return true
                }
                if index == body.chunks.count - 1 {
                    finishBody(lane, tail: tail)
                    return true
                }
                // Not the last chunk: it ended on a block boundary (``fitsLanes(_:)``), nothing is left.
                lanes[lane]!.bytes = nil
                lanes[lane]!.consumed = 0
            }
            let index = lanes[lane]!.nextChunk
            guard index < body.chunks.count else {
                // A body of no chunks: the empty message.
                finishBody(lane, tail: [])
                return true
            }
            let chunk: [UInt8]
            do {
                chunk = try reader.decodeChunkLeavingDigest(body, index: index)
            } catch {
                lanes[lane]!.outcome.chunkProblems.append(Verification.chunkProblem(error, body, index))
                return true
            }
            sha256.reset(lane)
            lanes[lane]!.nextChunk += 1
            lanes[lane]!.sha256?.update(data: chunk)
            lanes[lane]!.length += UInt64(chunk.count)
            lanes[lane]!.bytes = chunk
            lanes[lane]!.consumed = 0
        }
        return false
    }

    /// Finishes the MD5 of `lane`'s body, whose last bytes are `tail`, and compares both digests.
    private mutating func finishBody(_ lane: Int, tail: ArraySlice<UInt8>) {
        let current = lanes[lane]!
        let digest = tail.withUnsafeBytes { md5.finish(lane, tail: $0, totalLength: current.length) }
        lanes[lane]!.outcome.digestProblem = Verification.digestProblem(current.body, md5: digest, sha256: current.sha256)
    }

    /// Hashes `blocks` blocks of every busy lane, MD5 and SHA-256, a step at a time.
    private mutating func hashBlocks(_ blocks: Int) {
        let busy = lanes
        var md5 = self.md5
        var sha256 = self.sha256
        var pointers = [UnsafePointer<UInt8>?](repeating: nil, count: MD5Lanes.count)
        func hash() {
            var done = 0
            while done < blocks {
                let step = min(Self.stepBlocks, blocks - done)
                let offset = done * Self.blockSize
                let stepPointers = pointers.map { $0.map { $0 + offset } }
                md5.update(stepPointers, blocks: step)
                sha256.update(stepPointers, blocks: step)
                done += step
            }
        }
        // Each lane's bytes stay pinned while the kernels read them: the calls nest, one per lane.
        func pin(_ lane: Int) {
            guard lane < busy.count else { return hash() }
            guard let current = busy[lane], let bytes = current.bytes else { return pin(lane + 1) }
            bytes.withUnsafeBufferPointer { buffer in
                pointers[lane] = buffer.baseAddress! + current.consumed
                pin(lane + 1)
            }
        }
        pin(0)
        self.md5 = md5
        self.sha256 = sha256
    }
}
