/// The bodies a writer has stored: their entries (spec §6.3), encoded one after another in a
/// ``ScratchLog``, and in memory only where each starts, by MD5.
///
/// A writer looks a body up when one with the same MD5 arrives (a likely duplicate) and when it
/// finishes (the body tree in reference order, and each record leaf's copies), so entries are read
/// back rarely while bodies are added; keeping only an offset per body in memory keeps the writer's
/// memory to a few dozen bytes per body however many chunks each has.
final class BodyTable {
    /// Where variant 0 of each MD5 starts in the log.
    private var firstVariants: [BodyDigest: UInt64] = [:]
    /// Where variants 1, 2, … start, for the rare MD5 that two different bodies share.
    private var laterVariants: [BodyDigest: [UInt64]] = [:]
    /// After ``seal()``: every entry's reference and offset, in reference order.
    private var sorted: [(reference: BodyReference, offset: UInt64)] = []
    private var isSealed = false
    private let log = ScratchLog(prefix: "webarc-bodies")
    /// The entry stored or found last: a response names its body right after the body is added.
    private var recent: BodyEntry?

    /// Distinct bodies stored.
    private(set) var count = 0

    /// Bytes a read takes at once: most entries (one or two chunks) fit, longer ones take a second read.
    private static let readSize = 512

    /// The stored bodies with this MD5, in variant order.
    func variants(of digest: BodyDigest) throws -> [BodyEntry] {
        let offsets: [UInt64]
        if isSealed {
            var index = lowerBound(BodyReference(digest: digest, variant: 0))
            var found: [UInt64] = []
            while index < sorted.count && sorted[index].reference.digest == digest {
                found.append(sorted[index].offset)
                index += 1
            }
            offsets = found
        } else {
            guard let first = firstVariants[digest] else { return [] }
            offsets = [first] + (laterVariants[digest] ?? [])
        }
        return try offsets.map { try entry(at: $0) }
    }

    /// The stored entry `reference` names, or nil.
    func entry(_ reference: BodyReference) throws -> BodyEntry? {
        if let recent, recent.reference == reference { return recent }
        guard let offset = offset(of: reference) else { return nil }
        let found = try entry(at: offset)
        recent = found
        return found
    }

    /// Stores a new body under the next free variant of its MD5 and returns its entry.
    ///
    /// - Throws: `io` when the scratch file cannot be written.
    func add(
        digest: BodyDigest, length: UInt64, sha256: SHA256Hash, chunks: [ChunkEntry], sliceStart: UInt32? = nil
    ) throws -> BodyEntry {
        precondition(!isSealed, "a body added to a finished writer")
        let variant: UInt32 = firstVariants[digest] == nil ? 0 : UInt32(1 + (laterVariants[digest]?.count ?? 0))
        let reference = BodyReference(digest: digest, variant: variant)
        let entry =
            sliceStart.map {
                BodyEntry(reference: reference, length: length, sha256: sha256, group: chunks[0], sliceStart: $0)
            } ?? BodyEntry(reference: reference, length: length, sha256: sha256, chunks: chunks)
        var writer = ByteWriter(capacity: 4 + entry.encodedSize)
        writer.write(UInt32(entry.encodedSize))
        entry.serialize(into: &writer)
        let offset = try log.append(writer.bytes)
        if variant == 0 {
            firstVariants[digest] = offset
        } else {
            laterVariants[digest, default: []].append(offset)
        }
        count += 1
        recent = entry
        return entry
    }

    /// Replaces the entry of a body stored earlier by one of the same encoded size (a slice whose
    /// group chunk is now written, spec §6.3).
    ///
    /// - Throws: `io` when the scratch file cannot be written.
    func replace(_ entry: BodyEntry) throws {
        guard let offset = offset(of: entry.reference) else {
            preconditionFailure("a body replaced before it was stored")
        }
        var writer = ByteWriter(capacity: 4 + entry.encodedSize)
        writer.write(UInt32(entry.encodedSize))
        entry.serialize(into: &writer)
        try log.overwrite(at: offset, with: writer.bytes)
        if recent?.reference == entry.reference { recent = entry }
    }

    /// Where the entry `reference` names starts in the log, or nil.
    private func offset(of reference: BodyReference) -> UInt64? {
        if isSealed {
            let index = lowerBound(reference)
            return index < sorted.count && sorted[index].reference == reference ? sorted[index].offset : nil
        } else if reference.variant == 0 {
            return firstVariants[reference.digest]
        }
        let later = laterVariants[reference.digest] ?? []
        return Int(reference.variant) <= later.count ? later[Int(reference.variant) - 1] : nil
    }

    /// Ends adding: the offsets are kept sorted by reference (the body tree's order) and the
    /// table by MD5 is let go. Lookups still work, by binary search.
    func seal() {
        guard !isSealed else { return }
        var all: [(reference: BodyReference, offset: UInt64)] = []
        all.reserveCapacity(count)
        for (digest, offset) in firstVariants { all.append((BodyReference(digest: digest, variant: 0), offset)) }
        firstVariants = [:]
        for (digest, offsets) in laterVariants {
            for (number, offset) in offsets.enumerated() {
                all.append((BodyReference(digest: digest, variant: UInt32(number + 1)), offset))
            }
        }
        laterVariants = [:]
        all.sort { $0.reference < $1.reference }
        sorted = all
        isSealed = true
    }

    /// Every entry in reference order (``seal()`` first), read back one at a time.
    func forEachSorted(_ body: (BodyEntry) throws -> Void) throws {
        precondition(isSealed, "body entries listed before the table was sealed")
        for (_, offset) in sorted { try body(try entry(at: offset)) }
    }

    /// Where `reference` comes in reference order (``seal()`` first), or nil when not stored: a
    /// number below ``count`` that a caller can mark bodies by, a bit each.
    func sortedIndex(of reference: BodyReference) -> Int? {
        precondition(isSealed, "a body's place asked for before the table was sealed")
        let index = lowerBound(reference)
        return index < sorted.count && sorted[index].reference == reference ? index : nil
    }

    /// Decodes the entry stored at `offset` of the log.
    private func entry(at offset: UInt64) throws -> BodyEntry {
        var bytes = try log.read(at: offset, count: Self.readSize)
        let length = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
        if bytes.count < 4 + length { bytes = try log.read(at: offset, count: 4 + length) }
        var reader = ByteReader(bytes, region: .object(page: 0), range: 4..<4 + length)
        return try BodyEntry(parsing: &reader, page: 0)
    }

    /// The index of the first sorted entry not before `reference`.
    private func lowerBound(_ reference: BodyReference) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].reference < reference { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
