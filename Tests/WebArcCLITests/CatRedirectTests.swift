import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// `webarc cat -L` walks stored redirects with the replay engine's chain;
/// without -L a redirect prints no body and exits 3, naming its target.
@Suite("cat -L through the replay engine", .serialized)
struct CatRedirectTests {
    @Test(
        "a stored redirect to javascript: is shown but never followed (exit 65); a loop exits 65; http chains end at the body; without -L a redirect exits 3 with its target on stderr"
    )
    func unsafeAndLooping() async throws {
        let scratch = try TemporaryFolder()
        let archive = scratch.file("redirects.webarc")
        let writer = try ArchiveWriter(path: archive)
        for (url, target) in [
            ("http://site.test/js", "javascript:alert(1)"), ("http://site.test/to-js", "http://site.test/js"),
            ("http://site.test/a", "http://site.test/b"), ("http://site.test/b", "http://site.test/a"),
            ("http://site.test/old", "http://site.test/new"),
        ] {
            try writer.add(
                RedirectRecord(
                    request: RequestRecord(url: url), status: 302, target: target,
                    headers: [HTTPHeader("Location", target)]))
        }
        try writer.add(
            ResponseRecord(
                request: RequestRecord(url: "http://site.test/new"), body: try writer.addBody(Array("new".utf8))))
        try writer.finish()

        let refused = try await CLIRunner.runDetached(["cat", archive, "http://site.test/to-js", "-L", "-i"])
        #expect(refused.status == 65)
        #expect(refused.text.hasPrefix("HTTP/1.1 302"))
        #expect(refused.stderr.contains("leads to a javascript: URL, which is never followed"))
        let shown = try await CLIRunner.runDetached(["cat", archive, "http://site.test/js", "-i"])
        #expect(
            shown.status == 3 && shown.text.contains("Location: javascript:alert(1)"),
            "without -L the record is shown as stored")
        #expect(
            shown.stderr.contains(
                "http://site.test/js is a redirect (302) to a javascript: URL, which is never followed"))
        #expect(!shown.stderr.contains("-L"), "-L would not follow it: no hint to use it")

        let loop = try await CLIRunner.runDetached(["cat", archive, "http://site.test/a", "-L"])
        #expect(loop.status == 65)
        #expect(loop.stderr.contains("redirect loop"))

        let followed = try await CLIRunner.runDetached(["cat", archive, "http://site.test/old", "-L"])
        #expect(followed.status == 0 && followed.text == "new")
        let notFollowed = try await CLIRunner.runDetached(["cat", archive, "http://site.test/old"])
        #expect(notFollowed.status == 3 && notFollowed.stdout.isEmpty, "a redirect is never an empty page with exit 0")
        #expect(
            notFollowed.stderr
                == "webarc: error: \(archive): http://site.test/old is a redirect (302) to http://site.test/new: use -L to follow it\n"
        )
        let head = try await CLIRunner.runDetached(["cat", archive, "http://site.test/old", "-i"])
        #expect(
            head.status == 3 && head.text.hasPrefix("HTTP/1.1 302")
                && head.text.contains("Location: http://site.test/new\r\n"))
        #expect(head.stderr.contains("use -L to follow it"))
        // The same through the argument parser (-X makes the plain form of cat hand over): the same answer.
        let parsed = try await CLIRunner.runDetached(["cat", "-X", "GET", archive, "http://site.test/old"])
        #expect(parsed.status == 3 && parsed.stdout.isEmpty && parsed.stderr == notFollowed.stderr)
        let help = try await CLIRunner.runDetached(["cat", "--help"]).text.split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
        #expect(help.contains("Exit 0 when found, 3 when the URL holds a redirect and -L is not given"))
        let exact = try await CLIRunner.runDetached(["cat", archive, "http://site.test/new?v=1"])
        #expect(exact.status == 66, "cat looks up the exact key: no fuzzy rule")
    }
}
