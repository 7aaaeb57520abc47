import Foundation

extension QueryEvaluation {
    /// The first `count` matches of a query of words and phrases (an index without positions),
    /// found document by document: the shortest list leads, each other list is read only in the
    /// blocks the leader's documents fall in, and a block or a document whose score bound (block
    /// maxima, spec §17.2) cannot beat the `count`-th best so far is passed over. Scores and order
    /// are those of the full evaluation (§17.4); nil when the query has a prefix, so that the
    /// caller evaluates it whole.
    mutating func runTop(_ query: SearchQuery, count: Int) throws -> RankedMatches? {
        guard count > 0, !index.hasPositions else { return nil }
        if query.clauses.count == 1, case .prefix(let prefix) = query.clauses[0] {
            return try topOfPrefix(prefix, count: count)
        }
        for clause in query.clauses { if case .prefix = clause { return nil } }
        index.willReadShards(of: query.clauses.flatMap(Self.terms))
        let (clauses, words) = try ordered(query.clauses)
        index.willReadPostings(of: words)
        var lists: [TermList] = []
        // Each clause's lists, in clause order: a word's one, a phrase's one per term.
        var members: [Range<Int>] = []
        for clause in clauses {
            let terms: [String]
            switch clause {
            case .word(let term): terms = [term]
            case .phrase(let phrase): terms = phrase
            case .prefix: return nil
            }
            guard !terms.isEmpty else { return RankedMatches([]) }
            let start = lists.count
            for term in terms {
                guard let (shard, entry) = try index.lookup(Array(term.utf8)) else { return RankedMatches([]) }
                let postings = try index.termPostings(shard, entry)
                let idf = idf(entry.documentFrequency)
                let bounds = (0..<postings.blockCount).map { number in
                    let skip = postings.skip(number)
                    return Self.inflated(
                        weight(
                            frequency: skip.maxFrequency, lengthCode: skip.minLengthCode, inTitle: skip.anyInTitle,
                            idf: idf))
                }
                lists.append(TermList(postings: postings, idf: idf, bounds: bounds, frequency: entry.documentFrequency))
            }
            members.append(start..<lists.count)
            if case .phrase(let phrase) = clause, phrase.count > 1 { phrasesToCheck.append(phrase) }
            commonTerms.formUnion(terms)
        }
        let leader = lists.indices.min { lists[$0].frequency < lists[$1].frequency }!
        let others = lists.indices.filter { $0 != leader }
        let othersBound = others.reduce(0.0) { $0 + (lists[$1].bounds.max() ?? 0) }
        var best = TopMatches(count: count)
        for number in 0..<lists[leader].postings.blockCount {
            if best.cannotEnter(lists[leader].bounds[number] + othersBound) { continue }
            for posting in try lists[leader].postings.block(number) {
                let document = posting.document
                var bound = weight(posting, idf: lists[leader].idf)
                for other in others {
                    guard let block = lists[other].moveBlock(to: document) else {
                        return RankedMatches(best.matches)
                    }
                    bound += lists[other].bounds[block]
                }
                if best.cannotEnter(Self.inflated(bound)) { continue }
                var found = true
                var weights = [Double](repeating: 0, count: lists.count)
                weights[leader] = weight(posting, idf: lists[leader].idf)
                for other in others {
                    guard let match = try lists[other].posting(document) else {
                        found = false
                        break
                    }
                    weights[other] = weight(match, idf: lists[other].idf)
                }
                guard found else { continue }
                // Summed as the full evaluation sums: within a clause in term order, then the clauses in order.
                var score = 0.0
                for (position, range) in members.enumerated() {
                    var clause = weights[range.lowerBound]
                    for list in range.dropFirst() { clause += weights[list] }
                    score = position == 0 ? clause : score + clause
                }
                best.add(ScoredDocument(document: document, score: score))
            }
        }
        return RankedMatches(best.matches)
    }

    /// The first `count` matches of a query of one prefix: a document's score is its best weight
    /// among the prefix's terms, so a block whose bound is below the `count`-th best weight found
    /// so far (each a lower bound of its document's score) cannot hold a result.
    private mutating func topOfPrefix(_ prefix: String, count: Int) throws -> RankedMatches {
        index.willReadShards(of: Self.terms(.prefix(prefix)))
        var best: [Int: Double] = [:]
        // The `count` best weights held, ascending: the first is the bar a block must reach.
        var bar: [Double] = []
        for (shard, entry) in try prefixEntries(prefix) {
            let postings = try index.termPostings(shard, entry)
            prefixTerms.append((String(decoding: entry.term, as: UTF8.self), postings))
            let idf = idf(entry.documentFrequency)
            for number in 0..<postings.blockCount {
                let skip = postings.skip(number)
                let bound = Self.inflated(
                    weight(
                        frequency: skip.maxFrequency, lengthCode: skip.minLengthCode, inTitle: skip.anyInTitle, idf: idf
                    ))
                if bar.count == count, bound < bar[0] { continue }
                for posting in try postings.block(number) {
                    let score = weight(posting, idf: idf)
                    if bar.count == count, score < bar[0] { continue }
                    let old = best[posting.document]
                    guard old.map({ score > $0 }) ?? true else { continue }
                    best[posting.document] = score
                    // The bar rises with a document's best weight; a document's older, lower weight
                    // leaves it.
                    if let old, let at = bar.firstIndex(of: old) { bar.remove(at: at) }
                    bar.insert(score, at: bar.firstIndex { $0 > score } ?? bar.count)
                    if bar.count > count { bar.removeFirst() }
                }
            }
        }
        let ranked = best.map { ScoredDocument(document: $0.key, score: $0.value) }.sorted {
            $0.score != $1.score ? $0.score > $1.score : $0.document < $1.document
        }
        return RankedMatches(Array(ranked.prefix(count)))
    }

    /// A bound raised past any rounding of the sums it stands for.
    private static func inflated(_ bound: Double) -> Double { bound * (1 + 1e-9) + 1e-12 }
}

/// A term's list as ``QueryEvaluation/runTop(_:count:)`` walks it: its blocks' weight bounds and
/// the block it stands at, decoded once.
private struct TermList {
    let postings: TermPostings
    let idf: Double
    let bounds: [Double]
    let frequency: Int
    private var block = 0
    private var decoded: (number: Int, postings: [Posting], position: Int)?

    init(postings: TermPostings, idf: Double, bounds: [Double], frequency: Int) {
        self.postings = postings
        self.idf = idf
        self.bounds = bounds
        self.frequency = frequency
    }

    /// The block that would hold `document` (documents only grow), or nil past the list's end.
    mutating func moveBlock(to document: Int) -> Int? {
        block = postings.seekBlock(from: block, to: document)
        return block < postings.blockCount ? block : nil
    }

    /// The posting of `document` in the current block (after ``moveBlock(to:)``), or nil.
    mutating func posting(_ document: Int) throws -> Posting? {
        if decoded?.number != block { decoded = (block, try postings.block(block), 0) }
        let list = decoded!.postings
        let position = DocumentOrder.seek(list, from: decoded!.position, to: document) { $0.document }
        decoded!.position = position
        return position < list.count && list[position].document == document ? list[position] : nil
    }
}

/// The best `count` matches seen, best first (higher score, then lower document).
private struct TopMatches {
    let count: Int
    private(set) var matches: [ScoredDocument] = []

    init(count: Int) { self.count = count }

    /// Whether a document seen after every one held, scoring at most `bound`, would be left out:
    /// a tie goes to the lower document, which is held.
    func cannotEnter(_ bound: Double) -> Bool {
        matches.count == count && bound <= matches[count - 1].score
    }

    mutating func add(_ match: ScoredDocument) {
        if matches.count == count {
            guard match.score > matches[count - 1].score else { return }
            matches.removeLast()
        }
        // After the last held match of a score at least as high: documents come in ascending order.
        var low = 0
        var high = matches.count
        while low < high {
            let middle = (low + high) / 2
            if matches[middle].score >= match.score { low = middle + 1 } else { high = middle }
        }
        matches.insert(match, at: low)
    }
}
