import Foundation
import WebArc

/// Terms on their way to the term shards, in term order. In version 4 the postings that come
/// coded as runs hold them are Rice-coded on every core, a batch of terms at a time, then the
/// batch goes on in order: pack's run merge coded each list on its own thread while the other
/// core idled, a third of the time after the analysis.
struct RiceBatch {
    /// The index version the terms are written in; before 4 every term goes on at once.
    let version: UInt64
    /// Terms a batch holds at most.
    let batchTerms: Int
    private var waiting: [(term: [UInt8], frequency: Int, postings: JoinedPostings)] = []
    /// Postings of the coded lists waiting.
    private var waitingPostings = 0
    /// Postings a batch's coded lists hold at most (a longer list makes a batch of its own), so
    /// that the lists decoded at once take about as much memory as one long list would.
    static let batchPostings = 1 << 18

    init(version: UInt64, batchTerms: Int = BaseTermJoin.defaultBatchTerms) {
        self.version = version
        self.batchTerms = max(1, batchTerms)
    }

    /// Queues a term; the batch goes to `sink` once it is full.
    mutating func add(
        term: [UInt8], frequency: Int, _ postings: JoinedPostings,
        to sink: ([UInt8], Int, JoinedPostings) throws -> Void
    ) throws {
        guard version >= 4 else { return try sink(term, frequency, postings) }
        if case .coded = postings {
            if waitingPostings > 0, waitingPostings + frequency > Self.batchPostings { try flush(to: sink) }
            waitingPostings += frequency
        }
        waiting.append((term, frequency, postings))
        if waiting.count >= batchTerms || waitingPostings >= Self.batchPostings { try flush(to: sink) }
    }

    /// Codes the waiting blocked lists on every core, then hands every waiting term to `sink` in
    /// order (a short list goes on coded as it came: the shard codes it, cheaper than a job); the
    /// first failure in term order is thrown, as one core would have met it.
    mutating func flush(to sink: ([UInt8], Int, JoinedPostings) throws -> Void) throws {
        nonisolated(unsafe) let terms = waiting
        waiting.removeAll()
        waitingPostings = 0
        let jobs = terms.indices.filter {
            guard case .coded = terms[$0].postings else { return false }
            return terms[$0].frequency >= BlockPostings.blockedFrom
        }
        var coded = [Result<[UInt8], any Error>?](repeating: nil, count: jobs.count)
        coded.withUnsafeMutableBufferPointer { slots in
            // Each job writes its own slot, and the slots are read after every job has ended.
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: jobs.count) { job in
                guard case .coded(let postings, _) = terms[jobs[job]].postings else { return }
                let count = terms[jobs[job]].frequency
                slots[job] = Result { try RicePostings.encode(version2: postings, count: count) }
            }
        }
        var job = 0
        for (index, term) in terms.enumerated() {
            if job < jobs.count, jobs[job] == index {
                try sink(term.term, term.frequency, .rice(try coded[job]!.get()))
                job += 1
            } else {
                try sink(term.term, term.frequency, term.postings)
            }
        }
    }
}
