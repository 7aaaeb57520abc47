import Foundation
import Testing
import WebArc

/// `webarc cat -L` walks stored redirects with the replay engine's chain (issue 10 items 1, 4).
@Suite("cat -L through the replay engine", .serialized)
struct CatRedirectTests {
    @Test("a stored redirect to javascript: is shown but never followed (exit 65); a loop exits 65; http chains end at the body")
    func unsafeAndLooping() throws {
        let scratch = try Scratch()
        let archive = scratch.file("redirects.webarc")
        let writer = try ArchiveWriter(path: archive)
        for (url, target) in [
            ("http://site.test/js", "javascript:alert(1)"), ("http://site.test/to-js", "http://site.test/js"),
            ("http://site.test/a", "http://site.test/b"), ("http://site.test/b", "http://site.test/a"),
            ("http://site.test/old", "http://site.test/new"),
        ] {
            try writer.add(RedirectRecord(request: RequestRecord(url: url), status: 302, target: target, headers: [HTTPHeader("Location", target)]))
        }
        try writer.add(ResponseRecord(request: RequestRecord(url: "http://site.test/new"), body: try writer.addBody(Array("new".utf8))))
        try writer.finish()

        let refused = try CLIRunner.run(["cat", archive, "http://site.test/to-js", "-L", "-i"])
        #expect(refused.status == 65)
        #expect(refused.text.hasPrefix("HTTP/1.1 302"))
        #expect(refused.stderr.contains("leads to a javascript: URL, which is never followed"))
        let shown = try CLIRunner.run(["cat", archive, "http://site.test/js", "-i"])
        #expect(shown.status == 0 && shown.text.contains("Location: javascript:alert(1)"), "without -L the record is shown as stored")

        let loop = try CLIRunner.run(["cat", archive, "http://site.test/a", "-L"])
        #expect(loop.status == 65)
        #expect(loop.stderr.contains("redirect loop"))

        let followed = try CLIRunner.run(["cat", archive, "http://site.test/old", "-L"])
        #expect(followed.status == 0 && followed.text == "new")
        let exact = try CLIRunner.run(["cat", archive, "http://site.test/new?v=1"])
        #expect(exact.status == 66, "cat looks up the exact key: no fuzzy rule")
    }
}
