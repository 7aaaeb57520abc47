import Foundation
import Synchronization

/// The first `count` matches of a query's word and phrase terms, found document by document: the
/// shortest list leads, each other list is read only in the blocks the leader's documents fall in,
/// and a block or a document whose score bound (block maxima, spec §17.2) cannot beat the
/// `count`-th best so far is passed over. A long leader is walked in parts on every core, each
/// with its own best matches, all under one shared bar.
struct TopWalk: Sendable {
    /// A term's list as the walk reads it: its postings, idf, its blocks' weight bounds, and its
    /// document frequency.
    struct List: Sendable {
        let postings: TermPostings
        let idf: Double
        let bounds: [Double]
        let frequency: Int

        /// The largest bound of the blocks that may hold a document in `low...high` (0 when none
        /// may), seeking from block `start` on and leaving it at the first such block.
        func bound(from low: Int, through high: Int, start: inout Int) -> Double {
            start = postings.seekBlock(from: start, to: low)
            var number = start
            var largest = 0.0
            while number < postings.blockCount {
                largest = max(largest, bounds[number])
                if postings.skip(number).lastDocument >= high { break }
                number += 1
            }
            return largest
        }
    }

    /// How a long leader is dealt to parts, one per core.
    struct Split: Sendable {
        /// The fewest leader blocks worth a part of their own: a shorter leader is walked on one thread.
        var blocksPerPart = 256
        /// The leader blocks a part walks before the next part's turn.
        var run = 16
    }

    private let lists: [List]
    /// Each clause's lists, in clause order: a score is summed as the full evaluation sums it.
    private let members: [Range<Int>]
    private let bm25: BM25
    private let leader: Int
    private let others: [Int]
    /// Each leader block's first document, and its bound: its own, plus each other list's over
    /// the blocks that may hold its documents (read from the skip tables alone).
    private let firsts: [Int]
    private let blockBounds: [Double]
    private let split: Split

    init(lists: [List], members: [Range<Int>], bm25: BM25, split: Split = Split()) {
        self.split = split
        self.lists = lists
        self.members = members
        self.bm25 = bm25
        let leader = lists.indices.min { lists[$0].frequency < lists[$1].frequency }!
        let others = lists.indices.filter { $0 != leader }
        let postings = lists[leader].postings
        let firsts = (0..<postings.blockCount).map { $0 == 0 ? 0 : postings.skip($0 - 1).lastDocument + 1 }
        var starts = [Int](repeating: 0, count: lists.count)
        blockBounds = firsts.indices.map { number in
            var bound = lists[leader].bounds[number]
            for other in others {
                bound += lists[other].bound(
                    from: firsts[number], through: postings.skip(number).lastDocument, start: &starts[other])
            }
            return Self.inflated(bound)
        }
        self.leader = leader
        self.others = others
        self.firsts = firsts
    }

    /// The best `count` matches, best first (equal scores: lower document first).
    func run(count: Int) throws -> [ScoredDocument] {
        let blockCount = firsts.count
        let best = SharedTop(count: count)
        let parts = max(1, min(ProcessInfo.processInfo.activeProcessorCount, blockCount / split.blocksPerPart))
        guard parts > 1 else {
            try walk(0..<blockCount, into: best)
            return best.matches
        }
        let errors = Mutex<[(part: Int, error: any Error)]>([])
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            // Runs of blocks dealt in turn, so that the parts walk the documents side by side.
            let blocks = stride(from: part * split.run, to: blockCount, by: parts * split.run).lazy.flatMap {
                $0..<min(blockCount, $0 + split.run)
            }
            do { try walk(blocks, into: best) } catch { errors.withLock { $0.append((part, error)) } }
        }
        if let first = errors.withLock({ $0.min { $0.part < $1.part } }) { throw first.error }
        return best.matches
    }

    /// Adds the matches among the leader's `blocks` that can enter `best`.
    private func walk(_ blocks: some Sequence<Int>, into best: SharedTop) throws {
        var cursors = lists.map { Cursor(postings: $0.postings) }
        // Each list's weight for the document at hand (every entry set before it is read).
        var weights = [Double](repeating: 0, count: lists.count)
        blocks: for number in blocks where !best.cannotEnter(blockBounds[number]) {
            postings: for posting in try lists[leader].postings.block(number) {
                let document = posting.document
                weights[leader] = bm25.weight(posting, idf: lists[leader].idf)
                var bound = weights[leader]
                for other in others {
                    // Past the end of another list: so is every later document of the leader.
                    guard let block = cursors[other].moveBlock(to: document) else { break blocks }
                    bound += lists[other].bounds[block]
                }
                if best.cannotEnter(Self.inflated(bound)) { continue }
                for other in others {
                    guard let match = try cursors[other].posting(document) else { continue postings }
                    weights[other] = bm25.weight(match, idf: lists[other].idf)
                }
                var score = 0.0
                for (position, range) in members.enumerated() {
                    var clause = weights[range.lowerBound]
                    for list in range.dropFirst() { clause += weights[list] }
                    score = position == 0 ? clause : score + clause
                }
                best.add(ScoredDocument(document: document, score: score))
            }
        }
    }

    /// A bound raised past any rounding of the sums it stands for.
    static func inflated(_ bound: Double) -> Double { bound * (1 + 1e-9) + 1e-12 }
}

/// The best `count` matches the parts of a walk have found, and the `count`-th one's score as
/// the bar a bound must reach, read without the lock.
private final class SharedTop: Sendable {
    private let top: Mutex<TopMatches>
    // The bar's bit pattern (0 while fewer than `count` are held): non-negative doubles order as
    // their patterns do.
    private let bar = Atomic<UInt64>(0)

    init(count: Int) { top = Mutex(TopMatches(count: count)) }

    var matches: [ScoredDocument] { top.withLock { $0.matches } }

    /// Whether a match scoring at most `bound` cannot enter (a tie with the bar might, by its
    /// document, so it is not ruled out here).
    func cannotEnter(_ bound: Double) -> Bool { bound < Double(bitPattern: bar.load(ordering: .relaxed)) }

    func add(_ match: ScoredDocument) {
        guard !cannotEnter(match.score) else { return }
        top.withLock { top in
            top.add(match)
            if let last = top.full, last.score > 0 { bar.max(last.score.bitPattern, ordering: .relaxed) }
        }
    }
}

/// Where a walk stands in one list: the block it is at, decoded once (a version 4 block read a
/// part at a time).
private struct Cursor {
    let postings: TermPostings
    private var block = 0
    private var decoded: (number: Int, postings: [Posting], position: Int)?
    private var partial: PartialRiceBlock?
    private var partialPosition = 0

    init(postings: TermPostings) { self.postings = postings }

    /// The block that would hold `document` (documents only grow), or nil past the list's end.
    mutating func moveBlock(to document: Int) -> Int? {
        block = postings.seekBlock(from: block, to: document)
        return block < postings.blockCount ? block : nil
    }

    /// The posting of `document` in the current block (after ``moveBlock(to:)``), or nil.
    mutating func posting(_ document: Int) throws -> Posting? {
        if partial?.number != block, let read = try postings.partialBlock(block) {
            partial = read
            partialPosition = 0
        }
        if let partial, partial.number == block {
            let position = DocumentOrder.seek(partial.documents, from: partialPosition, to: document) { $0 }
            partialPosition = position
            guard position < partial.documents.count, partial.documents[position] == document else { return nil }
            return try postings.posting(at: position, in: partial)
        }
        if decoded?.number != block { decoded = (block, try postings.block(block), 0) }
        let list = decoded!.postings
        let position = DocumentOrder.seek(list, from: decoded!.position, to: document) { $0.document }
        decoded!.position = position
        return position < list.count && list[position].document == document ? list[position] : nil
    }
}

/// The best `count` matches seen in any order, best first (higher score, then lower document).
private struct TopMatches {
    let count: Int
    private(set) var matches: [ScoredDocument] = []

    init(count: Int) { self.count = count }

    /// The `count`-th best match, once `count` are held.
    var full: ScoredDocument? { matches.count == count ? matches[count - 1] : nil }

    mutating func add(_ match: ScoredDocument) {
        func precedes(_ first: ScoredDocument, _ second: ScoredDocument) -> Bool {
            first.score != second.score ? first.score > second.score : first.document < second.document
        }
        if matches.count == count {
            guard precedes(match, matches[count - 1]) else { return }
            matches.removeLast()
        }
        var low = 0
        var high = matches.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(matches[middle], match) { low = middle + 1 } else { high = middle }
        }
        matches.insert(match, at: low)
    }
}
