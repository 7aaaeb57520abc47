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
    public init(positions: [Int]) {
        var runs: [(start: UInt64, length: UInt64)] = []
        for position in positions.map(UInt64.init) {
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
        if runs.isEmpty { return Array(0..<count) }
        var seen = [Bool](repeating: false, count: count)
        var positions: [Int] = []
        positions.reserveCapacity(count)
        for run in runs {
            guard run.start < UInt64(count), run.length <= UInt64(count) - run.start else {
                throw Problem(reason: "run \(run.start)+\(run.length) is outside 0..<\(count)")
            }
            for position in Int(run.start)..<Int(run.start + run.length) {
                guard !seen[position] else { throw Problem(reason: "position \(position) is listed twice") }
                seen[position] = true
                positions.append(position)
            }
        }
        guard positions.count == count else {
            throw Problem(reason: "\(positions.count) positions listed for \(count) records")
        }
        return positions
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
