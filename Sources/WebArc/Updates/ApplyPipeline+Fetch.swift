extension ApplyPipeline {
    /// A body a worker read, before its chunks' digests are checked.
    enum Fetched {
        /// A new body of a compact update: its bytes and their MD5, when known.
        case bytes([UInt8], md5: BodyDigest?)
        /// Too large to hold: the writer copies it itself, chunk by chunk.
        case streamed
        /// A body of a layer, each chunk read and decoded (``checkDigests(_:recheck:)`` checks them).
        case chunks(BodyEntry, [VerifiedChunk])
        /// A body of a layer whose chunks' stored bytes were read but not decoded.
        case stored(StoredCopy)

        /// Bytes held.
        var length: UInt64 {
            switch self {
            case .bytes(let bytes, _): UInt64(bytes.count)
            case .streamed: 0
            case .chunks(let entry, _): entry.length
            case .stored(let copy): copy.entry.length
            }
        }
    }

    /// Reads and decodes every chunk of `entry`, leaving their digests to ``checkDigests(_:recheck:)``,
    /// and those of the delta references (codec 3) read for them alone (an update's previous
    /// versions, each read once): the chunk's own digest covers its reference's damage.
    ///
    /// - Throws: as a verified read would: when a chunk does not read or decode, a chunk before it
    ///   that does not match its digest is named first (`chunkDigest`), as reading the body chunk
    ///   by chunk would have, then a damaged reference of the failing chunk.
    static func readChunks(of entry: BodyEntry, from reader: ArchiveReader) throws -> [VerifiedChunk] {
        // A remote layer fetches the body's chunks together, as a chunk iterator has it do.
        reader.announceChunks(of: entry, range: 0..<entry.length)
        var chunks: [VerifiedChunk] = []
        chunks.reserveCapacity(entry.chunks.count)
        for (position, chunk) in entry.chunks.enumerated() {
            let context = ChunkContext(
                body: entry.reference, index: position, page: entry.origin.page, position: entry.origin.position)
            do {
                chunks.append(try reader.read(chunk, context, checkingDigest: false, checkingReferences: false))
            } catch {
                for (earlier, read) in chunks.enumerated() where SHA256Hash.of(read.raw) != read.entry.digest {
                    throw WebArcError.chunkDigest(body: entry.reference, chunk: earlier, offset: read.entry.offset)
                }
                throw recheck(entry, chunk: position, in: reader) ?? error
            }
        }
        return chunks
    }

    /// The error a fully checked read of chunk `chunk` of `entry` gives (its delta reference's
    /// digest checked first), or nil when that read succeeds.
    static func recheck(_ entry: BodyEntry, chunk: Int, in reader: ArchiveReader) -> (any Error)? {
        let context = ChunkContext(
            body: entry.reference, index: chunk, page: entry.origin.page, position: entry.origin.position)
        do {
            _ = try reader.read(entry.chunks[chunk], context)
            return nil
        } catch {
            return error
        }
    }

    /// Checks the SHA-256 of every chunk the batch read, sixteen at a time where that pays
    /// (``SHA256Lanes``): a body with a chunk that does not match becomes its first such chunk's
    /// error, as `recheck(index, entry, chunk)` (a fully checked read of it) names it: a damaged
    /// delta reference, else `chunkDigest` at the chunk.
    static func checkDigests(
        _ batch: inout [(index: Int, fetched: Result<Fetched, any Error>, job: Job?)],
        recheck: (Int, BodyEntry, Int) -> (any Error)?
    ) {
        var raws: [[UInt8]] = []
        var owners: [(body: Int, chunk: Int)] = []
        for (body, item) in batch.enumerated() {
            guard case .success(.chunks(_, let chunks)) = item.fetched else { continue }
            for (chunk, read) in chunks.enumerated() {
                raws.append(read.raw)
                owners.append((body, chunk))
            }
        }
        guard !raws.isEmpty else { return }
        let digests = SHA256Lanes.bodyHashes(of: raws).map(\.sha256)
        for ((body, chunk), digest) in zip(owners, digests) {
            guard case .success(.chunks(let entry, let chunks)) = batch[body].fetched,
                digest != chunks[chunk].entry.digest
            else { continue }
            batch[body].fetched = .failure(
                recheck(batch[body].index, entry, chunk)
                    ?? WebArcError.chunkDigest(body: entry.reference, chunk: chunk, offset: chunks[chunk].entry.offset))
        }
    }
}
