import Foundation

/// New bodies of at most the group limit waiting to share one group chunk (spec §6.3, Appendix C
/// step 16).
struct BodyGroup {
    /// The group's decoded bytes so far: its bodies, one after another.
    var bytes: [UInt8] = []
    /// The bodies in it, with where each starts in ``bytes``.
    var members: [(reference: BodyReference, start: UInt32, length: UInt64, sha256: SHA256Hash)] = []
}

extension ArchiveWriter {
    /// The smallest and largest group limits a recipe may give (`Writer.groups`, spec §7.3).
    package static let groupLimits: ClosedRange<Int> = 65_536...Int(FormatBounds.maxGroupLength)

    /// Whether a new body of `length` bytes goes into a group: a grouping writer's bodies of 1 byte
    /// to its group limit.
    func isGrouped(length: UInt64) -> Bool {
        guard let groupLimit else { return false }
        return length >= 1 && length <= UInt64(groupLimit)
    }

    /// Whether a group closes after a body with this MD5: its first 8 bytes, big-endian, are a
    /// multiple of ⌊limit / 16 384⌋ (content-defined, so a page added or dropped moves only the
    /// groups near it; spec Appendix C step 16).
    static func closesGroup(after digest: BodyDigest, limit: Int) -> Bool {
        let modulus = UInt64(max(1, limit / 16_384))
        let head = digest.bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return head % modulus == 0
    }

    /// Stores a new body of at most the group limit as a slice of the open group, closing the group first
    /// when the body would take it past its limit, and after it when its MD5 says so. Its entry
    /// names a placeholder chunk until the group is written (``closeGroup()``).
    func storeGrouped(_ raw: [UInt8], digest: BodyDigest, sha256: SHA256Hash) throws -> BodyEntry {
        guard let limit = groupLimit else { throw WebArcError.writerClosed }
        if !group.bytes.isEmpty && group.bytes.count + raw.count > limit { try closeGroup() }
        let start = UInt32(group.bytes.count)
        group.bytes.append(contentsOf: raw)
        let placeholder = ChunkEntry(
            offset: 0, storedLength: 0, rawLength: 0, codec: .raw, digest: SHA256Hash.ofEmpty)
        let entry = try bodies.add(
            digest: digest, length: UInt64(raw.count), sha256: sha256, chunks: [placeholder], sliceStart: start)
        statistics.bodiesStored += 1
        group.members.append((entry.reference, start, entry.length, sha256))
        if Self.closesGroup(after: digest, limit: limit) { try closeGroup() }
        return entry
    }

    /// Codes the open group as one chunk (spec Appendix C step 16), appends it to the body data
    /// and gives each of its bodies its final entry; nothing when no group is open.
    func closeGroup() throws {
        guard !group.bytes.isEmpty else { return }
        let bytes = group.bytes
        let members = group.members
        group = BodyGroup()
        let chunk = bytes.withUnsafeBytes { raw in
            let other = ChunkEncoder.encode(raw, level: options.compressionLevel)
            return Self.zstdAlone(raw, otherCoding: other, level: options.zstdLevel) ?? other
        }
        let entry = ChunkEncoder.entry(for: chunk, at: output.length)
        try output.append(chunk.stored)
        statistics.storedBytes += UInt64(chunk.stored.count)
        for member in members {
            try bodies.replace(
                BodyEntry(
                    reference: member.reference, length: member.length, sha256: member.sha256, group: entry,
                    sliceStart: member.start))
        }
    }

    /// The chunk `raw` as one Zstandard frame at `level` without a dictionary (codec 4), when a
    /// grouping writer has a Zstandard level, the chunk's other coding is not raw, and the frame
    /// is shorter than it and within the ratio bound of spec §10; nil otherwise.
    static func zstdAlone(
        _ raw: UnsafeRawBufferPointer, otherCoding: ChunkEncoder.Encoded, level: Int?
    )
        -> ChunkEncoder.Encoded?
    {
        guard let level, otherCoding.codec != .raw,
            let frame = ZstdDelta.encode(
                raw, reference: UnsafeRawBufferPointer(start: nil, count: 0), shorterThan: otherCoding.stored.count,
                level: Int32(clamping: level)),
            FormatBounds.ratioAllowed(stored: UInt32(frame.count), raw: UInt32(raw.count))
        else { return nil }
        var chunk = otherCoding
        chunk.stored = frame
        chunk.codec = .zstd
        return chunk
    }

    /// The bytes of a body this writer stored (or took from a base): a slice from its group, kept
    /// decoded while its neighbours are read (the search index reads bodies in key order, which
    /// mostly follows the order they were added in).
    func readStoredBody(_ entry: BodyEntry) throws -> [UInt8] {
        guard let start = entry.sliceStart, let group = entry.chunks.first else {
            var body: [UInt8] = []
            body.reserveCapacity(Int(entry.length))
            for chunk in entry.chunks {
                body += chunk.layer == 0 ? try readChunk(chunk) : try readBaseChunk(chunk)
            }
            return body
        }
        let bytes: [UInt8]
        if let cached = groupCache.value(for: group) {
            bytes = cached
        } else {
            bytes = group.layer == 0 ? try readChunk(group) : try readBaseChunk(group, role: .group)
            groupCache.insert(bytes, for: group, cost: bytes.count)
        }
        return Array(bytes[Int(start)..<Int(start) + Int(entry.length)])
    }
}
