import Crypto

/// Checks bodies' chunks and digests (§11.3 `chunks` and `body-digests`) with their MD5s and
/// their chunks' SHA-256s computed sixteen at a time (``MD5Lanes``, ``SHA256Lanes``): the same
/// checks as ``Verification/check(_:reader:declaredBases:)``, at a fraction of the hashes' cost,
/// which is most of `verify`'s.
///
/// One checker runs on one worker. Each of its sixteen lanes holds one body: its current decoded
/// chunk, how far the hashes have read it, and, for a body of several chunks, its body-wide
/// SHA-256 (one stream, which goes on from the first chunk's lane state). All busy lanes are
/// hashed together as many whole blocks as the shortest has left; a lane that runs short
/// finishes its chunk's SHA-256 and compares it with the chunk's digest, then loads its body's
/// next chunk (carrying the bytes short of a block over), or finishes its body and takes the next
/// one. Chunks are decoded into buffers the lanes keep (``LaneBuffer``), read by the worker's
/// ``LaneChunkReader`` from runs of neighbouring bodies (``BodyQueue/nextRun()``). Memory: one
/// chunk and one dictionary per lane (room for a short chunk kept, for a long one while its body
/// has them), the reader's window.
struct BodyLaneChecker {
    /// One body in a lane: a class, so that the lanes' steps pass it by reference (a body
    /// entry and its outcome are copied at every step otherwise, a tenth of the body checks).
    private final class Lane {
        /// The body's position in the group.
        let index: Int
        let body: BodyEntry
        var outcome: BodyOutcome
        /// Whether the body needs a body-wide SHA-256: not for a body of one chunk, whose
        /// chunk digest is its hash (``Verification/bodyHashing(_:)``).
        let needsBodyHash: Bool
        /// The body-wide SHA-256, from the end of the first chunk on (nil before it).
        var bodyHash: SHA256Stream?
        /// The chunk whose SHA-256 the lane computes: it is `bytes` from 0 (it began at a block
        /// boundary of the body). Nil while the lane holds a chunk checked when it was loaded.
        var hashedChunk: Int?
        /// The next chunk to decode.
        var nextChunk = 0
        /// Decoded bytes (in the lane's ``LaneBuffer``) not yet hashed by MD5 start at `consumed`.
        var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
        var consumed = 0
        /// Bytes decoded so far.
        var length: UInt64 = 0

        /// The end of the stored chunks of the run of bodies this one was taken with: the file is
        /// read no further at a time for its chunks (the next bytes are another worker's).
        let readLimit: UInt64

        init(
            index: Int, body: BodyEntry, outcome: BodyOutcome, needsBodyHash: Bool, bodyHash: SHA256Stream?,
            readLimit: UInt64
        ) {
            self.readLimit = readLimit
            self.index = index
            self.body = body
            self.outcome = outcome
            self.needsBodyHash = needsBodyHash
            self.bodyHash = bodyHash
        }

        var unhashed: Int { bytes.count - consumed }
        /// The bytes not yet hashed by MD5.
        var tail: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[consumed...]) }
        /// Bytes of the body not yet hashed by MD5.
        var remaining: UInt64 { (body.length &- length) &+ UInt64(unhashed) }
    }

    private typealias BodyOutcome = Verification.BodyOutcome

    /// A body taken from the queue: its position in the group, and the end of its run's chunks.
    private struct Taken {
        let index: Int
        let readLimit: UInt64
    }

    let reader: ArchiveReader
    let bodies: [BodyEntry]
    let declaredBases: Int?
    private let buffers: Buffers
    private var md5 = MD5Lanes()
    private var sha256 = SHA256Lanes()
    private var lanes = [Lane?](repeating: nil, count: MD5Lanes.count)

    /// What one worker keeps from group to group: its lanes' buffers and its chunk reader.
    final class Buffers: @unchecked Sendable {
        // One worker uses them at a time (handed from group to group by `checkAllBodies`).
        /// Each lane's buffer for the chunks that fit in ``LaneBuffer/smallRoom``.
        let small: [LaneBuffer]
        /// Each lane's buffer for longer chunks, kept while its body has them.
        var large: [LaneBuffer?]
        let chunks: LaneChunkReader

        init(reader: ArchiveReader) {
            small = (0..<MD5Lanes.count).map { _ in LaneBuffer(outputRoom: LaneBuffer.smallRoom) }
            large = [LaneBuffer?](repeating: nil, count: MD5Lanes.count)
            chunks = LaneChunkReader(reader: reader)
        }

        /// The buffer of `lane` for `count` decoded bytes.
        func buffer(_ lane: Int, for count: Int) -> LaneBuffer {
            if count <= small[lane].outputRoom { return small[lane] }
            if let buffer = large[lane] { return buffer }
            let buffer = LaneBuffer(outputRoom: LaneBuffer.largestRoom)
            large[lane] = buffer
            return buffer
        }
    }

    init(reader: ArchiveReader, bodies: [BodyEntry], declaredBases: Int?, buffers: Buffers) {
        self.reader = reader
        self.bodies = bodies
        self.declaredBases = declaredBases
        self.buffers = buffers
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
        var run: ArraySlice<Int> = []
        var readLimit: UInt64 = 0
        let bodies = self.bodies
        func take() -> Taken? {
            guard !exhausted else { return nil }
            if run.isEmpty {
                guard let next = queue.nextRun() else {
                    exhausted = true
                    return nil
                }
                run = next
                readLimit = 0
                for index in run {
                    for chunk in bodies[index].chunks where chunk.layer == 0 {
                        readLimit = max(readLimit, chunk.end ?? 0)
                    }
                }
            }
            return Taken(index: run.popFirst()!, readLimit: readLimit)
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
    /// MD5 costs many times what the lanes do, but a body left alone at the end holds one worker
    /// (decoding and both SHA-256s too) while the others wait.
    static let lagAllowance: UInt64 = 1 << 20

    /// Busy lanes at or below which, once no body is left to take, each is finished alone with
    /// scalar MD5: one or two busy lanes of the sixteen-lane kernel hash less than one scalar stream
    /// (measurements: Tools/bench/NOTES.md, 'BodyLaneChecker').
    static let aloneLanes = 2

    /// Hashes the bytes `lane` holds with scalar MD5, then loads its body's next chunk (or
    /// finishes its body and takes the next).
    private mutating func advanceAlone(_ lane: Int, take: () -> Taken?, done: (Int, BodyOutcome) -> Void) {
        guard let current = lanes[lane] else { return }
        let blocks = current.unhashed / MD5Lanes.blockSize
        if blocks > 0 {
            let start = (current.bytes.baseAddress! + current.consumed).assumingMemoryBound(to: UInt8.self)
            md5.update(lane, start, blocks: blocks)
            if current.hashedChunk != nil { sha256.update(lane, start, blocks: blocks) }
        }
        lanes[lane]!.consumed += blocks * MD5Lanes.blockSize
        fill(lane, take: take, done: done)
    }

    /// Leaves `lane` with a whole block to hash, or empty when no body is left: loads its body's
    /// next chunks, or finishes its body and starts the next ones.
    private mutating func fill(_ lane: Int, take: () -> Taken?, done: (Int, BodyOutcome) -> Void) {
        while true {
            if lanes[lane] == nil {
                guard let taken = take() else { return }
                let (index, body) = (taken.index, bodies[taken.index])
                // A slice is not its chunk, whose digest the lanes compare: it is checked alone.
                if body.isSlice {
                    done(index, Verification.check(body, reader: reader, declaredBases: declaredBases))
                    continue
                }
                let outcome = Verification.checkEntries(body, reader: reader, declaredBases: declaredBases)
                guard outcome.needsBytes else {
                    done(index, outcome)
                    continue
                }
                md5.reset(lane)
                let needsBodyHash = Verification.bodyHashing(body) != nil
                lanes[lane] = Lane(
                    index: index, body: body, outcome: outcome, needsBodyHash: needsBodyHash,
                    bodyHash: needsBodyHash && body.chunks.isEmpty ? SHA256Stream() : nil, readLimit: taken.readLimit)
            }
            if load(lane) { return }
            let finished = lanes[lane]!
            lanes[lane] = nil
            if finished.outcome.chunkProblems.isEmpty {
                let digest = md5.finish(lane, tail: finished.tail, totalLength: finished.length)
                let bodyHash = finished.needsBodyHash ? (finished.bodyHash ?? SHA256Stream()).finish() : nil
                finished.outcome.digestProblem = Verification.digestProblem(
                    finished.body, md5: digest, bodyHash: bodyHash)
            }
            done(finished.index, finished.outcome)
            // The room of long chunks goes back with the body that needed it.
            buffers.large[lane] = nil
        }
    }

    /// Decodes chunks into `lane` until it holds a whole block, finishing each chunk's SHA-256 as
    /// its last block is hashed; false when its body has no more chunks (the bytes left are its
    /// MD5 tail) or a chunk failed (the problem is in its outcome).
    private mutating func load(_ lane: Int) -> Bool {
        while lanes[lane]!.unhashed < MD5Lanes.blockSize {
            guard finishChunk(lane) else { return false }
            let index = lanes[lane]!.nextChunk
            let body = lanes[lane]!.body
            guard index < body.chunks.count else { return false }
            let current = lanes[lane]!
            guard current.unhashed == 0 else {
                // After a short chunk that is not the body's last (chunks hold 256 KiB, a whole
                // number of blocks, so only another writer's archive has one), the bytes short of
                // a block are carried over and this chunk is checked on its own.
                let chunk: [UInt8]
                do {
                    chunk = try reader.decodeChunkLeavingDigest(body, index: index)
                } catch {
                    current.outcome.chunkProblems.append(Verification.chunkProblem(error, body, index))
                    return false
                }
                current.nextChunk += 1
                current.length += UInt64(chunk.count)
                current.bodyHash?.update(chunk)
                guard SHA256Hash.of(chunk) == body.chunks[index].digest else {
                    current.outcome.chunkProblems.append(
                        .chunkDigest(body: body.reference, chunk: index, offset: body.chunks[index].offset))
                    return false
                }
                let carried = current.unhashed
                let buffer = buffers.buffer(lane, for: carried + chunk.count)
                buffer.output.copyMemory(from: current.tail.baseAddress!, byteCount: carried)
                UnsafeMutableRawBufferPointer(start: buffer.output + carried, count: chunk.count).copyBytes(from: chunk)
                current.bytes = UnsafeRawBufferPointer(start: buffer.output, count: carried + chunk.count)
                current.consumed = 0
                continue
            }
            let buffer = buffers.buffer(lane, for: Int(body.chunks[index].rawLength))
            let count: Int
            do {
                count = try buffers.chunks.decode(body, index: index, into: buffer, readingUpTo: current.readLimit)
            } catch {
                current.outcome.chunkProblems.append(Verification.chunkProblem(error, body, index))
                return false
            }
            current.bytes = UnsafeRawBufferPointer(start: buffer.output, count: count)
            current.nextChunk += 1
            current.length += UInt64(count)
            current.bodyHash?.update(current.bytes)
            current.consumed = 0
            lanes[lane]!.hashedChunk = index
            sha256.reset(lane)
        }
        return true
    }

    /// Compares the SHA-256 of the chunk `lane` hashes, whose whole blocks are all hashed, with
    /// its digest; after a body's first chunk, starts the body-wide hash from it. False when it
    /// does not match (the problem is in the lane's outcome).
    private mutating func finishChunk(_ lane: Int) -> Bool {
        guard let index = lanes[lane]!.hashedChunk else { return true }
        lanes[lane]!.hashedChunk = nil
        let current = lanes[lane]!
        let length = UInt64(current.bytes.count)
        let digest = sha256.finish(lane, tail: current.tail, totalLength: length)
        let chunk = current.body.chunks[index]
        guard digest == chunk.digest else {
            lanes[lane]!.outcome.chunkProblems.append(
                .chunkDigest(body: current.body.reference, chunk: index, offset: chunk.offset))
            return false
        }
        if index == 0 && current.needsBodyHash {
            if current.consumed == current.bytes.count {
                lanes[lane]!.bodyHash = sha256.stream(continuing: lane, length: length)
            } else {
                var stream = SHA256Stream()
                stream.update(current.bytes)
                lanes[lane]!.bodyHash = stream
            }
        }
        return true
    }

    /// Hashes `blocks` blocks of every busy lane.
    private mutating func hashBlocks(_ blocks: Int) {
        var pointers = [UnsafePointer<UInt8>?](repeating: nil, count: MD5Lanes.count)
        var chunkPointers = [UnsafePointer<UInt8>?](repeating: nil, count: SHA256Lanes.count)
        for (lane, current) in lanes.enumerated() {
            guard let current else { continue }
            pointers[lane] = (current.bytes.baseAddress! + current.consumed).assumingMemoryBound(to: UInt8.self)
            if current.hashedChunk != nil { chunkPointers[lane] = pointers[lane] }
        }
        md5.update(pointers, blocks: blocks)
        sha256.update(chunkPointers, blocks: blocks)
    }
}
