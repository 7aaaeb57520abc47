/// A posting's weight (spec §17.4): BM25 over its count and its document's quantized length,
/// plus ``titleBoost`` × idf when the title holds the term.
struct BM25: Sendable {
    static let k1 = 1.2
    static let b = 0.75
    /// A title match's weight in idfs: about what the most frequent body match gives (k1 + 1), so
    /// that a page about a word outranks a long page that says it often.
    static let titleBoost = 2.0

    /// `k1 × (1 − b + b × length / average)` for each length code, worked out once per index.
    private let lengthTerms: [Double]

    /// The weights of an index whose documents average `averageLength` tokens.
    init(averageLength: Double) {
        lengthTerms = (0...255).map { code in
            let length = Double(LengthCode.decode(UInt8(code)))
            return Self.k1 * (1 - Self.b + Self.b * length / averageLength)
        }
    }

    @inline(__always)
    func weight(_ posting: Posting, idf: Double) -> Double {
        weight(frequency: posting.frequency, lengthCode: posting.lengthCode, inTitle: posting.inTitle, idf: idf)
    }

    /// The weight of one posting; it grows with `frequency` and `inTitle` and falls with the
    /// length, so a block's largest count, title bit and smallest length bound its postings' weights.
    @inline(__always)
    func weight(frequency: Int, lengthCode: UInt8, inTitle: Bool, idf: Double) -> Double {
        let f = Double(frequency)
        let body = idf * f * (Self.k1 + 1) / (f + lengthTerms[Int(lengthCode)])
        return body + (inTitle ? idf * Self.titleBoost : 0)
    }
}
