import Foundation
import WebArc

/// Runs a parsed query over one index (spec §17.4): every clause must match, each match weighed
/// by ``BM25``.
struct QueryEvaluation {
    /// The most terms a prefix stands for (the first, in term order).
    static let maxPrefixTerms = 64

    let index: IndexView
    /// The terms every hit holds, for snippets: its words' and its phrases'.
    var commonTerms: Set<String> = []
    /// Each term a prefix stood for, with its postings.
    var prefixTerms: [(term: String, postings: TermPostings)] = []
    /// The phrases of several terms that the last ``run(_:)`` matched by their terms alone, for an
    /// index without positions (version 2): a hit must still show each in its text (spec §17.4,
    /// ``PhraseCheck``).
    var phrasesToCheck: [[String]] = []

    /// The index's BM25 weights.
    let bm25: BM25
    /// How ``runTop(_:count:)`` deals a long list to the cores.
    var split = TopWalk.Split()

    init(index: IndexView) {
        self.index = index
        bm25 = BM25(averageLength: index.averageLength)
    }

    /// Matching documents with their scores, best first (equal scores: lower document first); when
    /// `top` is given, only the first `top` of them are asked for (``runTop(_:count:)``).
    mutating func run(_ query: SearchQuery, top: Int? = nil) throws -> RankedMatches {
        if let top, let matches = try runTop(query, count: top) { return matches }
        var scores: [ScoredDocument]?
        // Every shard the query needs, then every word's postings, asked for together (a remote
        // archive answers them in one round trip each).
        index.willReadShards(of: query.clauses.flatMap(Self.terms))
        let (clauses, words) = try ordered(query.clauses)
        index.willReadPostings(of: words)
        // Word clauses first, rarest first, so the candidate set shrinks early. Every list is in
        // document order, so a clause narrows the candidates by a merge, not by hashing.
        for clause in clauses {
            let clauseScores = try evaluate(clause, among: scores)
            guard !clauseScores.isEmpty else { return RankedMatches([]) }
            scores = scores.map { Self.intersect($0, clauseScores) } ?? clauseScores
            if scores!.isEmpty { return RankedMatches([]) }
        }
        return RankedMatches(scores ?? [])
    }

    /// The documents of both lists (each in document order) with their scores added, `first`'s first.
    static func intersect(_ first: [ScoredDocument], _ second: [ScoredDocument]) -> [ScoredDocument] {
        var result: [ScoredDocument] = []
        result.reserveCapacity(min(first.count, second.count))
        var other = 0
        for match in first {
            other = DocumentOrder.seek(second, from: other, to: match.document) { $0.document }
            guard other < second.count else { break }
            if second[other].document == match.document {
                result.append(ScoredDocument(document: match.document, score: match.score + second[other].score))
            }
        }
        return result
    }

    /// The matched terms document `number` holds (a hit of the last ``run(_:)``), so that a snippet
    /// knows when it has seen them all.
    func terms(of number: Int) -> Set<String> {
        var terms = commonTerms
        for (term, postings) in prefixTerms where (try? postings.contains(number)) == true { terms.insert(term) }
        return terms
    }

    /// The terms whose shards a clause reads first.
    static func terms(_ clause: SearchQuery.Clause) -> [[UInt8]] {
        switch clause {
        case .word(let term): [Array(term.utf8)]
        case .phrase(let terms): terms.map { Array($0.utf8) }
        case .prefix(let prefix): [Array(prefix.utf8)] + stemsCut(from: prefix)
        }
    }

    /// The clauses, words first (rarest first), then phrases, then prefixes; and the words' terms found.
    func ordered(
        _ clauses: [SearchQuery.Clause]
    ) throws -> (clauses: [SearchQuery.Clause], words: [(shard: TermShard, entry: TermEntry)]) {
        var keyed: [(rank: Int, clause: SearchQuery.Clause)] = []
        var words: [(shard: TermShard, entry: TermEntry)] = []
        for clause in clauses {
            switch clause {
            case .word(let term):
                let found = try index.lookup(Array(term.utf8))
                if let found { words.append(found) }
                keyed.append((found?.entry.documentFrequency ?? 0, clause))
            case .phrase: keyed.append((Int.max - 1, clause))
            case .prefix: keyed.append((Int.max, clause))
            }
        }
        let sorted = keyed.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }
        return (sorted.map(\.element.clause), words)
    }

    func idf(_ frequency: Int) -> Double {
        let n = Double(index.documentCount)
        let df = Double(frequency)
        return log(1 + (n - df + 0.5) / (df + 0.5))
    }

    /// A word being typed may already run past its stem (`seriali` of `serialize`, whose term is
    /// `serial`): for a prefix of `a`–`z` only, it cut by one to three bytes, at least four long,
    /// each looked up as a whole term (spec §17.4).
    static func stemsCut(from prefix: String) -> [[UInt8]] {
        let bytes = Array(prefix.utf8)
        guard bytes.count > 4, bytes.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }) else {
            return []
        }
        return (max(4, bytes.count - 3)..<bytes.count).reversed().map { Array(bytes[..<$0]) }
    }

    /// A posting's weight for a term of inverse document frequency `idf` (``BM25``).
    @inline(__always)
    func weight(_ posting: Posting, idf: Double) -> Double { bm25.weight(posting, idf: idf) }

    /// The clause's matches in document order, among `candidates` (in document order) when given;
    /// each candidate's score here is ignored.
    private mutating func evaluate(
        _ clause: SearchQuery.Clause, among candidates: [ScoredDocument]?
    ) throws -> [ScoredDocument] {
        switch clause {
        case .word(let term):
            guard let (shard, entry) = try index.lookup(Array(term.utf8)) else { return [] }
            commonTerms.insert(term)
            let idf = idf(entry.documentFrequency)
            return try index.termPostings(shard, entry).filter(to: candidates).map {
                ScoredDocument(document: $0.document, score: weight($0, idf: idf))
            }
        case .prefix(let prefix):
            let terms = try prefixEntries(prefix)
            // Each term's best weight per document: every term's matches, in document order, then merged.
            var all: [ScoredDocument] = []
            for (shard, entry) in terms {
                let term = String(decoding: entry.term, as: UTF8.self)
                let idf = idf(entry.documentFrequency)
                let postings = try index.termPostings(shard, entry)
                for posting in try postings.filter(to: candidates) {
                    all.append(ScoredDocument(document: posting.document, score: weight(posting, idf: idf)))
                }
                prefixTerms.append((term, postings))
            }
            if terms.count > 1 { all.sort { $0.document < $1.document } }
            var scores: [ScoredDocument] = []
            for match in all {
                if let last = scores.last, last.document == match.document {
                    scores[scores.count - 1].score = max(last.score, match.score)
                } else {
                    scores.append(match)
                }
            }
            return scores
        case .phrase(let terms):
            return try phrase(terms, among: candidates)
        }
    }

    /// The terms a prefix stands for (spec §17.4): the first 64 that start with it, then the
    /// prefix cut to a stem.
    func prefixEntries(_ prefix: String) throws -> [(shard: TermShard, entry: TermEntry)] {
        var terms = try index.expand(prefix: Array(prefix.utf8), limit: Self.maxPrefixTerms)
        for stem in Self.stemsCut(from: prefix) {
            if let found = try index.lookup(stem), !terms.contains(where: { $0.entry.term == stem }) {
                terms.append(found)
            }
        }
        return terms
    }

    /// Documents where the terms stand at consecutive positions, in order; scored as the sum of
    /// the terms' weights.
    private mutating func phrase(_ terms: [String], among candidates: [ScoredDocument]?) throws -> [ScoredDocument] {
        guard !terms.isEmpty else { return [] }
        var lists: [(postings: TermPostings, shard: TermShard, entry: TermEntry)] = []
        for term in terms {
            guard let (shard, entry) = try index.lookup(Array(term.utf8)) else { return [] }
            lists.append((try index.termPostings(shard, entry), shard, entry))
        }
        // The documents every term (and the candidates) hold, each term's weight added in term order.
        var scores = candidates.map { $0.map { ScoredDocument(document: $0.document, score: 0) } }
        for list in lists {
            let idf = idf(list.entry.documentFrequency)
            let matches = try list.postings.filter(to: scores).map {
                ScoredDocument(document: $0.document, score: weight($0, idf: idf))
            }
            scores = scores.map { Self.intersect($0, matches) } ?? matches
            if scores!.isEmpty { return [] }
        }
        guard var scores else { return [] }
        guard index.hasPositions else {
            // Version 2: every document with all the terms, its text checked later in rank order.
            if terms.count > 1 { phrasesToCheck.append(terms) }
            commonTerms.formUnion(terms)
            return scores
        }
        // Version 1: positions of the documents every term is in, by document.
        let common = Set(scores.map(\.document))
        var positions: [[Int: [Int]]] = []
        for list in lists {
            let postings = try list.postings.all()
            let all = try index.positions(list.shard, list.entry, postings)
            var byDocument: [Int: [Int]] = [:]
            for (number, posting) in postings.enumerated() where common.contains(posting.document) {
                byDocument[posting.document] = all[number]
            }
            positions.append(byDocument)
        }
        scores.removeAll { match in
            let first = positions[0][match.document]!
            let rest = positions.dropFirst().map { Set($0[match.document]!) }
            return !first.contains { start in
                rest.enumerated().allSatisfy { $0.element.contains(start + $0.offset + 1) }
            }
        }
        if !scores.isEmpty { commonTerms.formUnion(terms) }
        return scores
    }
}

/// A matching document and its score so far.
struct ScoredDocument: Sendable {
    var document: Int
    var score: Double
}

/// Lists in ascending document order: walking one to the documents of another.
enum DocumentOrder {
    /// The first position from `start` on whose document is at least `document`: a gallop, then a
    /// binary search, so that a short list walks a long one in few steps.
    @inline(__always)
    static func seek<Element>(
        _ list: [Element], from start: Int, to document: Int, _ documentOf: (Element) -> Int
    ) -> Int {
        guard start < list.count, documentOf(list[start]) < document else { return start }
        var low = start
        var step = 1
        var high = start + 1
        while high < list.count, documentOf(list[high]) < document {
            low = high
            step *= 2
            high = start + step
        }
        high = min(high, list.count)
        // documentOf(list[low]) < document; the answer is in low + 1 ... high.
        var first = low + 1
        while first < high {
            let middle = (first + high) / 2
            if documentOf(list[middle]) < document { first = middle + 1 } else { high = middle }
        }
        return first
    }

    /// The postings whose documents `candidates` holds (all of them without candidates).
    static func filter(_ postings: [Posting], to candidates: [ScoredDocument]?) -> [Posting] {
        guard let candidates else { return postings }
        var kept: [Posting] = []
        kept.reserveCapacity(min(postings.count, candidates.count))
        var position = 0
        for candidate in candidates {
            position = seek(postings, from: position, to: candidate.document) { $0.document }
            guard position < postings.count else { break }
            if postings[position].document == candidate.document { kept.append(postings[position]) }
        }
        return kept
    }
}

/// A query's matches, handed out best first (higher score, then lower document): kept in a heap
/// and ordered only as far as they are asked for, since a search shows the first few.
struct RankedMatches {
    private var heap: [ScoredDocument]
    /// The matches ordered so far, best first.
    private var ordered: [ScoredDocument] = []

    init(_ matches: [ScoredDocument]) {
        heap = matches
        guard heap.count > 1 else { return }
        for parent in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(parent) }
    }

    /// How many documents matched.
    var count: Int { heap.count + ordered.count }

    /// The `position`-th best match (from 0), or nil past the last.
    mutating func match(at position: Int) -> ScoredDocument? {
        while ordered.count <= position, let best = popBest() { ordered.append(best) }
        return position < ordered.count ? ordered[position] : nil
    }

    /// The first `count` matches, best first.
    mutating func best(_ count: Int) -> ArraySlice<ScoredDocument> {
        if count > 0 { _ = match(at: count - 1) }
        return ordered.prefix(count)
    }

    private static func isBetter(_ a: ScoredDocument, _ b: ScoredDocument) -> Bool {
        a.score != b.score ? a.score > b.score : a.document < b.document
    }

    private mutating func popBest() -> ScoredDocument? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let best = heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
        return best
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var child = left
            if left + 1 < heap.count, Self.isBetter(heap[left + 1], heap[left]) { child = left + 1 }
            guard Self.isBetter(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            parent = child
        }
    }
}
