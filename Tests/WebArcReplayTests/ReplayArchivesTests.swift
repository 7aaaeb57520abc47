import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcReplay

/// The lookup every front end shares: the exact key, then the fuzzy rules of Spec/replay.md §3,
/// on real archives on disk.
@Suite("Replay lookup and fuzzy rules")
struct ReplayArchivesTests {
    let folder: TemporaryFolder
    let archives: ReplayArchives

    init() throws {
        folder = try TemporaryFolder()
        archives = ReplayArchives(readers: [
            try makeArchive(
                in: folder,
                [
                    .text("http://site.test/_static/theme.css", "css"),
                    .text("http://site.test/search?a=1&b=2", "a then b"),
                    .text("http://site.test/tags?t=x&t=y&n=1", "x y"),
                    .text("http://site.test/empty?", "empty query"),
                    .text("http://site.test/plain", "plain"),
                    .text("http://site.test/docs/index.html", "docs index"),
                    .text("http://site.test/blog/", "blog folder"),
                    .text("http://site.test/~user/a%2Fb", "escaped"),
                    .text("http://site.test/page?v=1", "v1"),
                ])
        ])
    }

    private func find(_ url: String, _ archives: ReplayArchives? = nil) throws -> ReplayMatchText? {
        guard let match = try (archives ?? self.archives).find(method: "GET", url: url),
            case .response(let response) = match.entry.record
        else { return nil }
        let reader = (archives ?? self.archives).readers[match.archive]
        var bytes: [UInt8] = []
        try reader.forEachChunk(of: response.body) { bytes += $0 }
        return ReplayMatchText(url: match.url, rule: match.rule.rawValue, text: String(decoding: bytes, as: UTF8.self))
    }

    @Test(
        "each rule rescues what it documents",
        arguments: [
            ("http://site.test/_static/theme.css?2022.1", "http://site.test/_static/theme.css", "queryDropped"),
            ("http://site.test/search?b=2&a=1", "http://site.test/search?a=1&b=2", "queryOrder"),
            ("http://site.test/tags?n=1&t=y&t=x", "http://site.test/tags?t=x&t=y&n=1", "queryOrder"),
            ("http://site.test/empty", "http://site.test/empty?", "emptyQuery"),
            ("http://site.test/plain?", "http://site.test/plain", "emptyQuery"),
            ("http://site.test/docs/", "http://site.test/docs/index.html", "directoryIndex"),
            ("http://site.test/blog/index.html", "http://site.test/blog/", "directoryIndex"),
            ("http://site.test/docs/?utm=1", "http://site.test/docs/index.html", "queryDropped"),
        ])
    func rescues(request: String, found: String, rule: String) throws {
        let match = try #require(try find(request))
        #expect(match.url == found)
        #expect(match.rule == rule)
    }

    @Test(
        "canonicalization already covers :80, case and escapes: those are exact matches",
        arguments: [
            "HTTP://SITE.test:80/plain", "http://site.test/%7Euser/a%2fb", "http://site.test/./docs/../plain#top",
        ])
    func canonicalizationIsExact(request: String) throws {
        #expect(try find(request)?.rule == "exact")
    }

    @Test(
        "what never matches: another path, another host, another scheme, a different query value",
        arguments: [
            "http://site.test/_static/theme.js", "http://site.test/_static/", "http://other.test/plain",
            "https://site.test/plain",
            "http://site.test/search?a=1&b=3", "http://site.test/tags?t=x&n=1", "http://site.test/plai",
            "http://site.test/docs",
        ])
    func neverMatches(request: String) throws {
        #expect(try find(request) == nil)
    }

    @Test("the exact key wins over every rule; no rule applies when the rules are off")
    func exactFirst() throws {
        #expect(try find("http://site.test/page?v=1")?.text == "v1")
        #expect(try find("http://site.test/page?v=2") == nil, "page without a query is not stored")
        let strict = ReplayArchives(readers: archives.readers, rules: [])
        #expect(try find("http://site.test/_static/theme.css?2022.1", strict) == nil)
    }

    @Test("a tombstone on the request's key ends the lookup; on a rule's candidate it only skips it")
    func tombstones() throws {
        let base = try makeArchive(
            in: folder, name: "base.webarc",
            [
                .text("http://site.test/gone", "old"), .text("http://site.test/gone?v=1", "old v1"),
                .text("http://site.test/kept", "kept"), .text("http://site.test/x.css", "x"),
            ])
        let update = try makeArchive(
            in: folder, name: "update.webarc",
            [
                .tombstone("http://site.test/gone?v=1"), .tombstone("http://site.test/x.css"),
                .text("http://site.test/kept?", "new"),
            ])
        let layered = ReplayArchives(readers: [update, base])
        #expect(try find("http://site.test/gone?v=1", layered) == nil, "deleted: never answered through a rule")
        #expect(try find("http://site.test/x.css?v=9", layered) == nil, "the dropped-query candidate is deleted")
        #expect(try find("http://site.test/kept", layered)?.text == "kept", "the base answers a key the update lacks")
        #expect(try find("http://site.test/kept?", layered)?.text == "new")
    }

    @Test("parameter order is found among many stored queries of one path, across leaves")
    func reorderedAmongMany() throws {
        var records: [TestRecord] = []
        for index in 0..<3000 {
            records.append(
                .text(
                    "http://site.test/list?page=\(index)&sort=name&x=\(String(repeating: "y", count: 40))",
                    "page \(index)"))
        }
        let many = ReplayArchives(readers: [try makeArchive(in: folder, name: "many.webarc", records)])
        #expect(many.readers[0].recordCount == 3000)
        let match = try #require(
            try find("http://site.test/list?sort=name&x=\(String(repeating: "y", count: 40))&page=77", many))
        #expect(match.text == "page 77" && match.rule == "queryOrder")
    }

    @Test("a HEAD falls back to the GET record")
    func headFallsBackToGet() throws {
        let match = try #require(try archives.find(method: "head", url: "http://site.test/plain"))
        #expect(match.entry.key == "GET http://site.test/plain")
    }

    @Test("a URL without a canonical form throws badURL")
    func badURL() {
        #expect(throws: WebArcError.self) { try archives.find(method: "GET", url: "no scheme") }
    }
}

/// `import --keep all` keeps a newer 206 beside the 200 of its URL.
@Suite struct PartialCaptureTests {
    @Test(
        "a plain GET gets the full 200 even when a newer 206 or 304 capture of the URL sits before it; a lone 206 still answers"
    )
    func fullBeforePartial() throws {
        let scratch = try TemporaryFolder()
        let folder = scratch.path
        let writer = try ArchiveWriter(path: folder + "/a.webarc")
        let full = try writer.addBody(Array("the whole image".utf8))
        let part = try writer.addBody(Array("the w".utf8))
        let empty = try writer.addBody([UInt8]())
        let url = "http://example.com/logo.png"
        try writer.add(
            ResponseRecord(
                request: RequestRecord(url: url), status: 200, body: full, captureDate: Date(timeIntervalSince1970: 100)
            ))
        try writer.add(
            ResponseRecord(
                request: RequestRecord(url: url, headers: [HTTPHeader("Range", "bytes=0-4")]), status: 206,
                headers: [HTTPHeader("Content-Range", "bytes 0-4/15")], body: part,
                captureDate: Date(timeIntervalSince1970: 200)))
        try writer.add(
            ResponseRecord(
                request: RequestRecord(url: url), status: 304, body: empty,
                captureDate: Date(timeIntervalSince1970: 300)))
        try writer.add(
            ResponseRecord(
                request: RequestRecord(url: "http://example.com/alone"), status: 206,
                headers: [HTTPHeader("Content-Range", "bytes 0-4/15")],
                body: part, captureDate: Date(timeIntervalSince1970: 200)))
        try writer.finish()
        let reader = try ArchiveReader(path: folder + "/a.webarc")
        #expect(try reader.lookupAll(key: "GET " + url).map(\.record.status) == [304, 206, 200])
        let archives = ReplayArchives(readers: [reader])
        guard case .response(let answer)? = try archives.find(method: "GET", url: url)?.entry.record else {
            Issue.record("no answer")
            return
        }
        #expect(answer.status == 200)
        #expect(try reader.body(answer.body) == Data("the whole image".utf8))
        guard
            case .response(let alone)? = try archives.find(method: "GET", url: "http://example.com/alone")?.entry.record
        else {
            Issue.record("no answer for a lone 206")
            return
        }
        #expect(alone.status == 206)
    }
}
