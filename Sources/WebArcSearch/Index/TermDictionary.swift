/// A value for each term (its UTF-8 bytes), found by the hash ``DocumentAnalysis`` gives with each
/// term: the terms' bytes in one arena (``ByteSliceSet``), the values in an array by the term's
/// number. What the index builder keeps each term's postings in between runs, where a dictionary
/// keyed by byte arrays would hash every byte of every term of every document again.
struct TermDictionary<Value>: ExpressibleByDictionaryLiteral {
    private var terms = ByteSliceSet()
    private var values: [Value] = []

    /// An empty dictionary.
    init() {}

    /// A dictionary of `elements` (`[:]` makes an empty one).
    init(dictionaryLiteral elements: ([UInt8], Value)...) {
        for (term, value) in elements {
            term.withUnsafeBufferPointer { update($0, hash: ByteSliceSet.hash($0), default: value) { _ in } }
        }
    }

    /// Whether the dictionary holds no term.
    var isEmpty: Bool { values.isEmpty }
    /// How many terms the dictionary holds.
    var count: Int { values.count }

    /// Changes the value of `term`, whose ``ByteSliceSet/hash(_:)`` is `hash`, with `change`;
    /// a new term starts from `initial`.
    @inline(__always)
    mutating func update(
        _ term: UnsafeBufferPointer<UInt8>, hash: UInt32, default initial: @autoclosure () -> Value,
        _ change: (inout Value) -> Void
    ) {
        let (number, isNew) = terms.insert(term, hash: hash)
        if isNew { values.append(initial()) }
        change(&values[number])
    }

    /// Every term, in the order they were added.
    var keys: [[UInt8]] { (0..<terms.count).map { terms.bytes(of: $0) } }

    /// The value of `term`, or nil when the dictionary does not hold it.
    subscript(term: [UInt8]) -> Value? {
        term.withUnsafeBufferPointer { bytes in
            terms.number(of: bytes, hash: ByteSliceSet.hash(bytes)).map { values[$0] }
        }
    }

    /// Calls `body` with each term and its value, in the order of the terms' bytes.
    func forEachSorted(_ body: (_ term: [UInt8], _ value: Value) throws -> Void) rethrows {
        for number in terms.sortedNumbers() {
            try body(terms.bytes(of: Int(number)), values[Int(number)])
        }
    }
}
