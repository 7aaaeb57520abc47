import WebArc

/// A term's postings in index version 3 (spec §17.2): a list of fewer than ``blockedFrom``
/// postings is coded as version 2 codes it; a longer one as a skip table, then blocks of
/// ``blockSize`` bit-packed postings. A query decodes only the blocks its candidates fall in, and
/// ranking passes over a block whose best weight (from its skip entry) cannot enter the results.
///
/// ```
/// skip 0 | skip 1 | … | skip B−1 | block 0 | block 1 | … | block B−1
/// skip:  int lastDelta, int maxPacked, u8 minLengthCode, u8 deltaBits, u8 packedBits, u8 lengthBits
/// block: deltas, packed values, length offsets; each value LSB first, the block padded to a byte
/// ```
enum BlockPostings {
    /// Postings in a block (the last block holds the rest).
    static let blockSize = 128
    /// The least document frequency whose list is blocked; shorter lists are coded as version 2.
    static let blockedFrom = 32
    /// The widest fields: a delta below 2^40, a packed count below 2^33, a length offset below 2^8.
    static let widthLimits = (delta: 40, packed: 33, length: 8)

    /// A block's skip entry: its last document, its postings' largest count and smallest length
    /// (a bound on their weights), its field widths (version 4: its Rice parameters), and where
    /// its bytes lie in the term's.
    struct Skip: Sendable {
        var lastDocument: Int
        var maxFrequency: Int
        var anyInTitle: Bool
        var minLengthCode: UInt8
        var deltaBits: Int
        var packedBits: Int
        var lengthBits: Int
        var count: Int
        var start: Int
        /// The block's bytes.
        var length: Int
        var end: Int { start + length }
    }

    /// The number of blocks of a list of `count` postings (0 for a list coded as version 2).
    static func blockCount(_ count: Int) -> Int {
        count < blockedFrom ? 0 : (count + blockSize - 1) / blockSize
    }

    /// Version 2 coding of the same postings (`PostingCodec.postings`' input) as version 3 codes them.
    static func encode(version2 bytes: [UInt8], count: Int) throws -> [UInt8] {
        guard count >= blockedFrom else { return bytes }
        return encode(try PostingCodec.postings(bytes, count: count, documentCount: 1 << 40, page: 0))
    }

    /// `postings` (documents ascending) as version 3 codes them.
    static func encode(_ postings: [Posting]) -> [UInt8] {
        guard postings.count >= blockedFrom else { return version2(postings) }
        // One pass a block finds its bounds and widths, then its fields are written straight into
        // the list's bytes: no array per block or field (this runs once per term, serially, as
        // the index's last merge writes its pages).
        var table: [UInt8] = []
        table.reserveCapacity(blockCount(postings.count) * 12)
        var bits = BitWriter()
        bits.reserve(postings.count * 3)
        var previous = -1
        postings.withUnsafeBufferPointer { postings in
            for start in stride(from: 0, to: postings.count, by: blockSize) {
                let end = min(postings.count, start + blockSize)
                var minLength = UInt8.max
                var maxDelta: UInt64 = 0
                var maxPacked: UInt64 = 0
                var maxFrequency = 0
                var anyInTitle = false
                var last = previous
                for posting in postings[start..<end] {
                    minLength = min(minLength, posting.lengthCode)
                    maxDelta = max(maxDelta, UInt64(posting.document - last - 1))
                    maxPacked = max(maxPacked, packed(posting))
                    maxFrequency = max(maxFrequency, posting.frequency)
                    anyInTitle = anyInTitle || posting.inTitle
                    last = posting.document
                }
                var maxLength: UInt8 = 0
                for posting in postings[start..<end] { maxLength = max(maxLength, posting.lengthCode - minLength) }
                let widths = (width(maxDelta), width(maxPacked), width(UInt64(maxLength)))
                LEB128.append(UInt64(last - previous - (previous < 0 ? 1 : 0)), to: &table)
                LEB128.append(UInt64(maxFrequency) << 1 | (anyInTitle ? 1 : 0), to: &table)
                table.append(minLength)
                table.append(UInt8(widths.0))
                table.append(UInt8(widths.1))
                table.append(UInt8(widths.2))
                var document = previous
                for posting in postings[start..<end] {
                    bits.append(UInt64(posting.document - document - 1), width: widths.0)
                    document = posting.document
                }
                for posting in postings[start..<end] { bits.append(packed(posting), width: widths.1) }
                for posting in postings[start..<end] {
                    bits.append(UInt64(posting.lengthCode - minLength), width: widths.2)
                }
                bits.padToByte()
                previous = last
            }
        }
        return table + bits.finish()
    }

    /// `postings` (documents ascending) as version 2 codes them; without `lengths`, as version 4
    /// codes a short list (no length code).
    static func version2(_ postings: [Posting], lengths: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = []
        var previous: Int?
        for posting in postings {
            PostingCodec.encode(
                document: posting.document, previous: previous, frequency: posting.frequency,
                inTitle: posting.inTitle, lengthCode: lengths ? posting.lengthCode : nil, into: &bytes)
            previous = posting.document
        }
        return bytes
    }

    /// A posting's count less one and its title flag, as a block packs them.
    @inline(__always)
    private static func packed(_ posting: Posting) -> UInt64 {
        UInt64(posting.frequency - 1) << 1 | (posting.inTitle ? 1 : 0)
    }

    /// The bits `value` needs (0 for 0).
    @inline(__always)
    private static func width(_ value: UInt64) -> Int { UInt64.bitWidth - value.leadingZeroBitCount }

    /// The skip table of a blocked list of `count` postings in `bytes`, every field checked: widths
    /// (`rice`, version 4: Rice parameters and block lengths) in bounds, last documents ascending
    /// below `documentCount`, blocks that end exactly at the list's end.
    static func skips(
        _ bytes: [UInt8], count: Int, documentCount: Int, rice: Bool = false, page: UInt64
    ) throws -> [Skip] {
        func fail(_ reason: String) -> WebArcError {
            .corruptPage(page: page, position: nil, reason: "postings: \(reason)")
        }
        let blocks = blockCount(count)
        // Each skip entry (and, version 4, its block) takes at least 6 (7) bytes: a hostile count
        // is refused before any allocation.
        guard blocks <= bytes.count / (rice ? 7 : 6) else { throw fail("\(blocks) blocks in \(bytes.count) bytes") }
        var skips: [Skip] = []
        skips.reserveCapacity(blocks)
        var index = 0
        var previous = -1
        for number in 0..<blocks {
            guard case .success(let delta) = LEB128.read(bytes, &index),
                case .success(let packed) = LEB128.read(bytes, &index), bytes.count - index >= (rice ? 3 : 4)
            else { throw fail("a malformed skip entry") }
            let minLength = bytes[index]
            let widths = (Int(bytes[index + 1]), Int(bytes[index + 2]), rice ? 0 : Int(bytes[index + 3]))
            index += rice ? 3 : 4
            var length: UInt64 = 0
            if rice {
                guard case .success(let read) = LEB128.read(bytes, &index), read >= 1, read <= UInt64(bytes.count)
                else { throw fail("a malformed skip entry") }
                length = read
            }
            guard delta >= (number == 0 ? 0 : 1), delta < UInt64(documentCount), packed >> 1 >= 1,
                packed >> 1 < 1 << 32
            else { throw fail("a skip entry's document delta \(delta) or count \(packed >> 1) out of range") }
            let last = previous + Int(delta) + (number == 0 ? 1 : 0)
            guard last < documentCount else { throw fail("document \(last) of \(documentCount)") }
            let limits =
                rice
                ? (RicePostings.valueBits.delta, RicePostings.valueBits.packed, 0)
                : (widthLimits.delta, widthLimits.packed, widthLimits.length)
            guard widths.0 <= limits.0, widths.1 <= limits.1, widths.2 <= limits.2 else {
                throw fail("field widths \(widths.0), \(widths.1), \(widths.2) out of range")
            }
            let size = number == blocks - 1 ? count - blockSize * (blocks - 1) : blockSize
            // A block's documents are all different, so it spans at least `size` documents.
            guard last - previous >= size else { throw fail("\(size) documents in a span of \(last - previous)") }
            skips.append(
                Skip(
                    lastDocument: last, maxFrequency: Int(packed >> 1), anyInTitle: packed & 1 == 1,
                    minLengthCode: minLength, deltaBits: widths.0, packedBits: widths.1, lengthBits: widths.2,
                    count: size, start: 0,
                    length: rice ? Int(length) : (size * (widths.0 + widths.1 + widths.2) + 7) / 8))
            previous = last
        }
        for number in skips.indices {
            skips[number].start = number == 0 ? index : skips[number - 1].end
            guard skips[number].end <= bytes.count else { throw fail("block \(number) past the list's end") }
        }
        guard skips.last?.end ?? index == bytes.count else {
            throw fail("\(bytes.count - (skips.last?.end ?? index)) bytes after the blocks")
        }
        return skips
    }

    /// Block `number`'s postings, checked against its skip entry (last document, largest count,
    /// title bit, smallest length and the widths, each the least that holds its values).
    static func block(_ bytes: [UInt8], _ skips: [Skip], _ number: Int, page: UInt64) throws -> [Posting] {
        let skip = skips[number]
        var bits = BitReader(bytes, from: skip.start)
        var postings: [Posting] = []
        postings.reserveCapacity(skip.count)
        var document = number == 0 ? -1 : skips[number - 1].lastDocument
        var largest: (delta: UInt64, packed: UInt64, length: UInt64) = (0, 0, 0)
        for _ in 0..<skip.count {
            let delta = bits.read(skip.deltaBits)
            largest.delta = max(largest.delta, delta)
            document += Int(delta) + 1
            postings.append(Posting(document: document, frequency: 0, inTitle: false, lengthCode: 0))
        }
        var anyInTitle = false
        for number in postings.indices {
            let packed = bits.read(skip.packedBits)
            largest.packed = max(largest.packed, packed)
            postings[number].frequency = Int(packed >> 1) + 1
            postings[number].inTitle = packed & 1 == 1
            anyInTitle = anyInTitle || packed & 1 == 1
        }
        for number in postings.indices {
            let offset = bits.read(skip.lengthBits)
            largest.length = max(largest.length, offset)
            postings[number].lengthCode = UInt8(clamping: UInt64(skip.minLengthCode) + offset)
        }
        func width(_ value: UInt64) -> Int { UInt64.bitWidth - value.leadingZeroBitCount }
        let fits =
            document == skip.lastDocument && Int(largest.packed >> 1) + 1 == skip.maxFrequency
            && anyInTitle == skip.anyInTitle && UInt64(skip.minLengthCode) + largest.length <= 255
            && postings.contains { $0.lengthCode == skip.minLengthCode }
            && (width(largest.delta), width(largest.packed), width(largest.length))
                == (skip.deltaBits, skip.packedBits, skip.lengthBits)
        guard fits else {
            throw WebArcError.corruptPage(
                page: page, position: nil, reason: "postings: block \(number) does not match its skip entry")
        }
        return postings
    }
}

/// Appends values of a given bit width, least significant bit first, into bytes filled from
/// their least significant bit.
struct BitWriter {
    /// Whole 64-bit words written: little-endian words hold the bits in the byte order they are
    /// read in, so a word is appended where a byte at a time took eight appends.
    private var words: [UInt64] = []
    private var pending: UInt64 = 0
    /// Bits of ``pending`` in use, below 64.
    private var pendingBits = 0

    /// Appends the low `width` bits of `value` (0 to 64).
    mutating func append(_ value: UInt64, width: Int) {
        guard width > 0 else { return }
        let value = width >= 64 ? value : value & ((1 << UInt64(width)) - 1)
        pending |= value << UInt64(pendingBits)
        let filled = pendingBits + width
        guard filled >= 64 else {
            pendingBits = filled
            return
        }
        words.append(pending)
        // The bits that did not fit the word just written.
        pending = pendingBits == 0 ? 0 : value >> UInt64(64 - pendingBits)
        pendingBits = filled - 64
    }

    /// Makes room for `count` more bytes.
    mutating func reserve(_ count: Int) { words.reserveCapacity(words.count + count / 8 + 1) }

    /// Pads the last byte with zero bits, so that what comes next starts on a byte.
    mutating func padToByte() {
        pendingBits = (pendingBits + 7) & ~7
        if pendingBits == 64 {
            words.append(pending)
            pending = 0
            pendingBits = 0
        }
    }

    /// The bytes, the last one padded with zero bits.
    mutating func finish() -> [UInt8] {
        padToByte()
        let tail = pendingBits / 8
        return [UInt8](unsafeUninitializedCapacity: words.count * 8 + tail) { buffer, count in
            for (index, word) in words.enumerated() {
                withUnsafeBytes(of: word.littleEndian) { bytes in
                    for offset in 0..<8 { buffer[index * 8 + offset] = bytes[offset] }
                }
            }
            for offset in 0..<tail {
                buffer[words.count * 8 + offset] = UInt8(truncatingIfNeeded: pending >> UInt64(offset * 8))
            }
            count = words.count * 8 + tail
        }
    }
}

/// Reads values of a given bit width (at most 40) as ``BitWriter`` wrote them; the caller has
/// checked that the bits lie within the bytes.
struct BitReader {
    private let bytes: [UInt8]
    private var bit: Int

    init(_ bytes: [UInt8], from start: Int) {
        self.bytes = bytes
        bit = start * 8
    }

    mutating func read(_ width: Int) -> UInt64 {
        guard width > 0 else { return 0 }
        var value: UInt64 = 0
        var byte = bit >> 3
        var shift = 0
        let skip = bit & 7
        // Up to 6 bytes hold a value of 40 bits that starts mid-byte.
        while shift < width + skip, byte < bytes.count {
            value |= UInt64(bytes[byte]) << shift
            shift += 8
            byte += 1
        }
        bit += width
        return (value >> skip) & ((1 << width) - 1)
    }
}

/// A term's postings as a query reads them: a blocked list (version 3 or 4) decoded a block at a
/// time, any other list decoded whole as one block; each block with a bound on its postings'
/// weights. In version 4 each posting's length code comes from the norm pages (`norms`).
struct TermPostings: Sendable {
    private let bytes: [UInt8]
    private let skips: [BlockPostings.Skip]
    private let whole: [Posting]?
    private let page: UInt64
    private let norms: NormLookup?

    /// Reads `count` postings of index `version` (1 or 2: unblocked; 4: with `norms`).
    init(
        _ bytes: [UInt8], count: Int, documentCount: Int, version: UInt64, norms: NormLookup? = nil, page: UInt64
    ) throws {
        self.bytes = bytes
        self.page = page
        self.norms = version >= 4 ? norms : nil
        guard version < 4 || norms != nil else {
            throw WebArcError.corruptPage(page: page, position: nil, reason: "postings without norm pages")
        }
        if version >= 3, count >= BlockPostings.blockedFrom {
            skips = try BlockPostings.skips(
                bytes, count: count, documentCount: documentCount, rice: version >= 4, page: page)
            whole = nil
            // Block 0 holds `count` documents up to its last, at least; the others lie between lasts.
            let skips = skips
            self.norms?.willFill(
                skips.indices.map { number in
                    let last = skips[number].lastDocument
                    return (number == 0 ? last + 1 - skips[0].count : skips[number - 1].lastDocument + 1)...last
                })
        } else {
            var postings = try PostingCodec.postings(
                bytes, count: count, documentCount: documentCount, page: page, lengths: version < 4)
            self.norms?.willFill(postings.map { $0.document...$0.document })
            try self.norms?.fill(&postings)
            whole = postings
            skips =
                postings.isEmpty
                ? []
                : [
                    BlockPostings.Skip(
                        lastDocument: postings.last!.document, maxFrequency: postings.map(\.frequency).max()!,
                        anyInTitle: postings.contains(where: \.inTitle),
                        minLengthCode: postings.map(\.lengthCode).min()!, deltaBits: 0, packedBits: 0, lengthBits: 0,
                        count: postings.count, start: 0, length: 0)
                ]
        }
    }

    /// The number of blocks.
    var blockCount: Int { skips.count }

    /// Block `number`'s skip entry: its last document and the bounds of its postings.
    func skip(_ number: Int) -> BlockPostings.Skip { skips[number] }

    /// Block `number`'s postings.
    func block(_ number: Int) throws -> [Posting] {
        if let whole { return whole }
        guard let norms else { return try BlockPostings.block(bytes, skips, number, page: page) }
        var postings = try RicePostings.block(bytes, skips, number, page: page)
        try norms.fill(&postings)
        // The skip entry's smallest length code bounds the block's weights: it must be the block's.
        guard postings.lazy.map(\.lengthCode).min() == skips[number].minLengthCode else {
            throw WebArcError.corruptPage(
                page: page, position: nil,
                reason: "postings: block \(number)'s smallest length code is not its skip entry's")
        }
        return postings
    }

    /// Block `number` to be read a part at a time (``PartialRiceBlock``), or nil when this list
    /// is not a version 4 blocked one (``block(_:)`` decodes those whole).
    func partialBlock(_ number: Int) throws -> PartialRiceBlock? {
        guard whole == nil, norms != nil else { return nil }
        return try PartialRiceBlock(bytes, skips, number, page: page)
    }

    /// The posting at `index` of `block`'s documents (a block of this list).
    func posting(at index: Int, in block: PartialRiceBlock) throws -> Posting {
        try block.posting(at: index, bytes, norms: norms!, page: page)
    }

    /// Every posting, in an array with room for `extra` more (a caller that inserts postings
    /// then grows it in place, not by a copy of a list that can be megabytes).
    func all(reserving extra: Int = 0) throws -> [Posting] {
        if let whole { return whole }
        var postings: [Posting] = []
        // The blocks' counts, checked against the list's as the skips were read: no doubling.
        postings.reserveCapacity(skips.reduce(0) { $0 + $1.count } + max(0, extra))
        for number in skips.indices { postings += try block(number) }
        return postings
    }

    /// The first block from `start` on whose last document is at least `document` (``blockCount``
    /// when none is).
    func seekBlock(from start: Int, to document: Int) -> Int {
        DocumentOrder.seek(skips, from: start, to: document) { $0.lastDocument }
    }

    /// Whether `document` has a posting here (its block decoded, when blocked).
    func contains(_ document: Int) throws -> Bool {
        let number = seekBlock(from: 0, to: document)
        guard number < skips.count else { return false }
        let postings = try block(number)
        let position = DocumentOrder.seek(postings, from: 0, to: document) { $0.document }
        return position < postings.count && postings[position].document == document
    }

    /// The postings whose documents `candidates` holds (all of them without candidates), decoding
    /// only the blocks the candidates fall in.
    func filter(to candidates: [ScoredDocument]?) throws -> [Posting] {
        guard let candidates else { return try all() }
        if let whole { return DocumentOrder.filter(whole, to: candidates) }
        var kept: [Posting] = []
        var number = 0
        var position = 0
        while position < candidates.count {
            number = seekBlock(from: number, to: candidates[position].document)
            guard number < skips.count else { break }
            let postings = try block(number)
            let last = skips[number].lastDocument
            var end = position
            while end < candidates.count, candidates[end].document <= last { end += 1 }
            kept += DocumentOrder.filter(postings, to: Array(candidates[position..<end]))
            position = end
            number += 1
        }
        return kept
    }
}
