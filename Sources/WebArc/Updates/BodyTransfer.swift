/// Copies a body from one archive into a writer: whole when it is small, chunk by chunk otherwise,
/// so that memory stays bounded whatever a body's size.
enum BodyTransfer {
    /// Bodies up to this size are read whole (and may be coded as deltas); larger ones stream.
    static let wholeLimit: UInt64 = 8 << 20

    /// The chunk digests of `entry` when its chunks are cut as a 2.x writer cuts them (262 144
    /// bytes each but the last), else nil.
    static func writerCut(_ entry: BodyEntry) -> [SHA256Hash]? {
        // A slice's chunk is its group, not the body.
        guard !entry.isSlice else { return nil }
        let cut = entry.chunks.dropLast().allSatisfy { Int($0.rawLength) == ChunkEntry.maxRawLength }
        return cut ? entry.chunks.map(\.digest) : nil
    }

    /// Adds body `entry` of `reader` to `writer`, coded against `previous` when given and small.
    static func add(
        _ entry: BodyEntry, from reader: ArchiveReader, to writer: ArchiveWriter,
        previous: ArchiveWriter.PreviousVersion? = nil
    ) throws -> StoredBody {
        // A body the writer or its bases hold already (an update's header-only change) is not read.
        if let held = try writer.addBody(ifHeld: entry) { return held }
        if entry.length <= wholeLimit {
            // Read once: every chunk checked against its digest, the body's MD5 and SHA-256
            // computed here and handed to the writer, which then hashes nothing again.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(Int(entry.length))
            try reader.verifyBody(entry) { bytes += $0 }
            let known = KnownDigests(md5: entry.reference.digest, sha256: entry.sha256, chunks: Self.writerCut(entry))
            return try writer.addBody(bytes, known: known, previousVersion: previous)
        }
        var iterator = try reader.makeChunkIterator(for: entry)
        let level = writer.options.compressionLevel
        return try writer.addBody(
            chunks: {
                try iterator.next().map { raw in raw.withUnsafeBytes { ChunkEncoder.encode($0, level: level) } }
            },
            end: { (entry.reference.digest, entry.sha256, entry.length) })
    }
}

extension ArchiveWriter {
    /// Adds a record read from `reader`, its body (for a response) copied from there first;
    /// `known` is the body entry its record's leaf gave, when the caller has it.
    ///
    /// - Returns: the stored body of a response, nil for other records.
    @discardableResult
    package func copy(
        _ record: ArchiveRecord, from reader: ArchiveReader, known: BodyEntry? = nil, previous: PreviousVersion? = nil
    ) throws -> StoredBody? {
        switch record {
        case .response(var response):
            let stored = try BodyTransfer.add(
                try reader.bodyEntry(response.body, known: known), from: reader, to: self, previous: previous)
            response.body = stored.reference
            try add(response)
            return stored
        case .redirect(let redirect):
            try add(redirect)
        case .tombstone(let tombstone):
            try add(tombstone)
        }
        return nil
    }
}
