import WebArc

/// A term's postings in index version 4 (spec §17.2): no length codes (each document's is in the
/// norm pages); a list of fewer than ``BlockPostings/blockedFrom`` postings as int delta, int
/// packed; a longer one behind a skip table, in blocks whose deltas and packed counts are
/// Rice-coded, each run with the parameter that takes the fewest bits.
///
/// ```
/// skip:  int lastDelta, int maxPacked, u8 minLengthCode, u8 deltaK, u8 packedK, int blockLength
/// block: Rice(delta − 1, deltaK) × n, Rice(packed − 2, packedK) × n, zero bits to a byte
/// Rice(v, k): v >> k one bits, a zero bit, the k low bits of v (least significant first)
/// ```
enum RicePostings {
    /// The widest values: a delta − 1 below 2^40, a packed count − 2 below 2^33 (also the largest `k`).
    static let valueBits = (delta: 40, packed: 33)

    /// Version 2 coding of the same postings (`PostingCodec.postings`' input) as version 4 codes
    /// them.
    static func encode(version2 bytes: [UInt8], count: Int) throws -> [UInt8] {
        encode(try PostingCodec.postings(bytes, count: count, documentCount: 1 << 40, page: 0))
    }

    /// `postings` (documents ascending) as version 4 codes them.
    static func encode(_ postings: [Posting]) -> [UInt8] {
        var writer = RiceListWriter()
        for posting in postings {
            let added = writer.append(posting)
            precondition(added, "postings out of document order")
        }
        return writer.finish()
    }

    /// The `k` in 0...`limit` whose Rice codes of `values` take the fewest bits (the least on a tie).
    ///
    /// Going from `k` to `k` + 1 saves ⌈(v >> k) / 2⌉ bits of each value's ones and costs one bit
    /// each; the savings only shrink as `k` grows, so the first `k` that saves no more than it
    /// costs is the least of the fewest bits: no need to try every `k`.
    static func parameter(_ values: ArraySlice<UInt64>, limit: Int) -> Int {
        for k in 0..<limit {
            var saved: UInt64 = 0
            for value in values { saved &+= ((value >> UInt64(k)) + 1) >> 1 }
            if saved <= UInt64(values.count) { return k }
        }
        return limit
    }

    @inline(__always)
    static func append(_ value: UInt64, k: Int, to bits: inout BitWriter) {
        var ones = value >> UInt64(k)
        while ones >= 32 {
            bits.append(0xFFFF_FFFF, width: 32)
            ones -= 32
        }
        // `ones` one bits, then the zero bit that ends them.
        bits.append((1 << ones) - 1, width: Int(ones) + 1)
        bits.append(value & ((1 << UInt64(k)) - 1), width: k)
    }

    /// Block `number`'s postings, checked against its skip entry (last document, largest count,
    /// title bit, exact length, zero padding); their length codes are 0, for the norms to fill.
    static func block(_ bytes: [UInt8], _ skips: [BlockPostings.Skip], _ number: Int, page: UInt64) throws -> [Posting]
    {
        func fail() -> WebArcError {
            .corruptPage(page: page, position: nil, reason: "postings: block \(number) does not match its skip entry")
        }
        // Decoded through a raw view of the list: a block's values are read 64 bits at a time.
        return try bytes.withUnsafeBytes { raw in try decode(raw, skips, number, fail: fail) }
    }

    private static func decode(
        _ raw: UnsafeRawBufferPointer, _ skips: [BlockPostings.Skip], _ number: Int, fail: () -> WebArcError
    ) throws -> [Posting] {
        let skip = skips[number]
        var reader = RiceReader(raw, range: skip.start..<skip.end)
        var postings: [Posting] = []
        postings.reserveCapacity(skip.count)
        var document = number == 0 ? -1 : skips[number - 1].lastDocument
        for _ in 0..<skip.count {
            guard let delta = reader.read(k: skip.deltaBits, valueBits: valueBits.delta) else { throw fail() }
            document += Int(delta) + 1
            postings.append(Posting(document: document, frequency: 0, inTitle: false, lengthCode: 0))
        }
        var largest: UInt64 = 0
        var anyInTitle = false
        for index in postings.indices {
            guard let packed = reader.read(k: skip.packedBits, valueBits: valueBits.packed) else { throw fail() }
            largest = max(largest, packed)
            postings[index].frequency = Int(packed >> 1) + 1
            postings[index].inTitle = packed & 1 == 1
            anyInTitle = anyInTitle || packed & 1 == 1
        }
        guard document == skip.lastDocument, Int(largest >> 1) + 1 == skip.maxFrequency,
            anyInTitle == skip.anyInTitle, reader.endsInZeroPadding
        else { throw fail() }
        return postings
    }
}

/// Reads Rice codes, bits taken from each byte's least significant end, within one block's bytes
/// (a view valid while it reads).
struct RiceReader {
    private let bytes: UnsafeRawBufferPointer
    private let endBit: Int
    private var bit: Int

    /// A reader of the bytes `range`, from bit `start` of `bytes` on (its first bit by default).
    init(_ bytes: UnsafeRawBufferPointer, range: Range<Int>, from start: Int? = nil) {
        self.bytes = bytes
        bit = start ?? range.lowerBound * 8
        endBit = range.upperBound * 8
    }

    /// The bit of `bytes` the next code starts at.
    var position: Int { bit }

    /// The next 57 bits or more from `bit` (zero past the block's end).
    @inline(__always)
    private func window() -> UInt64 {
        let byte = bit >> 3
        let end = endBit >> 3
        var value: UInt64 = 0
        if byte + 8 <= end {
            value = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: byte, as: UInt64.self))
        } else {
            for offset in 0..<max(0, end - byte) { value |= UInt64(bytes[byte + offset]) << UInt64(offset * 8) }
        }
        return value >> UInt64(bit & 7)
    }

    /// The next Rice-coded value of parameter `k`, or nil when it runs past the block or is not
    /// below 2^`valueBits`.
    @inline(__always)
    mutating func read(k: Int, valueBits: Int) -> UInt64? {
        guard bit < endBit else { return nil }
        // Most codes lie whole in one window: its ones, the zero, the low bits.
        let word = window()
        let run = (~word).trailingZeroBitCount
        if run + 1 + k <= 57 {
            bit += run + 1 + k
            guard bit <= endBit, UInt64(run) < UInt64(1) << UInt64(valueBits - k) else { return nil }
            return UInt64(run) << UInt64(k) | (word >> UInt64(run + 1)) & ((1 << UInt64(k)) - 1)
        }
        var ones: UInt64 = 0
        while true {
            guard bit < endBit else { return nil }
            let run = UInt64((~window()).trailingZeroBitCount)
            if run < 57 {
                ones += run
                bit += Int(run) + 1
                break
            }
            ones += 57
            bit += 57
            // A run this long already passes any value's bound.
            guard ones < 1 << 41 else { return nil }
        }
        guard ones < UInt64(1) << UInt64(valueBits - k), bit + k <= endBit else { return nil }
        let low = k == 0 ? 0 : window() & ((1 << UInt64(k)) - 1)
        bit += k
        return ones << UInt64(k) | low
    }

    /// Whether the bits left in the block are fewer than 8 and all zero.
    var endsInZeroPadding: Bool {
        guard bit <= endBit, endBit - bit < 8 else { return false }
        return endBit == bit || window() & ((1 << UInt64(endBit - bit)) - 1) == 0
    }
}
