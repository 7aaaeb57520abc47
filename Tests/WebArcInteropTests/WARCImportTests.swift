import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// WARC import on small made-up files, one behaviour each (mapping: `Spec/interop.md` §2–§4).
@Suite("WARC import")
struct WARCImportTests {
    static let html = Array("<!doctype html><h1>Hello</h1>".utf8)

    static func pair(
        _ id: String, uri: String, response: [UInt8], date: String = "2024-05-01T10:00:00Z", method: String = "GET"
    ) -> [[UInt8]] {
        [
            WARCFixture.record(
                "response", uri: uri, id: id, date: date,
                fields: [("Content-Type", "application/http; msgtype=response")], block: response),
            WARCFixture.record(
                "request", uri: uri, id: id + "-rq", date: date,
                fields: [
                    ("Content-Type", "application/http; msgtype=request"), ("WARC-Concurrent-To", "<urn:uuid:\(id)>"),
                ],
                block: WARCFixture.request(method, target: "/", headers: [("Host", "example.com"), ("X-Asked", id)])),
        ]
    }

    @Test("plain, gzip per record and whole-file gzip read the same", arguments: ["plain", "per-record", "whole-file"])
    func layouts(_ layout: String) throws {
        let folder = try TemporaryFolder()
        let records =
            Self.pair(
                "a", uri: "http://example.com/",
                response: WARCFixture.response(headers: [("Content-Type", "text/html")], body: Self.html))
            + Self.pair(
                "b", uri: "http://example.com/b", response: WARCFixture.response(headers: [], body: Array("b".utf8)))
        let bytes: [UInt8] =
            switch layout {
            case "plain": records.flatMap { $0 }
            case "per-record": WARCFixture.gzipPerRecord(records)
            default: WARCFixture.gzip(records.flatMap { $0 })
            }
        let input = try folder.write("in.warc", bytes)
        let (summary, path) = try importFiles([input], in: folder)
        #expect(summary.inputs.first?.format == (layout == "plain" ? .warc : .warcGzip))
        #expect(summary.responses == 2)
        #expect(summary.notes.isEmpty)
        let page = try #require(try ArchiveDump(path)["GET http://example.com/"])
        #expect(page.body == Self.html)
        #expect(page.requestHeaders.value(for: "X-Asked") == "a", "joined through WARC-Concurrent-To")
        #expect(page.headers.value(for: "Content-Type") == "text/html")
    }

    @Test("chunked bodies are de-chunked and gzip bodies decoded; br stays encoded with its header")
    func codings() throws {
        let folder = try TemporaryFolder()
        let text = Array(String(repeating: "webarc keeps one copy. ", count: 400).utf8)
        let gzipped = WARCFixture.gzip(text)
        let records =
            Self.pair(
                "g", uri: "http://example.com/g",
                response: WARCFixture.response(
                    headers: [
                        ("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked"), ("Content-Length", "-1"),
                    ],
                    body: WARCFixture.chunked(gzipped, size: 100)))
            + Self.pair(
                "p", uri: "http://example.com/p",
                response: WARCFixture.response(headers: [("Content-Length", "\(text.count)")], body: text))
            + Self.pair(
                "br", uri: "http://example.com/br",
                response: WARCFixture.response(
                    headers: [("Content-Encoding", "br"), ("Content-Length", "4")], body: [1, 2, 3, 4]))
            + Self.pair(
                "bad", uri: "http://example.com/bad",
                response: WARCFixture.response(
                    headers: [("Content-Encoding", "gzip")], body: [0x1F, 0x8B, 8, 0, 9, 9]))
        let input = try folder.write("in.warc", records.flatMap { $0 })
        let (summary, path) = try importFiles([input], in: folder)
        let dump = try ArchiveDump(path)
        let decoded = try #require(dump["GET http://example.com/g"])
        #expect(decoded.body == text)
        #expect(decoded.headers == [HTTPHeader("Content-Length", "\(text.count)")])
        #expect(summary.bodiesStored == 3, "the decoded gzip body and the plain one are one body")
        let brotli = try #require(dump["GET http://example.com/br"])
        #expect(brotli.body == [1, 2, 3, 4])
        #expect(brotli.headers.value(for: "Content-Encoding") == "br")
        let broken = try #require(dump["GET http://example.com/bad"])
        #expect(broken.headers.value(for: "Content-Encoding") == "gzip", "a body that does not decode is kept as sent")
        #expect(summary.notes.map(\.kind) == ["contentNotDecoded"])
    }

    @Test(
        "301, 302, 303, 307, 308 become redirects; 300 and 304 stay responses",
        arguments: [300, 301, 302, 303, 304, 307, 308])
    func redirects(_ status: Int) throws {
        let folder = try TemporaryFolder()
        let records = Self.pair(
            "r", uri: "http://example.com/old",
            response: WARCFixture.response(
                status, reason: "X", headers: [("Location", "/new?x=1"), ("Content-Length", "5")],
                body: Array("moved".utf8)))
        let (_, path) = try importFiles([try folder.write("in.warc", records.flatMap { $0 })], in: folder)
        let item = try #require(try ArchiveDump(path).items.first)
        if RedirectRecord.allowedStatuses.contains(status) {
            #expect(item.kind == "redirect")
            #expect(item.target == "http://example.com/new?x=1")
            #expect(item.headers.value(for: "Content-Length") == nil)
        } else {
            #expect(item.kind == "response")
            #expect(item.body == Array("moved".utf8))
        }
    }

    @Test("a revisit takes the payload of the record it refers to, and its own headers")
    func revisit() throws {
        let folder = try TemporaryFolder()
        let original = WARCFixture.record(
            "response", uri: "http://example.com/", id: "o", date: "2024-01-01T00:00:00Z",
            fields: [("Content-Type", "application/http; msgtype=response"), ("WARC-Payload-Digest", "sha1:AAAA")],
            block: WARCFixture.response(headers: [("ETag", "\"1\"")], body: Self.html))
        let revisit = WARCFixture.record(
            "revisit", uri: "http://example.com/", id: "v", date: "2024-02-01T00:00:00Z",
            fields: [
                ("WARC-Profile", "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"),
                ("WARC-Payload-Digest", "sha1:aaaa"), ("Content-Type", "application/http; msgtype=response"),
            ],
            block: WARCFixture.response(headers: [("ETag", "\"2\"")], body: []))
        let first = try folder.write("a.warc.gz", WARCFixture.gzipPerRecord([original]))
        let second = try folder.write("b.warc", revisit)
        let (summary, path) = try importFiles([second, first], in: folder, options: ImportOptions(keep: .all))
        #expect(summary.responses == 2)
        let items = try ArchiveDump(path).items
        #expect(items.map(\.body) == [Self.html, Self.html])
        let newest = try #require(try ArchiveReader(path: path).lookup(url: "http://example.com/"))
        #expect(
            newest.record.headers.value(for: "ETag") == "\"2\"",
            "the lookup answers with the revisit, the newest capture")
        let (alone, _) = try importFiles([second], in: folder, name: "alone.webarc")
        #expect(alone.records == 0)
        #expect(alone.notes.map(\.kind) == ["unresolvedRevisit"])
    }

    @Test("the latest capture wins by default; earliest and all are offered; a 304 never hides a 200")
    func duplicates() throws {
        let folder = try TemporaryFolder()
        var records: [[UInt8]] = []
        for (index, date) in ["2024-03-01T00:00:00Z", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z"].enumerated() {
            records += Self.pair(
                "d\(index)", uri: "http://example.com/",
                response: WARCFixture.response(headers: [], body: Array(date.utf8)), date: date)
        }
        records += Self.pair(
            "n", uri: "http://example.com/",
            response: WARCFixture.response(304, reason: "Not Modified", headers: [], body: []),
            date: "2024-04-01T00:00:00Z")
        let input = try folder.write("in.warc", records.flatMap { $0 })
        let latest = try ArchiveDump(try importFiles([input], in: folder, name: "l.webarc").path)
        #expect(latest.items.map(\.body) == [Array("2024-03-01T00:00:00Z".utf8)])
        let earliest = try ArchiveDump(
            try importFiles([input], in: folder, name: "e.webarc", options: ImportOptions(keep: .earliest)).path)
        #expect(earliest.items.map(\.body) == [Array("2024-01-01T00:00:00Z".utf8)])
        let all = try ArchiveDump(
            try importFiles([input], in: folder, name: "a.webarc", options: ImportOptions(keep: .all)).path)
        #expect(all.items.count == 4)
        #expect(all.items.first?.status == 304, "with every capture kept, the lookup answers with the newest")
    }

    @Test("resource, metadata and warcinfo records: resources kept, metadata counted, warcinfo in the archive metadata")
    func otherRecordTypes() throws {
        let folder = try TemporaryFolder()
        let records = [
            WARCFixture.record(
                "warcinfo", id: "i", fields: [("Content-Type", "application/warc-fields")],
                block: Array("software: test\r\n".utf8)),
            WARCFixture.record(
                "resource", uri: "urn:test:log", id: "r", fields: [("Content-Type", "text/plain")],
                block: Array("log".utf8)),
            WARCFixture.record(
                "metadata", uri: "http://example.com/", id: "m", fields: [("Content-Type", "application/warc-fields")],
                block: Array("outlink: x\r\n".utf8)),
        ]
        let input = try folder.write("in.warc", records.flatMap { $0 })
        let (summary, path) = try importFiles([input], in: folder)
        #expect(summary.responses == 1)
        #expect(summary.notes == [.recordsLeftOut(file: input, type: "metadata", count: 1)])
        let reader = try ArchiveReader(path: path)
        #expect(try reader.metadata.entries.contains(ArchiveMetadata.Entry("warcinfo", "software: test")))
        let log = try #require(try reader.lookup(url: "urn:test:log"))
        #expect(log.record.headers == [HTTPHeader("Content-Type", "text/plain")])
    }

    @Test("bad records fail with the file and offset; --skip-bad lists them and imports the rest")
    func badRecords() throws {
        let folder = try TemporaryFolder()
        let good = Self.pair(
            "ok", uri: "http://example.com/ok", response: WARCFixture.response(headers: [], body: Array("ok".utf8)))
        let cases: [(name: String, record: [UInt8], error: (String, UInt64) -> InteropError)] = [
            (
                "no-http",
                WARCFixture.record(
                    "response", uri: "http://example.com/x", id: "x",
                    fields: [("Content-Type", "application/http; msgtype=response")], block: Array("<html>".utf8)),
                { .missingHTTPHeaders(at: InputLocation(file: $0, offset: $1), firstLine: "<html>") }
            ),
            (
                "bad-url",
                WARCFixture.record(
                    "response", uri: "example.com/x", id: "u",
                    fields: [("Content-Type", "application/http; msgtype=response")],
                    block: WARCFixture.response(headers: [], body: [])),
                { .badURL(at: InputLocation(file: $0, offset: $1), url: "example.com/x") }
            ),
            (
                "lying-length",
                WARCFixture.record("resource", uri: "urn:x", id: "l", block: Array("12345".utf8), contentLength: 3),
                { .contentLengthMismatch(at: InputLocation(file: $0, offset: $1), declared: 3, found: "34 35 0d 0a") }
            ),
            (
                "bad-chunks",
                WARCFixture.record(
                    "response", uri: "http://example.com/c", id: "c",
                    fields: [("Content-Type", "application/http; msgtype=response")],
                    block: WARCFixture.response(
                        headers: [("Transfer-Encoding", "chunked")], body: Array("5\r\nabcde\r\nzz\r\n".utf8))),
                { .badChunkedEncoding(at: InputLocation(file: $0, offset: $1), reason: "\"zz\" is not a chunk size") }
            ),
        ]
        for (name, record, error) in cases {
            let offset = UInt64(good.flatMap { $0 }.count)
            let input = try folder.write("\(name).warc", good.flatMap { $0 } + record + good.flatMap { $0 })
            #expect(throws: error(input, offset), "\(name)") {
                try importFiles([input], in: folder, name: "\(name).webarc")
            }
            #expect(!FileManager.default.fileExists(atPath: folder.file("\(name).webarc")))
            let (summary, _) = try importFiles(
                [input], in: folder, name: "\(name).webarc", options: ImportOptions(keep: .all, skipBad: true))
            #expect(summary.skipped == [error(input, offset)], "\(name)")
            #expect(summary.responses == 2, "\(name): the records before and after are imported")
        }
        #expect(try folder.names().allSatisfy { !$0.hasPrefix(".") }, "no temporary file is left behind")
    }

    @Test("a truncated record and truncated gzip fail at the record's member")
    func truncation() throws {
        let folder = try TemporaryFolder()
        let records = Self.pair(
            "a", uri: "http://example.com/", response: WARCFixture.response(headers: [], body: Self.html))
        let plain = records.flatMap { $0 }
        let cutPlain = try folder.write("cut.warc", Array(plain.prefix(plain.count - 20)))
        #expect(throws: InteropError.self) { try importFiles([cutPlain], in: folder) }
        do {
            _ = try importFiles([cutPlain], in: folder)
        } catch let error as InteropError {
            guard case .truncatedRecord(let at, _, _) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(at.offset == UInt64(records[0].count))
        }
        let gzip = WARCFixture.gzipPerRecord(records)
        let firstMember = WARCFixture.gzipPerRecord([records[0]]).count
        let cutGzip = try folder.write("cut.warc.gz", Array(gzip.prefix(gzip.count - 10)))
        #expect(throws: InteropError.truncatedGzip(at: InputLocation(file: cutGzip, offset: UInt64(firstMember)))) {
            try importFiles([cutGzip], in: folder)
        }
        #expect(try folder.names() == ["cut.warc", "cut.warc.gz"])
    }

    @Test("damaged gzip data is skipped to the next member with --skip-bad")
    func damagedMember() throws {
        let folder = try TemporaryFolder()
        let records =
            Self.pair("a", uri: "http://example.com/a", response: WARCFixture.response(headers: [], body: Self.html))
            + Self.pair("b", uri: "http://example.com/b", response: WARCFixture.response(headers: [], body: Self.html))
        let members = records.map { WARCFixture.gzipPerRecord([$0]) }
        // Damage the CRC of the third member (the response for /b): zlib refuses it at its end.
        var third = members[2]
        third[third.count - 8] ^= 0xFF
        let input = try folder.write("damaged.warc.gz", members[0] + members[1] + third + members[3])
        let thirdOffset = UInt64(members[0].count + members[1].count)
        #expect(
            throws: InteropError.badGzip(
                at: InputLocation(file: input, offset: thirdOffset), reason: "incorrect data check")
        ) {
            try importFiles([input], in: folder)
        }
        #expect(throws: InteropError.self) { try importFiles([input], in: folder) }
        let (summary, _) = try importFiles([input], in: folder, options: ImportOptions(skipBad: true))
        #expect(summary.skipped.map(\.code) == ["bad-gzip"])
        #expect(summary.responses == 1)
        #expect(summary.notes.map(\.kind) == ["recordsLeftOut"], "the request for /b has no response left")
    }

    @Test("inputs that are none of the formats are refused by content")
    func unknownFormat() throws {
        let folder = try TemporaryFolder()
        let text = try folder.write("page.warc", Array("<html>not a warc</html>".utf8))
        #expect(throws: InteropError.unknownFormat(file: text, found: "\"<html>not a \"")) {
            try importFiles([text], in: folder)
        }
        let gzip = try folder.write("x.gz", WARCFixture.gzip(Array("hello".utf8)))
        #expect(throws: InteropError.unknownFormat(file: gzip, found: "gzip data that decompresses to \"hello\"")) {
            try importFiles([gzip], in: folder)
        }
        #expect(throws: InteropError.io(path: folder.file("missing"), operation: .opening("open"), errno: ENOENT)) {
            try importFiles([folder.file("missing")], in: folder)
        }
    }

    @Test("an existing output is refused unless overwriting; a failed overwrite keeps the old file")
    func outputExists() throws {
        let folder = try TemporaryFolder()
        let input = try folder.write(
            "in.warc",
            Self.pair("a", uri: "http://example.com/", response: WARCFixture.response(headers: [], body: [])).flatMap {
                $0
            })
        let output = try folder.write("out.webarc", Array("old".utf8))
        #expect(throws: InteropError.archive(.outputExists(path: output), path: output)) {
            try importFiles([input], in: folder)
        }
        let bad = try folder.write("bad.warc", Array("WARC/1.1\r\nWARC-Type: response\r\n\r\n".utf8))
        #expect(throws: InteropError.self) {
            try importFiles([bad], in: folder, options: ImportOptions(overwrite: true))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data("old".utf8))
        _ = try importFiles([input], in: folder, options: ImportOptions(overwrite: true))
        #expect(try ArchiveReader(path: output).recordCount == 1)
    }
}
