import Testing

@testable import WebArcSearch

/// The title keys sorted in runs spilled to a file give the order of a sort in memory.
@Suite struct TitleKeyTableTests {
    /// Keys with shared prefixes and repeats, in a scrambled order (a fixed generator).
    static func keys(_ count: Int) -> [([UInt8], Int32)] {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let stems: [[UInt8]] = ["json", "js", "pickle", "path", "", "pathlib"].map { Array($0.utf8) }
        return (0..<count).map { document in
            var key = stems[Int(next() % UInt64(stems.count))]
            for _ in 0..<Int(next() % 4) { key.append(UInt8(97 + next() % 3)) }
            return (key, Int32(next() % 1_000) * 1_000 + Int32(document % 1_000))
        }
    }

    static func sortedKeys(_ keys: [([UInt8], Int32)], runBytes: Int) throws -> ([([UInt8], Int32)], Int) {
        var table = TitleKeyTable(runBytes: runBytes)
        for (key, document) in keys { try table.append(key, document: document) }
        let count = table.count
        var found: [([UInt8], Int32)] = []
        try table.forEachSorted { key, document in found.append((Array(key), document)) }
        return (found, count)
    }

    @Test(arguments: [1, 40, 1_000, 4 << 20])
    func spilledRunsMergeInKeyThenDocumentOrder(runBytes: Int) throws {
        let keys = Self.keys(2_000)
        let expected = keys.sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0.lexicographicallyPrecedes($1.0) }
        let (found, count) = try Self.sortedKeys(keys, runBytes: runBytes)
        #expect(count == keys.count)
        #expect(found.map(\.0) == expected.map(\.0))
        #expect(found.map(\.1) == expected.map(\.1))
    }

    @Test func aTableIsEmptyAfterItsKeysAreRead() throws {
        var table = TitleKeyTable(runBytes: 16)
        for (key, document) in Self.keys(50) { try table.append(key, document: document) }
        try table.forEachSorted { _, _ in }
        var again = 0
        try table.forEachSorted { _, _ in again += 1 }
        #expect(again == 0)
        #expect(table.count == 0)
    }
}
