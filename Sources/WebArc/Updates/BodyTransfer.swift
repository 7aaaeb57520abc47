/// Copies a body from one archive into a writer: whole when it is small, chunk by chunk otherwise,
/// so that memory stays bounded whatever a body's size.
enum BodyTransfer {
    /// Bodies up to this size are read whole (and may be coded as deltas); larger ones stream.
    static let wholeLimit: UInt64 = 8 << 20

    /// Adds body `entry` of `reader` to `writer`, coded against `previous` when given and small.
    static func add(_ entry: BodyEntry, from reader: ArchiveReader, to writer: ArchiveWriter, previous: ArchiveWriter.PreviousVersion? = nil) throws -> StoredBody {
        if entry.length <= wholeLimit {
            let bytes = try reader.body(entry.reference).withUnsafeBytes { Array($0) }
            return previous == nil ? try writer.addBody(bytes) : try writer.addBody(bytes, previousVersion: previous)
        }
        var iterator = try reader.makeChunkIterator(for: entry)
        let level = writer.options.compressionLevel
        return try writer.addBody(
            chunks: { try iterator.next().map { raw in raw.withUnsafeBytes { ChunkEncoder.encode($0, level: level) } } },
            end: { (entry.reference.digest, entry.sha256, entry.length) })
    }
}

extension ArchiveWriter {
    /// Adds a record read from `reader`, its body (for a response) copied from there first.
    ///
    /// - Returns: the stored body of a response, nil for other records.
    @discardableResult
    public func copy(_ record: ArchiveRecord, from reader: ArchiveReader, previous: PreviousVersion? = nil) throws -> StoredBody? {
        switch record {
        case .response(var response):
            let stored = try BodyTransfer.add(try reader.bodyEntry(response.body), from: reader, to: self, previous: previous)
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
