import Foundation
import Testing
import WebArc
import WebArcReplay
import WebArcTestSupport

@testable import WebArcInterop

/// WARC → webarc → WARC and HAR → webarc → HAR, record by record (`Spec/interop.md` §7).
@Suite("Round trips")
struct RoundTripTests {
    static let fixedDate = Date(timeIntervalSince1970: 1_700_000_000)

    /// A WARC with every mapping case: gzip, br, chunked, redirect, 304, POST, a resource, a revisit.
    static func mixedWARC(in folder: TemporaryFolder) throws -> String {
        let text = Array(String(repeating: "round trip ", count: 300).utf8)
        func pair(
            _ id: String, _ uri: String, _ response: [UInt8], method: String = "GET",
            date: String = "2024-05-01T10:00:00Z"
        ) -> [[UInt8]] {
            WARCImportTests.pair(id, uri: uri, response: response, date: date, method: method)
        }
        var records = pair(
            "g", "http://example.com/",
            WARCFixture.response(
                headers: [
                    ("Content-Type", "text/html"), ("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked"),
                ],
                body: WARCFixture.chunked(WARCFixture.gzip(text), size: 77)))
        records += pair(
            "b", "http://example.com/b.js",
            WARCFixture.response(headers: [("Content-Encoding", "br"), ("Content-Length", "3")], body: [9, 8, 7]))
        records += pair(
            "r", "http://example.com/old",
            WARCFixture.response(301, reason: "Moved", headers: [("Location", "http://example.com/")], body: []))
        records += pair(
            "n", "http://example.com/n",
            WARCFixture.response(304, reason: "Not Modified", headers: [("ETag", "\"1\"")], body: []))
        records += [
            WARCFixture.record(
                "response", uri: "http://example.com/form", id: "p",
                fields: [("Content-Type", "application/http; msgtype=response")],
                block: WARCFixture.response(headers: [("Content-Type", "application/json")], body: Array("{}".utf8))),
            WARCFixture.record(
                "request", uri: "http://example.com/form", id: "p-rq",
                fields: [
                    ("Content-Type", "application/http; msgtype=request"), ("WARC-Concurrent-To", "<urn:uuid:p>"),
                ],
                block: WARCFixture.request(
                    "POST", target: "/form",
                    headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Content-Length", "3")])
                    + Array("a=1".utf8)),
        ]
        records += pair(
            "same", "http://example.com/copy.html",
            WARCFixture.response(headers: [("Content-Type", "text/html")], body: text), date: "2024-05-02T10:00:00.125Z"
        )
        records.append(
            WARCFixture.record(
                "resource", uri: "urn:example:note", id: "res", fields: [("Content-Type", "text/plain")],
                block: Array("note".utf8)))
        return try folder.write("mixed.warc.gz", WARCFixture.gzipPerRecord(records))
    }

    static let corpusWARCs = [
        "pywb-iana.warc.gz", "pywb-dupes.warc.gz", "pywb-example-wget-1-14.warc.gz", "pywb-example-wpull.warc.gz",
        "pywb-post-test.warc.gz", "warcio-example-iana.org-chunked.warc", "warcio-example-space-in-target-uri.warc.gz",
    ]

    // Skipped (shown as such) without the corpus; the mixed fixture below runs everywhere.
    @Test(
        "WARC → webarc → WARC → webarc keeps every corpus record", .enabled(if: Corpus.available, Corpus.skipReason),
        arguments: corpusWARCs)
    func corpusWARC(_ name: String) throws {
        let folder = try TemporaryFolder()
        _ = try Self.warcRoundTrip(try Corpus.path(name), in: folder)
    }

    @Test("WARC → webarc → WARC → webarc keeps every mapping case of the mixed fixture")
    func mixedWARCRoundTrip() throws {
        let folder = try TemporaryFolder()
        let (exported, warc, after) = try Self.warcRoundTrip(try Self.mixedWARC(in: folder), in: folder)
        #expect(exported.revisits == 1, "the repeated body is written once, then as a revisit")
        let reader = WARCRecordReader(stream: try WARCStream(file: try InputFile(path: warc), gzip: true))
        var records: [(type: String, uri: String?)] = []
        var requests: [String] = []
        while let start = try reader.next() {
            records.append((start.header.type, start.header.targetURI))
            var block: [UInt8] = []
            while case let piece = try reader.readBlock(), !piece.isEmpty { block += piece }
            if start.header.type == "request" { requests.append(String(decoding: block, as: UTF8.self)) }
            try reader.finishRecord()
        }
        #expect(records.first?.type == "warcinfo")
        let post = try #require(requests.first { $0.hasPrefix("POST /form ") }, "\(requests)")
        #expect(!post.contains("Content-Length"), "no request body is written, so none is announced")
        #expect(post.hasSuffix("\r\n\r\n"))
        #expect(
            records.filter { $0.type == "revisit" }.map(\.uri) == ["http://example.com/copy.html"],
            "the later capture is the revisit")
        #expect(records.firstIndex { $0.uri == "http://example.com/" }! < records.firstIndex { $0.type == "revisit" }!)
        let page = try #require(after["GET http://example.com/"])
        #expect(page.headers == [HTTPHeader("Content-Type", "text/html")])
        #expect(after["GET http://example.com/b.js"]?.headers.value(for: "Content-Encoding") == "br")
        #expect(after["POST http://example.com/form"]?.body == Array("{}".utf8))
        #expect(
            after["GET http://example.com/copy.html"]?.captureDate == Date(timeIntervalSince1970: 1_714_644_000.125))
    }

    /// Imports `input`, exports it as WARC, imports that, and checks both archives hold the same records.
    static func warcRoundTrip(
        _ input: String, in folder: TemporaryFolder
    ) throws -> (exported: ExportSummary, warc: String, after: ArchiveDump) {
        let (imported, first) = try importFiles(
            [input], in: folder, name: "a.webarc", options: ImportOptions(keep: .all))
        let warc = folder.file("a.warc.gz")
        let exported = try ArchiveExporter(options: ExportOptions(date: fixedDate)).run(
            archive: first, format: .warc, output: warc)
        #expect(exported.responses + exported.revisits + exported.redirects == imported.records)
        let (again, second) = try importFiles([warc], in: folder, name: "b.webarc", options: ImportOptions(keep: .all))
        #expect(again.notes.filter { $0.kind != "notChunked" }.isEmpty, "\(again.notes)")
        let before = try ArchiveDump(first)
        let after = try ArchiveDump(second)
        #expect(before.items.count == after.items.count)
        for (a, b) in zip(before.items, after.items) { #expect(a.withoutRequestBodyFraming == b, "\(a.key)") }
        try WARCMessages.expectKept(original: input, exported: warc)
        return (exported, warc, after)
    }

    // ZIM is written by WebArcZim (WebArcZimTests), which ArchiveExporter refuses.
    @Test("export is deterministic for a given date", arguments: ExportFormat.allCases.filter { $0 != .zim })
    func deterministic(_ format: ExportFormat) throws {
        let folder = try TemporaryFolder()
        let (_, archive) = try importFiles([try Self.mixedWARC(in: folder)], in: folder)
        let exporter = ArchiveExporter(
            options: ExportOptions(
                page: format == .webarchive ? "http://example.com/copy.html" : nil, date: Self.fixedDate))
        _ = try exporter.run(archive: archive, format: format, output: folder.file("1"))
        _ = try exporter.run(archive: archive, format: format, output: folder.file("2"))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: folder.file("1")))
                == Data(contentsOf: URL(fileURLWithPath: folder.file("2"))))
        #expect(throws: InteropError.archive(.outputExists(path: folder.file("1")), path: folder.file("1"))) {
            try exporter.run(archive: archive, format: format, output: folder.file("1"))
        }
    }

    // Skipped (shown as such) without the corpus; the made-up HAR below runs everywhere.
    @Test(
        "HAR → webarc → HAR keeps every saved entry of the corpus HARs",
        .enabled(if: Corpus.available, Corpus.skipReason),
        arguments: ["harviewer-chrome51.har", "harviewer-www-cnn-com-fiddler.har"])
    func corpusHAR(_ name: String) throws {
        let folder = try TemporaryFolder()
        try Self.harRoundTrip(try Corpus.path(name), in: folder)
    }

    @Test("HAR → webarc → HAR keeps a made-up HAR's text, base64 and redirect entries")
    func madeUpHAR() throws {
        let folder = try TemporaryFolder()
        try Self.harRoundTrip(try Self.madeUpHAR(in: folder), in: folder)
    }

    /// A HAR with a text body, a binary (base64) body and a redirect.
    static func madeUpHAR(in folder: TemporaryFolder) throws -> String {
        try folder.write(
            "made-up.har",
            try HARImportTests.har([
                HARImportTests.entry(
                    "https://example.com/", headers: [["name": "Content-Type", "value": "text/html"]],
                    content: ["size": 4, "mimeType": "text/html", "text": "<p/>"]),
                HARImportTests.entry(
                    "https://example.com/x.bin",
                    headers: [["name": "Content-Type", "value": "application/octet-stream"]],
                    content: ["size": 3, "mimeType": "application/octet-stream", "text": "AAEC", "encoding": "base64"]),
                HARImportTests.entry(
                    "https://example.com/go", status: 302,
                    headers: [["name": "Location", "value": "https://example.com/"]],
                    content: ["size": 0, "mimeType": ""], redirectURL: "https://example.com/"),
            ]))
    }

    /// HAR → webarc → HAR → webarc: both archives hold the same records, and every entry of the
    /// original that was imported comes back with its status, headers and bytes.
    static func harRoundTrip(_ input: String, in folder: TemporaryFolder) throws {
        let (_, first) = try importFiles([input], in: folder, name: "a.webarc", options: ImportOptions(keep: .all))
        let har = folder.file("a.har")
        _ = try ArchiveExporter(options: ExportOptions(date: fixedDate)).run(archive: first, format: .har, output: har)
        let (_, second) = try importFiles([har], in: folder, name: "b.webarc", options: ImportOptions(keep: .all))
        let before = try ArchiveDump(first)
        let after = try ArchiveDump(second)
        #expect(before.items.count == after.items.count)
        for (a, b) in zip(before.items, after.items) { #expect(a == b, "\(a.key)") }
        let original = try entries(input)
        let exported = try entries(har)
        for entry in original where entry.imported {
            let match = exported.first { $0.url == entry.url && abs($0.started - entry.started) < 0.001 }
            #expect(match?.status == entry.status, "\(entry.url)")
            if !RedirectRecord.allowedStatuses.contains(entry.status) {
                #expect(match?.body == entry.body, "\(entry.url)")
            }
            let dropped: Set<String> = ["content-encoding", "content-length", "transfer-encoding"]
            #expect(
                match?.headers.filter { !dropped.contains($0.name.lowercased()) }
                    == entry.headers.filter { !dropped.contains($0.name.lowercased()) && !$0.name.hasPrefix(":") },
                "\(entry.url)")
        }
    }

    struct Entry {
        var url: String
        var started: TimeInterval
        var status: Int
        var headers: [HTTPHeader]
        var body: [UInt8]?
        var imported: Bool
    }

    /// A HAR file's entries, bodies as bytes (text in its declared charset, base64 decoded).
    static func entries(_ path: String) throws -> [Entry] {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { data = data.dropFirst(3) }
        let log = try #require(
            (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["log"] as? [String: Any])
        return (log["entries"] as? [[String: Any]] ?? []).map { entry in
            let request = entry["request"] as! [String: Any]
            let response = entry["response"] as! [String: Any]
            let content = response["content"] as? [String: Any] ?? [:]
            let headers = HARImporter.headers(response["headers"])
            let text = content["text"] as? String
            let body = text.map { text in
                (content["encoding"] as? String) == "base64"
                    ? Array(Data(base64Encoded: text, options: .ignoreUnknownCharacters)!)
                    : TextCharset.encode(
                        text,
                        charset: ContentTypeParts.of(
                            headers.value(for: "Content-Type") ?? content["mimeType"] as? String
                        ).textEncoding)
            }
            let status = (response["status"] as? NSNumber)?.intValue ?? 0
            return Entry(
                url: request["url"] as! String,
                started: ISODate.parse(entry["startedDateTime"] as! String)!.timeIntervalSince1970,
                status: status, headers: headers, body: body,
                imported: status != 0 && (text != nil || RedirectRecord.allowedStatuses.contains(status)))
        }
    }
}
