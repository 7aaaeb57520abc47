import Foundation
import Testing
import WebArc
import WebArcSearch
import WebArcServer
import WebArcTestSupport

/// The server's search pages and search box: `/_webarc/search` (HTML in the browser's language,
/// escaped, hostile queries refused or bounded), `/_webarc/suggest` (JSON), and `--search-box`
/// injected after `<body>` with the length, entity tag, ranges and conditionals all of the page
/// as served, never into other types or stored-compressed pages.
@Suite struct ServerSearchTests {
    static let guide = """
        <!DOCTYPE html><html lang="de"><head><title>Visitor guide</title></head>
        <body class="page"><h1>Visitor guide</h1><p>Bicycles can be left at the rack by the café.</p>
        <p><a href="http://localhost/club.html">Club</a></p></body></html>
        """

    /// An archive of a few pages with a search index (as `webarc pack` writes one).
    static func indexedArchive(in folder: TemporaryFolder, name: String = "site.webarc") throws -> ArchiveReader {
        var options = ArchiveWriter.Options()
        options.searchIndex = { SearchIndexBuilder() }
        let path = folder.file(name)
        let writer = try ArchiveWriter(path: path, options: options)
        let pages = [
            ("http://localhost/guide.html", guide),
            (
                "http://localhost/club.html",
                "<html><head><title>Running club</title></head><body><p>Runners meet at dawn.</p></body></html>"
            ),
            (
                "http://localhost/x.html",
                "<html><head><title>&lt;b&gt;Tags</title></head><body><p>Angle &lt;script&gt; bicycles</p></body></html>"
            ),
        ]
        for (url, html) in pages {
            let body = try writer.addBody(Array(html.utf8))
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: url), status: 200,
                    headers: [HTTPHeader("Content-Type", "text/html; charset=utf-8")], mimeType: "text/html", body: body
                ))
        }
        let css = try writer.addBody(Array("body { color: red }".utf8))
        try writer.add(
            ResponseRecord(
                request: RequestRecord(url: "http://localhost/site.css"), status: 200,
                headers: [HTTPHeader("Content-Type", "text/css")], mimeType: "text/css", body: css))
        let gzipped = try writer.addBody([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        try writer.add(
            ResponseRecord(
                request: RequestRecord(url: "http://localhost/packed.html"), status: 200,
                headers: [HTTPHeader("Content-Type", "text/html"), HTTPHeader("Content-Encoding", "gzip")],
                mimeType: "text/html", body: gzipped))
        try writer.finish()
        return try ArchiveReader(path: path)
    }

    /// Serves `reader` in process on 127.0.0.1 port 0, with or without the search box.
    func serve<T>(_ reader: ArchiveReader, searchBox: Bool = false, _ body: (Int) async throws -> T) async throws -> T {
        var configuration = WebArcServer.Configuration(port: 0, cacheBytes: 8 << 20, threads: 2)
        configuration.searchBox = searchBox
        let server = try await WebArcServer.start(
            archives: try ArchiveSet(readers: [reader]), configuration: configuration)
        do {
            let result = try await body(server.port)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test func resultsPageLinksMarksAndSpeaksTheBrowsersLanguage() async throws {
        let folder = try TemporaryFolder()
        try await serve(try Self.indexedArchive(in: folder)) { port in
            let page = try fetch(port, "/_webarc/search?q=bicycle", headers: ["Accept-Language: fr-CH, fr;q=0.9"])
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.header("Content-Language") == "fr" && page.header("Cache-Control") == "no-store")
            #expect(page.text.contains(#"<html lang="fr">"#) && page.text.contains("Rechercher"))
            #expect(page.text.contains(#"<a href="/guide.html">Visitor guide</a>"#))
            #expect(page.text.contains("<mark>Bicycles</mark> can be left"))
            #expect(page.text.contains(#"value="bicycle""#))
            #expect(!page.text.contains("<script") && !page.text.contains("<b>Tags"))
            #expect(page.text.contains("&lt;b&gt;Tags") && page.text.contains("Angle &lt;script&gt;"))
            #expect(Int(page.header("Content-Length") ?? "") == page.body.count)

            let english = try fetch(port, "/_webarc/search?q=runners")
            #expect(english.text.contains(#"<html lang="en">"#) && english.text.contains("/club.html"))
            let head = try fetch(port, "/_webarc/search?q=runners", method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("Content-Length") == english.header("Content-Length"))
        }
    }

    @Test func emptyNoMatchAndRefusedQueries() async throws {
        let folder = try TemporaryFolder()
        try await serve(try Self.indexedArchive(in: folder)) { port in
            let form = try fetch(port, "/_webarc/search")
            #expect(form.status == 200 && form.text.contains("autofocus") && !form.text.contains("<ol"))
            let none = try fetch(port, "/_webarc/search?q=zeppelin")
            #expect(none.status == 200 && none.text.contains("No pages match."))
            let star = try fetch(port, "/_webarc/search?q=*")
            #expect(star.status == 400 && star.text.contains("lone"))
            let invalid = try fetch(port, "/_webarc/search?q=bicycles+%FF%C3%28+%ED%A0%80")
            #expect(invalid.status == 200 && invalid.text.contains(#"href="/guide.html""#))
            let onlyInvalid = try fetch(port, "/_webarc/search?q=%FF%ED%A0%80")
            #expect(onlyInvalid.status == 400 && onlyInvalid.text.contains("empty query"))
            let escaped = try fetch(port, "/_webarc/search?q=%22%3E%3Cscript%3Ealert(1)%3C/script%3E")
            #expect(!escaped.text.contains("<script>alert"))
            let terms = (0..<10_000).map { "w\($0)" }.joined(separator: "+")
            let many = try fetch(port, "/_webarc/search?q=" + terms)
            #expect([200, 400, 414].contains(many.status))
            let megabyte = "/_webarc/search?q=" + String(repeating: "a", count: 1 << 20)
            let large = try? fetch(port, megabyte)
            #expect(large.map { $0.status >= 400 } ?? true)
            #expect(try fetch(port, "/_webarc/search?q=bicycles").status == 200, "the server still answers")
        }
    }

    @Test func suggestionsAreJSONWithServedPaths() async throws {
        let folder = try TemporaryFolder()
        try await serve(try Self.indexedArchive(in: folder)) { port in
            let found = try fetch(port, "/_webarc/suggest?q=visi")
            #expect(found.status == 200 && found.header("Content-Type") == "application/json")
            #expect(found.text == #"[{"title":"Visitor guide","url":"/guide.html"}]"#)
            #expect(try fetch(port, "/_webarc/suggest?q=").text == "[]")
            #expect(try fetch(port, "/_webarc/suggest?q=zz").text == "[]")
        }
    }

    @Test func anArchiveWithoutAnIndexSaysSo() async throws {
        let folder = try TemporaryFolder()
        let plain = try makeArchive(in: folder, [.text("http://localhost/a.html", "<body>bicycles</body>")])
        try await serve(plain) { port in
            let page = try fetch(port, "/_webarc/search?q=bicycles")
            #expect(page.status == 404 && page.text.contains("no search index"))
            let suggest = try fetch(port, "/_webarc/suggest?q=bi")
            #expect(suggest.status == 404 && suggest.text.hasPrefix(#"{"error":"#))
        }
    }

    @Test func theSearchBoxGoesAfterBodyWithLengthETagRangesAndConditionals() async throws {
        let folder = try TemporaryFolder()
        let reader = try Self.indexedArchive(in: folder)
        let plain = try await serve(reader) { try fetch($0, "/guide.html") }
        try await serve(reader, searchBox: true) { port in
            let page = try fetch(port, "/guide.html")
            let form = SearchBox.form(labels: SearchLabels.forLanguage("de"))
            #expect(page.status == 200)
            #expect(page.text.contains(#"<body class="page">"# + form + "<h1>"))
            #expect(page.body.count == plain.body.count + form.utf8.count)
            #expect(Int(page.header("Content-Length") ?? "") == page.body.count)
            let etag = try #require(page.header("ETag"))
            #expect(etag != plain.header("ETag"))

            let range = try fetch(port, "/guide.html", headers: ["Range: bytes=100-299"])
            #expect(range.status == 206 && range.body == Array(page.body[100..<300]))
            #expect(range.header("Content-Range") == "bytes 100-299/\(page.body.count)")
            let unchanged = try fetch(port, "/guide.html", headers: ["If-None-Match: \(etag)"])
            #expect(unchanged.status == 304 && unchanged.body.isEmpty)
            let again = try fetch(port, "/guide.html")
            #expect(again.body == page.body && again.header("ETag") == etag)

            #expect(try fetch(port, "/site.css").text == "body { color: red }")
            let packed = try fetch(port, "/packed.html")
            #expect(packed.header("Content-Encoding") == "gzip" && packed.body.count == 20)
            #expect(!(try fetch(port, "/_webarc/search?q=bicycles").text.contains(SearchBox.marker)))
        }
    }

    @Test(
        .enabled(
            if: ServeCommandTests.binary != nil, "webarc binary not built next to the tests: run swift build first"))
    func serveSearchBoxFlagThroughTheBinary() async throws {
        let folder = try TemporaryFolder()
        _ = try Self.indexedArchive(in: folder)
        let withBox = try ServeProcess([folder.file("site.webarc"), "--port", "0", "--quiet", "--search-box"])
        #expect(try fetch(withBox.port, "/guide.html").text.contains(SearchBox.marker))
        #expect(try fetch(withBox.port, "/_webarc/search?q=bicycles").text.contains("/guide.html"))
        #expect(withBox.stop(with: SIGTERM).status == 0)
        let without = try ServeProcess([folder.file("site.webarc"), "--port", "0", "--quiet"])
        #expect(!(try fetch(without.port, "/guide.html").text.contains(SearchBox.marker)))
        #expect(without.stop(with: SIGTERM).status == 0)
    }
}
