import Crypto
import Foundation

extension ArchiveWriter {
    /// Adds a body held in memory.
    ///
    /// - Returns: the stored body, possibly one stored earlier with the same bytes.
    public func addBody<D: DataProtocol>(_ bytes: D) throws -> StoredBody {
        try ensureOpen()
        let slot = anchors.take()
        let contiguous = Array(bytes)
        let prepared = contiguous.withUnsafeBytes {
            PreparedBody(raw: $0, level: options.compressionLevel, dictionary: slot.dictionary)
        }
        return try failing { try commit(prepared, slot: slot) }
    }

    /// Adds a body held in memory to an update archive, coding each chunk against its previous
    /// version (a body of base `previousVersion.base`) when that is shorter (spec Appendix C step 14).
    ///
    /// - Returns: the stored body, possibly one stored earlier or held by a base with the same bytes.
    package func addBody<D: DataProtocol>(_ bytes: D, previousVersion: PreviousVersion?) throws -> StoredBody {
        try addBody(Array(bytes), known: nil, previousVersion: previousVersion)
    }

    /// Adds a body whose digests are known (copied from a verified archive), coded against its
    /// previous version when given.
    func addBody(_ bytes: [UInt8], known: KnownDigests?, previousVersion: PreviousVersion?) throws -> StoredBody {
        try ensureOpen()
        let slot = anchors.take()
        let prepared = bytes.withUnsafeBytes {
            PreparedBody(raw: $0, level: options.compressionLevel, dictionary: slot.dictionary, known: known)
        }
        return try failing { try commit(prepared, slot: slot, previous: previousVersion) }
    }

    /// Adds a body copied from a verified archive by its entry when this writer or one of its
    /// bases already holds an equal body (the same MD5, length and body hash): as ``commit(_:slot:previous:)``
    /// would take it, but without reading, hashing or coding its bytes. Nil, with nothing taken,
    /// when neither holds it or the next position is an anchor's (whose last chunk is needed).
    func addBody(ifHeld copied: BodyEntry) throws -> StoredBody? {
        try ensureOpen()
        guard !anchors.nextIsAnchor,
            let entry = try failing({
                try heldEqual(digest: copied.reference.digest, length: copied.length, sha256: copied.sha256)
            })
        else { return nil }
        _ = anchors.take()
        return note(entry, deduplicated: true)
    }

    /// This writer's entry of a body equal to the one described (the same MD5, length and body
    /// hash): one it stored, else one a base holds, recorded now as this writer's; nil when
    /// neither holds it.
    func heldEqual(digest: BodyDigest, length: UInt64, sha256: SHA256Hash) throws -> BodyEntry? {
        if let existing = findEqual(digest: digest, length: length, sha256: sha256) { return existing }
        guard let (base, found) = try findInBases(digest: digest, length: length, sha256: sha256) else { return nil }
        return try store(found, from: base, digest: digest)
    }

    /// Adds again a body this writer stored, for another record: it takes the next position
    /// (spec Appendix C step 13) as a duplicate does, without reading or hashing the bytes again.
    ///
    /// - Throws: `invalidRecord` for a body this writer did not store.
    public func addBody(repeating body: StoredBody) throws -> StoredBody {
        try ensureOpen()
        guard let entry = storedBody(body.reference) else {
            throw WebArcError.invalidRecord(url: "", reason: "body \(body.reference) was not added to this writer")
        }
        let slot = anchors.take()
        return try failing {
            if slot.isAnchor {
                let last = try entry.chunks.last.map { $0.layer == 0 ? try readChunk($0) : try readBaseChunk($0) } ?? []
                noteAnchor(lastChunk: last, entry: entry)
            }
            return note(entry, deduplicated: true)
        }
    }

    /// Adds a body hashed and compressed ahead of time (see ``PreparedBody``).
    package func addBody(_ prepared: PreparedBody) throws -> StoredBody {
        try ensureOpen()
        let slot = anchors.take()
        return try failing { try commit(prepared, slot: slot) }
    }

    /// Adds a body whose digests are known and whose bytes probably equal a body added earlier:
    /// it is taken as that body when their lengths and body hashes agree too (spec §6.3), and
    /// only prepared (on this thread) when not.
    func addBody(likelyDuplicate raw: [UInt8], known: KnownDigests) throws -> StoredBody {
        try ensureOpen()
        let slot = anchors.take()
        return try failing {
            if let existing = findEqual(digest: known.md5, length: UInt64(raw.count), sha256: known.sha256) {
                if slot.isAnchor {
                    noteAnchor(lastChunk: Array(DictionaryAnchors.lastChunk(ofBody: raw)), entry: existing)
                }
                return note(existing, deduplicated: true)
            }
            let prepared = raw.withUnsafeBytes {
                PreparedBody(raw: $0, level: options.compressionLevel, dictionary: slot.dictionary, known: known)
            }
            return try commit(prepared, slot: slot)
        }
    }

    /// Adds the body of the file at `path`, whose digests and length are known from reading it
    /// once and which probably equals a body added earlier: it is taken as that body when their
    /// lengths and body hashes agree (spec §6.3), and only when not (an MD5 collision) read again
    /// and stored. `lastChunk` is its last chunk's bytes when its position is an anchor's.
    func addBody(
        likelyDuplicateOf path: String, known: KnownDigests, length: UInt64, lastChunk: [UInt8]
    ) throws -> StoredBody {
        try ensureOpen()
        guard let existing = findEqual(digest: known.md5, length: length, sha256: known.sha256) else {
            return try addBody(contentsOfFile: path)
        }
        let slot = anchors.take()
        if slot.isAnchor { noteAnchor(lastChunk: lastChunk, entry: existing) }
        return note(existing, deduplicated: true)
    }

    /// Stores or deduplicates a prepared body at its position, coding it again first when it was
    /// prepared with another dictionary than its position's.
    func commit(
        _ given: PreparedBody, slot: (position: Int, isAnchor: Bool, dictionary: LZ4Dictionary?),
        previous: PreviousVersion? = nil
    ) throws -> StoredBody {
        var prepared = given
        let entry: BodyEntry
        let deduplicated: Bool
        // A duplicate is found first: its prepared chunks are not stored, so they need not be
        // coded again for this position's dictionary.
        if let held = try heldEqual(digest: given.digest, length: given.length, sha256: given.sha256) {
            (entry, deduplicated) = (held, true)
        } else if isGrouped(length: given.length) {
            let raw = try given.chunks.flatMap { try ChunkEncoder.decode($0) }
            (entry, deduplicated) = (try storeGrouped(raw, digest: given.digest, sha256: given.sha256), false)
        } else {
            if !prepared.matches(dictionary: slot.dictionary) {
                let raw = try prepared.chunks.flatMap { try ChunkEncoder.decode($0) }
                prepared = raw.withUnsafeBytes {
                    PreparedBody(
                        raw: $0, level: options.compressionLevel, dictionary: slot.dictionary, md5: given.digest)
                }
            }
            var entries: [ChunkEntry] = []
            var sawRaw = false
            for (index, given) in prepared.chunks.enumerated() {
                var chunk = given
                // With deltas, "an earlier chunk was stored raw" depends on what was stored: a
                // chunk stored as a delta is not raw (spec Appendix C step 14).
                if previous != nil && chunk.untried != sawRaw {
                    let raw = try ChunkEncoder.decode(chunk)
                    chunk = raw.withUnsafeBytes {
                        ChunkEncoder.encode(
                            $0, level: options.compressionLevel, dictionary: index == 0 ? slot.dictionary : nil,
                            storeRaw: sawRaw, digest: given.digest)
                    }
                }
                if let previous, let delta = try deltaChunk(chunk, index: index, previous: previous) {
                    entries.append(
                        ChunkEntry(
                            offset: output.length, storedLength: UInt32(delta.frame.count),
                            rawLength: UInt32(chunk.rawLength),
                            digest: chunk.digest, reference: delta.reference))
                    try output.append(delta.frame)
                    continue
                }
                if previous == nil, let entry = try appendZstdChunk(chunk, slot: slot) {
                    entries.append(entry)
                    continue
                }
                sawRaw = sawRaw || chunk.codec == .raw
                let reference = chunk.codec == .lz4Dictionary ? try dictionaryReference() : nil
                entries.append(ChunkEncoder.entry(for: chunk, at: output.length, dictionaryReference: reference))
                try output.append(chunk.stored)
            }
            (entry, deduplicated) = (
                try store(digest: prepared.digest, length: prepared.length, sha256: prepared.sha256, chunks: entries),
                false
            )
        }
        if slot.isAnchor {
            let last = try prepared.chunks.last.map { try ChunkEncoder.decode($0) } ?? []
            noteAnchor(lastChunk: last, entry: entry)
        }
        return note(entry, deduplicated: deduplicated)
    }

    /// Makes the body just added at an anchor position, whose last chunk decodes to `lastChunk`,
    /// the dictionary of the next ones.
    func noteAnchor(lastChunk: [UInt8], entry: BodyEntry) {
        anchors.setAnchor(lastChunkBytes: lastChunk, lastChunk: entry.chunks.last)
    }

    /// Stores `chunk` of a body at `slot` as a Zstandard frame against the anchor's reference
    /// chunk when the writer has a Zstandard level and that frame is shorter than the chunk's
    /// other coding (spec Appendix C step 15), and returns its entry; nil when it does not apply
    /// or does not pay (nothing is written then).
    func appendZstdChunk(
        _ chunk: ChunkEncoder.Encoded, slot: (position: Int, isAnchor: Bool, dictionary: LZ4Dictionary?)
    ) throws -> ChunkEntry? {
        if groupLimit != nil {
            // A grouping writer codes chunks as frames alone (codec 4, spec Appendix C step 16).
            guard options.zstdLevel != nil, chunk.codec != .raw else { return nil }
            let alone = try ChunkEncoder.decode(chunk).withUnsafeBytes {
                Self.zstdAlone($0, otherCoding: chunk, level: options.zstdLevel)
            }
            guard let alone else { return nil }
            let entry = ChunkEncoder.entry(for: alone, at: output.length)
            try output.append(alone.stored)
            return entry
        }
        guard let level = options.zstdLevel, slot.dictionary != nil, chunk.codec != .raw, let history = anchors.history
        else { return nil }
        let frame: [UInt8]?
        if let attempt = chunk.zstdAttempt, Self.sameBytes(attempt.history, history) {
            frame = attempt.frame
        } else {
            frame = try ChunkEncoder.decode(chunk).withUnsafeBytes {
                ChunkEncoder.zstdFrame($0, otherCoding: chunk, level: level, history: history)
            }
        }
        guard let frame else { return nil }
        let reference = try dictionaryReference()
        let entry = ChunkEntry(
            offset: output.length, storedLength: UInt32(frame.count), rawLength: UInt32(chunk.rawLength),
            digest: chunk.digest,
            reference: reference)
        try output.append(frame)
        return entry
    }

    /// The chunk holding the current anchor's dictionary: the anchor's last chunk, or a dictionary
    /// chunk stored here now, once, when that cannot serve (spec Appendix C step 13).
    func dictionaryReference() throws -> ChunkEntry {
        if let reference = anchors.reference { return reference }
        guard let dictionary = anchors.dictionary else { throw WebArcError.writerClosed }
        let encoded = dictionary.bytes.withUnsafeBytes { ChunkEncoder.encode($0, level: options.compressionLevel) }
        let entry = ChunkEncoder.entry(for: encoded, at: output.length)
        try output.append(encoded.stored)
        statistics.storedBytes += UInt64(encoded.stored.count)
        anchors.reference = entry
        return entry
    }

    /// Adds a file's contents, streamed chunk by chunk so memory stays bounded whatever its size.
    ///
    /// - Parameters:
    ///   - path: the file to read.
    ///   - progress: called after each piece (at most 256 KiB) with the bytes read so far.
    /// - Throws: `io` naming the file when it cannot be read.
    public func addBody(contentsOfFile path: String, progress: ((UInt64) -> Void)? = nil) throws -> StoredBody {
        try ensureOpen()
        var stream = RawBodyStream(level: options.compressionLevel, slot: anchors.take())
        var body = BodyStream(writer: self, slot: stream.slot)
        var read: UInt64 = 0
        try failing {
            try FileInput.forEachPiece(of: path) { piece in
                try stream.append(piece) { try body.append($0) }
                read += UInt64(piece.count)
                progress?(read)
            }
            try stream.flush { try body.append($0) }
        }
        return try body.finish(digest: stream.digest, sha256: stream.sha256Hash, length: stream.length)
    }

    /// Adds a body that arrives as an asynchronous sequence of byte pieces of any size.
    public func addBody<S: AsyncSequence>(streaming pieces: S) async throws -> StoredBody
    where S.Element: DataProtocol {
        try ensureOpen()
        var stream = RawBodyStream(level: options.compressionLevel, slot: anchors.take())
        var body = BodyStream(writer: self, slot: stream.slot)
        do {
            for try await piece in pieces { try stream.append(Array(piece)[...]) { try body.append($0) } }
            try stream.flush { try body.append($0) }
        } catch {
            cancel()
            throw error
        }
        return try body.finish(digest: stream.digest, sha256: stream.sha256Hash, length: stream.length)
    }

    /// Adds a body whose chunks were encoded elsewhere and arrive in order (`chunks` returns nil
    /// after the last), its digests known at the end (`end`).
    func addBody(
        chunks: () throws -> ChunkEncoder.Encoded?, end: () -> (digest: BodyDigest, sha256: SHA256Hash, length: UInt64)
    ) throws -> StoredBody {
        try ensureOpen()
        var body = BodyStream(writer: self, slot: anchors.take())
        try failing {
            while let chunk = try chunks() { try body.append(chunk) }
        }
        let (digest, sha256, length) = end()
        return try body.finish(digest: digest, sha256: sha256, length: length)
    }

    /// Writes a body's encoded chunks as they come (after its dictionary chunk, when it needs one
    /// stored), then keeps them or, when the body equals one stored earlier, rolls them back.
    struct BodyStream {
        let writer: ArchiveWriter
        let slot: (position: Int, isAnchor: Bool, dictionary: LZ4Dictionary?)
        let start: UInt64
        private let referenceBefore: ChunkEntry?
        private var entries: [ChunkEntry] = []
        private var sawRaw = false
        private var lastRaw: [UInt8] = []
        /// A grouping writer's chunks, as given, while the body may still go into a group (it is
        /// not past the group limit yet).
        private var held: [ChunkEncoder.Encoded] = []
        private var heldBytes = 0

        init(writer: ArchiveWriter, slot: (position: Int, isAnchor: Bool, dictionary: LZ4Dictionary?)) {
            self.writer = writer
            self.slot = slot
            start = writer.output.length
            referenceBefore = writer.anchors.reference
        }

        /// Writes the next chunk, coding it again first if it was coded otherwise than the
        /// writer's order codes it here.
        mutating func append(_ given: ChunkEncoder.Encoded) throws {
            if entries.isEmpty && writer.isGrouped(length: UInt64(heldBytes + given.rawLength)) {
                held.append(given)
                heldBytes += given.rawLength
                return
            }
            // Past the group limit: the chunks held are written as any others, in order.
            let waiting = held
            held = []
            heldBytes = 0
            for chunk in waiting { try code(chunk) }
            try code(given)
        }

        /// Codes one chunk as the writer's order codes it here, then writes it.
        private mutating func code(_ given: ChunkEncoder.Encoded) throws {
            var chunk = given
            let dictionary = entries.isEmpty ? slot.dictionary : nil
            if chunk.untried != sawRaw || !PreparedBody.same(chunk.triedDictionary, dictionary) {
                let raw = try ChunkEncoder.decode(chunk)
                chunk = raw.withUnsafeBytes {
                    ChunkEncoder.encode(
                        $0, level: writer.options.compressionLevel, dictionary: dictionary, storeRaw: sawRaw,
                        digest: given.digest)
                }
            }
            try write(chunk)
        }

        /// Writes one chunk of the body to the body data.
        private mutating func write(_ chunk: ChunkEncoder.Encoded) throws {
            if slot.isAnchor { lastRaw = try ChunkEncoder.decode(chunk) }
            if let entry = try writer.appendZstdChunk(chunk, slot: slot) {
                entries.append(entry)
                return
            }
            sawRaw = sawRaw || chunk.codec == .raw
            let reference = chunk.codec == .lz4Dictionary ? try writer.dictionaryReference() : nil
            entries.append(ChunkEncoder.entry(for: chunk, at: writer.output.length, dictionaryReference: reference))
            try writer.output.append(chunk.stored)
        }

        mutating func finish(digest: BodyDigest, sha256: SHA256Hash, length: UInt64) throws -> StoredBody {
            let writer = self.writer
            if !held.isEmpty && UInt64(heldBytes) != length {
                let waiting = held
                held = []
                try writer.failing { for chunk in waiting { try code(chunk) } }
            }
            let written = entries
            let single = held.isEmpty ? nil : held
            return try writer.failing {
                var entry: BodyEntry
                var deduplicated = true
                if let existing = writer.findEqual(digest: digest, length: length, sha256: sha256) {
                    entry = existing
                } else if let (base, found) = try writer.findInBases(digest: digest, length: length, sha256: sha256) {
                    entry = try writer.store(found, from: base, digest: digest)
                } else if let single {
                    entry = try writer.storeGrouped(
                        try single.flatMap { try ChunkEncoder.decode($0) }, digest: digest, sha256: sha256)
                    deduplicated = false
                } else {
                    entry = try writer.store(digest: digest, length: length, sha256: sha256, chunks: written)
                    deduplicated = false
                }
                if deduplicated {
                    if let created = writer.anchors.reference, created != referenceBefore {
                        writer.statistics.storedBytes -= UInt64(created.storedLength)
                    }
                    try writer.output.rollBack(to: start)
                    writer.anchors.reference = referenceBefore
                }
                if slot.isAnchor { writer.noteAnchor(lastChunk: lastRaw, entry: entry) }
                return writer.note(entry, deduplicated: deduplicated)
            }
        }
    }

    /// Reads back and decodes a chunk written to this archive (its dictionary too, for codec 2; its
    /// reference in a base, for codec 3).
    func readChunk(_ entry: ChunkEntry) throws -> [UInt8] {
        let stored = try output.read(at: entry.offset, count: Int(entry.storedLength))
        if entry.codec == .zstd {
            guard let raw = ZstdDelta.decode(stored, rawLength: Int(entry.rawLength), reference: []) else {
                throw WebArcError.corruptChunk(
                    body: BodyReference(digest: BodyDigest.ofEmpty), chunk: 0, offset: entry.offset)
            }
            return raw
        }
        if let reference = entry.reference {
            let history = reference.layer == 0 ? try readChunk(reference) : try readBaseChunk(reference)
            guard let raw = ZstdDelta.decode(stored, rawLength: Int(entry.rawLength), reference: history) else {
                throw WebArcError.corruptChunk(
                    body: BodyReference(digest: BodyDigest.ofEmpty), chunk: 0, offset: entry.offset)
            }
            return raw
        }
        let dictionary = try entry.dictionary.map { try readChunk($0) }
        return try ChunkEncoder.decode(
            stored, entry: entry, dictionary: dictionary.map { Array($0.suffix(ChunkEntry.maxDictionaryLength)) })
    }

    /// Whether this writer may have stored a body with this MD5 (true for every stored one, and
    /// wrongly about once in 16 million asks), asked from any thread: the pack pipeline's workers,
    /// which then hand a file over as a likely duplicate instead of coding it.
    var storedBodyCheck: @Sendable (BodyDigest) -> Bool {
        let bodies = bodies
        return { bodies.mayContain($0) }
    }

    /// The stored body equal to a new one: the same MD5, length and body hash (SHA-256), or nil.
    ///
    /// MD5 collisions exist, so an equal MD5 alone never merges two bodies (spec §6.3); equal
    /// body hashes settle it without reading either body, as the archive's integrity already
    /// rests on SHA-256 (§11.1).
    func findEqual(digest: BodyDigest, length: UInt64, sha256: SHA256Hash) -> BodyEntry? {
        ((try? bodies.variants(of: digest)) ?? []).first { $0.length == length && $0.sha256 == sha256 }
    }

    /// The nearest base holding a body equal to this one (the same MD5, length and body hash),
    /// and its entry there, or nil (spec Appendix C step 11).
    func findInBases(digest: BodyDigest, length: UInt64, sha256: SHA256Hash) throws -> (base: Int, entry: BodyEntry)? {
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
                if candidate.length == length && candidate.sha256 == sha256 { return (position, candidate) }
            }
        }
        return nil
    }

    /// Whether two byte arrays are equal (one memcmp).
    static func sameBytes(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        left.count == right.count
            && left.withUnsafeBytes { l in
                right.withUnsafeBytes { r in l.count == 0 || memcmp(l.baseAddress!, r.baseAddress!, l.count) == 0 }
            }
    }

    /// Records a body a base holds under the next free variant of its MD5: its chunk entries
    /// are the base's with `layer` increased by the base's position (1 for the nearest).
    func store(_ found: BodyEntry, from base: Int, digest: BodyDigest) throws -> BodyEntry {
        let chunks = found.chunks.map { $0.relayered(by: UInt8(base + 1)) }
        // A slice stays a slice of its group in the base (spec §6.3).
        return try store(
            digest: digest, length: found.length, sha256: found.sha256, chunks: chunks, sliceStart: found.sliceStart)
    }

    /// Records a new distinct body under the next free variant of its MD5.
    func store(
        digest: BodyDigest, length: UInt64, sha256: SHA256Hash, chunks: [ChunkEntry], sliceStart: UInt32? = nil
    ) throws -> BodyEntry {
        let entry = try bodies.add(
            digest: digest, length: length, sha256: sha256, chunks: chunks, sliceStart: sliceStart)
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
