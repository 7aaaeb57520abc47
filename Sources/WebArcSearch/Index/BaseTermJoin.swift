import Foundation
import Synchronization
import WebArc

/// A joined term's postings on their way to a shard: coded as version 2 codes them (the builder's
/// own runs, a base's short lists), with positions for version 1; decoded (a base's blocked list,
/// renumbered), which a version 3 shard blocks again without parsing them first; or, for a
/// version 4 shard, a base's blocked list renumbered straight into version 4's coding.
enum JoinedPostings {
    case coded(postings: [UInt8], positions: [UInt8])
    case decoded([Posting])
    case rice([UInt8])
}

/// Joins the terms of the documents a builder analysed (in term order) with a base's terms for
/// the documents it took (``BaseIndex``): each term's postings, in the new numbers, merged; a base
/// term none of whose documents was taken is left out.
struct BaseTermJoin {
    let base: BaseIndex
    /// The index version the joined terms are written in.
    let version: UInt64
    private let stream: BaseIndex.TermStream
    private var head: BaseTerm?
    private var started = false
    /// Terms waiting for their turn, in term order; the blocked lists among them are renumbered
    /// into version 4's coding on every core, a batch at a time (a million-page apply spent a
    /// fifth of its time there on one core).
    private var waiting: [Waiting] = []
    /// Postings of the blocked lists waiting: a batch holds about ``batchPostings``.
    private var waitingPostings = 0
    private static let batchPostings = 1 << 20
    /// Terms a batch holds at most.
    let batchTerms: Int
    /// Terms a batch holds at most, by default.
    static let defaultBatchTerms = 4096

    /// A term to emit: ready, or a base's blocked list to renumber with `own` merged in.
    private enum Waiting {
        case ready(term: [UInt8], frequency: Int, postings: JoinedPostings)
        case blocked(term: [UInt8], list: TermPostings, own: PostingList)
    }

    init(_ base: BaseIndex, version: UInt64, batchTerms: Int = defaultBatchTerms) {
        self.base = base
        self.version = version
        self.batchTerms = max(1, batchTerms)
        stream = base.terms()
    }

    /// Emits the base's terms before `term`, then `term` with the base's postings merged in.
    mutating func add(
        term: [UInt8], frequency: Int, postings: [UInt8], positions: [UInt8],
        emit: ([UInt8], Int, JoinedPostings) throws -> Void
    ) throws {
        try flush(before: term, emit: emit)
        guard let head, head.term == term else {
            try wait(
                .ready(term: term, frequency: frequency, postings: .coded(postings: postings, positions: positions)),
                emit: emit)
            return
        }
        // The stream lets go of the term first, so that a decoded list is renumbered in place.
        self.head = try stream.next()
        var own = PostingList()
        try own.append(postings, count: frequency, positions: base.hasPositions ? positions : nil)
        try wait(joining: head, own: own, emit: emit)
    }

    /// Emits the base's terms left.
    mutating func finish(emit: ([UInt8], Int, JoinedPostings) throws -> Void) throws {
        try flush(before: nil, emit: emit)
        try emitWaiting(emit)
    }

    private mutating func flush(before term: [UInt8]?, emit: ([UInt8], Int, JoinedPostings) throws -> Void) throws {
        if !started {
            started = true
            head = try stream.next()
        }
        while let head, term.map({ head.term.lexicographicallyPrecedes($0) }) ?? true {
            self.head = try stream.next()
            try wait(joining: head, own: PostingList(), emit: emit)
        }
    }

    /// Queues a base term with `own` merged in: a version 4 blocked list to be renumbered with its
    /// batch, any other list renumbered now (a term none of whose documents was taken is dropped).
    private mutating func wait(
        joining head: consuming BaseTerm, own: PostingList, emit: ([UInt8], Int, JoinedPostings) throws -> Void
    ) throws {
        let term = head.term
        if version >= 4, let list = try head.termPostings() {
            waitingPostings += head.frequency + own.count
            return try wait(.blocked(term: term, list: list, own: own), emit: emit)
        }
        let merged = try renumbered(head, inserting: own)
        guard merged.frequency > 0 else { return }
        try wait(.ready(term: term, frequency: merged.frequency, postings: merged.postings), emit: emit)
    }

    private mutating func wait(_ term: Waiting, emit: ([UInt8], Int, JoinedPostings) throws -> Void) throws {
        waiting.append(term)
        if waitingPostings >= Self.batchPostings || waiting.count >= batchTerms { try emitWaiting(emit) }
    }

    /// Renumbers the waiting blocked lists on every core, then emits every waiting term in order;
    /// the first failure in term order is thrown, as one core would have met it.
    private mutating func emitWaiting(_ emit: ([UInt8], Int, JoinedPostings) throws -> Void) throws {
        let jobs = waiting.indices.filter { if case .blocked = waiting[$0] { true } else { false } }
        let results = Mutex<[Int: Result<(frequency: Int, rice: [UInt8]), any Error>]>([:])
        nonisolated(unsafe) let terms = waiting
        let numbers = base.newNumbers
        DispatchQueue.concurrentPerform(iterations: jobs.count) { job in
            guard case .blocked(_, let list, let own) = terms[jobs[job]] else { return }
            let result = Result { try Self.renumberedIntoRice(list, inserting: own, numbers: numbers) }
            results.withLock { $0[jobs[job]] = result }
        }
        let done = results.withLock { $0 }
        for (index, term) in terms.enumerated() {
            switch term {
            case .ready(let term, let frequency, let postings): try emit(term, frequency, postings)
            case .blocked(let term, _, _):
                let (frequency, rice) = try done[index]!.get()
                if frequency > 0 { try emit(term, frequency, .rice(rice)) }
            }
        }
        waiting.removeAll()
        waitingPostings = 0
    }

    private static var failure: WebArcError {
        .corruptPage(page: 0, position: nil, reason: "a search index's postings")
    }

    /// The base term's postings of documents taken, in their new numbers, with the postings of
    /// `own` (the builder's documents, few) put in their places; a version 4 blocked list goes
    /// through a batch instead (``wait(joining:own:emit:)``).
    private func renumbered(
        _ head: consuming BaseTerm, inserting own: PostingList = PostingList()
    ) throws -> (frequency: Int, postings: JoinedPostings) {
        // Room for the builder's postings, which the renumbering merges in.
        if var decoded = try head.decoded(reserving: own.count) {
            head.postings = []
            try renumber(&decoded, inserting: own)
            return (decoded.count, .decoded(decoded))
        }
        return try renumberedCoded(head, inserting: own)
    }

    /// Renumbers a decoded list in place: postings of documents not taken dropped, the others
    /// given their new numbers, then `own`'s merged in from the back. A list of a term on every
    /// page is megabytes; no second copy of it is made.
    private func renumber(_ list: inout [Posting], inserting own: PostingList) throws {
        var kept = 0
        try base.newNumbers.withUnsafeBufferPointer { numbers in
            for read in list.indices {
                var posting = list[read]
                guard posting.document < numbers.count, numbers[posting.document] >= 0 else { continue }
                let new = Int(numbers[posting.document])
                guard kept == 0 || new > list[kept - 1].document else { throw Self.failure }
                posting.document = new
                list[kept] = posting
                kept += 1
            }
        }
        list.removeLast(list.count - kept)
        guard own.count > 0 else { return }
        // Merged from the back: a base posting after an own one of a lower number moves up.
        var taken = kept - 1
        var write = kept + own.count - 1
        list.reserveCapacity(kept + own.count)
        list.append(
            contentsOf: repeatElement(
                Posting(document: 0, frequency: 0, inTitle: false, lengthCode: 0), count: own.count))
        for next in stride(from: own.count - 1, through: 0, by: -1) {
            while taken >= 0, list[taken].document > own.documents[next] {
                list[write] = list[taken]
                taken -= 1
                write -= 1
            }
            list[write] = try own.posting(next)
            write -= 1
        }
    }

    /// A blocked list's postings of documents taken, in their new numbers, with `own`'s merged in,
    /// coded as version 4 codes them a block at a time: a list of a term on every page is never
    /// held decoded (16 MB at a million pages).
    private static func renumberedIntoRice(
        _ list: TermPostings, inserting own: PostingList, numbers: [Int32]
    ) throws -> (frequency: Int, rice: [UInt8]) {
        let failure = Self.failure
        var writer = RiceListWriter()
        var next = 0
        // Documents must ascend: the base's in their new numbers, the builder's between them.
        for number in 0..<list.blockCount {
            for var posting in try list.block(number) {
                guard posting.document < numbers.count, numbers[posting.document] >= 0 else { continue }
                posting.document = Int(numbers[posting.document])
                while next < own.count, own.documents[next] < posting.document {
                    guard writer.append(try own.posting(next)) else { throw failure }
                    next += 1
                }
                guard writer.append(posting) else { throw failure }
            }
        }
        while next < own.count {
            guard writer.append(try own.posting(next)) else { throw failure }
            next += 1
        }
        return (writer.count, writer.finish())
    }

    /// A coded list's postings of documents taken, in their new numbers, encoded straight from the
    /// stored bytes: each kept posting's count, length code and positions copied as they are.
    private func renumberedCoded(
        _ head: BaseTerm, inserting own: PostingList
    ) throws -> (frequency: Int, postings: JoinedPostings) {
        var postings: [UInt8] = []
        var positions: [UInt8] = []
        postings.reserveCapacity(head.postingRange.count + 4 * own.count)
        var kept = 0
        var previous = 0
        var next = 0
        let hasPositions = base.hasPositions
        /// Puts the builder's postings before document `limit` (all of them for nil).
        func insertOwn(before limit: Int?) {
            while next < own.count, limit.map({ own.documents[next] < $0 }) ?? true {
                own.encode(next, after: &previous, postings: &postings, positions: &positions, hasPositions)
                next += 1
                kept += 1
            }
        }
        let failure = Self.failure
        try base.newNumbers.withUnsafeBufferPointer { numbers in
            try head.postings.withUnsafeBufferPointer { bytes in
                try head.positions.withUnsafeBufferPointer { stream in
                    try StoredPostings.walk(
                        bytes, head.postingRange, count: head.frequency, positions: hasPositions ? stream : nil,
                        head.positionRange
                    ) { document, stored, positionRange in
                        guard document < numbers.count, numbers[document] >= 0 else { return }
                        let new = Int(numbers[document])
                        insertOwn(before: new)
                        guard kept == 0 || new > previous else { throw failure }
                        LEB128.append(UInt64(new - previous), to: &postings)
                        postings += bytes[stored]
                        if hasPositions { positions += stream[positionRange] }
                        previous = new
                        kept += 1
                    }
                }
            }
        }
        insertOwn(before: nil)
        return (kept, .coded(postings: postings, positions: positions))
    }
}
