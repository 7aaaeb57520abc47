import Foundation
import Testing
import WebArc
import WebArcSearch
import WebArcTestSupport

/// The index over layers, against damage, and with a small memory budget.
@Suite struct SearchIndexLayerTests {
    @Test func aStackAnswersAsIfApplied() throws {
        let folder = try TemporaryFolder()
        _ = try SearchIndexTests.write(SearchIndexTests.pages, to: folder.file("base.webarc"))
        let base = try ArchiveReader(path: folder.file("base.webarc"))
        // The update changes the pickle page (no longer about serialization) and deletes os.path.
        let changed = [
            (
                path: "library/pickle.html",
                html:
                    "<html><head><title>pickle — gherkins</title></head><body><p>Cucumbers in brine.</p></body></html>"
            )
        ]
        _ = try SearchIndexTests.write(
            changed, to: folder.file("update.webarc"), bases: [base], deleting: ["library/os.path.html"])
        let stack = try LayerStack([
            try ArchiveReader(path: folder.file("update.webarc")), try ArchiveReader(path: folder.file("base.webarc")),
        ])
        #expect(stack.hasSearchIndex)
        #expect(try stack.search("cucumbers").map(\.url) == ["http://docs.test/library/pickle.html"])
        // The base's pickle page is shadowed by the update's, the deleted page by its tombstone.
        #expect(try stack.search("binary protocols").isEmpty)
        #expect(try stack.search("pathnames").isEmpty)
        #expect(try stack.search("json dumps").map(\.url) == ["http://docs.test/library/json.html"])
        #expect(try stack.search("pickle").map(\.title) == ["pickle — gherkins"])
        #expect(try stack.suggest("pi").map(\.title) == ["pickle — gherkins"])
        #expect(try stack.suggest("os").isEmpty)
        // The base alone still answers as before.
        #expect(try base.search("pathnames").map(\.url) == ["http://docs.test/library/os.path.html"])
    }

    @Test func aDamagedIndexPageIsRefused() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("a.webarc")
        _ = try SearchIndexTests.write(SearchIndexTests.pages, to: path)
        let shard = try {
            let reader = try ArchiveReader(path: path)
            return try reader.searchPage(try #require(try reader.searchIndexRoot).reference).children[0]
        }()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[Int(shard.offset) + 3] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        let reader = try ArchiveReader(path: path)
        #expect(throws: WebArcError.pageDigest(page: shard.offset)) { try reader.search("json") }
        let report = ArchiveVerifier.verify(path: path)
        #expect(report.problems.contains { $0.code == "page-digest" && $0.offset == shard.offset })
    }

    @Test func manyDocumentsWithASmallSpillThreshold() throws {
        let folder = try TemporaryFolder()
        var generator = SeededGenerator(seed: 38)
        let words = (0..<400).map { "word\($0)x" }
        var pages: [(path: String, html: String)] = []
        for number in 0..<600 {
            let text = (0..<60).map { _ in words[Int.random(in: 0..<words.count, using: &generator)] }
            pages.append(
                (
                    path: "p/\(number).html",
                    html: "<title>page \(number)</title><p>\(text.joined(separator: " ")) marker\(number % 7)</p>"
                ))
        }
        let small = try SearchIndexTests.write(pages, to: folder.file("small.webarc"), spill: 16 << 10)
        let large = try SearchIndexTests.write(pages, to: folder.file("large.webarc"), spill: 1 << 30)
        #expect(small.runCount > 5)
        #expect(large.runCount == 0)
        let a = try Data(contentsOf: URL(fileURLWithPath: folder.file("small.webarc")))
        let b = try Data(contentsOf: URL(fileURLWithPath: folder.file("large.webarc")))
        #expect(a == b)
        let reader = try ArchiveReader(path: folder.file("small.webarc"))
        let hits = try reader.search("marker3", limit: 1000)
        #expect(hits.count == (0..<600).filter { $0 % 7 == 3 }.count)
        #expect(try reader.search("page 599").first?.url == "http://docs.test/p/599.html")
    }

    /// A run after every document: hundreds of runs, merged through the heap with their read
    /// blocks cut to the shared budget, give the index one run would.
    @Test func aRunPerDocumentMergesToTheSameIndex() throws {
        let folder = try TemporaryFolder()
        var generator = SeededGenerator(seed: 41)
        let words = (0..<300).map { "term\($0)z" }
        let pages = (0..<400).map { number -> (path: String, html: String) in
            let text = (0..<40).map { _ in words[Int.random(in: 0..<words.count, using: &generator)] }
            return ("q/\(number).html", "<title>note \(number)</title><p>\(text.joined(separator: " ")) n\(number)</p>")
        }
        let perDocument = try SearchIndexTests.write(pages, to: folder.file("runs.webarc"), spill: 1)
        let whole = try SearchIndexTests.write(pages, to: folder.file("whole.webarc"), spill: 1 << 30)
        #expect(perDocument.runCount == pages.count)
        #expect(whole.runCount == 0)
        let a = try Data(contentsOf: URL(fileURLWithPath: folder.file("runs.webarc")))
        let b = try Data(contentsOf: URL(fileURLWithPath: folder.file("whole.webarc")))
        #expect(a == b)
        let reader = try ArchiveReader(path: folder.file("runs.webarc"))
        #expect(try reader.search("n257").map(\.url) == ["http://docs.test/q/257.html"])
    }
}
