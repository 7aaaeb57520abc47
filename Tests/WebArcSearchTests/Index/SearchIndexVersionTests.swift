import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcSearch

/// Index version 2 (spec §17, format 2.3: no positions, under `Archive.searchIndex`) against
/// version 1 (`Archive.search`) on the same pages, and what each version's readers and writers see.
@Suite struct SearchIndexVersionTests {
    /// Sixty pages of words from a small vocabulary (seeded), so that words meet often, apart and
    /// side by side; one page holds `blue river` side by side, one both words apart, one `blue` at
    /// the end of its title and `river` at the start of its text.
    static let pages: [(path: String, html: String)] = {
        var generator = SeededGenerator(seed: 23)
        let words = [
            "json", "dumps", "module", "river", "blue", "boats", "serialize", "objects", "python", "reads",
            "the", "a", "map", "of", "fish", "running", "runs", "water", "green", "trees",
        ]
        var pages: [(path: String, html: String)] = []
        for number in 0..<60 {
            let title = (0..<3).map { _ in words[Int.random(in: 0..<words.count, using: &generator)] }
            let text = (0..<50).map { _ in words[Int.random(in: 0..<words.count, using: &generator)] }
            pages.append(
                (
                    "p/\(number).html",
                    "<title>\(title.joined(separator: " "))</title><p>\(text.joined(separator: " "))</p>"
                ))
        }
        pages.append(("side.html", "<title>Side</title><p>walking by the Blue River at noon</p>"))
        pages.append(("apart.html", "<title>Apart</title><p>blue boats cross the wide river</p>"))
        pages.append(("across.html", "<title>Across blue</title><p>river banks</p>"))
        return pages
    }()

    /// Writes `pages` into an archive whose index has rules `version`.
    static func write(_ pages: [(path: String, html: String)], version: UInt64, to path: String) throws {
        _ = try SearchIndexTests.write(pages, to: path, version: version)
    }

    static let queries = [
        "json", "json dumps", "river", "blue river", "serial*", "runs", "running fish", "py*", "the a",
        "\"blue river\"", "\"json dumps\"", "\"the a map\"", "\"river blue\"", "water \"green trees\"",
        "\"fish running\" json", "boats*",
    ]

    /// Writes `pages` with index rules `older` and `newer` and expects the newer to answer every
    /// query as the older does (hits, scores, snippets, at each limit) and suggestions alike, in a
    /// smaller file; returns the newer archive's reader.
    @discardableResult
    static func expectSameAnswers(
        _ pages: [(path: String, html: String)], older: UInt64, newer: UInt64, queries: [String], limits: [Int],
        suggest: String, in folder: TemporaryFolder
    ) throws -> ArchiveReader {
        let olderPath = folder.file("v\(older).webarc")
        let newerPath = folder.file("v\(newer).webarc")
        try write(pages, version: older, to: olderPath)
        try write(pages, version: newer, to: newerPath)
        let old = try ArchiveReader(path: olderPath)
        let new = try ArchiveReader(path: newerPath)
        for query in queries {
            for limit in limits {
                let before = try old.search(query, limit: limit)
                let after = try new.search(query, limit: limit)
                #expect(after.map(\.url) == before.map(\.url), "\(query) limit \(limit)")
                #expect(after.map(\.score) == before.map(\.score), "\(query) limit \(limit)")
                #expect(after.map(\.snippet) == before.map(\.snippet), "\(query) limit \(limit)")
            }
        }
        #expect(try new.suggest(suggest).map(\.url) == old.suggest(suggest).map(\.url))
        let size = { (path: String) in try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int }
        #expect(try size(newerPath) < size(olderPath))
        return new
    }

    @Test func version2AnswersAsVersion1() throws {
        // Without positions the index is smaller.
        try Self.expectSameAnswers(
            Self.pages, older: 1, newer: 2, queries: Self.queries, limits: [3, 10, 100], suggest: "side",
            in: try TemporaryFolder())
    }

    @Test func aPhraseCandidateWhoseWordsAreApartIsNoHit() throws {
        let folder = try TemporaryFolder()
        try Self.write(Array(Self.pages.suffix(3)), version: 2, to: folder.file("v2.webarc"))
        let reader = try ArchiveReader(path: folder.file("v2.webarc"))
        // The postings give all three pages as candidates; their text keeps one.
        var evaluation = QueryEvaluation(index: try #require(try IndexView(reader)))
        #expect(try evaluation.run(SearchQuery.parse("\"blue river\"")).count == 3)
        #expect(evaluation.phrasesToCheck == [["blue", "river"]])
        #expect(try reader.search("\"blue river\"").map(\.url) == ["http://docs.test/side.html"])
        // Words alone match all three; a phrase never spans title and text.
        #expect(try reader.search("blue river").count == 3)
        #expect(try reader.search("\"across blue\"").map(\.url) == ["http://docs.test/across.html"])
        #expect(try reader.search("\"blue river banks\"").isEmpty)
    }

    @Test func aVersion2IndexIsUnderItsOwnKeyAndBit() throws {
        let folder = try TemporaryFolder()
        try Self.write(Self.pages, version: 2, to: folder.file("v2.webarc"))
        try Self.write(Self.pages, version: 1, to: folder.file("v1.webarc"))
        let v2 = try ArchiveReader(path: folder.file("v2.webarc"))
        // A 2.2 reader knows `Archive.search` and bit 0 only: it finds neither, so no index.
        #expect(try v2.metadata.searchIndex == nil)
        #expect(try v2.metadata.searchIndexV2 != nil)
        #expect(v2.trailer.optionalFeatures == Trailer.OptionalFeatures.searchIndexV2)
        #expect(v2.trailer.minorVersion == 3)
        #expect(try v2.metadata.writer?.search == 2)
        let v1 = try ArchiveReader(path: folder.file("v1.webarc"))
        #expect(try v1.metadata.searchIndexV2 == nil)
        #expect(v1.trailer.optionalFeatures == Trailer.OptionalFeatures.searchIndex)
        #expect(v1.trailer.minorVersion == 2)
        // Its shards name no position page.
        let index = try #require(try IndexView(v2))
        #expect(!index.hasPositions)
        for number in index.root.termKeys.indices {
            let shard = try index.shard(number)
            #expect(shard.positionPages.isEmpty)
            #expect(shard.entries.allSatisfy { $0.positions.isEmpty })
        }
        #expect(ArchiveVerifier.verify(v2).problems.isEmpty)
    }

    @Test func applyingAnUpdateOfEitherVersionGivesItsTargetByteForByte() throws {
        for version in IndexFormat.versions {
            SearchIndexRegistry.register(version: version) { SearchIndexBuilder(version: version) }
        }
        let folder = try TemporaryFolder()
        for version in IndexFormat.versions {
            let old = folder.file("old-\(version).webarc")
            let new = folder.file("new-\(version).webarc")
            try Self.write(Self.pages, version: version, to: old)
            var changed = Self.pages
            changed[0].html = "<title>Changed</title><p>blue river otters</p>"
            changed.removeLast()
            try Self.write(changed, version: version, to: new)
            let update = folder.file("update-\(version).webarc")
            let applied = folder.file("applied-\(version).webarc")
            try UpdateBuilder(old: try LayerStack([try ArchiveReader(path: old)]), new: try ArchiveReader(path: new))
                .write(to: update)
            // The update's index is written by the new archive's rules.
            #expect(try ArchiveReader(path: update).metadata.writer?.search == version)
            let stack = try LayerStack([try ArchiveReader(path: update), try ArchiveReader(path: old)])
            #expect(try stack.search("\"blue river\" otters").map(\.url) == ["http://docs.test/p/0.html"])
            try UpdateApplier(stack: stack).write(to: applied)
            #expect(try Data(contentsOf: URL(fileURLWithPath: applied)) == Data(contentsOf: URL(fileURLWithPath: new)))
        }
    }

    @Test func aDamagedVersion2PostingPageIsRefused() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("v2.webarc")
        try Self.write(Self.pages, version: 2, to: path)
        let posting = try {
            let reader = try ArchiveReader(path: path)
            let index = try #require(try IndexView(reader))
            return try #require(try index.shard(0).postingPages.first)
        }()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[Int(posting.offset) + 5] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        let reader = try ArchiveReader(path: path)
        let first = String(decoding: try #require(try IndexView(reader)).root.termKeys[0], as: UTF8.self)
        #expect(throws: WebArcError.pageDigest(page: posting.offset)) { try reader.search(first) }
        let report = ArchiveVerifier.verify(path: path)
        #expect(report.problems.contains { $0.code == "page-digest" && $0.offset == posting.offset })
    }
}
