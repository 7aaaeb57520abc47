extension ArchiveWriter {
    /// The body a changed body replaces: what a delta chunk is coded against (spec Appendix C
    /// step 14).
    package struct PreviousVersion: Sendable {
        /// The base holding it: its position in the writer's bases (0 for the nearest).
        package var base: Int
        /// Its body entry as that base reads it.
        package var body: BodyEntry

        /// Names the body `body` of base `base`.
        package init(base: Int, body: BodyEntry) {
            self.base = base
            self.body = body
        }
    }

    /// Chunk `index` of a new body coded as a Zstandard delta against the previous version's chunk
    /// at the same position (its last one past its end), or nil when that does not pay.
    func deltaChunk(
        _ chunk: ChunkEncoder.Encoded, index: Int, previous: PreviousVersion
    ) throws -> (frame: [UInt8], reference: ChunkEntry)? {
        // A slice is not its chunk, a group up to 2 MiB, which is no reference (spec Appendix C step 14).
        guard previous.base >= 0, previous.base < bases.count, !previous.body.chunks.isEmpty, !previous.body.isSlice
        else { return nil }
        let referenceIndex = min(index, previous.body.chunks.count - 1)
        // A delta chunk or a frame alone cannot be a reference (spec §6.2); an update over an
        // update meets the first, one over a grouping archive the second.
        let codec = previous.body.chunks[referenceIndex].codec
        guard codec != .zstdDelta && codec != .zstd else { return nil }
        let history = try bases[previous.base].decodeChunk(previous.body, index: referenceIndex)
        let raw = try ChunkEncoder.decode(chunk)
        let limit = min(chunk.rawLength, chunk.stored.count)
        let frame = raw.withUnsafeBytes { raw in
            history.withUnsafeBytes { ZstdDelta.encode(raw, reference: $0, shorterThan: limit) }
        }
        guard let frame,
            UInt64(chunk.rawLength) <= FormatBounds.maxDecodeRatio * UInt64(frame.count) + UInt64(history.count)
        else {
            return nil
        }
        return (frame, previous.body.chunks[referenceIndex].relayered(by: UInt8(previous.base + 1)))
    }

    /// Decodes a chunk a base holds, named by its entry as this archive sees it (`layer` ≥ 1).
    func readBaseChunk(_ entry: ChunkEntry, role: ChunkEntry.Role = .deltaReference) throws -> [UInt8] {
        guard entry.layer >= 1, Int(entry.layer) <= bases.count else {
            throw WebArcError.corruptChunk(
                body: BodyReference(digest: BodyDigest.ofEmpty), chunk: 0, offset: entry.offset)
        }
        let base = bases[Int(entry.layer) - 1]
        let own = entry.relayered(by: 0 &- entry.layer)
        return try base.decode(
            own, ChunkContext(body: BodyReference(digest: BodyDigest.ofEmpty), index: 0, page: 0), role: role)
    }
}
