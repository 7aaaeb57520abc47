import Testing
import WebArcTestSupport

@testable import WebArc

/// The external merge sort (`SpilledSort`) and its merge of many runs (`RunHeads`): values come
/// back in order whatever the run size, and equal values in the order they were added.
@Suite("Spilled sort")
struct SpilledSortTests {
    /// A value ordered by its key alone: values of one key differ in `added`.
    private struct Keyed: SpilledSortElement, Equatable {
        let key: UInt64
        let added: UInt64

        static func precedes(_ lhs: Keyed, _ rhs: Keyed) -> Bool { lhs.key < rhs.key }

        func encode(into writer: inout ByteWriter) {
            writer.write(key)
            writer.write(added)
        }

        static func decode(_ reader: inout ByteReader) throws -> Keyed {
            Keyed(key: try reader.readUInt64(), added: try reader.readUInt64())
        }

        var heldSize: Int { 16 }
    }

    private static func sorted(_ values: [Keyed], runBytes: Int) throws -> [Keyed] {
        let sort = SpilledSort<Keyed>(prefix: "webarc-test-sort", runBytes: runBytes)
        for value in values { try sort.append(value) }
        var iterator = try sort.sorted()
        var result: [Keyed] = []
        while let value = try iterator.next() { result.append(value) }
        return result
    }

    @Test(
        "values come back by key, equal keys in the order added, from one run or hundreds",
        arguments: [1 << 30, 16 * 40, 16 * 7, 16])
    func order(runBytes: Int) throws {
        var random = SeededGenerator(seed: 29)
        // Few keys, so that most values tie with values of other runs.
        let values = (0..<3000).map { Keyed(key: random.next() % 50, added: UInt64($0)) }
        let expected = values.enumerated().sorted { left, right in
            left.element.key != right.element.key ? left.element.key < right.element.key : left.offset < right.offset
        }.map(\.element)
        let result = try Self.sorted(values, runBytes: runBytes)
        #expect(result.count == expected.count)
        let difference = zip(result, expected).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(difference == nil, "value \(difference?.offset ?? 0): \(String(describing: difference?.element))")
    }

    @Test("runs that end at different lengths, and empty sorts, are merged whole")
    func unevenRuns() throws {
        #expect(try Self.sorted([], runBytes: 16).isEmpty)
        // Descending keys: every run's values come after the next run's.
        let descending = (0..<500).map { Keyed(key: UInt64(1000 - $0), added: UInt64($0)) }
        #expect(try Self.sorted(descending, runBytes: 16 * 3) == descending.reversed())
        // One value, spilled as a run of its own.
        let one = [Keyed(key: 7, added: 0)]
        #expect(try Self.sorted(one, runBytes: 1) == one)
    }
}
