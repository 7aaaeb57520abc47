import Testing
import WebArc

@testable import WebArcReplay

/// Which targets a replay may send a client to (Spec/replay.md §5).
@Suite("Replay safety")
struct ReplaySafetyTests {
    @Test(
        "http, https, webarc and relative targets are replayable",
        arguments: [
            "http://a.test/", "HTTPS://a.test/x", "webarc://a.test/", "/next", "next.html", "?q=1", "#top",
            "//cdn.test/x",
            "a/b:c", "",
        ])
    func replayable(target: String) {
        #expect(ReplaySafety.isReplayable(target))
    }

    @Test(
        "every other scheme is not, however it is spelled",
        arguments: [
            "javascript:alert(1)", "JavaScript:alert(1)", " \t javascript:alert(1)", "java\tscript:alert(1)",
            "java\nscript:x",
            "data:text/html,x", "file:///etc/passwd", "vbscript:x", "ftp://a.test/", "blob:http://a.test/x",
            "intent://x",
            "ms-settings:x", "c:\\windows",
        ])
    func notReplayable(target: String) {
        #expect(!ReplaySafety.isReplayable(target))
    }

    @Test(
        "Refresh values: the target after url=, quoted or not",
        arguments: [
            ("0; url=javascript:alert(1)", "javascript:alert(1)"), ("5;URL='data:text/html,x'", "data:text/html,x"),
            ("3, url=\"/next\"", "/next"), ("1; /plain", "/plain"),
        ])
    func refreshTargets(value: String, target: String) {
        #expect(ReplaySafety.refreshTarget(value) == target)
        #expect(ReplaySafety.refreshTarget("30") == nil)
    }

    @Test("stored headers: an unsafe Location or Refresh is dropped with the hop-by-hop headers")
    func storedHeaders() {
        let stored = [
            HTTPHeader("Location", "javascript:alert(1)"), HTTPHeader("Refresh", "0; url=data:text/html,x"),
            HTTPHeader("Refresh", "10; url=/next"), HTTPHeader("Connection", "X-Hop"), HTTPHeader("X-Hop", "1"),
            HTTPHeader("Transfer-Encoding", "chunked"), HTTPHeader("Content-Length", "9"), HTTPHeader("X-Kept", "yes"),
        ]
        #expect(
            StoredHeaders.replayable(stored) == [HTTPHeader("Refresh", "10; url=/next"), HTTPHeader("X-Kept", "yes")])
        #expect(
            StoredHeaders.replayable([HTTPHeader("Location", "https://a.test/")]) == [
                HTTPHeader("Location", "https://a.test/")
            ])
    }
}
