/// The order records were given to a writer, as runs of record-tree positions (spec §13.2).
///
/// ```swift
/// let order = InsertionOrder(positions: [2, 3, 0, 1])   // runs (2, 2), (0, 2)
/// order.positions(count: 4)                              // [2, 3, 0, 1]
/// ```
public struct InsertionOrder: Equatable, Sendable {
    /// The runs: each `start`, `start + 1`, …, `start + length − 1`.
    package private(set) var runs: [(start: UInt64, length: UInt64)]

    /// The tree's own order (no runs stored).
    public init() { runs = [] }

    /// The fewest runs listing `positions` in order; empty when they are 0, 1, 2, ….
    public init<Positions: Sequence>(positions: Positions) where Positions.Element: BinaryInteger {
        var runs: [(start: UInt64, length: UInt64)] = []
        for position in positions.lazy.map({ UInt64($0) }) {
            if let last = runs.last, last.start + last.length == position {
                runs[runs.count - 1].length += 1
            } else {
                runs.append((position, 1))
            }
        }
        self.runs = runs.count == 1 && runs[0].start == 0 ? [] : runs
    }

    /// Whether this is the tree's own order.
    public var isTreeOrder: Bool { runs.isEmpty }

    public static func == (lhs: InsertionOrder, rhs: InsertionOrder) -> Bool {
        lhs.runs.elementsEqual(rhs.runs) { $0.start == $1.start && $0.length == $1.length }
    }

    /// The stored form: pairs of unsigned LEB128 integers.
    package func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        for run in runs {
            LEB128.append(run.start, to: &bytes)
            LEB128.append(run.length, to: &bytes)
        }
        return bytes
    }

    /// Reads the stored form; the runs are checked only by ``positions(count:)``.
    ///
    /// - Throws: ``InsertionOrder/Problem`` for a truncated or over-long integer, or a run of length 0.
    package init(encoded bytes: [UInt8]) throws {
        var runs: [(start: UInt64, length: UInt64)] = []
        var index = 0
        while index < bytes.count {
            let start = try Self.readLEB128(bytes, &index)
            let length = try Self.readLEB128(bytes, &index)
            guard length >= 1 else { throw Problem(reason: "a run of length 0 at byte \(index)") }
            runs.append((start, length))
        }
        self.runs = runs
    }

    /// The positions in insertion order, given the record count; every position 0..<count must
    /// appear exactly once.
    ///
    /// - Throws: ``InsertionOrder/Problem`` when the runs do not list each position once.
    public func positions(count: Int) throws -> [Int] {
        Array(try positionsInOrder(count: count))
    }

    /// The positions in insertion order, given the record count, read from the runs as they are
    /// asked for: no table of a position a record (a million records took 8 MB as `[Int]`).
    ///
    /// - Throws: ``InsertionOrder/Problem`` when the runs do not list each position 0..<count once.
    package func positionsInOrder(count: Int) throws -> Positions {
        guard count >= 0 else { throw Problem(reason: "a negative record count") }
        var ends: [Int] = []
        ends.reserveCapacity(runs.count)
        var total = 0
        for run in runs {
            guard run.start < UInt64(count), run.length <= UInt64(count) - run.start else {
                throw Problem(reason: "run \(run.start)+\(run.length) is outside 0..<\(count)")
            }
            total += Int(run.length)
            guard total <= count else { throw Problem(reason: "more than \(count) positions listed") }
            ends.append(total)
        }
        // Each position once: the runs, by start, tile 0..<count.
        var covered = 0
        for run in runs.sorted(by: { $0.start < $1.start }) {
            let start = Int(run.start)
            guard start >= covered else { throw Problem(reason: "position \(start) is listed twice") }
            guard start == covered else { throw Problem(reason: "position \(covered) is not listed") }
            covered = start + Int(run.length)
        }
        guard runs.isEmpty || covered == count else {
            throw Problem(reason: "\(covered) positions listed for \(count) records")
        }
        return Positions(runs: runs.map { (Int($0.start), Int($0.length)) }, ends: ends, count: count)
    }

    /// Tree positions in insertion order (``positionsInOrder(count:)``): run `k` fills indices
    /// `ends[k − 1]..<ends[k]`; no runs, the tree's own order.
    package struct Positions: RandomAccessCollection, Sendable {
        fileprivate let runs: [(start: Int, length: Int)]
        fileprivate let ends: [Int]
        /// Records in all.
        package let count: Int

        package var startIndex: Int { 0 }
        package var endIndex: Int { count }

        /// The tree position of the record given `index`-th.
        package subscript(index: Int) -> Int {
            precondition(index >= 0 && index < count, "an insertion index out of range")
            guard !runs.isEmpty else { return index }
            var low = 0
            var high = ends.count - 1
            while low < high {
                let middle = (low + high) / 2
                if ends[middle] <= index { low = middle + 1 } else { high = middle }
            }
            return runs[low].start + index - (ends[low] - runs[low].length)
        }
    }

    /// A malformed order.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        /// What is wrong.
        public var reason: String
        public var description: String { "insertion order: \(reason)" }
    }

    /// One integer of the runs, its failure worded as an order problem.
    static func readLEB128(_ bytes: [UInt8], _ index: inout Int) throws -> UInt64 {
        switch LEB128.read(bytes, &index) {
        case .success(let value): return value
        case .failure(.pastEnd): throw Problem(reason: "an integer runs past the end")
        case .failure(.over64Bits): throw Problem(reason: "an integer over 64 bits at byte \(index - 1)")
        case .failure(.tooLong): throw Problem(reason: "an integer longer than 10 bytes at byte \(index)")
        }
    }
}
