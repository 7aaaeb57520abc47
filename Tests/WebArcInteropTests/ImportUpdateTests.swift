import Foundation
import Testing
import WebArc

@testable import WebArcInterop

/// An import stores bodies in the order its records first use them (spec Appendix C step 2), as
/// `webarc apply` writes an archive again: an update between two imports (`webarc diff`) then
/// gives its target byte for byte.
@Suite("Updates between imports")
struct ImportUpdateTests {
    /// A crawl as a crawler writes it: the style sheet fetched with the first page, then two
    /// pages, the start page's text given by `edition`, the second one fetching the style sheet
    /// again, recorded as a revisit of the first fetch. The import keeps the newest capture of each
    /// URL, the revisit, whose body is the first fetch's payload: its records use the style sheet's
    /// body after the start page's, though the file holds it before.
    static func crawl(edition: String) -> [UInt8] {
        let responseType = ("Content-Type", "application/http; msgtype=response")
        func response(_ id: String, _ path: String, _ body: String, date: String) -> [UInt8] {
            WARCFixture.record("response", uri: "http://example.com/" + path, id: id, date: date, fields: [responseType],
                               block: WARCFixture.response(headers: [("Content-Type", "text/html")], body: Array(body.utf8)))
        }
        let style = String(repeating: "h1 { color: navy } ", count: 50)
        return [
            WARCFixture.record("response", uri: "http://example.com/style.css", id: "css", date: "2024-05-01T10:00:00Z", fields: [responseType],
                               block: WARCFixture.response(headers: [("Content-Type", "text/css")], body: Array(style.utf8))),
            response("home", "", "<!doctype html><h1>home \(edition)</h1>" + String(repeating: "<p>text</p>", count: 40), date: "2024-05-01T10:00:01Z"),
            WARCFixture.record("revisit", uri: "http://example.com/style.css", id: "css2", date: "2024-05-01T10:00:02Z", fields: [
                responseType, ("WARC-Profile", WARCExporter.revisitProfile), ("WARC-Refers-To", "<urn:uuid:css>"),
            ], block: Array("HTTP/1.1 200 OK\r\nContent-Type: text/css\r\n\r\n".utf8)),
            response("about", "about", "<!doctype html><h1>about</h1>" + String(repeating: "<p>more</p>", count: 40), date: "2024-05-01T10:00:03Z"),
        ].flatMap { $0 }
    }

    @Test("an update between two imports of a crawl whose newest captures are revisits applies byte for byte")
    func updateBetweenImports() throws {
        let folder = try TemporaryFolder()
        let (first, old) = try importFiles([try folder.write("v1.warc", Self.crawl(edition: "1"))], in: folder, name: "v1.webarc")
        let (_, new) = try importFiles([try folder.write("v2.warc", Self.crawl(edition: "2"))], in: folder, name: "v2.webarc")
        #expect(first.responses == 3 && first.duplicatesDropped == 1, "\(first)")

        // diff checks its update by applying it; then apply it again here, byte for byte.
        let update = folder.file("u.webarc")
        _ = try UpdateBuilder(old: try LayerStack([try ArchiveReader(path: old)]), new: try ArchiveReader(path: new)).write(to: update)
        let applied = folder.file("applied.webarc")
        _ = try UpdateApplier(stack: try LayerStack([try ArchiveReader(path: update), try ArchiveReader(path: old)])).write(to: applied)
        let (written, expected) = (try Data(contentsOf: URL(fileURLWithPath: applied)), try Data(contentsOf: URL(fileURLWithPath: new)))
        #expect(written == expected)
    }
}
