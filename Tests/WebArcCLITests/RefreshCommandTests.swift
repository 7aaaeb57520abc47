import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// `webarc refresh` through the binary against a real server on 127.0.0.1: a packed archive's base
/// URL mapped to where the site lives, the JSON summary, and the update applying.
@Suite("webarc refresh", .serialized)
struct RefreshCommandTests {
    @Test("--origin LIVE maps the packed base URL; 304s, a changed page and a deleted one; the update applies")
    func packedSiteRefresh() async throws {
        let scratch = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: scratch.file("site"), withIntermediateDirectories: true)
        for (name, text) in [("a.html", "<p>a</p>"), ("b.html", "<p>b, release 1</p>"), ("c.html", "<p>c</p>")] {
            try text.write(toFile: scratch.file("site/" + name), atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)],
                ofItemAtPath: scratch.file("site/" + name))
        }
        #expect(
            try await CLIRunner.runDetached(["pack", scratch.file("site"), "-o", scratch.file("site.webarc"), "-q"])
                .status == 0)
        let server = try TestHTTPServer { request in
            switch request.target {
            case "/docs/a.html":
                return request.headers["if-modified-since"] != nil ? .init(status: 304) : .init(text: "<p>a</p>")
            case "/docs/b.html": return .init(headers: [("Content-Type", "text/html")], text: "<p>b, release 2</p>")
            default: return .init(status: 404, text: "gone")
            }
        }
        defer { server.stop() }
        let refresh = try await CLIRunner.runDetached([
            "refresh", scratch.file("site.webarc"), "-o", scratch.file("u.webarc"), "--origin",
            "http://127.0.0.1:\(server.port)/docs", "--json",
            "--allow-mass-change",  // two of three pages change
        ])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: refresh.stdout) as? [String: Any])
        #expect(summary["asked"] as? Int == 3)
        #expect(summary["notModified"] as? Int == 1)
        #expect(
            summary["changed"] as? Int == 1 && summary["gone"] as? Int == 1 && summary["keptAfterError"] as? Int == 0)
        #expect(server.received.map(\.target).sorted() == ["/docs/a.html", "/docs/b.html", "/docs/c.html"])
        let apply = try await CLIRunner.runDetached([
            "apply", scratch.file("site.webarc"), scratch.file("u.webarc"), "-o", scratch.file("new.webarc"),
        ])
        #expect(apply.status == 0, "\(apply.stderr)")
        let cat = try await CLIRunner.runDetached(["cat", scratch.file("new.webarc"), "http://localhost/b.html"])
        #expect(cat.text == "<p>b, release 2</p>")
        #expect(
            try await CLIRunner.runDetached(["cat", scratch.file("new.webarc"), "http://localhost/c.html"]).status != 0)
        let bad = try await CLIRunner.runDetached([
            "refresh", scratch.file("site.webarc"), "-o", scratch.file("x.webarc"), "--origin", "ftp://x",
        ])
        #expect(bad.status == 64)
    }

    /// Ten pages packed from a folder (dated 2023, so that the refresh sends If-Modified-Since), and
    /// a live site under `/docs/` where each page answers `answer(page)` or, when nil, 304.
    static func packedSite(
        in scratch: TemporaryFolder, answer: @escaping @Sendable (String) -> TestHTTPServer.Response?
    ) async throws -> TestHTTPServer {
        try FileManager.default.createDirectory(atPath: scratch.file("site"), withIntermediateDirectories: true)
        for number in 0..<10 {
            let name = String(format: "site/p%02d.html", number)
            try "<p>page \(number), release 1</p>".write(toFile: scratch.file(name), atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: scratch.file(name))
        }
        #expect(
            try await CLIRunner.runDetached(["pack", scratch.file("site"), "-o", scratch.file("site.webarc"), "-q"])
                .status == 0)
        return try TestHTTPServer { request in
            answer(String(request.target.dropFirst("/docs/".count)))
                ?? (request.headers["if-modified-since"] != nil ? .init(status: 304) : .init(status: 400))
        }
    }

    /// `webarc refresh` of the packed site against `server`, with `arguments` added.
    static func refresh(
        _ scratch: TemporaryFolder, _ server: TestHTTPServer, _ arguments: [String] = []
    ) async throws -> CLIRunner.Result {
        try await CLIRunner.runDetached(
            [
                "refresh", scratch.file("site.webarc"), "-o", scratch.file("u.webarc"), "--origin",
                "http://127.0.0.1:\(server.port)/docs", "--force",
            ]
                + arguments)
    }

    @Test("an origin that answers 403 to everything: exit 69, nothing written, every page reported kept")
    func forbiddenEverywhere() async throws {
        let scratch = try TemporaryFolder()
        let server = try await Self.packedSite(in: scratch) { _ in .init(status: 403, text: "forbidden") }
        defer { server.stop() }
        let refresh = try await Self.refresh(scratch, server, ["--json"])
        #expect(refresh.status == 69, "\(refresh.stderr)")
        #expect(
            refresh.stderr.contains(
                "webarc: error: every one of the 10 URLs asked was kept after an error (first: http://127.0.0.1:\(server.port)/docs/p00.html: HTTP 403)"
            ),
            "\(refresh.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("u.webarc")))
        let summary = try #require(try JSONSerialization.jsonObject(with: refresh.stdout) as? [String: Any])
        #expect(
            summary["written"] as? Bool == false && summary["keptAfterError"] as? Int == 10
                && summary["changed"] as? Int == 0)
        #expect((summary["kept"] as? [[String: String]])?.allSatisfy { $0["reason"] == "HTTP 403" } == true)
    }

    @Test(
        "three of ten pages changed: exit 65 naming counts, share and flag; --allow-mass-change or a larger share writes the update"
    )
    func massChange() async throws {
        let scratch = try TemporaryFolder()
        let server = try await Self.packedSite(in: scratch) { page in
            ["p01.html", "p02.html", "p03.html"].contains(page)
                ? .init(headers: [("Content-Type", "text/html")], text: "<p>\(page), release 2</p>") : nil
        }
        defer { server.stop() }
        let stopped = try await Self.refresh(scratch, server)
        #expect(stopped.status == 65)
        #expect(
            stopped.stderr.contains(
                "webarc: error: the refresh would change 3 and delete 0 of 10 stored responses (30 %), more than the 20 % allowed: nothing written; "
                    + "check the origin, and if the site really changed this much rerun with --allow-mass-change"),
            "\(stopped.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("u.webarc")))

        for arguments in [["--allow-mass-change"], ["--max-change-share", "0.3"]] {
            let written = try await Self.refresh(scratch, server, arguments + ["-q"])
            #expect(written.status == 0, "\(arguments): \(written.stderr)")
            let apply = try await CLIRunner.runDetached([
                "apply", scratch.file("site.webarc"), scratch.file("u.webarc"), "-o", scratch.file("new.webarc"),
                "--force",
            ])
            #expect(apply.status == 0, "\(apply.stderr)")
            #expect(
                try await CLIRunner.runDetached(["cat", scratch.file("new.webarc"), "http://localhost/p02.html"]).text
                    == "<p>p02.html, release 2</p>")
        }
    }

    @Test("a page that answers 503: kept, listed as a warning and in --json, the rest written, exit 0")
    func someKeptAfterErrors() async throws {
        let scratch = try TemporaryFolder()
        let server = try await Self.packedSite(in: scratch) { page in
            switch page {
            case "p02.html": .init(status: 503, text: "down for maintenance")
            case "p05.html": .init(headers: [("Content-Type", "text/html")], text: "<p>page 5, release 2</p>")
            default: nil
            }
        }
        defer { server.stop() }
        let text = try await Self.refresh(scratch, server)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(
            text.stderr.contains(
                "webarc: warning: kept after error: http://127.0.0.1:\(server.port)/docs/p02.html: HTTP 503\n"),
            "\(text.stderr)")
        #expect(
            text.stderr.contains("webarc: warning: 1 of 10 URLs kept as stored after errors; the rest is in the update")
        )
        #expect(text.stderr.contains("1 changed, 0 gone, 0 redirected, 1 kept after errors"))

        let json = try await Self.refresh(scratch, server, ["--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect(
            summary["written"] as? Bool == true && summary["changed"] as? Int == 1
                && summary["keptAfterError"] as? Int == 1)
        #expect(
            summary["kept"] as? [[String: String]] == [
                ["url": "http://127.0.0.1:\(server.port)/docs/p02.html", "reason": "HTTP 503"]
            ])
        let apply = try await CLIRunner.runDetached([
            "apply", scratch.file("site.webarc"), scratch.file("u.webarc"), "-o", scratch.file("new.webarc"),
        ])
        #expect(apply.status == 0, "\(apply.stderr)")
        #expect(
            try await CLIRunner.runDetached(["cat", scratch.file("new.webarc"), "http://localhost/p02.html"]).text
                == "<p>page 2, release 1</p>")
    }

    @Test(
        "--max-change-share outside 0...1 and a negative --max-retry-after are usage errors",
        arguments: [
            ["--max-change-share", "1.5"], ["--max-change-share", "-0.1"], ["--max-retry-after", "-1"],
        ])
    func badLimits(arguments: [String]) async throws {
        let scratch = try TemporaryFolder()
        let run = try await CLIRunner.runDetached(
            ["refresh", scratch.file("none.webarc"), "-o", scratch.file("u.webarc")] + arguments)
        #expect(run.status == 64, "\(run.stderr)")
    }
}
