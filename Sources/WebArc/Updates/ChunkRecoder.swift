/// Codes a body read from an archive the way a writer codes it at a position (spec §6.3, Appendix C
/// step 13), reusing a chunk's stored bytes wherever they are that same coding of the same input.
///
/// Compression is deterministic: the same raw bytes, level, dictionary (and its placement) and
/// "an earlier chunk was stored raw" state give the same stored bytes. A stored chunk is therefore
/// reused, not coded again, when the archive holding it was written at the writer's level, the
/// body is cut as the writer cuts it, no earlier chunk of it was stored raw, and its codec shows
/// which dictionary it was coded against:
///
/// | stored codec | reused when |
/// |---|---|
/// | 1 (LZ4) | the position gives this chunk no dictionary (every chunk but the first; the first of an anchor's body, or with dictionaries off) |
/// | 2 (LZ4 with a dictionary) | it is the first chunk, its dictionary's bytes are the position's, and its archive placed dictionaries as the writer does (`Writer.dictionaryPlacement`) |
/// | 0 (raw) | it is not the first chunk (the first may have been tried against another dictionary) |
/// | 3 (delta) | never: the writer codes it as §6.3 says |
///
/// With a Zstandard level (Appendix C step 15), each chunk whose coding is not raw also gets its
/// Zstandard attempt here, off the writer's thread: a chunk stored as codec 3 against a reference
/// of its own archive, written at the same levels, whose reference bytes are the new position's
/// history, keeps its stored frame (zstd is deterministic too); the others are tried anew.
///
/// Once an output chunk is raw, the later ones are raw untried, whatever they were stored as. The
/// chunks come verified (their digests checked on read), so a damaged stored chunk is refused
/// before it could be reused.
enum ChunkRecoder {
    /// The chunks of a body as a writer at `level` codes them, its first chunk against `dictionary`.
    ///
    /// - Parameters:
    ///   - chunks: the body's chunks in order, verified, cut as a writer cuts them (262 144 bytes
    ///     each but the last).
    ///   - recipeOf: how the archive holding a chunk was written (its writer recipe: level,
    ///     Zstandard level, dictionary placement), nil when unknown (then its chunks are coded again).
    ///   - zstd: the new archive's Zstandard level and the history of this body's position (step
    ///     15), nil when it codes no Zstandard bodies or the position has no dictionary.
    /// - Returns: the chunks, and how many of them reuse stored bytes.
    static func code(
        _ chunks: [VerifiedChunk], level: Int, dictionary: LZ4Dictionary?, recipeOf: (ArchiveReader) -> WriterRecipe?,
        zstd: (level: Int, history: [UInt8])? = nil
    ) -> (chunks: [ChunkEncoder.Encoded], reused: Int) {
        var coded: [ChunkEncoder.Encoded] = []
        coded.reserveCapacity(chunks.count)
        var storeRaw = false
        var sourceStoredRaw = false
        var reused = 0
        for (index, chunk) in chunks.enumerated() {
            let tried = index == 0 ? dictionary : nil
            let recipe = recipeOf(chunk.store)
            var next: ChunkEncoder.Encoded
            if !storeRaw, !sourceStoredRaw, let recipe, recipe.level == level,
                reusable(chunk, first: index == 0, dictionary: tried, placement: recipe.placement)
            {
                next = ChunkEncoder.Encoded(
                    stored: chunk.stored, rawLength: chunk.raw.count, codec: chunk.entry.codec!,
                    digest: chunk.entry.digest,
                    triedDictionary: tried)
                reused += 1
            } else {
                next = chunk.raw.withUnsafeBytes {
                    ChunkEncoder.encode(
                        $0, level: level, dictionary: tried, storeRaw: storeRaw, digest: chunk.entry.digest)
                }
            }
            if let zstd, next.codec != .raw {
                if chunk.entry.codec == .zstdDelta, chunk.entry.reference?.layer == 0, let recipe,
                    recipe.level == level,
                    recipe.zstdLevel == zstd.level, let history = chunk.history,
                    ArchiveWriter.sameBytes(history, zstd.history)
                {
                    next.zstdAttempt = (zstd.history, chunk.stored)
                    reused += 1
                } else {
                    chunk.raw.withUnsafeBytes { next.tryZstd($0, level: zstd.level, history: zstd.history) }
                }
            }
            storeRaw = storeRaw || next.codec == .raw
            sourceStoredRaw = sourceStoredRaw || chunk.entry.codec == .raw
            coded.append(next)
        }
        return (coded, reused)
    }

    /// Whether a chunk's stored bytes are what coding it against `dictionary` gives (its archive
    /// written at the same level, no earlier chunk of its body stored raw), `placement` being how
    /// its archive placed dictionaries.
    static func reusable(
        _ chunk: VerifiedChunk, first: Bool, dictionary: LZ4Dictionary?, placement: DictionaryPlacement
    ) -> Bool {
        switch chunk.entry.codec {
        case .lz4: return dictionary == nil
        case .lz4Dictionary:
            guard let dictionary, let used = chunk.dictionary, dictionary.prefixed == (placement == .prefix) else {
                return false
            }
            return dictionary.hasSameBytes(as: used)
        case .raw: return !first
        case .zstdDelta, .zstd, nil: return false
        }
    }
}
