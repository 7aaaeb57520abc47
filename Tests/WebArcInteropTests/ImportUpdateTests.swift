import Foundation
import Testing
import WebArc
import WebArcTestSupport

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
            WARCFixture.record(
                "response", uri: "http://example.com/" + path, id: id, date: date, fields: [responseType],
                block: WARCFixture.response(headers: [("Content-Type", "text/html")], body: Array(body.utf8)))
        }
        let style = String(repeating: "h1 { color: navy } ", count: 50)
        return [
            WARCFixture.record(
                "response", uri: "http://example.com/style.css", id: "css", date: "2024-05-01T10:00:00Z",
                fields: [responseType],
                block: WARCFixture.response(headers: [("Content-Type", "text/css")], body: Array(style.utf8))),
            response(
                "home", "", "<!doctype html><h1>home \(edition)</h1>" + String(repeating: "<p>text</p>", count: 40),
                date: "2024-05-01T10:00:01Z"),
            WARCFixture.record(
                "revisit", uri: "http://example.com/style.css", id: "css2", date: "2024-05-01T10:00:02Z",
                fields: [
                    responseType, ("WARC-Profile", WARCExporter.revisitProfile), ("WARC-Refers-To", "<urn:uuid:css>"),
                ], block: Array("HTTP/1.1 200 OK\r\nContent-Type: text/css\r\n\r\n".utf8)),
            response(
                "about", "about", "<!doctype html><h1>about</h1>" + String(repeating: "<p>more</p>", count: 40),
                date: "2024-05-01T10:00:03Z"),
        ].flatMap { $0 }
    }

    @Test("an update between two imports of a crawl whose newest captures are revisits applies byte for byte")
    func updateBetweenImports() throws {
        let folder = try TemporaryFolder()
        let (first, old) = try importFiles(
            [try folder.write("v1.warc", Self.crawl(edition: "1"))], in: folder, name: "v1.webarc")
        let (_, new) = try importFiles(
            [try folder.write("v2.warc", Self.crawl(edition: "2"))], in: folder, name: "v2.webarc")
        #expect(first.responses == 3 && first.duplicatesDropped == 1, "\(first)")

        // diff checks its update by applying it; then apply it again here, byte for byte.
        let update = folder.file("u.webarc")
        _ = try UpdateBuilder(old: try LayerStack([try ArchiveReader(path: old)]), new: try ArchiveReader(path: new))
            .write(to: update)
        let applied = folder.file("applied.webarc")
        _ = try UpdateApplier(stack: try LayerStack([try ArchiveReader(path: update), try ArchiveReader(path: old)]))
            .write(to: applied)
        let (written, expected) = (
            try Data(contentsOf: URL(fileURLWithPath: applied)), try Data(contentsOf: URL(fileURLWithPath: new))
        )
        #expect(written == expected)
    }

    /// A page of the made-up site: shared boilerplate (what a dictionary holds) and its own text.
    static func page(_ number: Int, edition: String) -> String {
        let boilerplate = (0..<30).map { "<li><a href=\"/section/\($0).html\">Section \($0) of the manual</a></li>" }
            .joined()
        return "<!doctype html><nav>\(boilerplate)</nav><h1>Page \(number)</h1>"
            + (0..<40).map { "<p>paragraph \($0) of page \(number), \(number % 3 == 0 ? edition : "stable")</p>" }
            .joined()
    }

    /// A crawl in two inputs: a WARC of 36 responses where every fifth page is a revisit of page
    /// 0 (its body, under its own URL) and every seventh a 204 with no body, then a HAR whose entries repeat
    /// a WARC body, add new pages and one empty body. Responses that are neither the first use of
    /// a body nor the store of one take their positions between the stores.
    static func twoInputs(edition: String) throws -> (warc: [UInt8], har: [UInt8]) {
        let responseType = ("Content-Type", "application/http; msgtype=response")
        let records = (0..<36).map { number in
            if number % 5 == 4 && number % 7 != 6 {
                return WARCFixture.record(
                    "revisit", uri: "http://example.com/\(number).html", id: "p\(number)", date: "2024-05-01T10:00:00Z",
                    fields: [
                        responseType, ("WARC-Profile", WARCExporter.revisitProfile),
                        ("WARC-Refers-To", "<urn:uuid:p0>"),
                    ], block: Array("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".utf8))
            }
            let body = number % 7 == 6 ? "" : Self.page(number, edition: edition)
            return WARCFixture.record(
                "response", uri: "http://example.com/\(number).html", id: "p\(number)", date: "2024-05-01T10:00:00Z",
                fields: [responseType],
                block: WARCFixture.response(
                    number % 7 == 6 ? 204 : 200, headers: [("Content-Type", "text/html")], body: Array(body.utf8)))
        }
        let entries = (0..<8).map { number in
            let text =
                number == 2
                ? Self.page(1, edition: edition) : number == 5 ? "" : Self.page(100 + number, edition: edition)
            return HARImportTests.entry(
                "http://example.com/more/\(number).html", status: number == 5 ? 204 : 200,
                content: ["size": text.utf8.count, "mimeType": "text/html", "text": text])
        }
        return (records.flatMap { $0 }, try HARImportTests.har(entries))
    }

    @Test(
        "imports store dictionaries, and an update between two of them (repeated and empty bodies, two inputs) applies byte for byte"
    )
    func updateBetweenImportsWithDictionaries() throws {
        let folder = try TemporaryFolder()
        func importEdition(_ edition: String, interval: Int) throws -> String {
            let inputs = try Self.twoInputs(edition: edition)
            let files = [
                try folder.write("\(edition).warc", inputs.warc), try folder.write("\(edition).har", inputs.har),
            ]
            return try importFiles(
                files, in: folder, name: "\(edition)-\(interval).webarc",
                options: ImportOptions(dictionaryInterval: interval)
            ).path
        }
        let old = try importEdition("one", interval: 4)
        let new = try importEdition("two", interval: 4)
        let plain = try importEdition("two", interval: 0)

        // Bodies coded against a dictionary make the archive smaller than without.
        let reader = try ArchiveReader(path: new)
        #expect(try reader.metadata.writer?.dictionaryInterval == 4)
        var codecs: [ChunkEntry.Codec?] = []
        try reader.forEachBody { entry in codecs += entry.chunks.map(\.codec) }
        #expect(codecs.contains(.lz4Dictionary))
        let size = { (path: String) in try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int }
        #expect(try size(new) < size(plain))

        // apply gives each response the position the import gave it (spec Appendix C step 13).
        let update = folder.file("u.webarc")
        _ = try UpdateBuilder(old: try LayerStack([try ArchiveReader(path: old)]), new: try ArchiveReader(path: new))
            .write(to: update)
        let applied = folder.file("applied.webarc")
        _ = try UpdateApplier(stack: try LayerStack([try ArchiveReader(path: update), try ArchiveReader(path: old)]))
            .write(to: applied)
        #expect(try Data(contentsOf: URL(fileURLWithPath: applied)) == Data(contentsOf: URL(fileURLWithPath: new)))
    }
}

/// The WARC importer stores payloads in the order asked, reading each file front to back: those
/// met before their turn wait (within a budget) or are read again at their turn.
@Suite("WARC payloads stored in the order asked")
struct WARCPayloadOrderTests {
    /// Six responses with distinct bodies, in one file laid out as `layout`.
    static func warc(_ layout: String) -> [UInt8] {
        let records = (0..<6).map { number in
            WARCFixture.record(
                "response", uri: "http://example.com/\(number)", id: "r\(number)",
                fields: [("Content-Type", "application/http; msgtype=response")],
                block: WARCFixture.response(
                    headers: [("Content-Type", "text/plain")],
                    body: Array("payload \(number) ".utf8) + [UInt8](repeating: UInt8(65 + number), count: 3_000)))
        }
        return switch layout {
        case "plain": records.flatMap { $0 }
        case "per-record": WARCFixture.gzipPerRecord(records)
        default: WARCFixture.gzip(records.flatMap { $0 })
        }
    }

    @Test(
        "any order, any layout, with payloads waiting or read again", arguments: ["plain", "per-record", "whole-file"],
        [0, 1 << 20])
    func order(layout: String, budget: Int) throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("in.warc", Self.warc(layout))
        let context = ImportContext(options: ImportOptions())
        let importer = WARCImporter(sourceID: 0)
        _ = try importer.scan(path: path, isGzip: layout != "plain", context: context)
        let captures = try importer.captures(context: context)
        let asked = [4, 1, 5, 0, 3, 2].map { captures[$0].body!.index }
        let writer = try ArchiveWriter(path: folder.file("out.webarc"))
        let stored = try importer.storeBodies(asked, in: writer, context: context, waitingBudget: UInt64(budget))
        try writer.finish()
        // The body data holds the payloads in the order asked.
        let reader = try ArchiveReader(path: folder.file("out.webarc"))
        let offsets = try asked.map { try reader.bodyEntry(stored[$0]!.body.reference).chunks[0].offset }
        #expect(offsets == offsets.sorted(), "\(layout), budget \(budget): \(offsets)")
        #expect(
            try asked.map { String(decoding: try reader.body(stored[$0]!.body.reference).prefix(9), as: UTF8.self) }
                == [4, 1, 5, 0, 3, 2].map { "payload \($0)" })
    }
}
