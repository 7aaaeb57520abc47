import Crypto
import Foundation

extension ArchiveWriter {
    /// Adds a body held in memory.
    ///
    /// - Returns: the stored body, possibly one stored earlier with the same bytes.
    public func addBody<D: DataProtocol>(_ bytes: D) throws -> StoredBody {
        try addBody(PreparedBody(bytes, level: options.compressionLevel))
    }

    /// Adds a body hashed and compressed ahead of time (see ``PreparedBody``).
    public func addBody(_ prepared: PreparedBody) throws -> StoredBody {
        try ensureOpen()
        return try failing {
            let newChunks = prepared.chunks.map { chunk in { try ChunkEncoder.decode(chunk.stored, entry: ChunkEncoder.entry(for: chunk, at: 0)) } }
            if let existing = try findEqual(digest: prepared.digest, length: prepared.length, sha256: prepared.sha256, chunks: newChunks) {
                return note(existing, deduplicated: true)
            }
            if let (base, found) = try findInBases(digest: prepared.digest, length: prepared.length, sha256: prepared.sha256, chunks: newChunks) {
                return note(store(found, from: base, digest: prepared.digest), deduplicated: true)
            }
            var entries: [ChunkEntry] = []
            for chunk in prepared.chunks {
                entries.append(ChunkEncoder.entry(for: chunk, at: output.length))
                try output.append(chunk.stored)
            }
            return note(store(digest: prepared.digest, length: prepared.length, sha256: prepared.sha256, chunks: entries), deduplicated: false)
        }
    }

    /// Adds a file's contents, streamed chunk by chunk so memory stays bounded whatever its size.
    ///
    /// - Parameter progress: called after each piece (at most 256 KiB) with the bytes read so far.
    /// - Throws: `io` naming the file when it cannot be read.
    public func addBody(contentsOfFile path: String, progress: ((UInt64) -> Void)? = nil) throws -> StoredBody {
        try ensureOpen()
        var stream = BodyStream(writer: self)
        var read: UInt64 = 0
        try failing {
            try FileInput.forEachPiece(of: path) { piece in
                try stream.append(piece)
                read += UInt64(piece.count)
                progress?(read)
            }
        }
        return try stream.finish()
    }

    /// Adds a body that arrives as an asynchronous sequence of byte pieces of any size.
    public func addBody<S: AsyncSequence>(streaming pieces: S) async throws -> StoredBody where S.Element: DataProtocol {
        try ensureOpen()
        var stream = BodyStream(writer: self)
        do {
            for try await piece in pieces { try stream.append(Array(piece)[...]) }
        } catch {
            cancel()
            throw error
        }
        return try stream.finish()
    }

    /// Accumulates a streamed body into 256 KiB chunks written as they fill.
    struct BodyStream {
        let writer: ArchiveWriter
        let start: UInt64
        var md5 = Insecure.MD5()
        var sha256 = SHA256()
        var pending: [UInt8] = []
        var entries: [ChunkEntry] = []
        var length: UInt64 = 0

        init(writer: ArchiveWriter) {
            self.writer = writer
            start = writer.output.length
            pending.reserveCapacity(ChunkEntry.maxRawLength)
        }

        mutating func append(_ piece: ArraySlice<UInt8>) throws {
            piece.withUnsafeBytes {
                md5.update(bufferPointer: $0)
                sha256.update(bufferPointer: $0)
            }
            length += UInt64(piece.count)
            var rest = piece
            while !rest.isEmpty {
                let take = min(ChunkEntry.maxRawLength - pending.count, rest.count)
                pending.append(contentsOf: rest.prefix(take))
                rest = rest.dropFirst(take)
                if pending.count == ChunkEntry.maxRawLength { try flushChunk() }
            }
        }

        private mutating func flushChunk() throws {
            let encoded = ChunkEncoder.encode(pending[...], level: writer.options.compressionLevel)
            entries.append(ChunkEncoder.entry(for: encoded, at: writer.output.length))
            try writer.output.append(encoded.stored)
            pending.removeAll(keepingCapacity: true)
        }

        mutating func finish() throws -> StoredBody {
            let writer = self.writer
            return try writer.failing {
                if !pending.isEmpty { try flushChunk() }
                let digest = BodyDigest(md5.finalize())
                let hash = SHA256Hash(sha256.finalize())
                let written = entries
                let loaders = written.map { entry in { try writer.readChunk(entry) } }
                if let existing = try writer.findEqual(digest: digest, length: length, sha256: hash, chunks: loaders) {
                    try writer.output.rollBack(to: start)
                    return writer.note(existing, deduplicated: true)
                }
                if let (base, found) = try writer.findInBases(digest: digest, length: length, sha256: hash, chunks: loaders) {
                    try writer.output.rollBack(to: start)
                    return writer.note(writer.store(found, from: base, digest: digest), deduplicated: true)
                }
                return writer.note(writer.store(digest: digest, length: length, sha256: hash, chunks: written), deduplicated: false)
            }
        }
    }

    func readChunk(_ entry: ChunkEntry) throws -> [UInt8] {
        try ChunkEncoder.decode(try output.read(at: entry.offset, count: Int(entry.storedLength)), entry: entry)
    }

    /// Finds a stored body with the same MD5 whose bytes are equal, comparing chunk by chunk.
    ///
    /// MD5 collisions exist, so an equal MD5 alone never merges two bodies (spec §6.3): a body
    /// whose length or SHA-256 differs is different without reading, and one whose SHA-256 agrees
    /// is still compared byte for byte.
    func findEqual(digest: BodyDigest, length: UInt64, sha256: SHA256Hash, chunks newChunks: [() throws -> [UInt8]]) throws -> BodyEntry? {
        guard let candidates = bodies[digest] else { return nil }
        candidateLoop: for candidate in candidates where candidate.length == length && candidate.sha256 == sha256 {
            if let (base, entry) = fromBases[candidate.reference] {
                var stored = try base.makeChunkIterator(for: entry)
                var fresh = newChunks.makeIterator()
                if try Self.sameBytes({ try stored.next() }, { try fresh.next()?() }) { return candidate }
                continue
            }
            guard candidate.chunks.count == newChunks.count else { continue }
            for (entry, load) in zip(candidate.chunks, newChunks) where try readChunk(entry) != (try load()) {
                continue candidateLoop
            }
            return candidate
        }
        return nil
    }

    /// The nearest base holding a body equal to this one, and its entry there, or nil (spec
    /// Appendix C step 11). A candidate with the same MD5, length and SHA-256 is still compared
    /// byte for byte.
    func findInBases(
        digest: BodyDigest, length: UInt64, sha256: SHA256Hash, chunks newChunks: [() throws -> [UInt8]]
    ) throws -> (base: Int, entry: BodyEntry)? {
        for (position, base) in bases.enumerated() {
            var variant: UInt32 = 0
            while true {
                let candidate: BodyEntry
                do {
                    candidate = try base.bodyEntry(BodyReference(digest: digest, variant: variant))
                } catch WebArcError.bodyNotFound {
                    break
                }
                variant += 1
                guard candidate.length == length, candidate.sha256 == sha256 else { continue }
                var stored = try base.makeChunkIterator(for: candidate)
                var fresh = newChunks.makeIterator()
                guard try Self.sameBytes({ try stored.next() }, { try fresh.next()?() }) else { continue }
                return (position, candidate)
            }
        }
        return nil
    }

    /// Whether two streams of byte pieces (cut anywhere) hold the same bytes.
    static func sameBytes(_ first: () throws -> [UInt8]?, _ second: () throws -> [UInt8]?) throws -> Bool {
        var left: ArraySlice<UInt8> = []
        var right: ArraySlice<UInt8> = []
        while true {
            if left.isEmpty, let next = try first() { left = next[...] ; continue }
            if right.isEmpty, let next = try second() { right = next[...] ; continue }
            if left.isEmpty || right.isEmpty { return left.isEmpty && right.isEmpty }
            let count = min(left.count, right.count)
            guard left.prefix(count) == right.prefix(count) else { return false }
            left = left.dropFirst(count)
            right = right.dropFirst(count)
        }
    }

    /// Records a body a base holds under the next free variant of its MD5 here: its chunk entries
    /// are the base's with `layer` increased by the base's position (1 for the nearest).
    func store(_ found: BodyEntry, from base: Int, digest: BodyDigest) -> BodyEntry {
        let chunks = found.chunks.map { $0.relayered(by: UInt8(base + 1)) }
        let entry = store(digest: digest, length: found.length, sha256: found.sha256, chunks: chunks)
        fromBases[entry.reference] = (bases[base], found)
        return entry
    }

    /// Records a new distinct body under the next free variant of its MD5.
    func store(digest: BodyDigest, length: UInt64, sha256: SHA256Hash, chunks: [ChunkEntry]) -> BodyEntry {
        let variant = UInt32(bodies[digest]?.count ?? 0)
        let entry = BodyEntry(reference: BodyReference(digest: digest, variant: variant), length: length, sha256: sha256, chunks: chunks)
        bodies[digest, default: []].append(entry)
        statistics.bodiesStored += 1
        statistics.storedBytes += chunks.reduce(0) { $0 + ($1.layer == 0 ? UInt64($1.storedLength) : 0) }
        return entry
    }

    func note(_ entry: BodyEntry, deduplicated: Bool) -> StoredBody {
        statistics.bodiesAdded += 1
        statistics.rawBytes += entry.length
        return StoredBody(reference: entry.reference, length: entry.length, wasDeduplicated: deduplicated)
    }
}
