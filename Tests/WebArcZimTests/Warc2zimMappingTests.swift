import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcZim

/// A ZIM laid out as warc2zim 1.5 lays one out (written here through libzim, so that the test
/// needs no Python): `A/` payloads, `H/` WARC and HTTP headers, its replay files, its `Scraper`.
/// `Tools/zim-check.sh` runs the real warc2zim on a WARC.
@Suite("warc2zim ZIMs back at their crawled URLs")
struct Warc2zimMappingTests {
    static let page =
        "<!doctype html><html><head><title>Example</title></head><body><a href=\"/old\">old</a></body></html>"
    /// What warc2zim 1.5.5 puts in place of `<head>` (its `sw_check.html` template).
    static let headInsert =
        "<head><script>\n// No SW Fallback check: hit if loaded via direct link (no SW installed or not supported)\nif (!window._WBWombat) {\n}\n</script>"

    static func headers(_ url: String, type: String = "response", http: String) -> [UInt8] {
        Array(
            ("WARC/1.0\r\nWARC-Type: \(type)\r\nWARC-Record-ID: <urn:uuid:1>\r\nWARC-Date: 2024-05-01T10:00:00Z\r\n"
                + "WARC-Target-URI: \(url)\r\nContent-Length: 999\r\n\r\n" + http).utf8)
    }

    private func makeZim(_ scratch: TemporaryFolder) throws -> String {
        let path = scratch.file("crawl.zim")
        let creator = try ZimCreator(path: path, reportedAs: path, indexLanguage: nil)
        let stored = Array(Self.page.replacingOccurrences(of: "<head>", with: Self.headInsert).utf8)
        func item(_ path: String, _ type: String, _ bytes: [UInt8]) throws {
            try bytes.withUnsafeBytes {
                try creator.addItem(path: path, title: "", mimeType: type, bytes: $0, frontArticle: false)
            }
        }
        try item("A/example.com/", "text/html", stored)
        try item(
            "H/example.com/", "application/warc-headers",
            Self.headers(
                "https://example.com/",
                http:
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\nX-Served-By: test\r\n\r\n"
            ))
        try item("A/example.com/style.css", "text/css", Array("p{}".utf8))
        try item(
            "H/example.com/style.css", "application/warc-headers",
            Self.headers(
                "https://example.com/style.css",
                http: "HTTP/1.1 200 OK\r\nContent-Type: text/css\r\nContent-Length: 3\r\n\r\n"))
        try item(
            "H/example.com/old", "application/warc-headers",
            Self.headers(
                "https://example.com/old",
                http: "HTTP/1.1 301 Moved Permanently\r\nLocation: /\r\nContent-Length: 0\r\n\r\n"))
        try item(
            "H/example.com/empty.js", "application/warc-headers",
            Self.headers(
                "https://example.com/empty.js",
                http: "HTTP/1.1 200 OK\r\nContent-Type: text/javascript\r\nContent-Length: 0\r\n\r\n"))
        try item(
            "H/example.com/again.css", "application/warc-headers",
            Self.headers(
                "https://example.com/again.css", type: "revisit",
                http: "HTTP/1.1 200 OK\r\nContent-Type: text/css\r\n\r\n"))
        try item("A/index.html", "text/html", Array("<html>replay</html>".utf8))
        try item("A/sw.js", "text/javascript", Array("// replay".utf8))
        creator.setMainPath("A/index.html")
        try creator.addMetadata("Scraper", Array("warc2zim 1.5.5".utf8))
        try creator.addMetadata("Source", Array("https://example.com/".utf8))
        try creator.addMetadata("Title", Array("Example".utf8))
        try creator.finish()
        return path
    }

    @Test("payloads at their WARC-Target-URI with their status and headers, the head insert removed")
    func responses() throws {
        let scratch = try TemporaryFolder()
        let summary = try ZimImporter().run(input: try makeZim(scratch), output: scratch.file("crawl.webarc"))
        #expect(summary.fromWarc2zim)
        let reader = try ArchiveReader(path: scratch.file("crawl.webarc"))
        #expect(try reader.responseBody("https://example.com/") == Array(Self.page.utf8))
        guard case .response(let page)? = try reader.lookup(url: "https://example.com/")?.record else {
            Issue.record("no page")
            return
        }
        #expect(page.headers.value(for: "X-Served-By") == "test")
        #expect(page.headers.value(for: "Content-Encoding") == nil)
        #expect(page.headers.value(for: "Transfer-Encoding") == nil)
        #expect(page.mimeType == "text/html")
        #expect(page.captureDate == Date(timeIntervalSince1970: 1_714_557_600))
        #expect(try reader.responseBody("https://example.com/style.css") == Array("p{}".utf8))
        #expect(try reader.metadata.startURL == "https://example.com/")
    }

    @Test("a 3xx is a redirect, an empty payload an empty response; replay files and H/ entries are left out")
    func headersOnly() throws {
        let scratch = try TemporaryFolder()
        let summary = try ZimImporter().run(input: try makeZim(scratch), output: scratch.file("crawl.webarc"))
        let reader = try ArchiveReader(path: scratch.file("crawl.webarc"))
        guard case .redirect(let redirect)? = try reader.lookup(url: "https://example.com/old")?.record else {
            Issue.record("no redirect")
            return
        }
        #expect(redirect.status == 301)
        #expect(redirect.target == "https://example.com/")
        #expect(try reader.responseBody("https://example.com/empty.js") == [])
        let urls = Set(try reader.recordsByURL().keys)
        #expect(
            urls == [
                "https://example.com/", "https://example.com/style.css", "https://example.com/old",
                "https://example.com/empty.js",
            ])
        #expect(summary.leftOut.contains { $0.hasPrefix("A/index.html") })
        #expect(summary.leftOut.contains { $0.hasPrefix("A/sw.js") })
        #expect(summary.leftOut.contains { $0.hasPrefix("H/example.com/again.css") })
    }

    @Test("a page without warc2zim's inserts is kept as it is")
    func noInsert() {
        let page = Array("<head><script>var a</script></head>".utf8)
        #expect(page.withUnsafeBytes { Warc2zimMapping.removingInserts($0) } == nil)
        let inserted = Array(Self.page.replacingOccurrences(of: "<head>", with: Self.headInsert).utf8)
        #expect(inserted.withUnsafeBytes { Warc2zimMapping.removingInserts($0) } == Array(Self.page.utf8))
    }
}
