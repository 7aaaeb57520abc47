import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// Which resources a `.webarchive` export takes along (`Spec/interop.md` §7.3).
@Suite("Web archive export")
struct WebArchiveExporterTests {
    /// A page whose stylesheet imports a stylesheet (in another folder) that uses an image and
    /// imports the first one back; the first stylesheet also names a font still br-encoded.
    static func nestedCSS(in folder: TemporaryFolder) throws -> String {
        func pair(_ id: String, _ path: String, _ type: String, _ body: String, coding: String? = nil) -> [[UInt8]] {
            let headers = [("Content-Type", type)] + (coding.map { [("Content-Encoding", $0)] } ?? [])
            return WARCImportTests.pair(
                id, uri: "https://example.com/" + path,
                response: WARCFixture.response(headers: headers, body: Array(body.utf8)))
        }
        let records =
            pair("p", "", "text/html", #"<link rel="stylesheet" href="a.css"><p>page</p>"#)
            + pair("a", "a.css", "text/css", #"@import url("sub/b.css"); @font-face { src: url(font.woff) }"#)
            + pair(
                "b", "sub/b.css", "text/css; charset=utf-8",
                #"@import "../a.css"; body { background: url('../img/c.png') }"#)
            + pair("c", "img/c.png", "image/png", "PNG")
            + pair("f", "font.woff", "font/woff", "BROTLI", coding: "br")
        return try folder.write("nested.warc", records.flatMap { $0 })
    }

    @Test("resources named inside CSS are followed to any depth, and still-encoded ones are left out")
    func nestedStylesheets() throws {
        let folder = try TemporaryFolder()
        let (_, archive) = try importFiles([try Self.nestedCSS(in: folder)], in: folder)
        let output = folder.file("page.webarchive")
        let summary = try ArchiveExporter(options: ExportOptions(page: "https://example.com/")).run(
            archive: archive, format: .webarchive, output: output)
        let root =
            try PropertyListSerialization.propertyList(
                from: Data(contentsOf: URL(fileURLWithPath: output)), format: nil) as? [String: Any]
        let subresources = try #require(root?["WebSubresources"] as? [[String: Any]])
        let urls = subresources.compactMap { $0["WebResourceURL"] as? String }
        #expect(
            urls == ["https://example.com/a.css", "https://example.com/sub/b.css", "https://example.com/img/c.png"])
        let image = try #require(
            subresources.first { $0["WebResourceURL"] as? String == "https://example.com/img/c.png" })
        #expect(image["WebResourceData"] as? Data == Data("PNG".utf8))
        #expect(image["WebResourceMIMEType"] as? String == "image/png")
        #expect(summary.responses == 4)
        #expect(
            summary.notes == [
                .resourceLeftOut(url: "https://example.com/font.woff", reason: "its body is still br-encoded")
            ])
    }
}
