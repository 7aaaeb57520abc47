import Foundation
import WebArc

/// Runs a parsed query over one index (spec §17.4): every clause must match; BM25 over the
/// postings' counts and quantized lengths, plus ``titleBoost`` × idf for a term the title holds.
struct QueryEvaluation {
    static let k1 = 1.2
    static let b = 0.75
    /// A title match's weight in idfs: about what the most frequent body match gives (k1 + 1), so
    /// that a page about a word outranks a long page that says it often.
    static let titleBoost = 2.0
    /// The most terms a prefix stands for (the first, in term order).
    static let maxPrefixTerms = 64

    let index: IndexView
    /// The terms every hit holds, for snippets: its words' and its phrases'.
    private var commonTerms: Set<String> = []
    /// Each term a prefix stood for, with the documents that hold it, ascending.
    private var prefixTerms: [(term: String, documents: [Int])] = []
    /// The phrases of several terms that the last ``run(_:)`` matched by their terms alone, for an
    /// index without positions (version 2): a hit must still show each in its text (spec §17.4,
    /// ``PhraseCheck``).
    private(set) var phrasesToCheck: [[String]] = []

    init(index: IndexView) { self.index = index }

    /// Matching documents with their scores, best first (equal scores: lower document first).
    mutating func run(_ query: SearchQuery) throws -> [(document: Int, score: Double)] {
        var scores: [Int: Double]?
        // Every shard the query needs, then every word's postings, asked for together (a remote
        // archive answers them in one round trip each).
        index.willReadShards(of: query.clauses.flatMap(Self.terms))
        let (clauses, words) = try ordered(query.clauses)
        index.willReadPostings(of: words)
        // Word clauses first, rarest first, so the candidate set shrinks early.
        for clause in clauses {
            let clauseScores = try evaluate(clause, among: scores.map { Set($0.keys) })
            guard !clauseScores.isEmpty else { return [] }
            if var current = scores {
                current = current.filter { clauseScores[$0.key] != nil }
                for (document, score) in clauseScores where current[document] != nil { current[document]! += score }
                scores = current
            } else {
                scores = clauseScores
            }
            if scores!.isEmpty { return [] }
        }
        return (scores ?? [:]).map { ($0.key, $0.value) }.sorted {
            $0.score != $1.score ? $0.score > $1.score : $0.document < $1.document
        }
    }

    /// The matched terms document `number` holds (a hit of the last ``run(_:)``), so that a snippet
    /// knows when it has seen them all.
    func terms(of number: Int) -> Set<String> {
        var terms = commonTerms
        for (term, documents) in prefixTerms where Self.sorted(documents, contains: number) { terms.insert(term) }
        return terms
    }

    private static func sorted(_ values: [Int], contains value: Int) -> Bool {
        var low = 0
        var high = values.count
        while low < high {
            let middle = (low + high) / 2
            if values[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < values.count && values[low] == value
    }

    /// The terms whose shards a clause reads first.
    private static func terms(_ clause: SearchQuery.Clause) -> [[UInt8]] {
        switch clause {
        case .word(let term): [Array(term.utf8)]
        case .phrase(let terms): terms.map { Array($0.utf8) }
        case .prefix(let prefix): [Array(prefix.utf8)] + stemsCut(from: prefix)
        }
    }

    /// The clauses, words first (rarest first), then phrases, then prefixes; and the words' terms found.
    private func ordered(
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

    private func idf(_ frequency: Int) -> Double {
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

    private func weight(_ posting: Posting, idf: Double) -> Double {
        let f = Double(posting.frequency)
        let length = Double(LengthCode.decode(posting.lengthCode))
        let body = idf * f * (Self.k1 + 1) / (f + Self.k1 * (1 - Self.b + Self.b * length / index.averageLength))
        return body + (posting.inTitle ? idf * Self.titleBoost : 0)
    }

    private mutating func evaluate(_ clause: SearchQuery.Clause, among candidates: Set<Int>?) throws -> [Int: Double] {
        switch clause {
        case .word(let term):
            guard let (shard, entry) = try index.lookup(Array(term.utf8)) else { return [:] }
            commonTerms.insert(term)
            let idf = idf(entry.documentFrequency)
            var scores: [Int: Double] = [:]
            for posting in try index.postings(shard, entry) where candidates?.contains(posting.document) ?? true {
                scores[posting.document] = weight(posting, idf: idf)
            }
            return scores
        case .prefix(let prefix):
            var scores: [Int: Double] = [:]
            var terms = try index.expand(prefix: Array(prefix.utf8), limit: Self.maxPrefixTerms)
            for stem in Self.stemsCut(from: prefix) {
                if let found = try index.lookup(stem), !terms.contains(where: { $0.entry.term == stem }) {
                    terms.append(found)
                }
            }
            for (shard, entry) in terms {
                let term = String(decoding: entry.term, as: UTF8.self)
                let idf = idf(entry.documentFrequency)
                let postings = try index.postings(shard, entry)
                for posting in postings where candidates?.contains(posting.document) ?? true {
                    scores[posting.document] = max(scores[posting.document] ?? 0, weight(posting, idf: idf))
                }
                prefixTerms.append((term, postings.map(\.document)))
            }
            return scores
        case .phrase(let terms):
            return try phrase(terms, among: candidates)
        }
    }

    /// Documents where the terms stand at consecutive positions, in order; scored as the sum of
    /// the terms' weights.
    private mutating func phrase(_ terms: [String], among candidates: Set<Int>?) throws -> [Int: Double] {
        guard !terms.isEmpty else { return [:] }
        var lists: [(postings: [Posting], shard: TermShard, entry: TermEntry)] = []
        for term in terms {
            guard let (shard, entry) = try index.lookup(Array(term.utf8)) else { return [:] }
            lists.append((try index.postings(shard, entry), shard, entry))
        }
        var common = candidates ?? Set(lists[0].postings.map(\.document))
        for list in lists { common.formIntersection(list.postings.map(\.document)) }
        guard !common.isEmpty else { return [:] }
        guard index.hasPositions else {
            // Version 2: every document with all the terms, its text checked later in rank order.
            var scores: [Int: Double] = [:]
            for list in lists {
                let idf = idf(list.entry.documentFrequency)
                for posting in list.postings where common.contains(posting.document) {
                    scores[posting.document, default: 0] += weight(posting, idf: idf)
                }
            }
            if terms.count > 1 { phrasesToCheck.append(terms) }
            commonTerms.formUnion(terms)
            return scores
        }
        // Positions and postings only for documents every term is in, by document (a search of each
        // term's postings per document would be quadratic in a phrase of common words).
        var positions: [[Int: [Int]]] = []
        var postings: [[Int: Posting]] = []
        for list in lists {
            let all = try index.positions(list.shard, list.entry, list.postings)
            var byDocument: [Int: [Int]] = [:]
            var postingOf: [Int: Posting] = [:]
            for (number, posting) in list.postings.enumerated() where common.contains(posting.document) {
                byDocument[posting.document] = all[number]
                postingOf[posting.document] = posting
            }
            positions.append(byDocument)
            postings.append(postingOf)
        }
        var scores: [Int: Double] = [:]
        for document in common {
            let first = positions[0][document]!
            let rest = positions.dropFirst().map { Set($0[document]!) }
            let found = first.contains { start in
                rest.enumerated().allSatisfy { $0.element.contains(start + $0.offset + 1) }
            }
            guard found else { continue }
            var score = 0.0
            for (list, postingOf) in zip(lists, postings) {
                if let posting = postingOf[document] {
                    score += weight(posting, idf: idf(list.entry.documentFrequency))
                }
            }
            scores[document] = score
        }
        if !scores.isEmpty { commonTerms.formUnion(terms) }
        return scores
    }
}
