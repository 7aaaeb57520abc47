/// A value of a sorted run: ordered by ``precedes(_:_:)``, a total order.
@usableFromInline package protocol RunOrdered {
    /// Whether `lhs` comes first.
    static func precedes(_ lhs: Self, _ rhs: Self) -> Bool
}

/// The next value of each sorted run a merge reads, in a binary heap: the least first, and of
/// equal values the one of the lower-numbered run, which is what a scan of every head in run order
/// picks. A merge of k runs then costs about 2 log2(k) comparisons a value instead of k, and a
/// head is compared where it lies, not copied out (each copy of a record retains its buffers).
/// A million-page archive spills hundreds of runs. The external sort (``SpilledSort``) and the
/// search index's run merge both take their values through it.
///
/// Inlinable, so that a merge in another module gets code specialized for its values: unspecialized,
/// every comparison copied both heads through their value witnesses (retaining each array of a
/// search run's head) and looked up the head tuple's metadata.
@usableFromInline package struct RunHeads<Element: RunOrdered> {
    @usableFromInline typealias Head = (element: Element, run: Int)
    @usableFromInline var heads: [Head] = []

    /// An empty heap with room for `capacity` runs' heads.
    @inlinable
    package init(capacity: Int) {
        heads.reserveCapacity(capacity)
    }

    /// The run whose head comes first, or nil when every run has ended.
    @inlinable
    package var leastRun: Int? { heads.first?.run }

    /// The head that comes first, or nil when every run has ended.
    @inlinable
    package var least: Element? { heads.first?.element }

    /// Adds run `run`'s head.
    @inlinable
    package mutating func insert(_ element: Element, run: Int) {
        heads.append((element, run))
        heads.withUnsafeMutableBufferPointer { heads in
            var child = heads.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard Self.ordered(heads[child], before: heads[parent]) else { return }
                heads.swapAt(child, parent)
                child = parent
            }
        }
    }

    /// Takes the first head, putting `next` in its place: the next value of the same run, or nil
    /// when that run has ended. The heap must not be empty.
    @inlinable
    package mutating func replaceLeast(with next: Element?) -> Element {
        var taken: Head
        if let next {
            taken = (next, heads[0].run)
            swap(&taken, &heads[0])
        } else {
            taken = heads.removeLast()
            if !heads.isEmpty { swap(&taken, &heads[0]) }
        }
        siftDown()
        return taken.element
    }

    /// Moves the first head down to its place.
    @inlinable
    mutating func siftDown() {
        heads.withUnsafeMutableBufferPointer { heads in
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < heads.count else { return }
                var least = left
                if left + 1 < heads.count, Self.ordered(heads[left + 1], before: heads[left]) { least = left + 1 }
                guard Self.ordered(heads[least], before: heads[parent]) else { return }
                heads.swapAt(least, parent)
                parent = least
            }
        }
    }

    /// Whether `head` comes before `other`: its value first, else the lower run of equal values.
    @inlinable @inline(__always)
    static func ordered(_ head: Head, before other: Head) -> Bool {
        if Element.precedes(head.element, other.element) { return true }
        return head.run < other.run && !Element.precedes(other.element, head.element)
    }
}
