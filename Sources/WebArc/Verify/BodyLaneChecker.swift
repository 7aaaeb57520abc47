import Crypto

/// Checks bodies' chunks and digests (§11.3 `chunks` and `body-digests`) with their MD5s computed
/// sixteen at a time (``MD5Lanes``): the same checks as ``Verification/check(_:reader:declaredBases:)``,
/// at a fraction of MD5's cost, which is most of `verify`'s.
///
/// One checker runs on one worker. Each of its sixteen lanes holds one body: its current decoded
/// chunk (every chunk checked against its SHA-256 when decoded, as before), how far MD5 has read
/// it, and, for a body of several chunks, its running SHA-256. All busy lanes are hashed together
/// as many whole blocks as the shortest has left; a lane that runs short loads its body's next
/// chunk (carrying the bytes short of a block over), or finishes its body and takes the next one.
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
        /// Decoded bytes not yet hashed by MD5 start at `consumed`.
        var bytes: [UInt8] = []
        var consumed = 0
        /// Bytes decoded so far.
        var length: UInt64 = 0

        var unhashed: Int { bytes.count - consumed }
        /// Bytes of the body not yet hashed by MD5.
        var remaining: UInt64 { (body.length &- length) &+ UInt64(unhashed) }
    }

    private typealias BodyOutcome = Verification.BodyOutcome

    let reader: ArchiveReader
    let bodies: [BodyEntry]
    let declaredBases: Int?
    private var md5 = MD5Lanes()
    private var lanes = [Lane?](repeating: nil, count: MD5Lanes.count)

    init(reader: ArchiveReader, bodies: [BodyEntry], declaredBases: Int?) {
        self.reader = reader
        self.bodies = bodies
        self.declaredBases = declaredBases
    }

    /// Checks the bodies `queue` hands out (positions in `bodies`, until none is left), calling
    /// `done` with each one's outcome as it finishes (not in the order taken).
    ///
    /// Busy lanes advance together, so a body much longer than the others would finish alone,
    /// long after the queue ran dry, its worker busy while the others wait. A lane whose body has
    /// more left than a fair share of what is still queued (plus ``lagAllowance``) is therefore
    /// advanced alone, a chunk at a time, with scalar MD5; once the queue is empty, so are the last
    /// one or two busy lanes.
    mutating func run(_ queue: BodyQueue, done: (Int, Verification.BodyOutcome) -> Void) {
        var exhausted = false
        func take() -> Int? {
            guard !exhausted else { return nil }
            guard let index = queue.next() else {
                exhausted = true
                return nil
            }
            return index
        }
        for lane in lanes.indices { fill(lane, take: take, done: done) }
        while true {
            let blocks = lanes.lazy.compactMap { $0.map { $0.unhashed / MD5Lanes.blockSize } }.min()
            guard let blocks else { return }
            if exhausted && lanes.lazy.filter({ $0 != nil }).count <= Self.aloneLanes {
                for lane in lanes.indices {
                    while lanes[lane] != nil { advanceAlone(lane, take: take, done: done) }
                }
                return
            }
            let fair = queue.bytesLeft / UInt64(queue.workers * MD5Lanes.count) + Self.lagAllowance
            var behind = false
            for lane in lanes.indices where (lanes[lane]?.remaining ?? 0) > fair {
                advanceAlone(lane, take: take, done: done)
                behind = true
            }
            if behind { continue }
            hashBlocks(blocks)
            for lane in lanes.indices where lanes[lane] != nil {
                lanes[lane]!.consumed += blocks * MD5Lanes.blockSize
                if lanes[lane]!.unhashed < MD5Lanes.blockSize { fill(lane, take: take, done: done) }
            }
        }
    }

    /// Bytes a lane's body may have left beyond its fair share before it is advanced alone: scalar
    /// MD5 costs about 2 ms per MB against 0.15–0.2 in the lanes, but a body left alone at the end
    /// holds one worker about 4 ms per MB (decoding and both SHA-256s included) while the others wait.
    static let lagAllowance: UInt64 = 1 << 20

    /// Busy lanes at or below which, once no body is left to take, each is finished alone with
    /// scalar MD5 (about 0.5 GB/s; one or two lanes of the kernel's 4.5–6.5 GB/s for sixteen do less).
    static let aloneLanes = 2

    /// Hashes the bytes `lane` holds with scalar MD5, then loads its body's next chunk (or
    /// finishes its body and takes the next).
    private mutating func advanceAlone(_ lane: Int, take: () -> Int?, done: (Int, BodyOutcome) -> Void) {
        guard let current = lanes[lane] else { return }
        let blocks = current.unhashed / MD5Lanes.blockSize
        if blocks > 0 {
            current.bytes.withUnsafeBufferPointer { buffer in
                md5.update(lane, buffer.baseAddress! + current.consumed, blocks: blocks)
            }
        }
        lanes[lane]!.consumed += blocks * MD5Lanes.blockSize
        fill(lane, take: take, done: done)
    }

    /// Leaves `lane` with a whole block to hash, or empty when no body is left: loads its body's
    /// next chunks, or finishes its body and starts the next ones.
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
                md5.reset(lane)
                lanes[lane] = Lane(index: index, body: body, outcome: outcome, sha256: Verification.bodyHashing(body))
            }
            if Self.load(&lanes[lane]!, reader: reader) { return }
            var finished = lanes[lane]!
            lanes[lane] = nil
            if finished.outcome.chunkProblems.isEmpty {
                let tail = finished.bytes[finished.consumed...]
                let digest = tail.withUnsafeBytes { md5.finish(lane, tail: $0, totalLength: finished.length) }
                finished.outcome.digestProblem = Verification.digestProblem(finished.body, md5: digest, sha256: finished.sha256)
            }
            done(finished.index, finished.outcome)
        }
    }

    /// Decodes chunks into `lane` until it holds a whole block; false when its body has no more
    /// chunks (the bytes left are its MD5 tail) or a chunk failed (the problem is in its outcome).
    private static func load(_ lane: inout Lane, reader: ArchiveReader) -> Bool {
        while lane.unhashed < MD5Lanes.blockSize && lane.nextChunk < lane.body.chunks.count {
            let chunk: [UInt8]
            do {
                chunk = try Verification.decodeChunk(lane.body, index: lane.nextChunk, reader: reader, bodyHash: &lane.sha256)
            } catch {
                lane.outcome.chunkProblems.append(Verification.chunkProblem(error, lane.body, lane.nextChunk))
                return false
            }
            lane.nextChunk += 1
            lane.length += UInt64(chunk.count)
            // Chunks hold 256 KiB, a whole number of blocks: bytes are carried over only after a
            // short chunk that is not a body's last.
            lane.bytes = lane.unhashed == 0 ? chunk : Array(lane.bytes[lane.consumed...]) + chunk
            lane.consumed = 0
        }
        return lane.unhashed >= MD5Lanes.blockSize
    }

    /// Hashes `blocks` blocks of every busy lane.
    private mutating func hashBlocks(_ blocks: Int) {
        let busy = lanes
        var md5 = self.md5
        var pointers = [UnsafePointer<UInt8>?](repeating: nil, count: MD5Lanes.count)
        // Each lane's bytes stay pinned while the kernel reads them: the calls nest, one per lane.
        func pin(_ lane: Int) {
            guard lane < busy.count else { return md5.update(pointers, blocks: blocks) }
            guard let current = busy[lane] else { return pin(lane + 1) }
            current.bytes.withUnsafeBufferPointer { buffer in
                pointers[lane] = buffer.baseAddress! + current.consumed
                pin(lane + 1)
            }
        }
        pin(0)
        self.md5 = md5
    }
}
