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
            let blocks = lanes.lazy.compactMap { $0.map { $0.unhashed / MD5Lanes.blockSize } }.min()
            guard let blocks else { return }
            hashBlocks(blocks)
            for lane in lanes.indices where lanes[lane] != nil {
                lanes[lane]!.consumed += blocks * MD5Lanes.blockSize
                if lanes[lane]!.unhashed < MD5Lanes.blockSize { fill(lane, take: take, done: done) }
            }
        }
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
