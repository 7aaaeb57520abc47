import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// `webarc capture` against a real server on 127.0.0.1, checked with `webarc ls` and `cat`.
@Suite("webarc capture", .serialized, .timeLimit(.minutes(10)))
struct CaptureTests {
    static let page = """
        <!doctype html><html><head><base href="/">
        <link rel="stylesheet" href="style.css"><link rel=icon href='/favicon.ico'>
        <link rel="canonical" href="/canonical-is-not-a-requisite">
        <script src="/app.js?v=2"></script>
        <script>var s = "<img src='/inside-script.png'>";</script>
        <style>body { background: url("img/bg.png") }</style></head>
        <body><!-- <img src="/in-a-comment.png"> -->
        <img src="img/logo.png" srcset="img/logo-2x.png 2x, img/logo-3x.png 3x">
        <picture><source srcset="img/wide.webp 800w"></picture>
        <img src="img/missing.png">
        <a href="/about.html">About</a> <a href="/old#top">Old</a> <a href="https://elsewhere.test/x">Elsewhere</a>
        <a href="#top">Top</a> <a href="mailto:a@b.test">Mail</a> <a href="/?q=a&amp;b=c">Query</a>
        <div style="background-image:url(img/inline.png)"></div></body></html>
        """

    static let stylesheet =
        "@import 'more.css';\nh1 { background: url(img/h1.png) }\n/* url(img/commented.png) */\n@font-face { src: url(\"fonts/a.woff2\") format('woff2') }"

    static func site(_ target: String) -> TestHTTPServer.Response {
        let path = String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        func text(_ type: String, _ body: String) -> TestHTTPServer.Response {
            .init(headers: [("Content-Type", type)], body: Array(body.utf8))
        }
        switch path {
        case "/":
            return target == "/" ? text("text/html; charset=utf-8", page) : text("text/html", "<p>query \(target)</p>")
        case "/about.html": return text("text/html", "<link rel=stylesheet href=style.css><a href=deep.html>deeper</a>")
        case "/deep.html": return text("text/html", "<p>two levels down</p>")
        case "/style.css": return text("text/css", stylesheet)
        case "/more.css": return text("text/css", "p { background: url('img/more.png') }")
        case "/app.js": return text("application/javascript", "console.log(\(target.count))")
        case "/old": return .init(status: 301, headers: [("Location", "/about.html")])
        case "/img/missing.png":
            return .init(status: 404, headers: [("Content-Type", "text/plain")], body: Array("gone".utf8))
        default:
            if path.hasPrefix("/img/") || path.hasPrefix("/fonts/") || path == "/favicon.ico" {
                return .init(headers: [("Content-Type", "image/png")], body: Array("same picture".utf8))
            }
            return .init(status: 500, headers: [], body: Array("unexpected \(path)".utf8))
        }
    }

    /// `webarc ls` of `archive`, as "kind status path" lines for the server's URLs.
    static func listing(_ archive: String, server: TestHTTPServer) async throws -> Set<String> {
        let list = try await CLIRunner.runDetached(["ls", archive, "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        return Set(
            try list.text.split(separator: "\n").map { line in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let url = (object["url"] as? String ?? "").replacingOccurrences(
                    of: server.url("").absoluteString, with: "")
                let target =
                    (object["target"] as? String).map {
                        " -> " + $0.replacingOccurrences(of: server.url("").absoluteString, with: "")
                    } ?? ""
                return "\(object["kind"] as? String ?? "?") \(object["status"] as? Int ?? 0) \(url)\(target)"
            })
    }

    @Test("a page with its requisites and one level of same-origin links; ls and cat read it back")
    func depthOneSameOrigin() async throws {
        let server = try TestHTTPServer { Self.site($0.target) }
        defer { server.stop() }
        let scratch = try TemporaryFolder()
        let archive = scratch.file("site.webarc")
        let capture = try await CLIRunner.runDetached([
            "capture", server.url("/").absoluteString, "-o", archive, "--depth", "1", "--same-origin", "--json",
        ])
        #expect(capture.status == 0, "\(capture.stderr)")

        let summary = try #require(try JSONSerialization.jsonObject(with: capture.stdout) as? [String: Any])
        #expect(summary["pages"] as? Int == 3)
        #expect(summary["redirects"] as? Int == 1)
        #expect((summary["failures"] as? [Any])?.isEmpty == true)
        #expect((summary["errorStatuses"] as? [[String: Any]])?.map { $0["status"] as? Int } == [404])
        #expect((summary["bodiesDeduplicated"] as? Int ?? 0) >= 10)
        #expect(capture.stderr.contains("captured 3 pages"))

        let expected: Set<String> = [
            "response 200 /", "response 200 /?q=a&b=c", "response 200 /about.html", "redirect 301 /old -> /about.html",
            "response 200 /style.css", "response 200 /more.css", "response 200 /app.js?v=2",
            "response 200 /favicon.ico",
            "response 200 /img/bg.png", "response 200 /img/logo.png", "response 200 /img/logo-2x.png",
            "response 200 /img/logo-3x.png", "response 200 /img/wide.webp", "response 404 /img/missing.png",
            "response 200 /img/inline.png", "response 200 /img/h1.png", "response 200 /img/more.png",
            "response 200 /fonts/a.woff2",
        ]
        #expect(try await Self.listing(archive, server: server) == expected)
        #expect(!server.received.map(\.target).contains("/deep.html"))

        let css = try await CLIRunner.runDetached(["cat", archive, server.url("/style.css").absoluteString])
        #expect(css.status == 0)
        #expect(css.text == Self.stylesheet)
        let script = try await CLIRunner.runDetached(["cat", archive, server.url("/app.js?v=2").absoluteString, "-i"])
        #expect(script.text.hasPrefix("HTTP/1.1 200"))
        #expect(script.text.contains("application/javascript"))
        #expect(script.text.hasSuffix("console.log(\("/app.js?v=2".count))"))
        let redirected = try await CLIRunner.runDetached(["cat", archive, server.url("/old").absoluteString, "-L"])
        #expect(redirected.text.contains("deeper"))
        #expect(try await CLIRunner.runDetached(["verify", archive]).status == 0)

        // Bodies share dictionaries, every 32nd response's, placed right before each page; a
        // second capture (every record new: its date), placed apart as webarc 2.4 wrote, is an
        // update of the first that applies byte for byte.
        let info =
            try await JSONSerialization.jsonObject(with: try CLIRunner.runDetached(["info", archive, "--json"]).stdout)
            as? [String: Any]
        #expect((info?["writer"] as? [String: Any])?["dictionaryInterval"] as? Int == 32)
        #expect((info?["writer"] as? [String: Any])?["dictionaryPlacement"] as? String == "prefix")
        let again = scratch.file("again.webarc")
        #expect(
            try await CLIRunner.runDetached(
                [
                    "capture", server.url("/").absoluteString, "-o", again, "--depth", "1", "--same-origin",
                    "--dictionary-placement", "apart",
                ]).status == 0)
        #expect(try ArchiveReader(path: again).metadata.writer?.placement == .apart)
        let diff = try await CLIRunner.runDetached(["diff", archive, again, "-o", scratch.file("u.webarc")])
        #expect(diff.status == 0, "\(diff.stderr)")
        let applied = scratch.file("applied.webarc")
        #expect(
            try await CLIRunner.runDetached(["apply", archive, scratch.file("u.webarc"), "-o", applied]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: applied)) == Data(contentsOf: URL(fileURLWithPath: again)))
    }

    @Test("--same-origin stores a redirect to another origin (another port) and does not fetch it")
    func sameOriginStopsAtRedirect() async throws {
        let other = try TestHTTPServer { Self.site($0.target) }
        defer { other.stop() }
        let server = try TestHTTPServer { request in
            switch request.target {
            case "/": .init(headers: [("Content-Type", "text/html")], body: Array("<a href=/away>away</a>".utf8))
            default: .init(status: 302, headers: [("Location", other.url("/about.html").absoluteString)])
            }
        }
        defer { server.stop() }
        let scratch = try TemporaryFolder()
        let archive = scratch.file("same-origin.webarc")
        let capture = try await CLIRunner.runDetached([
            "capture", server.url("/").absoluteString, "-o", archive, "--depth", "1", "--same-origin", "--json",
        ])
        #expect(capture.status == 0, "\(capture.stderr)")
        #expect(other.received.isEmpty)
        let summary = try #require(try JSONSerialization.jsonObject(with: capture.stdout) as? [String: Any])
        #expect((summary["failures"] as? [Any])?.isEmpty == true)
        #expect(summary["redirects"] as? Int == 1)
        #expect(
            summary["redirectsNotFollowed"] as? [String] == [
                "\(server.url("/away").absoluteString) -> \(other.url("/about.html").absoluteString)"
            ])
        #expect(
            try await Self.listing(archive, server: server) == [
                "response 200 /", "redirect 302 /away -> \(other.url("/about.html").absoluteString)",
            ])
        #expect(try await CLIRunner.runDetached(["verify", archive]).status == 0)
    }

    @Test("without --depth only the given pages and their requisites are recorded; progress stays off a pipe")
    func depthZero() async throws {
        let server = try TestHTTPServer { Self.site($0.target) }
        defer { server.stop() }
        let scratch = try TemporaryFolder()
        let archive = scratch.file("page.webarc")
        let capture = try await CLIRunner.runDetached([
            "capture", server.url("/about.html").absoluteString, "-o", archive,
        ])
        #expect(capture.status == 0, "\(capture.stderr)")
        #expect(!capture.stderr.contains("\u{1B}["))
        #expect(capture.text.isEmpty)
        let listing = try await Self.listing(archive, server: server)
        #expect(listing.contains("response 200 /about.html"))
        #expect(listing.contains("response 200 /style.css"))
        #expect(listing.contains("response 200 /img/h1.png"))
        #expect(!listing.contains { $0.contains("deep.html") })
    }

    @Test("nothing recordable: exit 66, the reason on stderr, no file written")
    func nothingRecorded() async throws {
        let scratch = try TemporaryFolder()
        let archive = scratch.file("none.webarc")
        let url = "http://127.0.0.1:\(try TestHTTPServer.refusedPort())/"
        let capture = try await CLIRunner.runDetached(["capture", url, "-o", archive])
        #expect(capture.status == 66)
        #expect(capture.stderr.contains("nothing recorded"))
        #expect(capture.stderr.contains(url))
        #expect(!FileManager.default.fileExists(atPath: archive))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
    }

    @Test("an existing output is refused without --force and replaced with it; bad arguments exit 64")
    func existingOutput() async throws {
        let server = try TestHTTPServer { Self.site($0.target) }
        defer { server.stop() }
        let scratch = try TemporaryFolder()
        let archive = scratch.file("kept.webarc")
        try scratch.write("kept.webarc", "not an archive")
        let refused = try await CLIRunner.runDetached([
            "capture", server.url("/deep.html").absoluteString, "-o", archive, "--quiet",
        ])
        #expect(refused.status == 73)
        #expect(refused.stderr.contains(archive))
        #expect(FileManager.default.contents(atPath: archive) == Data("not an archive".utf8))
        #expect(server.received.isEmpty)
        let forced = try await CLIRunner.runDetached([
            "capture", server.url("/deep.html").absoluteString, "-o", archive, "--force", "--quiet",
        ])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stderr.isEmpty)
        #expect(try await Self.listing(archive, server: server) == ["response 200 /deep.html"])
        #expect(
            try await CLIRunner.runDetached(["capture", "ftp://127.0.0.1/", "-o", scratch.file("x.webarc")]).status
                == 64)
        #expect(
            try await CLIRunner.runDetached([
                "capture", server.url("/").absoluteString, "-o", scratch.file("x.webarc"), "--depth", "-1",
            ]).status == 64)
    }
}
