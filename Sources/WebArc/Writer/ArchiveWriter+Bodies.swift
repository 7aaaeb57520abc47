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
            if let existing = try findEqual(digest: prepared.digest, length: prepared.length, chunks: {
                prepared.chunks.map { chunk in
                    { try ChunkEncoder.decode(chunk.stored, entry: Self.entry(for: chunk, at: 0), index: 0) }
                }
            }) {
                return note(existing, deduplicated: true)
            }
            var entries: [ChunkEntry] = []
            for chunk in prepared.chunks {
                entries.append(Self.entry(for: chunk, at: output.length))
                try output.append(chunk.stored)
            }
            return note(store(digest: prepared.digest, length: prepared.length, chunks: entries), deduplicated: false)
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
        var hasher = Insecure.MD5()
        var pending: [UInt8] = []
        var entries: [ChunkEntry] = []
        var length: UInt64 = 0

        init(writer: ArchiveWriter) {
            self.writer = writer
            start = writer.output.length
            pending.reserveCapacity(ChunkEntry.maxRawLength)
        }

        mutating func append(_ piece: ArraySlice<UInt8>) throws {
            piece.withUnsafeBytes { hasher.update(bufferPointer: $0) }
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
            entries.append(ArchiveWriter.entry(for: encoded, at: writer.output.length))
            try writer.output.append(encoded.stored)
            pending.removeAll(keepingCapacity: true)
        }

        mutating func finish() throws -> StoredBody {
            let writer = self.writer
            return try writer.failing {
                if !pending.isEmpty { try flushChunk() }
                let digest = BodyDigest(hasher.finalize())
                let written = entries
                if let existing = try writer.findEqual(digest: digest, length: length, chunks: {
                    written.map { entry in { try writer.readChunk(entry) } }
                }) {
                    try writer.output.rollBack(to: start)
                    return writer.note(existing, deduplicated: true)
                }
                return writer.note(writer.store(digest: digest, length: length, chunks: written), deduplicated: false)
            }
        }
    }

    static func entry(for chunk: ChunkEncoder.Encoded, at offset: UInt64) -> ChunkEntry {
        ChunkEntry(offset: offset, storedLength: UInt32(chunk.stored.count), rawLength: UInt32(chunk.rawLength), codec: chunk.codec)
    }

    func readChunk(_ entry: ChunkEntry) throws -> [UInt8] {
        try ChunkEncoder.decode(try output.read(at: entry.offset, count: Int(entry.storedLength)), entry: entry, index: 0)
    }

    /// Finds a stored body with the same digest whose bytes are equal, comparing chunk by chunk.
    ///
    /// MD5 collisions exist, so an equal digest alone never merges two bodies (spec §5.3).
    func findEqual(digest: BodyDigest, length: UInt64, chunks newChunks: () -> [() throws -> [UInt8]]) throws -> BodyEntry? {
        guard let candidates = bodies[digest] else { return nil }
        let loaders = newChunks()
        candidateLoop: for candidate in candidates where candidate.length == length {
            let stored = chunks[Int(candidate.firstChunk)..<Int(candidate.firstChunk) + Int(candidate.chunkCount)]
            guard stored.count == loaders.count else { continue }
            for (entry, load) in zip(stored, loaders) where try readChunk(entry) != (try load()) {
                continue candidateLoop
            }
            return candidate
        }
        return nil
    }

    /// Records a new distinct body under the next free variant of its digest.
    func store(digest: BodyDigest, length: UInt64, chunks newChunks: [ChunkEntry]) -> BodyEntry {
        let variant = UInt32(bodies[digest]?.count ?? 0)
        let entry = BodyEntry(
            reference: BodyReference(digest: digest, variant: variant), length: length,
            firstChunk: UInt64(chunks.count), chunkCount: UInt32(newChunks.count))
        chunks.append(contentsOf: newChunks)
        bodies[digest, default: []].append(entry)
        statistics.bodiesStored += 1
        statistics.storedBytes += newChunks.reduce(0) { $0 + UInt64($1.storedLength) }
        return entry
    }

    func note(_ entry: BodyEntry, deduplicated: Bool) -> StoredBody {
        statistics.bodiesAdded += 1
        statistics.rawBytes += entry.length
        return StoredBody(reference: entry.reference, length: entry.length, wasDeduplicated: deduplicated)
    }
}
