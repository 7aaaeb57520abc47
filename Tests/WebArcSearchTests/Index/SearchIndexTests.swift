import Foundation
import Testing
import WebArc
import WebArcSearch
import WebArcTestSupport

/// Archives with a full-text index, written through the writer's hook and searched back.
@Suite struct SearchIndexTests {
    static let pages: [(path: String, html: String)] = [
        (
            "library/json.html",
            "<html><head><title>json — JSON encoder and decoder</title></head><body><h1>json</h1>"
                + "<p>Serialize obj to a JSON formatted str with json.dumps. The sort keys argument sorts the output.</p></body></html>"
        ),
        (
            "library/pickle.html",
            "<html><head><title>pickle — Python object serialization</title></head><body>"
                + "<p>The pickle module implements binary protocols for serializing and de-serializing objects.</p></body></html>"
        ),
        (
            "library/os.path.html",
            "<html><head><title>os.path — Common pathname manipulations</title></head><body>"
                + "<p>This module implements some useful functions on pathnames. Running os.path.join joins paths.</p></body></html>"
        ),
        (
            "tutorial/index.html",
            "<html><head><title>The Python Tutorial</title></head><body><script>var json = 1;</script>"
                + "<p>Python is an easy to learn, powerful programming language. Café society reads it.</p></body></html>"
        ),
    ]

    /// Writes `pages` (and a stylesheet, which is not indexed) into an archive with an index (of
    /// rules `version`; nil: the newest).
    static func write(
        _ pages: [(path: String, html: String)], to path: String, bases: [ArchiveReader] = [],
        deleting: [String] = [], spill: Int = 1 << 20, version: UInt64? = nil
    ) throws -> SearchIndexBuilder {
        let builder =
            version.map { SearchIndexBuilder(version: $0, spillThreshold: spill) }
            ?? SearchIndexBuilder(spillThreshold: spill)
        try write(pages, to: path, bases: bases, deleting: deleting, index: builder)
        return builder
    }

    /// Writes `pages` (HTML under http://docs.test/) and a stylesheet, indexed by `index`.
    static func write(
        _ pages: [(path: String, html: String)], to path: String, bases: [ArchiveReader] = [],
        deleting: [String] = [], index: any SearchIndexContributor
    ) throws {
        var options = ArchiveWriter.Options()
        nonisolated(unsafe) let given = index
        options.searchIndex = { given }
        let writer = try ArchiveWriter(path: path, options: options, bases: bases)
        for page in pages {
            let body = try writer.addBody(Array(page.html.utf8))
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: "http://docs.test/" + page.path), mimeType: "text/html",
                    textEncoding: "utf-8", body: body))
        }
        let css = try writer.addBody(Array("body { json: dumps }".utf8))
        try writer.add(
            ResponseRecord(request: RequestRecord(url: "http://docs.test/style.css"), mimeType: "text/css", body: css))
        for path in deleting {
            try writer.add(TombstoneRecord(request: RequestRecord(url: "http://docs.test/" + path)))
        }
        try writer.finish()
    }

    @Test func wordsFindTheirPageWithATitleAndSnippet() throws {
        let folder = try TemporaryFolder()
        _ = try Self.write(Self.pages, to: folder.file("a.webarc"))
        let reader = try ArchiveReader(path: folder.file("a.webarc"))
        #expect(reader.hasSearchIndex)
        let hits = try reader.search("json dumps")
        #expect(hits.map(\.url) == ["http://docs.test/library/json.html"])
        #expect(hits[0].title == "json — JSON encoder and decoder")
        #expect(hits[0].snippet.contains("json.dumps"))
        #expect(hits[0].score > 0)
        // Script text and the stylesheet are not indexed.
        #expect(try reader.search("var").isEmpty)
        #expect(try reader.search("json").map(\.url) == ["http://docs.test/library/json.html"])
    }

    @Test func everyWordMustMatch() throws {
        let folder = try TemporaryFolder()
        _ = try Self.write(Self.pages, to: folder.file("a.webarc"))
        let reader = try ArchiveReader(path: folder.file("a.webarc"))
        #expect(
            Set(try reader.search("module implements").map(\.url)) == [
                "http://docs.test/library/pickle.html", "http://docs.test/library/os.path.html",
            ])
        #expect(try reader.search("pickle pathnames").isEmpty)
        #expect(try reader.search("absentword").isEmpty)
    }

    @Test func titleMatchesRankFirst() throws {
        let folder = try TemporaryFolder()
        _ = try Self.write(Self.pages, to: folder.file("a.webarc"))
        let reader = try ArchiveReader(path: folder.file("a.webarc"))
        let hits = try reader.search("python")
        #expect(hits.first?.url == "http://docs.test/tutorial/index.html")
        #expect(hits.count == 2)
        #expect(hits[0].score > hits[1].score)
    }

    @Test func phrasesNeedTheirWordsInOrder() throws {
        let folder = try TemporaryFolder()
        _ = try Self.write(Self.pages, to: folder.file("a.webarc"))
        let reader = try ArchiveReader(path: folder.file("a.webarc"))
        #expect(try reader.search("\"sort keys\"").map(\.url) == ["http://docs.test/library/json.html"])
        #expect(try reader.search("\"keys sort\"").isEmpty)
        #expect(try reader.search("\"programming language\"").map(\.url) == ["http://docs.test/tutorial/index.html"])
    }

    @Test func prefixesFoldingAndStemming() throws {
        let folder = try TemporaryFolder()
        _ = try Self.write(Self.pages, to: folder.file("a.webarc"))
        let reader = try ArchiveReader(path: folder.file("a.webarc"))
        #expect(try reader.search("pick*").map(\.url) == ["http://docs.test/library/pickle.html"])
        // Prefixes match stemmed terms: "serialize" and "serialization" are both "serial".
        #expect(try reader.search("seria*").count == 2)
        // A word typed past its stem still finds it: "seriali" and "serializi" cut back to "serial".
        #expect(try reader.search("seriali*").count == 2)
        #expect(try reader.search("serializi*").count == 2)
        #expect(try reader.search("serializationx*").isEmpty)
        #expect(try reader.search("run*").map(\.url) == ["http://docs.test/library/os.path.html"])
        #expect(try reader.search("pick*").count == 1)
        // Folding: "CAFE" finds "Café"; stemming: "serialized" finds "serializing".
        #expect(try reader.search("CAFE").map(\.url) == ["http://docs.test/tutorial/index.html"])
        #expect(try reader.search("serialized").map(\.url).contains("http://docs.test/library/pickle.html"))
        #expect(try reader.search("run").map(\.url) == ["http://docs.test/library/os.path.html"])
    }

    @Test func snippetsShowAMatchDeepInALargePage() throws {
        // About 140 KB of text before the late page's match: past the first reads of its text.
        let filler = String(repeating: "<p>Rivers, hills and the weather of a quiet town.</p>", count: 3000)
        let pages = [
            (
                "big/late.html",
                "<html><head><title>Late</title></head><body>\(filler)<p>Here zebrafish swim.</p></body></html>"
            ),
            (
                "big/early.html",
                "<html><head><title>Early</title></head><body><p>A zebra grazes.</p>\(filler)</body></html>"
            ),
        ]
        let folder = try TemporaryFolder()
        _ = try Self.write(pages, to: folder.file("a.webarc"))
        let reader = try ArchiveReader(path: folder.file("a.webarc"))
        let hits = try reader.search("zebra*")
        #expect(Set(hits.map(\.url)) == ["http://docs.test/big/late.html", "http://docs.test/big/early.html"])
        for hit in hits {
            #expect(hit.snippet.contains(hit.url.hasSuffix("late.html") ? "Here zebrafish swim." : "A zebra grazes."))
        }
        #expect(try reader.search("zebrafish").first?.snippet.contains("Here zebrafish swim.") == true)
    }

    @Test func sphinxSourceCopiesAreNotIndexed() throws {
        let folder = try TemporaryFolder()
        var options = ArchiveWriter.Options()
        options.searchIndex = { SearchIndexBuilder() }
        let writer = try ArchiveWriter(path: folder.file("a.webarc"), options: options)
        for (path, text) in [
            ("_sources/library/json.rst.txt", "json dumps source"), ("notes/readme.txt", "json dumps notes"),
        ] {
            let body = try writer.addBody(Array(text.utf8))
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: "http://docs.test/" + path), mimeType: "text/plain", body: body))
        }
        try writer.finish()
        let reader = try ArchiveReader(path: folder.file("a.webarc"))
        #expect(try reader.search("json dumps").map(\.url) == ["http://docs.test/notes/readme.txt"])
        #expect(SearchIndexBuilder.isSourceCopy("http://docs.test/a/_sources/b.txt"))
        #expect(!SearchIndexBuilder.isSourceCopy("http://_sources/b.txt"))
        #expect(!SearchIndexBuilder.isSourceCopy("http://docs.test/b.txt?dir=/_sources/"))
    }

    @Test func aBodyTwoURLsAnswerWithIsOneDocument() throws {
        let folder = try TemporaryFolder()
        var options = ArchiveWriter.Options()
        options.searchIndex = { SearchIndexBuilder() }
        let writer = try ArchiveWriter(path: folder.file("a.webarc"), options: options)
        let page = try writer.addBody(Array("<title>Howto</title><p>socket programming</p>".utf8))
        for path in ["howto/index.html", "howto/"] {
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: "http://docs.test/" + path), mimeType: "text/html", body: page))
        }
        try writer.finish()
        let reader = try ArchiveReader(path: folder.file("a.webarc"))
        // The first URL in key order keeps the page.
        #expect(try reader.search("socket programming").map(\.url) == ["http://docs.test/howto/"])
    }

    @Test func suggestionsByTitlePrefix() throws {
        let folder = try TemporaryFolder()
        _ = try Self.write(Self.pages, to: folder.file("a.webarc"))
        let reader = try ArchiveReader(path: folder.file("a.webarc"))
        #expect(try reader.suggest("JS").map(\.url) == ["http://docs.test/library/json.html"])
        #expect(try reader.suggest("p").map(\.title) == ["pickle — Python object serialization"])
        #expect(try reader.suggest("the py").map(\.title) == ["The Python Tutorial"])
        #expect(try reader.suggest("zzz").isEmpty)
        #expect(try reader.suggest("o", limit: 1).count == 1)
    }

    @Test func hostileQueriesAreBoundedOrRefused() throws {
        let folder = try TemporaryFolder()
        _ = try Self.write(Self.pages, to: folder.file("a.webarc"))
        let reader = try ArchiveReader(path: folder.file("a.webarc"))
        #expect(throws: SearchQueryError.lonePrefix) { try reader.search("*") }
        #expect(throws: SearchQueryError.empty) { try reader.search("   ") }
        let manyTerms = (0..<10_000).map { "w\($0)" }.joined(separator: " ")
        #expect(try reader.search(manyTerms).isEmpty)
        let megabyte = String(repeating: "json ", count: 200_000)
        #expect(try reader.search(megabyte).map(\.url) == ["http://docs.test/library/json.html"])
        #expect(try reader.search("a*").count <= 10)
    }

    @Test func archivesWithoutAnIndexAnswerNothing() throws {
        let folder = try TemporaryFolder()
        let writer = try ArchiveWriter(path: folder.file("plain.webarc"))
        let body = try writer.addBody(Array("<p>json</p>".utf8))
        try writer.add(ResponseRecord(request: RequestRecord(url: "http://a.test/"), mimeType: "text/html", body: body))
        try writer.finish()
        let reader = try ArchiveReader(path: folder.file("plain.webarc"))
        #expect(!reader.hasSearchIndex)
        #expect(try reader.search("json").isEmpty)
        #expect(try reader.suggest("js").isEmpty)
    }

    @Test func theSameInputGivesTheSameBytes() throws {
        let folder = try TemporaryFolder()
        _ = try Self.write(Self.pages, to: folder.file("a.webarc"))
        _ = try Self.write(Self.pages, to: folder.file("b.webarc"), spill: 1)
        let a = try Data(contentsOf: URL(fileURLWithPath: folder.file("a.webarc")))
        let b = try Data(contentsOf: URL(fileURLWithPath: folder.file("b.webarc")))
        #expect(a == b)
    }

    @Test func verifyReadsTheIndexPages() throws {
        let folder = try TemporaryFolder()
        _ = try Self.write(Self.pages, to: folder.file("a.webarc"))
        let report = ArchiveVerifier.verify(path: folder.file("a.webarc"))
        #expect(report.problems.isEmpty, "\(report.problems)")
    }
}
