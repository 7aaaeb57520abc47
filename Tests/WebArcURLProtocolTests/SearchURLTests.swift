import Foundation
import Testing
import WebArc
import WebArcSearch
import WebArcTestSupport
import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `webarc://search?q=` and `webarc://suggest?q=` through real `URLSession` requests: the JSON of
/// `webarc search --json` and of the server's suggestions, errors as JSON with a status, and
/// `webarc://` URLs of other hosts still looked up as pages.
@Suite(.serialized) struct SearchURLTests {
    final class SearchReplay: ArchiveURLProtocol, @unchecked Sendable {}
    final class PlainReplay: ArchiveURLProtocol, @unchecked Sendable {}

    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        var options = ArchiveWriter.Options()
        options.searchIndex = { SearchIndexBuilder() }
        let writer = try ArchiveWriter(path: folder.file("indexed.webarc"), options: options)
        let pages = [
            ("https://example.com/guide.html", "<title>Visitor guide</title><p>Bicycles can be left at the rack.</p>"),
            ("https://example.com/club.html", "<title>Running club</title><p>Runners meet at dawn.</p>"),
        ]
        for (url, html) in pages {
            let body = try writer.addBody(Array(html.utf8))
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: url), status: 200,
                    headers: [HTTPHeader("Content-Type", "text/html")], mimeType: "text/html", body: body))
        }
        try writer.finish()
        SearchReplay.serve(try ArchiveReader(path: folder.file("indexed.webarc")), onMiss: .offline)
        var plain = ArchiveBuilder()
        plain.response("https://search/", text: "an origin named search")
        PlainReplay.serve(try plain.build(in: folder, name: "plain.webarc"), onMiss: .offline)
    }

    @Test("webarc://search answers the hits as JSON", arguments: LoadingAPI.allCases)
    func searchHits(api: LoadingAPI) async throws {
        let fetched = await api.fetch("webarc://search?q=bicycle&limit=5", through: SearchReplay.self)
        #expect(fetched.status == 200)
        #expect(fetched.response?.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let hits = try #require(try JSONSerialization.jsonObject(with: fetched.data ?? Data()) as? [[String: Any]])
        #expect(hits.count == 1)
        #expect(hits.first?["url"] as? String == "https://example.com/guide.html")
        #expect(hits.first?["title"] as? String == "Visitor guide")
        #expect((hits.first?["snippet"] as? String)?.contains("Bicycles") == true)
    }

    @Test("webarc://suggest answers titles and URLs; errors are JSON with a status")
    func suggestAndErrors() async throws {
        let suggested = await LoadingAPI.async.fetch("webarc://suggest?q=run", through: SearchReplay.self)
        #expect(suggested.text == #"[{"title":"Running club","url":"https://example.com/club.html"}]"#)
        let star = await LoadingAPI.async.fetch("webarc://search?q=*", through: SearchReplay.self)
        #expect(star.status == 400 && star.text?.hasPrefix(#"{"error":"#) == true)
        let empty = await LoadingAPI.async.fetch("webarc://search?q=", through: SearchReplay.self)
        #expect(empty.status == 200 && empty.text == "[]")
        let none = await LoadingAPI.async.fetch("webarc://search?q=zeppelin", through: SearchReplay.self)
        #expect(none.status == 200 && none.text == "[]")
    }

    @Test("an archive without an index answers 404; other webarc: hosts are pages")
    func noIndex() async throws {
        let fetched = await LoadingAPI.async.fetch("webarc://search?q=bicycle", through: PlainReplay.self)
        #expect(fetched.status == 404 && fetched.text?.contains("no search index") == true)
        let page = await LoadingAPI.async.fetch("webarc://search/?q=origin", through: PlainReplay.self)
        #expect(page.status == 404, "webarc://search/ is the search URL, not the origin named search")
        let other = await LoadingAPI.async.fetch("webarc://example.com/guide.html", through: SearchReplay.self)
        #expect(other.status == 200 && other.text?.contains("Bicycles") == true)
    }
}
