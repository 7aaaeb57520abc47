import Dispatch
import Synchronization

/// An archive's records in key order, pulled one at a time: the record tree is walked leaf by leaf
/// (a path of interior pages, at most 9 deep), and ``ArchiveReader/leavesDecodedAhead`` leaves at a
/// time are decoded on every core. Memory holds that batch only, whatever the record count, so
/// several cursors can be merged (a layer stack's keys, an old and a new archive's).
///
/// A leaf's entries before one that fails are returned, then its error is thrown; a page that does
/// not read is thrown after the entries of the leaves before it.
///
/// Each entry is what `make` builds of it (nil: left out): an ``ArchiveEntry`` decoded whole for a
/// ``RecordCursor``, or less for a walk that needs only keys and classes.
package final class LeafCursor<Element: Sendable> {
    private let reader: ArchiveReader
    private let make: @Sendable (ArchiveReader, RecordLeaf, Int) throws -> Element?
    /// The interior pages from the root down to the last leaf read, each with its next child.
    private var path: [(page: InteriorPage, reference: PageReference, next: Int)] = []
    private var started = false
    private var finished = false
    private var buffered: [Element] = []
    private var position = 0
    private var failure: (any Error)?

    /// A cursor before the first record of `reader`, making each entry with `make`.
    init(_ reader: ArchiveReader, making make: @escaping @Sendable (ArchiveReader, RecordLeaf, Int) throws -> Element?)
    {
        self.reader = reader
        self.make = make
    }

    /// The next record, or nil after the last.
    ///
    /// - Throws: page and index errors, once, in the place of the records they hide.
    package func next() throws -> Element? {
        while position == buffered.count {
            if let failure {
                self.failure = nil
                finished = true
                throw failure
            }
            guard !finished else { return nil }
            try refill()
        }
        defer { position += 1 }
        return buffered[position]
    }

    /// Reads the next batch of leaves and decodes their records.
    private func refill() throws {
        var leaves: [RecordLeaf] = []
        do {
            while leaves.count < ArchiveReader.leavesDecodedAhead, let leaf = try nextLeaf() { leaves.append(leaf) }
        } catch {
            failure = error
        }
        if leaves.count < ArchiveReader.leavesDecodedAhead { finished = true }
        let decoded = Mutex([(entries: [Element], error: (any Error)?)?](repeating: nil, count: leaves.count))
        let (reader, batch, make) = (reader, leaves, make)
        DispatchQueue.concurrentPerform(iterations: batch.count) { number in
            var entries: [Element] = []
            var failure: (any Error)?
            do {
                for index in batch[number].entries.indices {
                    if let entry = try make(reader, batch[number], index) { entries.append(entry) }
                }
            } catch {
                failure = error
            }
            decoded.withLock { $0[number] = (entries, failure) }
        }
        buffered = []
        position = 0
        for leaf in decoded.withLock({ $0 }) {
            guard let leaf else { continue }
            buffered += leaf.entries
            if let error = leaf.error {
                // The leaves after a damaged one are not returned.
                failure = error
                break
            }
        }
    }

    /// The next record leaf in key order, or nil after the last.
    private func nextLeaf() throws -> RecordLeaf? {
        if !started {
            started = true
            return try leftmostLeaf(below: reader.trailer.recordRoot)
        }
        while let top = path.last {
            guard top.next < top.page.children.count else {
                path.removeLast()
                continue
            }
            path[path.count - 1].next += 1
            let child = try reader.child(of: top.page, at: top.next, parent: top.reference)
            if let leaf = try leftmostLeaf(below: child) { return leaf }
        }
        return nil
    }

    /// Descends from `reference` to its first leaf, pushing the interior pages on the way.
    private func leftmostLeaf(below reference: PageReference) throws -> RecordLeaf? {
        var reference = reference
        while true {
            switch try reader.page(reference, .node(.records)) {
            case .interior(let interior):
                reader.announce(interior.children, .records)
                path.append((interior, reference, 1))
                reference = try reader.child(of: interior, at: 0, parent: reference)
            case .recordLeaf(let leaf):
                return leaf
            default:
                return nil
            }
        }
    }
}

/// An archive's records decoded whole, in key order.
package typealias RecordCursor = LeafCursor<ArchiveEntry>

extension LeafCursor where Element == ArchiveEntry {
    /// A cursor before the first record of `reader`, decoding each record.
    ///
    /// - Parameters:
    ///   - remembering: false leaves the reader's body cache out: for a walk that takes each
    ///     response's body entry from its ``ArchiveEntry/body``, or needs none.
    ///   - keepingHeaders: false checks each record's headers but leaves them out of it.
    package convenience init(_ reader: ArchiveReader, remembering: Bool = true, keepingHeaders: Bool = true) {
        self.init(reader) { reader, leaf, index in
            try reader.entry(leaf, index, remembering: remembering, keepingHeaders: keepingHeaders)
        }
    }
}
