import Testing
import WebArcTestSupport

@testable import WebArc

/// The 2.0 canonicalization rules that follow what a browser requests (spec §9 steps 4 and 6).
@Suite struct CanonicalizationTests {
    @Test(arguments: [
        ("http://example.com\\@evil.com/x", "GET http://example.com/@evil.com/x"),
        ("http://example.com\\a\\b?c\\d", "GET http://example.com/a/b?c%5Cd"),
        ("http:\\\\example.com\\x", "GET http://example.com/x"),
        ("urn:a\\b", "GET urn:a%5Cb"),
        ("http://BÜCHER.example/", "GET http://xn--bcher-kva.example/"),
        ("http://b%C3%BCcher.example/", "GET http://xn--bcher-kva.example/"),
        ("https://правительство.рф/", "GET https://xn--80aealotwbjpid2k.xn--p1ai/"),
        ("http://[::1]:80/", "GET http://[::1]/"),
    ])
    func browserEquivalentURLsShareOneKey(url: String, key: String) throws {
        #expect(try URLKey.key(method: "get", url: url) == key)
    }

    @Test(arguments: ["http://a%2Fb.example/", "http://a%00b/", "http://%FF.example/", "http://a%40b.example/"])
    func hostsABrowserRefusesHaveNoKey(url: String) {
        #expect(throws: WebArcError.self) { try URLKey.canonicalize(url) }
    }

    @Test func punycodeMatchesRFC3492Samples() {
        // RFC 3492 §7.1 (A) Arabic (Egyptian) and (L) 3<nen>B<gumi><kinpachi><sensei>.
        #expect(
            Punycode.encode(
                "\u{644}\u{64A}\u{647}\u{645}\u{627}\u{628}\u{62A}\u{643}\u{644}\u{645}\u{648}\u{634}\u{639}\u{631}\u{628}\u{64A}\u{61F}"
            ) == "egbpdaj6bu4bxfgehfvwxn")
        #expect(Punycode.encode("3\u{5E74}B\u{7D44}\u{91D1}\u{516B}\u{5148}\u{751F}") == "3B-ww4c5e180e575a65lsy2b")
        #expect(Punycode.encode("bücher") == "bcher-kva")
    }
}

extension CanonicalizationTests {
    /// A "port" that is not digits leaves a `:` in the host, which a browser refuses (spec §9 step 6).
    @Test func aHostWithAColonHasNoKey() {
        #expect(throws: WebArcError.self) { try URLKey.canonicalize("http://Example.COM:HTTP/x") }
        #expect(throws: WebArcError.self) { try URLKey.canonicalize("http://exa mple.com/") }
    }
}

extension CanonicalizationTests {
    /// Found by FuzzURLKey: without an authority, dot-segment removal could leave a path starting
    /// `//`, which read back as an authority; step 11 writes `/.` before it (as WHATWG does).
    @Test(arguments: ["urn:/..//x", "mailto:a/..//b.c", "urn:/.//x", "x:a/b/..//c/./d", "http://h/a/..//b"])
    func canonicalizingACanonicalURLChangesNothing(url: String) throws {
        let once = try URLKey.canonicalize(url)
        #expect(try URLKey.canonicalize(once) == once)
    }
}

extension CanonicalizationTests {
    /// Found by FuzzURLKey in trap mode: a host that opened `[` without closing it lost a colon at
    /// each canonicalization (`http://[::` → `http://[:/` → `http://[/`). As in WHATWG URL, a host
    /// that starts with `[` must be an IPv6 address ending in `]` (spec §9 step 6).
    @Test(arguments: [
        "http://[::", "http://[:/", "http://[/", "foo://[::", "hs://[::1", "http://[::1]x/", "http://[]/",
        "http://[1::2::3]/", "http://[::1.2.3.04]/", "http://[fe80::1%25eth0]/", "http://[v1.x]/",
    ])
    func anUnclosedOrInvalidIPLiteralHasNoKey(url: String) {
        #expect(throws: WebArcError.self) { try URLKey.canonicalize(url) }
    }

    /// IP literals are written as WHATWG serializes them, so every spelling of one address is one key.
    @Test(arguments: [
        ("http://[0:0:0:0:0:0:0:1]:8080/", "http://[::1]:8080/"),
        ("http://[::FFFF:192.0.2.1]/", "http://[::ffff:c000:201]/"),
        ("http://[1:0:0:2:0:0:0:3]/", "http://[1:0:0:2::3]/"),
        ("http://[2001:DB8:0:0:1:0:0:1]/", "http://[2001:db8::1:0:0:1]/"),
        ("foo://[::A]/x", "foo://[::a]/x"),
    ])
    func anIPLiteralIsWrittenInItsShortestForm(url: String, canonical: String) throws {
        let once = try URLKey.canonicalize(url)
        #expect(once == canonical)
        #expect(try URLKey.canonicalize(once) == once)
    }
}

extension CanonicalizationTests {
    /// Removing dot segments skips the RFC 3986 loop for a path without a `.` or `..` segment
    /// (most paths hold a `.` in a file name): the loop must give the same path for every one.
    @Test func pathsWithoutDotSegmentsAreLeftAsTheLoopLeavesThem() {
        var random = SeededGenerator(seed: 71)
        let alphabet = Array("./a".utf8)
        var skipped = 0
        for round in 0..<20_000 {
            let path = (0..<Int.random(in: 0...(round < 2_000 ? 6 : 14), using: &random)).map { _ in
                alphabet.randomElement(using: &random)!
            }
            if !URLKey.hasDotSegment(path) { skipped += 1 }
            #expect(
                URLKey.removeDotSegments(path) == URLKey.removeDotSegmentsLiterally(path),
                "\(String(decoding: path, as: UTF8.self))")
        }
        // Both kinds of path were drawn.
        #expect(skipped > 1_000 && skipped < 19_000)
    }
}

extension CanonicalizationTests {
    /// A URL the scan takes for canonical is what the steps make of it, and the scan takes the
    /// usual ones: random URLs over the bytes that decide it (case, dots, escapes, ports, users,
    /// queries, spaces and `#`).
    @Test func urlsTakenAsTheyAreAreWhatTheStepsMake() throws {
        #expect(URLKey.isCanonicalAsIs("https://example.com/w/0042/page.html?a=b?c"))
        #expect(URLKey.isCanonicalAsIs("http://a-b.example/x%20y/"))
        for url in [
            "http://example.com", "http://Example.com/", "HTTP://example.com/", "http://example.com:80/",
            "http://u@example.com/", "http://example.com/a/./b", "http://example.com/%41", "http://example.com/%2f",
            "http://example.com/a b", "http://example.com/a#b", "ftp://example.com/",
        ] {
            #expect(!URLKey.isCanonicalAsIs(url), "\(url)")
        }
        var random = SeededGenerator(seed: 37)
        let pieces = [
            "a", "Z", "0", ".", "-", "/", "?", "%", "%2", "%20", "%2e", "%2E", "%7E", "%zz", ":", ":80", "@", "#",
            " ", "\\", "~", "é", "..", "/.", "/..",
        ]
        var taken = 0
        for _ in 0..<20_000 {
            let scheme = ["http://", "https://", "Http://", "urn:"].randomElement(using: &random)!
            let host = ["example.com", "a-b.0", "Example.com", "a:80", "u@a", "a%41", "", "[::1]"].randomElement(
                using: &random)!
            let path = (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }
            let url = scheme + host + (Bool.random(using: &random) ? "/" : "") + path.joined()
            let steps = try? URLKey.canonicalizeBySteps(url)
            #expect((try? URLKey.canonicalize(url)) == steps, "\(url)")
            if URLKey.isCanonicalAsIs(url) {
                taken += 1
                #expect(steps == url, "\(url)")
            }
        }
        #expect(taken > 200)
    }
}
