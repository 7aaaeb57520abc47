import Foundation
import Testing
import WebArcTestSupport

/// `webarc search` through the real binary, on archives `webarc pack` indexes: the human and JSON
/// output, no match, refused queries, an archive without an index, and a stack of an update over
/// its base answering as if applied.
@Suite struct SearchCommandTests {
    /// A small site: three pages of text and a stylesheet that must never be a hit.
    static func site(in folder: TemporaryFolder, guide: String = SearchSite.guide, extra: Bool = true) throws -> String
    {
        let site = folder.file("site")
        try FileManager.default.createDirectory(atPath: site + "/docs", withIntermediateDirectories: true)
        try Data(SearchSite.home.utf8).write(to: URL(fileURLWithPath: site + "/index.html"))
        try Data(guide.utf8).write(to: URL(fileURLWithPath: site + "/docs/guide.html"))
        if extra { try Data(SearchSite.club.utf8).write(to: URL(fileURLWithPath: site + "/docs/club.html")) }
        try Data("body { color: bicycles; }".utf8).write(to: URL(fileURLWithPath: site + "/site.css"))
        return site
    }

    /// Packs `site` into `name` with `webarc pack` (fixed times, so two packs differ only where pages do).
    static func pack(
        _ site: String, _ name: String, in folder: TemporaryFolder, _ extra: [String] = []
    ) async throws -> String {
        let archive = folder.file(name)
        let packed = try await CLIRunner.runDetached(
            ["pack", site, "-o", archive, "--mtime", "2027-01-01", "-q"] + extra)
        #expect(packed.status == 0, "\(packed.stderr)")
        return archive
    }

    @Test func printsRankTitleURLAndSnippet() async throws {
        let folder = try TemporaryFolder()
        let archive = try await Self.pack(Self.site(in: folder), "site.webarc", in: folder)
        let result = try await CLIRunner.runDetached(["search", archive, "bicycle"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(lines.first == "1. Visitor guide")
        #expect(lines.dropFirst().first == "   http://localhost/docs/guide.html")
        #expect(lines.dropFirst(2).first?.contains("Bicycles can be left") == true)
        #expect(!result.text.contains("site.css"))
    }

    @Test func jsonIsOneArrayOfHits() async throws {
        let folder = try TemporaryFolder()
        let archive = try await Self.pack(Self.site(in: folder), "site.webarc", in: folder)
        let result = try await CLIRunner.runDetached(["search", archive, "run*", "--json", "--limit", "5"])
        #expect(result.status == 0, "\(result.stderr)")
        let hits = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        #expect(hits.count == 1)
        #expect(hits.first?["url"] as? String == "http://localhost/docs/club.html")
        #expect(hits.first?["title"] as? String == "Running club")
        #expect((hits.first?["snippet"] as? String)?.contains("runners") == true)
        #expect((hits.first?["score"] as? Double).map { $0 > 0 } == true)
        #expect(Array(result.stdout.prefix(8)) == Array(#"[{"url":"#.utf8))
    }

    @Test func phrasesMatchWordsInOrder() async throws {
        let folder = try TemporaryFolder()
        let archive = try await Self.pack(Self.site(in: folder), "site.webarc", in: folder)
        let inOrder = try await CLIRunner.runDetached(["search", archive, #""lake bus""#, "--json"])
        #expect(inOrder.text.contains("docs/guide.html"))
        let reversed = try await CLIRunner.runDetached(["search", archive, #""bus lake""#, "--json"])
        #expect(reversed.status == 0)
        #expect(reversed.text == "[]\n")
    }

    @Test func noMatchIsNotAnError() async throws {
        let folder = try TemporaryFolder()
        let archive = try await Self.pack(Self.site(in: folder), "site.webarc", in: folder)
        let plain = try await CLIRunner.runDetached(["search", archive, "zeppelin"])
        #expect(plain.status == 0)
        #expect(plain.stdout.isEmpty)
        #expect(plain.stderr == "webarc: no pages match zeppelin\n")
        let json = try await CLIRunner.runDetached(["search", archive, "zeppelin", "--json"])
        #expect(json.status == 0 && json.text == "[]\n")
    }

    @Test(arguments: ["*", "", "  ", "?!"])
    func queriesThatCannotBeSearchedExit64(query: String) async throws {
        let folder = try TemporaryFolder()
        let archive = try await Self.pack(Self.site(in: folder), "site.webarc", in: folder)
        let result = try await CLIRunner.runDetached(["search", archive, query])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("webarc: error: cannot search"))
        #expect(result.stdout.isEmpty)
    }

    @Test func hostileQueriesAreBounded() async throws {
        let folder = try TemporaryFolder()
        let archive = try await Self.pack(Self.site(in: folder), "site.webarc", in: folder)
        let manyTerms = Array(repeating: "bicycles", count: 10_000).joined(separator: " ")
        let many = try await CLIRunner.runDetached(["search", archive, manyTerms, "--json"])
        #expect(many.status == 0)
        #expect(many.text.contains("docs/guide.html"))
        // The longest single argument Linux passes (MAX_ARG_STRLEN is 128 KiB).
        let long = String(repeating: "é", count: 60_000)
        let large = try await CLIRunner.runDetached(["search", archive, long, "--json"])
        #expect(large.status == 0 && large.text == "[]\n")
    }

    @Test func anArchiveWithoutAnIndexExits4() async throws {
        let folder = try TemporaryFolder()
        let archive = try await Self.pack(Self.site(in: folder), "plain.webarc", in: folder, ["--no-search"])
        let result = try await CLIRunner.runDetached(["search", archive, "bicycle"])
        #expect(result.status == 4)
        #expect(result.stderr.contains("holds no search index"))
        #expect(result.stderr.contains("webarc index"))
        #expect(try await CLIRunner.runDetached(["info", archive]).text.contains("search       no index"))
        // `webarc index` adds one; `info` counts the pages it holds (home, guide, club: the
        // stylesheet is not text, and `/` shares index.html's body).
        let indexed = folder.file("indexed.webarc")
        #expect(try await CLIRunner.runDetached(["index", archive, "-o", indexed, "-q"]).status == 0)
        #expect(
            try await CLIRunner.runDetached(["info", indexed]).text.contains("search       3 pages indexed (rules 4)"))
        let info = try await CLIRunner.runDetached(["info", indexed, "--json"])
        let object = try JSONSerialization.jsonObject(with: info.stdout) as? [String: Any]
        #expect(object?["searchDocuments"] as? Int == 3)
        #expect(try await CLIRunner.runDetached(["search", indexed, "bicycle"]).status == 0)
    }

    @Test func badArgumentsExit64AndAMissingArchive66() async throws {
        let folder = try TemporaryFolder()
        #expect(try await CLIRunner.runDetached(["search", "bicycle"]).status == 64)
        #expect(try await CLIRunner.runDetached(["search", folder.file("a.webarc"), "x", "--limit", "0"]).status == 64)
        let missing = try await CLIRunner.runDetached(["search", folder.file("absent.webarc"), "bicycle"])
        #expect(missing.status == 66)
    }

    @Test func anUpdateOverItsBaseAnswersAsIfApplied() async throws {
        let folder = try TemporaryFolder()
        let base = try await Self.pack(Self.site(in: folder), "base.webarc", in: folder)
        let changed = try TemporaryFolder()
        let newer = try await Self.pack(
            Self.site(
                in: changed, guide: SearchSite.guide.replacingOccurrences(of: "Bicycles", with: "Canoes"),
                extra: false), "new.webarc", in: folder)
        let update = folder.file("update.webarc")
        let diff = try await CLIRunner.runDetached(["diff", base, newer, "-o", update, "-q"])
        #expect(diff.status == 0, "\(diff.stderr)")

        let old = try await CLIRunner.runDetached(["search", update, base, "bicycles", "--json"])
        #expect(old.status == 0 && old.text == "[]\n", "the changed page is found as it is now")
        let now = try await CLIRunner.runDetached(["search", update, base, "canoes", "--json"])
        #expect(now.text.contains("docs/guide.html"))
        let deleted = try await CLIRunner.runDetached(["search", update, base, "runners", "--json"])
        #expect(deleted.text == "[]\n", "a page the update deletes is not found")
        #expect(try await CLIRunner.runDetached(["search", base, "runners", "--json"]).text.contains("docs/club.html"))

        let wrongOrder = try await CLIRunner.runDetached(["search", base, update, "canoes"])
        #expect(wrongOrder.status == 65)
        #expect(wrongOrder.stderr.contains("webarc search"))
    }
}

/// The pages of the search tests.
enum SearchSite {
    static let home = """
        <!DOCTYPE html><html lang="en"><head><title>Lakeside Field Station</title></head>
        <body><nav>Home · Guide · Club</nav><h1>Lakeside Field Station</h1>
        <p>A research station on the north shore.</p></body></html>
        """
    static let guide = """
        <!DOCTYPE html><html lang="en"><head><title>Visitor guide</title><script>var bicycles = 1</script></head>
        <body><h1>Visitor guide</h1><p>Take the lake bus to Boathouse Lane.</p>
        <p>Bicycles can be left at the rack by the café.</p></body></html>
        """
    static let club = """
        <!DOCTYPE html><html lang="en"><head><title>Running club</title></head>
        <body><h1>Running club</h1><p>The runners meet at dawn on Saturdays.</p></body></html>
        """
}
