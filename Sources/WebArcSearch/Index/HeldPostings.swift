import WebArc

/// The postings an index builder holds between runs: appended one after another as documents come,
/// and grouped by term only when a run is written.
///
/// Appending to a list of its own for each term touched that term's list for every posting, a
/// cache miss on a site of many terms; the serial builder spent most of its time there. Here a
/// posting is two numbers at the end of two arrays, and ``forEachSorted(_:)`` groups them by term
/// once per run with a counting sort, which keeps each term's postings in document order.
struct HeldPostings {
    private let keepsPositions: Bool
    /// The terms of the postings held, numbered in the order first met.
    private var terms = ByteSliceSet()
    /// Each posting: its term's number, and its document (high 32 bits) with its count shifted
    /// left once, the low bit set when the title holds the term (low 32 bits).
    private var postingTerms: [Int32] = []
    private var postingValues: [UInt64] = []
    /// Each document's ``LengthCode``, from the first document held.
    private var lengthCodes: [UInt8] = []
    private var firstDocument = 0
    /// Version 1: each posting's positions, coded, one after another, and where each one's end.
    private var positions: [UInt8] = []
    private var positionEnds: [Int] = []

    /// Holds postings with (version 1) or without their positions, room made for about `reserved`
    /// of them at once: arrays that grow by doubling would leave their old blocks behind in the
    /// heap, where the next run's cannot always use them.
    init(keepsPositions: Bool, reserved: Int) {
        self.keepsPositions = keepsPositions
        postingTerms.reserveCapacity(reserved)
        postingValues.reserveCapacity(reserved)
    }

    /// Forgets every posting and term, keeping the arrays' room for the next run.
    mutating func removeAll() {
        terms = ByteSliceSet()
        postingTerms.removeAll(keepingCapacity: true)
        postingValues.removeAll(keepingCapacity: true)
        lengthCodes.removeAll(keepingCapacity: true)
        positions.removeAll(keepingCapacity: true)
        positionEnds.removeAll(keepingCapacity: true)
    }

    /// Whether no posting is held.
    var isEmpty: Bool { postingTerms.isEmpty }

    /// Bytes of memory a posting takes, with the sorted copy ``forEachSorted(_:)`` makes.
    static let bytesPerPosting = 20

    /// Bytes of memory the postings and their terms take, about, with what ``forEachSorted(_:)``
    /// adds while it writes them.
    var heldBytes: Int {
        Self.bytesPerPosting * postingTerms.count + 8 * positionEnds.count + positions.count + lengthCodes.count + terms
            .count * 32
            + terms.byteCount
    }

    /// Starts the postings of document `document` (after the last one begun) of `length` tokens.
    mutating func beginDocument(_ document: Int, length: Int) {
        if lengthCodes.isEmpty { firstDocument = document }
        // Documents in between (taken from a base's index) hold no posting here.
        while firstDocument + lengthCodes.count < document { lengthCodes.append(0) }
        lengthCodes.append(LengthCode.encode(length))
    }

    /// Reads ahead what adding the postings of terms with these hashes will read
    /// (``ByteSliceSet/warm(_:)``).
    func warm(_ hashes: UnsafeBufferPointer<UInt32>) { terms.warm(hashes) }

    /// Adds the posting of `term` (its ``ByteSliceSet`` hash `hash`) in the document begun last.
    @inline(__always)
    mutating func add(
        _ term: UnsafeBufferPointer<UInt8>, hash: UInt32, count: Int, inTitle: Bool,
        positions termPositions: UnsafeBufferPointer<Int32>
    ) {
        postingTerms.append(Int32(terms.insert(term, hash: hash).number))
        let document = UInt64(UInt32(firstDocument + lengthCodes.count - 1))
        postingValues.append(document << 32 | UInt64(UInt32(count) << 1 | (inTitle ? 1 : 0)))
        guard keepsPositions else { return }
        var previous = 0
        for position in termPositions {
            LEB128.append(UInt64(Int(position) - previous), to: &positions)
            previous = Int(position)
        }
        positionEnds.append(positions.count)
    }

    /// Calls `body` with each term held in the order of its bytes, with its number of postings,
    /// its last document, and its postings and (version 1) positions coded as a run holds them.
    func forEachSorted(
        _ body: (_ term: [UInt8], _ frequency: Int, _ lastDocument: Int, _ postings: [UInt8], _ positions: [UInt8])
            throws -> Void
    ) rethrows {
        // A counting sort of the postings by term: each term's postings stay in the order added.
        // The values themselves are scattered (stores do not stall), so the coding below reads
        // them in order rather than gathering each through a cache miss.
        var starts = [Int](repeating: 0, count: terms.count + 1)
        for term in postingTerms { starts[Int(term) + 1] += 1 }
        for number in 0..<terms.count { starts[number + 1] += starts[number] }
        var sorted = [UInt64](repeating: 0, count: postingValues.count)
        var order = keepsPositions ? [Int32](repeating: 0, count: postingTerms.count) : []
        var next = starts
        for (posting, term) in postingTerms.enumerated() {
            let slot = next[Int(term)]
            sorted[slot] = postingValues[posting]
            if keepsPositions { order[slot] = Int32(posting) }
            next[Int(term)] = slot + 1
        }
        var postings: [UInt8] = []
        var termPositions: [UInt8] = []
        for number in terms.sortedNumbers() {
            let number = Int(number)
            postings.removeAll(keepingCapacity: true)
            termPositions.removeAll(keepingCapacity: true)
            var previous: Int?
            for slot in starts[number]..<starts[number + 1] {
                let value = sorted[slot]
                let document = Int(value >> 32)
                PostingCodec.encode(
                    document: document, previous: previous, frequency: Int(UInt32(truncatingIfNeeded: value) >> 1),
                    inTitle: value & 1 == 1, lengthCode: lengthCodes[document - firstDocument],
                    into: &postings)
                previous = document
                if keepsPositions {
                    let posting = Int(order[slot])
                    termPositions += positions[(posting == 0 ? 0 : positionEnds[posting - 1])..<positionEnds[posting]]
                }
            }
            try body(terms.bytes(of: number), starts[number + 1] - starts[number], previous!, postings, termPositions)
        }
    }
}
