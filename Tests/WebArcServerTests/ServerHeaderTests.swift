import Foundation
import Testing
import WebArc
import WebArcServer
import WebArcTestSupport

/// Real HTTP over 127.0.0.1: stored headers, recomputed headers, HEAD, redirects, 404 and 405.
@Suite struct ServerHeaderTests {
    @Test func storedHeadersReplayedExceptHopByHopAndLengths() async throws {
        let folder = try TemporaryFolder()
        let reader = try SiteFixture.make(in: folder)
        try await withServer([reader]) { server in
            let response = try fetch(server.port, "/headers.html")
            #expect(response.status == 200)
            #expect(response.text == "<p>stored headers</p>")
            #expect(response.header("X-Custom") == "kept")
            #expect(response.header("Cache-Control") == "max-age=60")
            #expect(response.header("Content-Type") == "text/html; charset=iso-8859-1")
            #expect(response.header("Content-Length") == String(response.body.count))
            #expect(response.header("Transfer-Encoding") == nil)
            #expect(response.header("Keep-Alive") == nil)
            #expect(response.header("X-Hop") == nil)
            #expect(response.header("Connection") == nil)
            #expect(response.header("ETag") == (try SiteFixture.etag("http://localhost/headers.html", in: reader)))
            #expect(response.header("Last-Modified") == SiteFixture.lastModified)
            #expect(response.header("Accept-Ranges") == "bytes")
            #expect(response.headers.filter { $0.name.lowercased() == "etag" }.count == 1)
        }
    }

    @Test(arguments: [
        ("/style.css", "text/css; charset=utf-8"),
        ("/typed", "application/json"),
        ("/fonts/face.woff", "font/woff"),
        ("/unknown", "application/octet-stream"),
    ])
    func contentTypeAlwaysSent(target: String, expected: String) async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let response = try fetch(server.port, target)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == expected)
            #expect(response.header("ETag")?.hasPrefix("\"") == true)
        }
    }

    @Test func emptyBodyAndStoredStatus() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let empty = try fetch(server.port, "/empty.txt")
            #expect(empty.status == 200)
            #expect(empty.header("Content-Length") == "0")
            #expect(empty.header("ETag") == "\"d41d8cd98f00b204e9800998ecf8427e\"")
            let gone = try fetch(server.port, "/gone")
            #expect(gone.status == 404)
            #expect(gone.text == "stored 404")
        }
    }

    @Test func headHasGetHeadersAndNoBody() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let client = try RawHTTPClient(port: server.port)
            let head = try client.request("HEAD", "/big.bin")
            let get = try client.request("GET", "/big.bin")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Length") == String(SiteFixture.big.count))
            #expect(head.header("ETag") == get.header("ETag"))
            #expect(head.header("Content-Type") == get.header("Content-Type"))
            #expect(get.body == SiteFixture.big)
            let missing = try client.request("HEAD", "/nothing-here")
            #expect(missing.status == 404)
            #expect(try client.request("GET", "/small.txt").body == SiteFixture.small)
        }
    }

    @Test func redirectsGoOutWithLocation() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let folderRedirect = try fetch(server.port, "/docs")
            #expect(folderRedirect.status == 301)
            #expect(folderRedirect.header("Location") == "/docs/")
            #expect(folderRedirect.header("Content-Length") == "0")
            let away = try fetch(server.port, "/moved")
            #expect(away.status == 302)
            #expect(away.header("Location") == "https://elsewhere.example/page")
            #expect(try fetch(server.port, "/docs/").text == "<p>docs</p>")
        }
    }

    @Test func queryFallsBackToTheURLWithout() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let busted = try fetch(server.port, "/style.css?v=2022.1")
            #expect(busted.status == 200)
            #expect(busted.text == SiteFixture.css)
            #expect(try fetch(server.port, "/nothing?v=1").status == 404)
        }
    }

    @Test func missesGetA404Page() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let response = try fetch(server.port, "/no/such/<page>")
            #expect(response.status == 404)
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.text.contains("&lt;page&gt;"))
            #expect(!response.text.contains("<page>"))
        }
    }

    @Test(arguments: ["POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE"])
    func otherMethodsGet405(method: String) async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send("\(method) /index.html HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
            let response = try client.readResponse()
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, HEAD")
            #expect(try client.request("GET", "/index.html").status == 200)
        }
    }

    @Test func rootServesTheStartPage() async throws {
        let folder = try TemporaryFolder()
        let withRoot = try SiteFixture.make(in: folder)
        let withoutRoot = try makeArchive(
            in: folder, name: "start.webarc", [.text("http://example.org/start/index.html", "<p>start</p>")],
            startURL: "http://example.org/start/index.html")
        try await withServer([withRoot]) { server in
            let response = try fetch(server.port, "/")
            #expect(response.text == SiteFixture.indexHTML)
        }
        try await withServer([withoutRoot]) { server in
            let response = try fetch(server.port, "/")
            #expect(response.status == 302)
            #expect(response.header("Location") == "/start/index.html")
            #expect(try fetch(server.port, "/start/index.html").text == "<p>start</p>")
        }
    }

    @Test func http10ClosesUnlessKeptAlive() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send("GET /small.txt HTTP/1.0\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.body == SiteFixture.small)
            #expect(response.header("Connection") == "close")
            #expect(client.isClosedByPeer())
        }
    }
}
