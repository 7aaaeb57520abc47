/// A body of a layer read as its chunks' stored bytes, not decoded, for an apply that checks the
/// result's body data as a whole (`Target.bodyData`, spec §13.1) instead of each copied chunk.
///
/// When every chunk's stored bytes are what the writer stores for it at its new position (the
/// rules of ``ChunkRecoder``, with a codec-2 chunk's dictionary named by its reference's digest
/// instead of compared by bytes), the body is copied as it is and nothing is decoded. Otherwise it
/// is read (``read()``) and coded again where it must be.
struct StoredCopy {
    /// One chunk: its entry, its stored bytes, and the archive holding them.
    struct Chunk {
        var entry: ChunkEntry
        var stored: [UInt8]
        var store: ArchiveReader
    }

    /// The digests that name a position's dictionary: of the anchor's whole last chunk, and of its
    /// last 64 KiB (the dictionary itself, what a dictionary chunk holds).
    struct DictionaryIdentity {
        var whole: (length: Int, digest: SHA256Hash)
        var tail: (length: Int, digest: SHA256Hash)

        init(lastChunk: [UInt8]) {
            whole = (lastChunk.count, SHA256Hash.of(lastChunk))
            let tail = DictionaryAnchors.tail(ofBody: lastChunk)
            self.tail = (tail.count, tail.count == lastChunk.count ? whole.digest : SHA256Hash.of(tail))
        }

        /// Whether a chunk coded against `reference`'s last 64 KiB was coded against this
        /// dictionary: its bytes are the anchor's last chunk or that chunk's last 64 KiB (equal
        /// SHA-256s, equal bytes, as spec §6.3 has it).
        func names(_ reference: ChunkEntry) -> Bool {
            (Int(reference.rawLength) == whole.length && reference.digest == whole.digest)
                || (Int(reference.rawLength) == tail.length && reference.digest == tail.digest)
        }
    }

    let entry: BodyEntry
    let reader: ArchiveReader
    let chunks: [Chunk]

    /// Reads the stored bytes of `entry`'s chunks; nil, reading nothing, when the body could not
    /// be copied as it is at a position that is not an anchor's: cut otherwise than the writer
    /// cuts, a first chunk of the wrong codec (with `dictionaries` on, one not coded against a
    /// dictionary: a raw one, say, of a photo, is tried again; off, one coded against one), a
    /// codec-3 chunk, or a chunk after a raw one (``ChunkRecoder`` codes those again).
    ///
    /// - Throws: what reading a chunk's extent throws (an extent outside its archive's body data:
    ///   `corruptIndex`; I/O).
    init?(_ entry: BodyEntry, from reader: ArchiveReader, dictionaries: Bool) throws {
        // writerCut is nil for a slice too: its group's stored bytes are not the body's.
        guard BodyTransfer.writerCut(entry) != nil, let first = entry.chunks.first,
            first.codec == (dictionaries ? .lz4Dictionary : .lz4)
        else { return nil }
        var sawRaw = false
        for chunk in entry.chunks {
            guard !sawRaw, chunk.codec == .lz4 || chunk.codec == .lz4Dictionary || chunk.codec == .raw else {
                return nil
            }
            sawRaw = chunk.codec == .raw
        }
        reader.announceChunks(of: entry, range: 0..<entry.length)
        var chunks: [Chunk] = []
        chunks.reserveCapacity(entry.chunks.count)
        for (position, chunk) in entry.chunks.enumerated() {
            let context = ChunkContext(
                body: entry.reference, index: position, page: entry.origin.page, position: entry.origin.position)
            let store = try reader.store(of: chunk, context)
            try chunk.validate(context, bodyDataEnd: store.trailer.bodyDataEnd)
            chunks.append(
                Chunk(
                    entry: chunk, stored: try store.source.read(at: chunk.offset, count: Int(chunk.storedLength)),
                    store: store))
        }
        self.entry = entry
        self.reader = reader
        self.chunks = chunks
    }

    /// The body as stored, when each chunk's stored bytes are the writer's coding of it at a
    /// position whose first chunk is tried against `dictionary` (named by `identity`) at `level`;
    /// nil when one of them would be coded again.
    ///
    /// - Parameter recipeOf: how the archive holding a chunk was written (its level and dictionary
    ///   placement), nil if unknown.
    func prepared(
        level: Int, dictionary: LZ4Dictionary?, identity: DictionaryIdentity?,
        recipeOf: (ArchiveReader) -> WriterRecipe?
    ) -> PreparedBody? {
        var coded: [ChunkEncoder.Encoded] = []
        coded.reserveCapacity(chunks.count)
        for (index, chunk) in chunks.enumerated() {
            guard let recipe = recipeOf(chunk.store), recipe.level == level, let codec = chunk.entry.codec else {
                return nil
            }
            let tried = index == 0 ? dictionary : nil
            switch codec {
            case .lz4:
                guard tried == nil else { return nil }
            case .lz4Dictionary:
                guard let tried, tried.prefixed == (recipe.placement == .prefix), let identity,
                    let reference = chunk.entry.dictionary,
                    identity.names(reference)
                else { return nil }
            case .raw:
                guard index > 0 else { return nil }
            case .zstdDelta, .zstd:
                return nil
            }
            coded.append(
                ChunkEncoder.Encoded(
                    stored: chunk.stored, rawLength: Int(chunk.entry.rawLength), codec: codec,
                    digest: chunk.entry.digest, triedDictionary: tried))
        }
        return PreparedBody(digest: entry.reference.digest, sha256: entry.sha256, length: entry.length, chunks: coded)
    }

    /// Reads and decodes the body's chunks without checking their digests, to be coded again:
    /// only the first pass of an apply, which checks the body data it writes instead, copies
    /// bodies undecoded (``ApplyPipeline``'s `copyUnchecked`), and a damaged chunk gives other
    /// body data there (the checking pass then names it).
    ///
    /// - Throws: what reading throws (a chunk that does not decode).
    func read() throws -> ApplyPipeline.Fetched {
        let read = try ApplyPipeline.readChunks(of: entry, from: reader)
        return .chunks(entry, read)
    }
}
