import Foundation
import Testing
import WebArc
import WebArcTestSupport

@_spi(Fuzzing) @testable import WebArcZim

/// The parsers the ZIM fuzz target drives without libzim.
@Suite("ZIM parsers without libzim")
struct ZimOwnParsersTests {
    @Test(
        "the clusters of a zimwriterfs ZIM hold every file of the site as one blob",
        .enabled(if: ZimTools.available, ZimTools.skipReason))
    func clusters() async throws {
        let scratch = try TemporaryFolder()
        let zim = try await ZimSite.zim(in: scratch)
        var blobs: Set<[UInt8]> = []
        try ZimOwnParsers.readClusters(path: zim, limit: ZimClusterReader.defaultLimit) { blobs.insert(Array($0)) }
        for (name, bytes) in ZimSite.files where !bytes.isEmpty {
            #expect(blobs.contains(bytes), "\(name)")
        }
        var cut = Array(try Data(contentsOf: URL(fileURLWithPath: zim)))
        cut.removeLast()
        let cutPath = try scratch.write("cut.zim", cut)
        #expect(throws: ZimError.self) { try ZimOwnParsers.readClusters(path: cutPath, limit: 1 << 20) { _ in } }
    }

    @Test("a warc2zim H/ entry maps as the import maps it")
    func warc2zimHead() throws {
        let redirect = Warc2zimMappingTests.headers(
            "https://example.com/a/old", http: "HTTP/1.1 301 Moved\r\nLocation: ../new\r\nContent-Length: 5\r\n\r\n")
        let head = try #require(ZimOwnParsers.warc2zimHead(redirect, payloadLength: 0))
        #expect(head.url == "https://example.com/a/old")
        #expect(head.status == 301)
        #expect(head.redirectTarget == "https://example.com/new")
        #expect(head.redirectHeaders == [HTTPHeader("Location", "../new")])
        #expect(head.sharedPath == "example.com/a/old")
        let page = Warc2zimMappingTests.headers(
            "http://example.com/",
            http: "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 99\r\nContent-Type: text/html\r\n\r\n")
        let stored = try #require(ZimOwnParsers.warc2zimHead(page, payloadLength: 12))
        #expect(stored.storedHeaders == [HTTPHeader("Content-Length", "12"), HTTPHeader("Content-Type", "text/html")])
        #expect(stored.redirectTarget == nil)
        #expect(ZimOwnParsers.warc2zimHead(Array("HTTP/1.1 200 OK\r\n\r\n".utf8), payloadLength: 0) == nil)
    }

    @Test("warc2zim's inserts come out of a page; a page without them is left alone")
    func inserts() {
        let page = Warc2zimMappingTests.page
        let stored = Array(page.replacingOccurrences(of: "<head>", with: Warc2zimMappingTests.headInsert).utf8)
        #expect(ZimOwnParsers.removingWarc2zimInserts(stored) == Array(page.utf8))
        #expect(ZimOwnParsers.removingWarc2zimInserts(Array(page.utf8)) == nil)
    }
}
