import Crypto
import Foundation
import Synchronization

extension ArchiveReader {
    /// The body entry for `reference`: remembered from a record just looked up, or found by
    /// descending the body tree (spec §8).
    ///
    /// - Throws: `bodyNotFound` when the archive does not hold it; page errors.
    public func bodyEntry(_ reference: BodyReference) throws -> BodyEntry {
        if let cached = bodyCache.withLock({ $0.value(for: reference) }) { return cached }
        guard let (node, _) = try leaf(holding: reference.treeKey, in: .bodies), case .bodyLeaf(let leaf) = node,
            let entry = leaf.entry(reference)
        else { throw WebArcError.bodyNotFound(body: reference, page: nil) }
        return entry
    }

    /// `known` when it is the entry of `reference` (the copy a record leaf holds, which lookups
    /// and walks carry along), else the one the body tree holds: a walk in key order would
    /// otherwise visit the body tree's leaves at random.
    public func bodyEntry(_ reference: BodyReference, known: BodyEntry?) throws -> BodyEntry {
        if let known, known.reference == reference { return known }
        return try bodyEntry(reference)
    }

    /// Calls `body` with every body entry in body tree order (by MD5, then variant).
    public func forEachBody(_ body: (BodyEntry) throws -> Void) throws {
        try forEachLeaf(of: .bodies) { node, _ in
            guard case .bodyLeaf(let leaf) = node else { return }
            for entry in leaf.entries { try body(entry) }
        }
    }

    /// Number of chunks of all bodies, counted by walking the body tree.
    public var chunkCount: Int {
        get throws {
            var count = 0
            try forEachBody { count += $0.chunkCount }
            return count
        }
    }

    /// A pull-based iterator over a body's bytes (or a range of them), one verified chunk at a time.
    ///
    /// - Throws: `bodyNotFound`, `rangeOutOfBounds`, `corruptIndex` when the chunks do not add
    ///   up to the body's length, page errors.
    public func makeChunkIterator(for reference: BodyReference, range: Range<UInt64>? = nil) throws -> BodyChunkIterator
    {
        try makeChunkIterator(for: try bodyEntry(reference), range: range)
    }

    /// A pull-based iterator over the bytes (or a range) of a body entry already in hand.
    public func makeChunkIterator(for body: BodyEntry, range: Range<UInt64>? = nil) throws -> BodyChunkIterator {
        let range = range ?? 0..<body.length
        guard range.upperBound <= body.length else {
            throw WebArcError.rangeOutOfBounds(
                body: body.reference, lower: range.lowerBound, upper: range.upperBound, length: body.length)
        }
        try body.checkLength()
        announceChunks(of: body, range: range)
        return BodyChunkIterator(reader: self, body: body, range: range)
    }

    /// Tells the sources which stored extents reading `range` of `body` will touch, so that a
    /// remote source fetches them together: this archive's for its own chunks, a base's for the
    /// chunks in that layer. The dictionaries and references the chunks are decoded with (codecs 2
    /// and 3), in this archive or a base, are announced on their own first (neighbours together,
    /// up to ``baseReadAhead`` requests at once), unless already decoded and kept: a remote source
    /// starts them beside the body's first chunks instead of a round later for each, so opening
    /// an archive and reading one cold URL takes three round trips, also for a page an update
    /// changed over a remote base.
    func announceChunks(of body: BodyEntry, range: Range<UInt64>) {
        guard !range.isEmpty else { return }
        // Indexed by layer (0: this archive, n: bases[n - 1]): the extents read there, in order.
        var extents = [[Range<UInt64>]](repeating: [], count: bases.count + 1)
        var references = extents
        var noted = 0
        func noteExtent(_ chunk: ChunkEntry) {
            guard let (layer, extent) = storedExtent(of: chunk), !references[layer].contains(extent) else { return }
            references[layer].append(extent)
            noted += 1
        }
        func noteReference(_ chunk: ChunkEntry) {
            if let dictionary = chunk.dictionary, !dictionaryCache.withLock({ $0.value(for: dictionary) != nil }) {
                noteExtent(dictionary)
            }
            if let reference = chunk.reference, !referenceCache.withLock({ $0.value(for: reference) != nil }) {
                noteExtent(reference)
                noteReference(reference)
            }
        }
        var start: UInt64 = 0
        for (index, chunk) in body.chunks.enumerated() {
            let end = start + body.pieceLength(index)
            defer { start = end }
            if end <= range.lowerBound { continue }
            if start >= range.upperBound { break }
            if noted < Self.announcedReferences { noteReference(chunk) }
            if body.isSlice && groupCache.withLock({ $0.value(for: chunk) != nil }) { continue }
            guard let (layer, extent) = storedExtent(of: chunk) else { continue }
            extents[layer].append(extent)
        }
        // The references of consecutive chunks are often neighbours (a changed page's previous
        // version, chunk after chunk): fetched as windows, several at once, ahead of the chunks.
        for layer in references.indices where !references[layer].isEmpty {
            source(ofLayer: layer).willRead(
                references[layer].sorted { $0.lowerBound < $1.lowerBound }, ahead: Self.baseReadAhead)
        }
        for layer in extents.indices where !extents[layer].isEmpty { source(ofLayer: layer).willRead(extents[layer]) }
    }

    /// Where a chunk's stored bytes lie: its layer as chunk entries number them (0: this archive,
    /// n: `bases[n - 1]`) and its extent there; nil for a layer past the bases given or an extent
    /// past 2^64.
    private func storedExtent(of chunk: ChunkEntry) -> (layer: Int, extent: Range<UInt64>)? {
        let layer = Int(chunk.layer)
        guard layer <= bases.count, chunk.offset <= UInt64.max - UInt64(chunk.storedLength) else { return nil }
        return (layer, chunk.offset..<chunk.offset + UInt64(chunk.storedLength))
    }

    /// The source of layer `layer` as chunk entries number them: this archive's for 0, else its base's.
    private func source(ofLayer layer: Int) -> any ByteSource {
        layer == 0 ? source : bases[layer - 1].source
    }

    /// Requests a remote source keeps in flight ahead of the reads for extents that lie apart: a
    /// base's references for the body checks, a body's dictionaries and references.
    static let baseReadAhead = 8
    /// The dictionaries and references one body's read announces at most (the rest come as read).
    static let announcedReferences = 256

    /// Tells each base's source which of its stored extents reading `bodies` (in that order) will
    /// touch: their chunks in a base layer, and the delta references and dictionaries there. A
    /// remote base then fetches neighbouring extents in one request, several windows ahead of the
    /// reads (a release's changed pages are often scattered through the base), instead of one
    /// request per chunk (checking a Flask docs update over its base by URL: 91 requests, most
    /// for adjacent extents). Extents in the archive itself are announced per body as it is read
    /// (``makeChunkIterator(for:range:)``).
    func announceBaseChunks(of bodies: [BodyEntry]) {
        guard !bases.isEmpty else { return }
        var extents = [[Range<UInt64>]](repeating: [], count: bases.count + 1)
        var seen = [Set<UInt64>](repeating: [], count: bases.count + 1)
        func note(_ chunk: ChunkEntry, depth: Int = 0) {
            if let (layer, extent) = storedExtent(of: chunk), layer > 0, !extent.isEmpty,
                seen[layer].insert(extent.lowerBound).inserted
            {
                extents[layer].append(extent)
            }
            guard depth < 2 else { return }
            if let dictionary = chunk.dictionary { note(dictionary, depth: depth + 1) }
            if let reference = chunk.reference { note(reference, depth: depth + 1) }
        }
        for body in bodies {
            for chunk in body.chunks { note(chunk) }
        }
        for layer in extents.indices.dropFirst() where !extents[layer].isEmpty {
            source(ofLayer: layer).willRead(
                extents[layer].sorted { $0.lowerBound < $1.lowerBound }, ahead: Self.baseReadAhead)
        }
    }

    /// Calls `body` with successive verified pieces of a body (or of a byte range of it); memory
    /// holds one chunk at a time.
    public func forEachChunk(
        of reference: BodyReference, range: Range<UInt64>? = nil, _ body: ([UInt8]) throws -> Void
    ) throws {
        var iterator = try makeChunkIterator(for: reference, range: range)
        while let piece = try iterator.next() { try body(piece) }
    }

    /// A body (or a byte range of it) in memory. A whole body is also checked against its length,
    /// MD5 and body hash (spec §11.2).
    ///
    /// - Throws: chunk errors (`chunkDigest`, `corruptChunk`, …), `bodyDigest`, lookup errors.
    public func body(_ reference: BodyReference, range: Range<UInt64>? = nil) throws -> Data {
        var data = Data()
        if range == nil {
            let entry = try bodyEntry(reference)
            try verifyBody(entry) { data.append(contentsOf: $0) }
        } else {
            try forEachChunk(of: reference, range: range) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// A body (or a byte range of it) as an asynchronous stream of verified chunks, read as the
    /// consumer pulls. A chunk that fails its digest ends the stream with `chunkDigest`.
    public func chunks(of reference: BodyReference, range: Range<UInt64>? = nil) -> AsyncThrowingStream<Data, any Error>
    {
        let state = Mutex<Result<BodyChunkIterator, any Error>?>(nil)
        return AsyncThrowingStream(unfolding: { [self] in
            try state.withLock { state in
                if state == nil { state = Result { try self.makeChunkIterator(for: reference, range: range) } }
                var iterator = try state!.get()
                let next = try iterator.next()
                state = .success(iterator)
                return next.map { Data($0) }
            }
        })
    }

    /// Decodes a whole body and checks its length, MD5 and SHA-256 against its entry (spec §11.3
    /// `body-digests`); each chunk is verified against its own digest on the way.
    ///
    /// - Parameters:
    ///   - entry: the body's entry, from ``bodyEntry(_:)`` or ``forEachBody(_:)``.
    ///   - deliver: called with each verified chunk (for a caller that keeps the bytes).
    /// - Throws: chunk errors; `bodyDigest` naming the body's first chunk offset on a mismatch.
    public func verifyBody(_ entry: BodyEntry, deliver: (([UInt8]) throws -> Void)? = nil) throws {
        var md5 = Insecure.MD5()
        // A body of one chunk hashes to that chunk's digest, which reading it has just checked.
        let single =
            entry.chunks.count == 1 && UInt64(entry.chunks[0].rawLength) == entry.length
            && entry.chunks[0].digest == entry.sha256
        var sha256: SHA256? = single ? nil : SHA256()
        var length: UInt64 = 0
        var iterator = try makeChunkIterator(for: entry)
        while let piece = try iterator.next() {
            piece.withUnsafeBytes {
                md5.update(bufferPointer: $0)
                sha256?.update(bufferPointer: $0)
            }
            length += UInt64(piece.count)
            try deliver?(piece)
        }
        func fail(_ reason: String) -> WebArcError {
            .bodyDigest(body: entry.reference, offset: entry.firstChunkOffset, reason: reason)
        }
        guard length == entry.length else { throw fail("decodes to \(length) bytes, its entry says \(entry.length)") }
        let digest = BodyDigest(md5.finalize())
        guard digest == entry.reference.digest else { throw fail("bytes hash to MD5 \(digest.hex)") }
        let hash = sha256.map { SHA256Hash($0.finalize()) } ?? entry.sha256
        guard hash == entry.sha256 else {
            throw fail("bytes hash to SHA-256 \(hash.hex), its entry says \(entry.sha256.hex)")
        }
    }

    /// Reads, decodes and verifies chunk `index` of `body`: no byte is returned unless its SHA-256
    /// matches the chunk entry's (spec §6.2).
    ///
    /// - Throws: `baseRequired` for a chunk in a base layer; `unsupportedCodec`, `corruptIndex`,
    ///   `amplification` (entry checks);
    ///   `corruptChunk` when it does not decode; `chunkDigest` when the bytes do not match.
    func decodeChunk(_ body: BodyEntry, index: Int) throws -> [UInt8] {
        let context = ChunkContext(
            body: body.reference, index: index, page: body.origin.page, position: body.origin.position)
        if body.isSlice { return try decodeSlice(body, context) }
        return try decode(body.chunks[index], context)
    }

    /// A slice's bytes (spec §6.3) from its group chunk, decoded and verified once and kept while
    /// its neighbours are read.
    ///
    /// - Throws: `corruptIndex` for a slice that breaks §6.3; the chunk errors of its group.
    func decodeSlice(_ body: BodyEntry, _ context: ChunkContext) throws -> [UInt8] {
        if let problem = body.sliceProblem { throw context.corrupt(problem) }
        let chunk = body.chunks[0]
        let group: [UInt8]
        if let cached = groupCache.withLock({ $0.value(for: chunk) }) {
            group = cached
        } else {
            group = try decode(chunk, context, role: .group)
            groupCache.withLock { $0.insert(group, for: chunk, cost: group.count + Self.decodedChunkOverhead) }
        }
        let start = Int(body.sliceStart!)
        return Array(group[start..<start + Int(body.length)])
    }

    /// Reads and decodes chunk `index` of `body` as ``decodeChunk(_:index:)`` does, but leaves its
    /// SHA-256 to the caller, which must compare it with the entry's before using a byte: for
    /// `verify`, which hashes the first chunk of a body of several chunks once for both its digest
    /// and the body hash (``Verification/decodeChunk(_:index:reader:bodyHash:)``). A dictionary or
    /// delta reference the chunk needs is checked against its digest as always.
    ///
    /// - Throws: as ``decodeChunk(_:index:)``, except `chunkDigest` for this chunk.
    func decodeChunkLeavingDigest(_ body: BodyEntry, index: Int) throws -> [UInt8] {
        let context = ChunkContext(
            body: body.reference, index: index, page: body.origin.page, position: body.origin.position)
        // A slice is not its chunk: the group is verified whole, the slice by the body's digests.
        if body.isSlice { return try decodeSlice(body, context) }
        return try read(body.chunks[index], context, checkingDigest: false).raw
    }

    func decode(_ chunk: ChunkEntry, _ context: ChunkContext, role: ChunkEntry.Role = .chunk) throws -> [UInt8] {
        try read(chunk, context, role: role).raw
    }

    /// Reads, decodes and verifies one chunk, keeping what it was decoded from: its stored bytes,
    /// the archive holding them and, for codec 2, the dictionary's bytes.
    ///
    /// - Parameters:
    ///   - checkingDigest: false leaves the chunk's SHA-256 to the caller, which must compare it
    ///     with the entry's before using a byte.
    ///   - checkingReferences: false (only with `checkingDigest` false) decodes a delta reference
    ///     (codec 3) that is not cached yet without checking its digest, and does not cache it: a
    ///     reference read for one chunk only (an update's previous version), whose damage the
    ///     caller's check of the chunk finds. That caller reads the chunk again with both checks
    ///     when its own fails, so that the error names a damaged reference as before.
    func read(
        _ chunk: ChunkEntry, _ context: ChunkContext, role: ChunkEntry.Role = .chunk, checkingDigest: Bool = true,
        checkingReferences: Bool = true
    ) throws -> VerifiedChunk {
        let store = try self.store(of: chunk, context)
        try chunk.validate(context, bodyDataEnd: store.trailer.bodyDataEnd, role: role)
        let stored = try store.source.read(at: chunk.offset, count: Int(chunk.storedLength))
        let raw: [UInt8]?
        var dictionary: [UInt8]?
        var history: [UInt8]?
        switch chunk.codec {
        case .raw: raw = stored
        case .lz4: raw = LZ4.decode(stored, rawLength: Int(chunk.rawLength))
        case .lz4Dictionary:
            dictionary = try dictionaryBytes(chunk.dictionary!, context)
            raw = LZ4.decode(stored, rawLength: Int(chunk.rawLength), dictionary: dictionary![...])
        case .zstd: raw = ZstdDelta.decode(stored, rawLength: Int(chunk.rawLength), reference: [])
        case .zstdDelta:
            // The reference is verified by its own digest when decoded, then kept: the chunks of
            // a Zstandard archive's bodies share their anchor's (an update's name different ones).
            let reference = chunk.reference!
            if let cached = referenceCache.withLock({ $0.value(for: reference) }) {
                history = cached
            } else if !checkingReferences && !checkingDigest {
                history = try read(
                    reference, context, role: .deltaReference, checkingDigest: false, checkingReferences: false
                ).raw
            } else {
                let bytes = try decode(reference, context, role: .deltaReference)
                referenceCache.withLock {
                    $0.insert(bytes, for: reference, cost: bytes.count + Self.decodedChunkOverhead)
                }
                history = bytes
            }
            raw = ZstdDelta.decode(stored, rawLength: Int(chunk.rawLength), reference: history!)
        case nil: raw = nil
        }
        guard let raw else {
            throw WebArcError.corruptChunk(body: context.body, chunk: context.index, offset: chunk.offset)
        }
        guard !checkingDigest || SHA256Hash.of(raw) == chunk.digest else {
            throw WebArcError.chunkDigest(body: context.body, chunk: context.index, offset: chunk.offset)
        }
        return VerifiedChunk(
            entry: chunk, stored: stored, raw: raw, dictionary: dictionary, history: history, store: store)
    }
}

extension ArchiveReader {
    /// The dictionary a codec-2 chunk is decoded with: the last 64 KiB of its reference, decoded
    /// and verified once, then kept in the dictionary cache.
    ///
    /// - Throws: the chunk errors of the reference, named in `context`.
    func dictionaryBytes(_ reference: ChunkEntry, _ context: ChunkContext) throws -> [UInt8] {
        if let cached = dictionaryCache.withLock({ $0.value(for: reference) }) { return cached }
        let bytes = Array(try decode(reference, context, role: .dictionary).suffix(ChunkEntry.maxDictionaryLength))
        dictionaryCache.withLock { $0.insert(bytes, for: reference, cost: bytes.count + Self.decodedChunkOverhead) }
        return bytes
    }
}

/// A chunk read and checked against its digest, with what it was decoded from.
struct VerifiedChunk {
    /// Its entry, as the archive read names it.
    var entry: ChunkEntry
    /// The bytes stored (for codec 0, the same as `raw`).
    var stored: [UInt8]
    /// The decoded bytes, whose SHA-256 is `entry.digest`.
    var raw: [UInt8]
    /// For codec 2, the dictionary it was decoded with (at most 64 KiB).
    var dictionary: [UInt8]?
    /// For codec 3, its reference's decoded bytes (the history it was decoded with).
    var history: [UInt8]?
    /// The archive whose body data holds the stored bytes.
    var store: ArchiveReader
}

extension ArchiveReader {
    /// The archive whose body data holds `chunk`: this one for layer 0, base n for layer n.
    ///
    /// - Throws: `baseRequired` when the archive is read without its bases; `corruptIndex` for a
    ///   layer deeper than the bases given.
    func store(of chunk: ChunkEntry, _ context: ChunkContext) throws -> ArchiveReader {
        guard chunk.layer > 0 else { return self }
        guard !bases.isEmpty else {
            throw WebArcError.baseRequired(body: context.body, chunk: context.index, layer: chunk.layer)
        }
        guard Int(chunk.layer) <= bases.count else {
            throw context.corrupt("layer \(chunk.layer), but \(bases.count) bases")
        }
        return bases[Int(chunk.layer) - 1]
    }
}

/// Yields a body's verified bytes chunk by chunk, trimmed to a range; holds one decoded chunk at a time.
public struct BodyChunkIterator: Sendable {
    let reader: ArchiveReader
    let body: BodyEntry
    let range: Range<UInt64>
    var position = 0
    /// Body offset of the start of chunk `position`.
    var chunkStart: UInt64 = 0

    init(reader: ArchiveReader, body: BodyEntry, range: Range<UInt64>) {
        self.reader = reader
        self.body = body
        self.range = range
    }

    /// The next piece, or nil after the last.
    ///
    /// - Throws: the chunk errors of verified reads; the failing chunk's bytes are never returned.
    public mutating func next() throws -> [UInt8]? {
        while position < body.chunks.count {
            let index = position
            let start = chunkStart
            let end = start + body.pieceLength(index)
            position += 1
            chunkStart = end
            if end <= range.lowerBound { continue }
            if start >= range.upperBound { return nil }
            let bytes = try reader.decodeChunk(body, index: index)
            let lower = Int(max(range.lowerBound, start) - start)
            let upper = Int(min(range.upperBound, end) - start)
            return lower == 0 && upper == bytes.count ? bytes : Array(bytes[lower..<upper])
        }
        return nil
    }
}
