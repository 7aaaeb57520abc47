import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// `webarc refresh` through the binary against a real server on 127.0.0.1: a packed archive's base
/// URL mapped to where the site lives, the JSON summary, and the update applying.
@Suite("webarc refresh", .serialized)
struct RefreshCommandTests {
    @Test("--origin LIVE maps the packed base URL; 304s, a changed page and a deleted one; the update applies")
    func packedSiteRefresh() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("site"), withIntermediateDirectories: true)
        for (name, text) in [("a.html", "<p>a</p>"), ("b.html", "<p>b, release 1</p>"), ("c.html", "<p>c</p>")] {
            try text.write(toFile: scratch.file("site/" + name), atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: scratch.file("site/" + name))
        }
        #expect(try CLIRunner.run(["pack", scratch.file("site"), "-o", scratch.file("site.webarc"), "-q"]).status == 0)
        let server = try TestHTTPServer { request in
            switch request.target {
            case "/docs/a.html": return request.headers["if-modified-since"] != nil ? .init(status: 304) : .init(text: "<p>a</p>")
            case "/docs/b.html": return .init(headers: [("Content-Type", "text/html")], text: "<p>b, release 2</p>")
            default: return .init(status: 404, text: "gone")
            }
        }
        defer { server.stop() }
        let refresh = try CLIRunner.run([
            "refresh", scratch.file("site.webarc"), "-o", scratch.file("u.webarc"), "--origin", "http://127.0.0.1:\(server.port)/docs", "--json",
        ])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: refresh.stdout) as? [String: Any])
        #expect(summary["asked"] as? Int == 3)
        #expect(summary["notModified"] as? Int == 1)
        #expect(summary["changed"] as? Int == 1 && summary["gone"] as? Int == 1 && summary["failed"] as? Int == 0)
        #expect(server.received.map(\.target).sorted() == ["/docs/a.html", "/docs/b.html", "/docs/c.html"])
        let apply = try CLIRunner.run(["apply", scratch.file("site.webarc"), scratch.file("u.webarc"), "-o", scratch.file("new.webarc")])
        #expect(apply.status == 0, "\(apply.stderr)")
        let cat = try CLIRunner.run(["cat", scratch.file("new.webarc"), "http://localhost/b.html"])
        #expect(cat.text == "<p>b, release 2</p>")
        #expect(try CLIRunner.run(["cat", scratch.file("new.webarc"), "http://localhost/c.html"]).status != 0)
        let bad = try CLIRunner.run(["refresh", scratch.file("site.webarc"), "-o", scratch.file("x.webarc"), "--origin", "ftp://x"])
        #expect(bad.status == 64)
    }
}
