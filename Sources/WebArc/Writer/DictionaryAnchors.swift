/// The writer's choice of dictionaries (spec Appendix C step 13): the bodies at the positions its
/// ``AnchorPlan`` names are *anchors*, coded without a dictionary; the first chunk of each other
/// new body is coded against the last chunk of the latest anchor (its last 64 KiB), so pages of
/// one site share their boilerplate the way consecutive files share it in `tar | lz4`.
///
/// Positions count every body added, duplicates and empty bodies included, so a packer that
/// prepares bodies in parallel knows each body's dictionary from the order (and keys) of its
/// inputs alone.
/// The dictionary reference is the anchor's own last chunk when it is stored in this archive as
/// codec 0 or 1; otherwise (the anchor repeats a body whose last chunk is codec 2, or one held by a
/// base) a *dictionary chunk* holding those bytes is stored right before the first chunk that
/// needs it, once per anchor.
struct DictionaryAnchors {
    /// Which positions are anchors.
    let plan: AnchorPlan
    /// Bodies per anchor; 0 turns dictionaries off.
    var interval: Int { plan.interval }
    /// The position the next body added takes.
    private(set) var nextPosition = 0
    /// The latest anchor's dictionary (nil: none yet, or the anchor was empty).
    private(set) var dictionary: LZ4Dictionary?
    /// The chunk that holds the dictionary's bytes, once known or stored.
    var reference: ChunkEntry?
    /// What Zstandard bodies are coded against (spec Appendix C step 15): the whole decoded bytes
    /// of the reference, so the anchor's last chunk when it serves, the dictionary's bytes otherwise.
    private(set) var history: [UInt8]?

    /// Where the dictionary lies when a chunk is coded against it (`Writer.dictionaryPlacement`).
    let placement: DictionaryPlacement

    init(plan: AnchorPlan, placement: DictionaryPlacement) {
        self.plan = plan
        self.placement = placement
    }

    /// The bytes an anchor body gives its dependants: the last 64 KiB of its last chunk.
    static func tail<C: BidirectionalCollection>(ofBody body: C) -> C.SubSequence where C.Element == UInt8 {
        let count = body.count
        let lastChunk = count == 0 ? 0 : (count - 1) % ChunkEntry.maxRawLength + 1
        return body.suffix(min(lastChunk, ChunkEntry.maxDictionaryLength))
    }

    /// Whether the next position ``take()`` gives is an anchor's.
    var nextIsAnchor: Bool { plan.isAnchor(nextPosition) }

    /// Takes the next position: whether it is an anchor's, and the dictionary its first chunk is
    /// coded against (nil for an anchor, when off, or after an empty anchor).
    mutating func take() -> (position: Int, isAnchor: Bool, dictionary: LZ4Dictionary?) {
        let position = nextPosition
        nextPosition += 1
        let anchor = plan.isAnchor(position)
        return (position, anchor, anchor ? nil : dictionary)
    }

    /// The bytes of a body's last chunk as a writer cuts it (spec §6.3).
    static func lastChunk<C: BidirectionalCollection>(ofBody body: C) -> C.SubSequence where C.Element == UInt8 {
        let count = body.count
        return body.suffix(count == 0 ? 0 : (count - 1) % ChunkEntry.maxRawLength + 1)
    }

    /// Records the anchor just added from the decoded bytes of its last chunk and, when usable as
    /// the reference (stored here as codec 0 or 1), the entry of that chunk.
    mutating func setAnchor(lastChunkBytes: [UInt8], lastChunk: ChunkEntry?) {
        let tail = Self.tail(ofBody: lastChunkBytes)
        dictionary = tail.isEmpty ? nil : LZ4Dictionary(tail, placement: placement)
        if let lastChunk, lastChunk.layer == 0, lastChunk.codec == .raw || lastChunk.codec == .lz4,
            !lastChunkBytes.isEmpty
        {
            reference = lastChunk
            history = lastChunkBytes
        } else {
            reference = nil
            history = dictionary?.bytes
        }
    }
}
