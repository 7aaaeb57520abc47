import WebArc

/// Codes a version 4 list (``RicePostings``) posting by posting, a block at a time, so that a list
/// of a term on every page of a million is held as its coded bytes and one block, never decoded
/// whole (an apply's join renumbers a base's list straight into it).
struct RiceListWriter {
    /// Postings not yet in a block: fewer than a block, or every one of a list too short for blocks.
    private var pending: [Posting] = []
    private var table: [UInt8] = []
    private var blocks: [UInt8] = []
    private var previous = -1
    private var deltas = [UInt64](repeating: 0, count: BlockPostings.blockSize)
    private var packed = [UInt64](repeating: 0, count: BlockPostings.blockSize)
    /// The postings appended.
    private(set) var count = 0

    init() { pending.reserveCapacity(BlockPostings.blockSize) }

    /// Adds a posting after every one before it; false (nothing added) when its document is not
    /// above theirs.
    mutating func append(_ posting: Posting) -> Bool {
        guard posting.document > (pending.last?.document ?? previous) else { return false }
        pending.append(posting)
        count += 1
        if pending.count == BlockPostings.blockSize { flushBlock() }
        return true
    }

    /// The list's bytes: blocks behind a skip table, or as a short list (no length codes).
    mutating func finish() -> [UInt8] {
        // A short list is shorter than a block, so it is all still pending.
        guard count >= BlockPostings.blockedFrom else { return BlockPostings.version2(pending, lengths: false) }
        if !pending.isEmpty { flushBlock() }
        return table + blocks
    }

    private mutating func flushBlock() {
        var minLength = UInt8.max
        var maxFrequency = 0
        var anyInTitle = false
        var last = previous
        for (slot, posting) in pending.enumerated() {
            deltas[slot] = UInt64(posting.document - last - 1)
            packed[slot] = UInt64(posting.frequency - 1) << 1 | (posting.inTitle ? 1 : 0)
            minLength = min(minLength, posting.lengthCode)
            maxFrequency = max(maxFrequency, posting.frequency)
            anyInTitle = anyInTitle || posting.inTitle
            last = posting.document
        }
        let count = pending.count
        let deltaK = RicePostings.parameter(deltas[0..<count], limit: RicePostings.valueBits.delta)
        let packedK = RicePostings.parameter(packed[0..<count], limit: RicePostings.valueBits.packed)
        var bits = BitWriter()
        for value in deltas[0..<count] { RicePostings.append(value, k: deltaK, to: &bits) }
        for value in packed[0..<count] { RicePostings.append(value, k: packedK, to: &bits) }
        let block = bits.finish()
        LEB128.append(UInt64(last - previous - (previous < 0 ? 1 : 0)), to: &table)
        LEB128.append(UInt64(maxFrequency) << 1 | (anyInTitle ? 1 : 0), to: &table)
        table.append(minLength)
        table.append(UInt8(deltaK))
        table.append(UInt8(packedK))
        LEB128.append(UInt64(block.count), to: &table)
        blocks += block
        previous = last
        pending.removeAll(keepingCapacity: true)
    }
}
