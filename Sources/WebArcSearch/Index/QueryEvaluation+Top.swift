import Foundation

extension QueryEvaluation {
    /// The first `count` matches of a query of words and phrases (an index without positions),
    /// found document by document (``TopWalk``). Scores and order are those of the full
    /// evaluation (§17.4); nil when the query has a prefix, so that the caller evaluates it whole.
    mutating func runTop(_ query: SearchQuery, count: Int) throws -> RankedMatches? {
        guard count > 0, !index.hasPositions else { return nil }
        if query.clauses.count == 1, case .prefix(let prefix) = query.clauses[0] {
            return try topOfPrefix(prefix, count: count)
        }
        for clause in query.clauses { if case .prefix = clause { return nil } }
        index.willReadShards(of: query.clauses.flatMap(Self.terms))
        let (clauses, words) = try ordered(query.clauses)
        index.willReadPostings(of: words)
        var lists: [TopWalk.List] = []
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
                    return TopWalk.inflated(
                        bm25.weight(
                            frequency: skip.maxFrequency, lengthCode: skip.minLengthCode, inTitle: skip.anyInTitle,
                            idf: idf))
                }
                lists.append(
                    TopWalk.List(postings: postings, idf: idf, bounds: bounds, frequency: entry.documentFrequency))
            }
            members.append(start..<lists.count)
            if case .phrase(let phrase) = clause, phrase.count > 1 { phrasesToCheck.append(phrase) }
            commonTerms.formUnion(terms)
        }
        return RankedMatches(try TopWalk(lists: lists, members: members, bm25: bm25, split: split).run(count: count))
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
                let bound = TopWalk.inflated(
                    bm25.weight(
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
}
