/// A value an external sort (``SpilledSort``) can hold: encoded to bytes for a spilled run and
/// decoded back, ordered by ``RunOrdered/precedes(_:_:)``, a total order so that the result does
/// not depend on run sizes.
protocol SpilledSortElement: RunOrdered {
    /// Writes the value for a run.
    func encode(into writer: inout ByteWriter)
    /// Reads a value written by ``encode(into:)``.
    static func decode(_ reader: inout ByteReader) throws -> Self
    /// The memory the value takes while held, about (its buffers and the struct).
    var heldSize: Int { get }
}

/// Values sorted with memory bounded by ``runBytes`` whatever their number: an external merge
/// sort. Values collect in memory; each time they pass ``runBytes`` they are sorted and written to
/// a ``ScratchLog`` (a temporary file only when they do not fit in its buffer) as one run, and
/// ``sorted()`` merges the runs, reading each a block at a time. Read-side commands use it where a
/// check or a plan needs every record in another order than the tree's (extents by offset, body
/// copies by reference, files by path).
final class SpilledSort<Element: SpilledSortElement> {
    /// Bytes of values (``SpilledSortElement/heldSize``) held before they are sorted and spilled.
    let runBytes: Int
    private var held: [Element] = []
    /// Whether ``held`` is in order already (``sorted()`` was called and nothing spilled).
    private var heldInOrder = false
    private var heldBytes = 0
    private var runs: [Range<UInt64>] = []
    private let log: ScratchLog

    /// Values added so far.
    private(set) var count = 0
    /// Whether some values went to the scratch file: more than ``runBytes`` of them were added.
    var hasSpilled: Bool { !runs.isEmpty }

    /// - Parameters:
    ///   - prefix: the name of the temporary file, if one is needed.
    ///   - runBytes: memory of the values held before a run is spilled.
    init(prefix: String, runBytes: Int = 8 << 20) {
        log = ScratchLog(prefix: prefix)
        self.runBytes = max(1, runBytes)
    }

    /// Adds a value.
    ///
    /// - Throws: `io` when a run cannot be spilled.
    func append(_ element: Element) throws {
        precondition(!heldInOrder, "a value added after the values were read in order")
        held.append(element)
        heldBytes += element.heldSize
        count += 1
        if heldBytes >= runBytes { try spill() }
    }

    /// The values in order, after the last ``append(_:)``; may be called again for another pass.
    ///
    /// - Throws: `io` when the last run cannot be spilled.
    func sorted() throws -> SpilledSortIterator<Element> {
        if runs.isEmpty {
            if !heldInOrder { held.sort(by: Element.precedes) }
            heldInOrder = true
            return SpilledSortIterator(memory: held)
        }
        try spill()
        // The runs' read buffers share one budget, as the values held do while they are added, so
        // that memory stays bounded however many runs there are.
        let blockSize = min(SpilledRun<Element>.maxBlockSize, max(16 << 10, runBytes / runs.count))
        return SpilledSortIterator(merging: runs.map { SpilledRun(log: log, range: $0, blockSize: blockSize) })
    }

    /// Bytes of values encoded before they are appended to the log.
    private static var spillBlock: Int { 64 << 10 }

    private func spill() throws {
        guard !held.isEmpty else { return }
        let held = self.held
        // The positions are sorted, not the values: a value can be large (a body entry and its
        // chunk list), and a sort moves each one many times.
        let order = held.indices.sorted { Element.precedes(held[$0], held[$1]) }
        let start = log.length
        // Written out a block at a time from one buffer kept under the size glibc maps afresh
        // (a new megabyte for each megabyte spilled cost a page fault for each of its pages).
        var writer = ByteWriter(capacity: Self.spillBlock + (4 << 10))
        for index in order {
            writer.writeLengthPrefixed { held[index].encode(into: &$0) }
            if writer.count >= Self.spillBlock {
                try log.append(writer.bytes)
                writer.removeAll()
            }
        }
        try log.append(writer.bytes)
        runs.append(start..<log.length)
        self.held = []
        heldBytes = 0
    }
}

/// One spilled run of a ``SpilledSort`` read back in blocks: each value is its `u32` length, then
/// its bytes.
final class SpilledRun<Element: SpilledSortElement> {
    private let log: ScratchLog
    private var next: UInt64
    private let end: UInt64
    private var block: [UInt8] = []
    private var position = 0
    /// Most bytes read from the log at once.
    static var maxBlockSize: Int { 256 << 10 }
    /// Bytes read from the log at once.
    let blockSize: Int

    init(log: ScratchLog, range: Range<UInt64>, blockSize: Int = maxBlockSize) {
        self.log = log
        next = range.lowerBound
        end = range.upperBound
        self.blockSize = blockSize
    }

    /// The run's next value, or nil at its end.
    func read() throws -> Element? {
        while true {
            let available = block.count - position
            if available >= 4 {
                let length = (0..<4).reduce(0) { $0 | Int(block[position + $1]) << (8 * $1) }
                if available >= 4 + length {
                    var reader = ByteReader(
                        block, region: .file(section: "sorted run", offset: 0),
                        range: position + 4..<position + 4 + length)
                    let element = try Element.decode(&reader)
                    position += 4 + length
                    return element
                }
            }
            if available == 0 && next == end { return nil }
            guard next < end else {
                throw WebArcError.io(path: "", operation: .transferring("read back a sorted run"), errno: 0)
            }
            let want = max(blockSize, 2 * available + 8)
            let more = try log.read(at: next, count: Int(min(UInt64(want - available), end - next)))
            next += UInt64(more.count)
            block = Array(block[position...]) + more
            position = 0
        }
    }
}

/// The values of a ``SpilledSort`` in order: held in memory, or merged from its runs.
struct SpilledSortIterator<Element: SpilledSortElement> {
    private var memory: [Element]
    private var index = 0
    private var runs: [SpilledRun<Element>] = []
    private var heads: RunHeads<Element>
    private var started = false

    init(memory: [Element]) {
        self.memory = memory
        heads = RunHeads(capacity: 0)
    }

    init(merging runs: [SpilledRun<Element>]) {
        memory = []
        self.runs = runs
        heads = RunHeads(capacity: runs.count)
    }

    /// The next value, or nil after the last.
    ///
    /// - Throws: `io` when a run cannot be read back.
    mutating func next() throws -> Element? {
        guard !runs.isEmpty else {
            guard index < memory.count else { return nil }
            index += 1
            return memory[index - 1]
        }
        if !started {
            started = true
            for (number, run) in runs.enumerated() {
                if let head = try run.read() { heads.insert(head, run: number) }
            }
        }
        guard let least = heads.leastRun else { return nil }
        return heads.replaceLeast(with: try runs[least].read())
    }
}
