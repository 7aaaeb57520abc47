import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcReplay

/// Stored redirect chains as the URL protocol and `cat -L` walk them (Spec/replay.md §5, §6).
@Suite("Redirect chains")
struct RedirectChainTests {
    let folder: TemporaryFolder
    let chain: RedirectChain

    init() throws {
        folder = try TemporaryFolder()
        chain = RedirectChain(
            archives: ReplayArchives(readers: [
                try makeArchive(
                    in: folder,
                    [
                        .redirect("http://site.test/old", to: "http://site.test/new", status: 301),
                        .redirect("http://site.test/new", to: "https://site.test/home?x=1", status: 308),
                        .text("https://site.test/home", "home"),
                        .redirect("http://site.test/a", to: "http://site.test/b"),
                        .redirect("http://site.test/b", to: "http://site.test/a"),
                        .redirect("http://site.test/js", to: "javascript:alert(document.cookie)"),
                        .redirect("http://site.test/data", to: "data:text/html,<script>alert(1)</script>"),
                        .redirect("http://site.test/file", to: "file:///etc/passwd"),
                        .redirect("http://site.test/to-js", to: "http://site.test/js"),
                    ])
            ]))
    }

    @Test("a chain ends at its response, found through the fuzzy rules on each hop")
    func followed() throws {
        guard
            case .response(let match, let method, let redirects) = try chain.resolve(
                method: "GET", url: "http://site.test/old")
        else {
            Issue.record("no response")
            return
        }
        #expect(match.url == "https://site.test/home" && match.rule == .queryDropped)
        #expect(method == "GET")
        #expect(redirects == ["http://site.test/old", "http://site.test/new"])
    }

    @Test(
        "a redirect to javascript:, data: or file: is refused, never followed nor offered to approve",
        arguments: [
            ("http://site.test/js", "javascript:alert(document.cookie)"),
            ("http://site.test/data", "data:text/html,<script>alert(1)</script>"),
            ("http://site.test/file", "file:///etc/passwd"),
            ("http://site.test/to-js", "javascript:alert(document.cookie)"),
        ])
    func refused(url: String, target: String) throws {
        var asked: [String] = []
        let resolution = try chain.resolve(method: "GET", url: url) { _, _, hop in
            asked.append(hop.url)
            return .follow(hop)
        }
        guard case .refused(let redirect, let at, _) = resolution else {
            Issue.record("not refused: \(resolution)")
            return
        }
        #expect(redirect.target == target)
        #expect(at == (url == "http://site.test/to-js" ? "http://site.test/js" : url))
        #expect(!asked.contains(target))
    }

    @Test("a loop throws redirectLoop; the limit throws tooManyRedirects")
    func loops() throws {
        #expect(
            throws: ReplayError.redirectLoop(chain: ["http://site.test/a", "http://site.test/b", "http://site.test/a"])
        ) {
            try chain.resolve(method: "GET", url: "http://site.test/a")
        }
        var short = chain
        short.redirectLimit = 1
        #expect(
            throws: ReplayError.tooManyRedirects(chain: ["http://site.test/old", "http://site.test/new"], limit: 1)
        ) {
            try short.resolve(method: "GET", url: "http://site.test/old")
        }
    }

    @Test("stop ends the chain at the redirect; a missing target is a miss naming it")
    func stopAndMiss() throws {
        guard
            case .redirect(let redirect, let at, _) = try chain.resolve(
                method: "GET", url: "http://site.test/old", approve: { _, _, _ in .stop })
        else {
            Issue.record("not stopped")
            return
        }
        #expect(redirect.status == 301 && at == "http://site.test/old")
        guard case .miss(_, let url, _) = try chain.resolve(method: "GET", url: "http://site.test/nowhere") else {
            Issue.record("not a miss")
            return
        }
        #expect(url == "http://site.test/nowhere")
    }

    @Test("the method a browser follows with")
    func methods() {
        #expect(RedirectChain.method(after: 302, from: "POST") == "GET")
        #expect(RedirectChain.method(after: 303, from: "HEAD") == "HEAD")
        #expect(RedirectChain.method(after: 303, from: "PUT") == "GET")
        #expect(RedirectChain.method(after: 308, from: "PUT") == "PUT")
    }
}
