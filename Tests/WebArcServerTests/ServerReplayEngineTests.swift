import Foundation
import Testing
import WebArc
import WebArcServer
import WebArcTestSupport

/// What `webarc serve` answers through the shared replay engine: the
/// fuzzy rules of Spec/replay.md and the refusal of unsafe redirect and refresh targets, over a
/// real 127.0.0.1 socket.
@Suite struct ServerReplayEngineTests {
    static let records: [TestRecord] = [
        .text("http://localhost/index.html", "<p>home</p>"),
        .text("http://localhost/_static/pydoctheme.css", "body {}", type: "text/css"),
        .text("http://localhost/search?q=swift&page=2", "results"),
        .text("http://localhost/library/index.html", "library"),
        .redirect("http://localhost/js", to: "javascript:alert(document.cookie)", status: 302),
        .redirect("http://localhost/data-url", to: "data:text/html,<script>alert(1)</script>", status: 301),
        .redirect("http://localhost/local", to: "file:///etc/passwd", status: 308),
        .redirect("http://localhost/safe", to: "http://localhost/index.html", status: 302),
        .page(
            "http://localhost/refresh", Array("r".utf8),
            headers: [
                HTTPHeader("Content-Type", "text/plain"), HTTPHeader("Refresh", "0; url=javascript:alert(1)"),
            ]),
        .page(
            "http://localhost/refresh-ok", Array("r".utf8),
            headers: [
                HTTPHeader("Content-Type", "text/plain"), HTTPHeader("Refresh", "5; url=/index.html"),
            ]),
        .text(
            "http://localhost/meta.html",
            """
            <html><head><meta http-equiv="refresh" content="0; url=javascript:alert(1)"><link href="https://localhost/x.css"></head></html>
            """),
        .text(
            "http://localhost/meta-plain.html",
            #"<html><head><meta http-equiv="Refresh" content='1;URL=data:text/html,x'></head></html>"#),
    ]

    @Test(
        "fuzzy rules: a cache-buster, reordered parameters, a folder's index.html; never another path",
        arguments: [
            ("/_static/pydoctheme.css?2022.1", 200, "body {}"), ("/search?page=2&q=swift", 200, "results"),
            ("/library/", 200, "library"), ("/library/?v=1", 200, "library"),
            ("/_static/pydoctheme.js?2022.1", 404, nil),
        ])
    func fuzzy(target: String, status: Int, body: String?) async throws {
        let folder = try TemporaryFolder()
        try await withServer([try makeArchive(in: folder, Self.records)]) { server in
            let response = try fetch(server.port, target)
            #expect(response.status == status)
            if let body { #expect(response.text == body) }
        }
    }

    @Test(
        "a redirect to javascript:, data: or file: keeps its status, loses Location, and says why",
        arguments: [
            ("/js", 302, "javascript"), ("/data-url", 301, "data"), ("/local", 308, "file"),
        ])
    func unsafeRedirect(target: String, status: Int, scheme: String) async throws {
        let folder = try TemporaryFolder()
        try await withServer([try makeArchive(in: folder, Self.records)]) { server in
            for _ in 0..<2 {  // the second answer comes from the resource cache
                let response = try fetch(server.port, target)
                #expect(response.status == status)
                #expect(response.header("Location") == nil)
                #expect(response.text.contains("Redirect not replayed") && response.text.contains("\(scheme): URL"))
                #expect(!response.text.contains("alert") && !response.text.contains("passwd"))
            }
            #expect(try fetch(server.port, "/safe").header("Location") == "/index.html")
        }
    }

    @Test("a Refresh header to javascript: is dropped; one to a page is kept")
    func unsafeRefreshHeader() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try makeArchive(in: folder, Self.records)]) { server in
            let unsafe = try fetch(server.port, "/refresh")
            let safe = try fetch(server.port, "/refresh-ok")
            #expect(unsafe.header("Refresh") == nil)
            #expect(safe.header("Refresh") == "5; url=/index.html")
        }
    }

    @Test(
        "a <meta http-equiv=refresh> to javascript: or data: is removed from served HTML",
        arguments: ["/meta.html", "/meta-plain.html"])
    func unsafeRefreshMeta(target: String) async throws {
        let folder = try TemporaryFolder()
        try await withServer([try makeArchive(in: folder, Self.records)]) { server in
            let page = try fetch(server.port, target)
            #expect(page.status == 200)
            #expect(!page.text.lowercased().contains("refresh"))
            #expect(page.text.contains("<html><head>"))
        }
    }

    @Test("Range: bytes=0-(2^64 - 1) is the whole body as 206")
    func hugeRangeEnd() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try makeArchive(in: folder, Self.records)]) { server in
            let response = try fetch(
                server.port, "/search?q=swift&page=2", headers: ["Range: bytes=0-18446744073709551615"])
            #expect(response.status == 206)
            #expect(response.header("Content-Range") == "bytes 0-6/7")
        }
    }
}
