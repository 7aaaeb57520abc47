import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// How WARC records become captures: versions, request joining and revisit resolution
/// (`Spec/interop.md` §2.2, §2.4, §2.6), one made-up file each.
@Suite("WARC captures")
struct WARCCaptureTests {
    static let responseType = ("Content-Type", "application/http; msgtype=response")
    static let requestType = ("Content-Type", "application/http; msgtype=request")

    @Test("WARC/1.0 records, and a 1.0 revisit profile, read like 1.1")
    func version10() throws {
        let folder = try TemporaryFolder()
        let body = Array("<p>one point oh</p>".utf8)
        let records = [
            WARCFixture.record(
                "warcinfo", id: "i", fields: [("Content-Type", "application/warc-fields")],
                block: Array("software: old\r\n".utf8), version: "WARC/1.0"),
            WARCFixture.record(
                "response", uri: "http://example.com/", id: "o",
                fields: [Self.responseType, ("WARC-Payload-Digest", "sha1:ONE")],
                block: WARCFixture.response(headers: [("Content-Type", "text/html")], body: body), version: "WARC/1.0"),
            WARCFixture.record(
                "revisit", uri: "http://example.com/again", id: "r",
                fields: [
                    Self.responseType,
                    ("WARC-Profile", "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"),
                    ("WARC-Payload-Digest", "sha1:ONE"),
                ], block: Array("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".utf8), version: "WARC/1.0"),
        ]
        let input = try folder.write("old.warc.gz", WARCFixture.gzipPerRecord(records))
        let (summary, path) = try importFiles([input], in: folder)
        #expect(summary.inputs.first?.format == .warcGzip)
        #expect(summary.inputs.first?.records == 3)
        #expect(summary.responses == 2)
        // The fixture's payload digests are labels for revisit matching, not digests of the payloads.
        #expect(summary.notes.map(\.kind).allSatisfy { $0 == "payloadDigestMismatch" }, "\(summary.notes)")
        let dump = try ArchiveDump(path)
        #expect(dump["GET http://example.com/"]?.body == body)
        #expect(dump["GET http://example.com/again"]?.body == body, "the 1.0 revisit resolves by payload digest")
        #expect(
            try ArchiveReader(path: path).metadata.entries.contains {
                $0.key == "warcinfo" && $0.value.contains("software: old")
            })
    }

    @Test("without WARC-Concurrent-To, requests join responses by target URI, first to first")
    func joinByTargetURI() throws {
        let folder = try TemporaryFolder()
        func response(_ id: String, date: String, body: String) -> [UInt8] {
            WARCFixture.record(
                "response", uri: "http://example.com/form", id: id, date: date, fields: [Self.responseType],
                block: WARCFixture.response(headers: [], body: Array(body.utf8)))
        }
        func request(_ id: String, date: String, asked: String) -> [UInt8] {
            WARCFixture.record(
                "request", uri: "http://example.com/form", id: id, date: date, fields: [Self.requestType],
                block: WARCFixture.request("POST", target: "/form", headers: [("X-Asked", asked)]))
        }
        let records = [
            request("q1", date: "2024-05-01T10:00:00Z", asked: "first"),
            response("s1", date: "2024-05-01T10:00:00Z", body: "one"),
            request("q2", date: "2024-05-02T10:00:00Z", asked: "second"),
            response("s2", date: "2024-05-02T10:00:00Z", body: "two"),
            request("q3", date: "2024-05-03T10:00:00Z", asked: "unanswered"),
        ]
        let input = try folder.write("in.warc", records.flatMap { $0 })
        let (summary, path) = try importFiles([input], in: folder, options: ImportOptions(keep: .all))
        let items = try ArchiveDump(path).items
        #expect(items.map(\.key) == ["POST http://example.com/form", "POST http://example.com/form"])
        let asked = Dictionary(
            uniqueKeysWithValues: items.map {
                (String(decoding: $0.body ?? [], as: UTF8.self), $0.requestHeaders.value(for: "X-Asked"))
            })
        #expect(asked == ["one": "first", "two": "second"])
        #expect(summary.notes == [.recordsLeftOut(file: input, type: "request (no response)", count: 1)])
    }

    @Test("a revisit resolves through WARC-Refers-To before its payload digest, and keeps its own HTTP headers")
    func revisitByRefersTo() throws {
        let folder = try TemporaryFolder()
        func response(_ id: String, _ path: String, body: String, digest: String) -> [UInt8] {
            WARCFixture.record(
                "response", uri: "http://example.com/" + path, id: id,
                fields: [Self.responseType, ("WARC-Payload-Digest", digest)],
                block: WARCFixture.response(
                    headers: [("Content-Type", "text/plain"), ("X-From", id)], body: Array(body.utf8)))
        }
        let records = [
            response("a", "a", body: "original", digest: "sha1:AAAA"),
            response("b", "b", body: "decoy", digest: "sha1:BBBB"),
            // Names a by WARC-Refers-To but carries b's digest: WARC-Refers-To wins (§2.6 step 1).
            WARCFixture.record(
                "revisit", uri: "http://example.com/r", id: "r", date: "2024-05-02T10:00:00Z",
                fields: [
                    Self.responseType, ("WARC-Profile", WARCExporter.revisitProfile),
                    ("WARC-Refers-To", "<urn:uuid:a>"),
                    ("WARC-Payload-Digest", "sha1:BBBB"),
                ], block: Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-From: revisit\r\n\r\n".utf8)),
            // No digest, no HTTP block: resolved by WARC-Refers-To alone, the original's headers taken.
            WARCFixture.record(
                "revisit", uri: "http://example.com/s", id: "s", date: "2024-05-02T10:00:00Z",
                fields: [
                    ("WARC-Profile", WARCExporter.revisitProfile), ("WARC-Refers-To", "<urn:uuid:b>"),
                ], block: []),
        ]
        let input = try folder.write("in.warc", records.flatMap { $0 })
        let (summary, path) = try importFiles([input], in: folder)
        // The fixture's payload digests are labels for revisit matching, not digests of the payloads.
        #expect(summary.notes.map(\.kind).allSatisfy { $0 == "payloadDigestMismatch" }, "\(summary.notes)")
        let dump = try ArchiveDump(path)
        let revisit = try #require(dump["GET http://example.com/r"])
        #expect(revisit.body == Array("original".utf8))
        #expect(revisit.headers == [HTTPHeader("Content-Type", "text/plain"), HTTPHeader("X-From", "revisit")])
        let bare = try #require(dump["GET http://example.com/s"])
        #expect(bare.body == Array("decoy".utf8))
        #expect(bare.headers.value(for: "X-From") == "b")
        #expect(summary.bodiesStored == 2)
    }
}
