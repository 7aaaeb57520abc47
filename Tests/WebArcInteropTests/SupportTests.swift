import Foundation
import Testing
import WebArc

@testable import WebArcInterop

/// The small helpers: base32, ISO dates, URI escaping, JSON offsets, media types, the duplicates rule, page links.
@Suite("Support")
struct SupportTests {
    @Test("base32 matches RFC 4648 and warcio's SHA-1 digests")
    func base32() {
        #expect(Base32.encode(Array("foobar".utf8)) == "MZXW6YTBOI======")
        #expect(Base32.encode([UInt8](repeating: 0, count: 20)) == "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    }

    @Test("ISO dates with zones and fractions parse; formatting round-trips milliseconds")
    func isoDates() throws {
        #expect(ISODate.parse("2014-01-26T20:06:53Z") == Date(timeIntervalSince1970: 1_390_766_813))
        let fiddler = try #require(ISODate.parse("2010-08-30T16:47:34.2095733-04:00"))
        #expect(abs(fiddler.timeIntervalSince1970 - 1_283_201_254.2095733) < 0.000_01)
        #expect(
            ISODate.format(Date(timeIntervalSince1970: 1_714_644_000.125), milliseconds: true)
                == "2024-05-02T10:00:00.125Z")
        #expect(
            ISODate.format(Date(timeIntervalSince1970: 1_714_644_000), milliseconds: true) == "2024-05-02T10:00:00Z")
        #expect(ISODate.parse("yesterday") == nil)
    }

    @Test("URLs are escaped for WARC headers and request lines")
    func uriText() {
        #expect(URIText.escaped("file:///example with spaces.png") == "file:///example%20with%20spaces.png")
        #expect(URIText.escaped("http://x/ü?a=%41") == "http://x/%C3%BC?a=%41")
        #expect(URIText.requestTarget("http://x.org") == "/")
        #expect(URIText.requestTarget("http://x.org?q=1#f") == "/?q=1")
        #expect(URIText.requestTarget("https://x.org/a b?c") == "/a%20b?c")
    }

    @Test("element offsets of log.entries skip strings, escapes and nested arrays")
    func jsonOffsets() {
        let json = #"{"x": ["[", {"entries": [9]}], "log": {"entries\"": 1, "entries": [ {"a": "]\"}"}, 7 , [1] ]}}"#
        let bytes = Array(json.utf8)
        let offsets = JSONOffsets.elementOffsets(in: bytes, path: ["log", "entries"])
        #expect(offsets.map { bytes[$0] } == [UInt8(ascii: "{"), UInt8(ascii: "7"), UInt8(ascii: "[")])
    }

    @Test("redirect targets resolve against the request URL")
    func resolve() {
        #expect(Capture.resolve("/new", against: "http://a.org/old/x") == "http://a.org/new")
        #expect(Capture.resolve("n e w", against: "http://a.org/old/") == "http://a.org/old/n%20e%20w")
        #expect(Capture.resolve("https://b.org/", against: "http://a.org/") == "https://b.org/")
    }

    @Test("the duplicates rule: latest, earliest, a 304 only as a last resort, later read wins ties")
    func selection() throws {
        func capture(_ status: Int, _ seconds: Double?, _ order: Int) throws -> Capture {
            var capture = try Capture(
                location: InputLocation(file: "f"), request: RequestRecord(url: "http://a.org/"), status: status,
                reason: nil, headers: [],
                captureDate: seconds.map { Date(timeIntervalSince1970: $0) }, body: nil)
            capture.order = order
            return capture
        }
        let captures = [
            try capture(200, 10, 0), try capture(200, 30, 1), try capture(304, 40, 2), try capture(200, 30, 3),
            try capture(200, nil, 4),
        ]
        #expect(CaptureSelection.select(captures, policy: .latest) == [3])
        #expect(CaptureSelection.select(captures, policy: .earliest) == [4])
        #expect(CaptureSelection.select([try capture(304, 5, 0)], policy: .latest) == [0])
        #expect(CaptureSelection.select(captures, policy: .all) == [0, 1, 2, 3, 4])
    }

    @Test("page links: resources and frames, not navigation links")
    func pageLinks() {
        let html = #"""
            <base href="https://a.org/dir/"><a href="next.html">n</a><img SRC='i.png' srcset="s1.png 1x, s2.png 2x">
            <link rel="stylesheet" href="s.css?v=1&amp;x=2"><link rel="canonical" href="/c"><iframe src="f.html"></iframe>
            <div style="background: url('bg.jpg')"></div><script src="data:text/js,1"></script>
            """#
        let links = WebArchiveExporter.resources(ofHTML: Array(html.utf8), at: "https://a.org/page")
        #expect(
            links.map(\.url) == [
                "https://a.org/dir/i.png", "https://a.org/dir/s1.png", "https://a.org/dir/s2.png",
                "https://a.org/dir/s.css?v=1&x=2",
                "https://a.org/dir/f.html", "https://a.org/dir/bg.jpg",
            ])
        #expect(links.filter(\.isFrame).map(\.url) == ["https://a.org/dir/f.html"])
        // Tags come from the HTML tokenizer: markup in comments and scripts names nothing, a
        // `<style>` element is read in document order, the first `<base>` counts.
        let tricky = #"""
            <base href="https://b.org/"><base href="https://c.org/"><!-- <img src="commented.png"> -->
            <script>document.write('<img src="scripted.png">')</script><style>p { background: url(p.png) }</style>
            <img src=i.png alt="a > b"><img src='j.png?a=1&amp;b=&quot;2&quot;'>
            """#
        #expect(
            WebArchiveExporter.resources(ofHTML: Array(tricky.utf8), at: "https://a.org/").map(\.url) == [
                "https://b.org/p.png", "https://b.org/i.png", "https://b.org/j.png?a=1&b=%222%22",
            ])
    }
}
