import Testing

@testable import WebArcInterop

/// SURT keys as the `surt` package (pywb, cdxj-indexer) writes them.
@Suite("CDXJ index")
struct CDXJIndexTests {
    @Test(
        "SURT keys",
        arguments: [
            ("http://example.com/", "com,example)/"),
            ("https://www.Example.com:443/a/B?z=1&a=2#top", "com,example)/a/b?a=2&z=1"),
            ("http://www2.example.co.uk", "uk,co,example)/"),
            ("http://example.com:8080/x", "com,example:8080)/x"),
            ("http://user:pw@example.com/?", "com,example)/"),
            ("http://127.0.0.1:38313/library/os.html", "127.0.0.1:38313)/library/os.html"),
            ("urn:example:note", "urn:example:note"),
        ])
    func surt(_ url: String, _ key: String) {
        #expect(CDXJIndex.surt(url) == key)
    }

    @Test("lines sort bytewise, not by Swift's canonical string order")
    func sorting() {
        // The same text to Swift's String (canonically equivalent), different bytes.
        let composed = Array("a)/\u{E9} 1 {}\n".utf8), decomposed = Array("a)/e\u{301} 2 {}\n".utf8)
        #expect(
            String(decoding: CDXJIndex.sorted([composed, decomposed]), as: UTF8.self)
                == "a)/e\u{301} 2 {}\na)/\u{E9} 1 {}\n")
    }
}
