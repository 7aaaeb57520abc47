import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// Partial answers (206, 304, HEAD) kept as what they are, HAR bodies that were not saved,
/// payload digests checked, statuses the format cannot hold (`Spec/interop.md` §2.5, §2.6, §4, §5).
@Suite("Import fidelity") struct ImportFidelityTests {
    static let url = "http://example.com/logo.png"
    static let full = Array("full body of the page\n".utf8)

    /// A response record for `url` with a status, headers and a body.
    static func response(
        _ id: String, status: Int = 200, reason: String = "OK", date: String, headers: [(String, String)] = [],
        body: [UInt8], fields: [(String, String)] = [], url: String = url
    ) -> [UInt8] {
        WARCFixture.record(
            "response", uri: url, id: id, date: date,
            fields: [("Content-Type", "application/http; msgtype=response")] + fields,
            block: WARCFixture.response(
                status, reason: reason, headers: headers + [("Content-Length", "\(body.count)")], body: body))
    }

    static func request(
        _ id: String, method: String = "GET", date: String, concurrentTo: String, headers: [(String, String)]
    ) -> [UInt8] {
        WARCFixture.record(
            "request", uri: url, id: id, date: date,
            fields: [
                ("Content-Type", "application/http; msgtype=request"),
                ("WARC-Concurrent-To", "<urn:uuid:\(concurrentTo)>"),
            ],
            block: WARCFixture.request(method, target: "/logo.png", headers: [("Host", "example.com")] + headers))
    }

    @Test("a newer 206 of a URL never replaces its 200 (warcio's PNG capture, --keep latest and earliest)")
    func rangeCaptureDoesNotReplaceFullOne() throws {
        let folder = try TemporaryFolder()
        let warc = try folder.write(
            "range.warc",
            Self.response("1", date: "2024-05-01T10:00:00Z", body: Self.full)
                + Self.response(
                    "2", status: 206, reason: "Partial Content", date: "2024-05-01T10:00:05Z",
                    headers: [("Content-Range", "bytes 0-3/22")], body: Array(Self.full[0..<4])))
        for keep in [DuplicatePolicy.latest, .earliest] {
            let (summary, path) = try importFiles(
                [warc], in: folder, name: "\(keep).webarc", options: ImportOptions(keep: keep))
            let item = try #require(try ArchiveDump(path)["GET \(Self.url)"])
            #expect(item.status == 200)
            #expect(item.body == Self.full)
            #expect(summary.duplicatesDropped == 1)
        }
    }

    @Test("a 206 alone is kept as a 206, its request marked with the Range its Content-Range implies")
    func rangeCaptureIsMarked() throws {
        let folder = try TemporaryFolder()
        let warc = try folder.write(
            "range.warc",
            Self.response(
                "1", status: 206, reason: "Partial Content", date: "2024-05-01T10:00:05Z",
                headers: [("Content-Range", "bytes 4-7/22")], body: Array(Self.full[4..<8])))
        let item = try #require(try ArchiveDump(importFiles([warc], in: folder).path)["GET \(Self.url)"])
        #expect(item.status == 206)
        #expect(item.headers.value(for: "Content-Range") == "bytes 4-7/22")
        #expect(item.body == Array(Self.full[4..<8]))
        #expect(item.requestHeaders.values(for: "Range") == ["bytes=4-7"])
    }

    @Test("--keep all stores the 200 and the 206; the captured Range request header is kept, not doubled")
    func keepAllStoresBoth() throws {
        let folder = try TemporaryFolder()
        let warc = try folder.write(
            "range.warc",
            Self.response("1", date: "2024-05-01T10:00:00Z", body: Self.full)
                + Self.response(
                    "2", status: 206, reason: "Partial Content", date: "2024-05-01T10:00:05Z",
                    headers: [("Content-Range", "bytes 0-3/22")], body: Array(Self.full[0..<4]))
                + Self.request("3", date: "2024-05-01T10:00:05Z", concurrentTo: "2", headers: [("Range", "bytes=0-3")]))
        let dump = try ArchiveDump(importFiles([warc], in: folder, options: ImportOptions(keep: .all)).path)
        #expect(dump.items.map(\.status).sorted() == [200, 206])
        let partial = try #require(dump.items.first { $0.status == 206 })
        #expect(partial.requestHeaders.values(for: "Range") == ["bytes=0-3"])
        #expect(dump.items.first { $0.status == 200 }?.requestHeaders.values(for: "Range") == [])
    }

    @Test("a HEAD capture keeps its own key and the Content-Length of the representation; GET still gets the 200")
    func headCaptureKeptAsItIs() throws {
        let folder = try TemporaryFolder()
        let head = WARCFixture.record(
            "response", uri: Self.url, id: "2", date: "2024-05-01T10:00:05Z",
            fields: [("Content-Type", "application/http; msgtype=response")],
            block: WARCFixture.response(headers: [("Content-Length", "22"), ("Content-Type", "image/png")], body: []))
        let warc = try folder.write(
            "head.warc",
            Self.response("1", date: "2024-05-01T10:00:00Z", body: Self.full) + head
                + Self.request("3", method: "HEAD", date: "2024-05-01T10:00:05Z", concurrentTo: "2", headers: []))
        let dump = try ArchiveDump(importFiles([warc], in: folder).path)
        let headItem = try #require(dump["HEAD \(Self.url)"])
        #expect(headItem.body == [])
        #expect(headItem.headers.value(for: "Content-Length") == "22")
        #expect(dump["GET \(Self.url)"]?.body == Self.full)
    }

    @Test("a newer 304 never replaces the 200, and a 304 keeps its validators as captured")
    func notModifiedDoesNotReplaceFullOne() throws {
        let folder = try TemporaryFolder()
        let warc = try folder.write(
            "304.warc",
            Self.response("1", date: "2024-05-01T10:00:00Z", body: Self.full)
                + Self.response(
                    "2", status: 304, reason: "Not Modified", date: "2024-05-01T10:00:05Z",
                    headers: [("ETag", "\"a\"")], body: []))
        #expect(try ArchiveDump(importFiles([warc], in: folder).path)["GET \(Self.url)"]?.status == 200)
    }
}

extension ImportFidelityTests {
    /// A HAR with one entry whose `content` is `content`.
    static func har(method: String = "GET", status: Int = 200, content: String) -> [UInt8] {
        Array(
            """
            {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [
              {"startedDateTime": "2024-05-01T10:00:00Z", "time": 1,
               "request": {"method": "\(method)", "url": "\(url)", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [],
                           "cookies": [], "headersSize": -1, "bodySize": 0},
               "response": {"status": \(status), "statusText": "", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
                            "content": \(content), "redirectURL": "", "headersSize": -1, "bodySize": -1},
               "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0}}]}}
            """.utf8)
    }

    @Test(
        "HAR content.text null is a body not saved (noted, not imported), never an empty 200",
        arguments: [
            #"{"size": 0, "mimeType": "image/png", "text": null}"#,
            #"{"size": 1234, "mimeType": "image/png", "text": null}"#,
            #"{"size": -1, "mimeType": "image/png"}"#,
        ])
    func harNullTextIsNotSaved(content: String) throws {
        let folder = try TemporaryFolder()
        let har = try folder.write("null.har", Self.har(content: content))
        let (summary, path) = try importFiles([har], in: folder)
        #expect(summary.notes.map(\.kind) == ["bodyNotSaved"])
        #expect(try ArchiveDump(path).items.isEmpty)
    }

    @Test(
        "HAR: a missing text of size 0, and a HEAD or 204 whatever its text, are empty bodies",
        arguments: [
            ("GET", 200, #"{"size": 0, "mimeType": "text/plain"}"#),
            ("HEAD", 200, #"{"size": 0, "mimeType": "text/plain", "text": null}"#),
            ("GET", 204, #"{"size": 0, "mimeType": "text/plain", "text": null}"#),
        ])
    func harEmptyBodies(method: String, status: Int, content: String) throws {
        let folder = try TemporaryFolder()
        let har = try folder.write("empty.har", Self.har(method: method, status: status, content: content))
        let (summary, path) = try importFiles([har], in: folder)
        #expect(summary.notes.isEmpty)
        #expect(try ArchiveDump(path)["\(method) \(Self.url)"]?.body == [])
    }
}

extension ImportFidelityTests {
    @Test(
        "a WARC-Payload-Digest that is not the payload's is a warning naming the file and offset",
        arguments: [
            "sha1:US2IVAONVMPBUXOTPED5NSC4UHDB3XD4",
            "sha256:0000f9f72108140e178e27c1a20b23ee5b1a92c01d1d6a2880cc1b53e131c671",
        ])
    func payloadDigestMismatchIsReported(digest: String) throws {
        let folder = try TemporaryFolder()
        let first = Self.response("1", date: "2024-05-01T10:00:00Z", body: Self.full, url: "http://example.com/first")
        let warc = try folder.write(
            "digest.warc",
            first
                + Self.response(
                    "2", date: "2024-05-01T10:00:00Z", body: Self.full, fields: [("WARC-Payload-Digest", digest)]))
        let (summary, path) = try importFiles([warc], in: folder)
        let note = try #require(summary.notes.first)
        #expect(summary.notes.count == 1)
        #expect(note.isWarning)
        guard case .payloadDigestMismatch(let at, let url, let declared, _) = note else {
            Issue.record("expected payloadDigestMismatch, got \(note)")
            return
        }
        #expect(at == InputLocation(file: warc, offset: UInt64(first.count)))
        #expect(url == Self.url)
        #expect(declared == digest)
        #expect(try ArchiveDump(path)["GET \(Self.url)"]?.body == Self.full)
    }

    @Test(
        "payload digests that match pass silently: base32, hex, base64, lower case, chunked as stored or de-chunked",
        arguments: [
            ("sha1:R6G3FZE66KREXQ7LRGGEXOAHZXRZCBCV", false),
            ("SHA1:r6g3fze66krexq7lrggexoahzxrzcbcv", false),
            ("sha256:55fcf9f72108140e178e27c1a20b23ee5b1a92c01d1d6a2880cc1b53e131c671", false),
            ("sha-512:Vl32vvX93yNHyKA898MIQ6ZIJz82ZeHvJ4eEOzTxlohx3WMEMNaqUrlTu6LNws8+wl4MPOSYstDhaXdAfatFog==", false),
            ("sha1:SGJS26EGDNU3R3LLSHE53F6VLUJTQUMA", true),  // the chunked bytes as stored (warcio, wget)
            ("sha1:R6G3FZE66KREXQ7LRGGEXOAHZXRZCBCV", true),  // the de-chunked payload (WARC 1.1, Heritrix 3.5)
            ("blake3:ABCDEF", false),  // an algorithm that cannot be checked
        ])
    func matchingPayloadDigestsPass(digest: String, chunked: Bool) throws {
        let folder = try TemporaryFolder()
        let block =
            chunked
            ? WARCFixture.response(
                headers: [("Transfer-Encoding", "chunked")], body: WARCFixture.chunked(Self.full, size: 100))
            : WARCFixture.response(headers: [("Content-Length", "22")], body: Self.full)
        let warc = try folder.write(
            "digest.warc",
            WARCFixture.record(
                "response", uri: Self.url, id: "1",
                fields: [("Content-Type", "application/http; msgtype=response"), ("WARC-Payload-Digest", digest)],
                block: block))
        let (summary, path) = try importFiles([warc], in: folder)
        #expect(summary.notes.isEmpty)
        #expect(try ArchiveDump(path)["GET \(Self.url)"]?.body == Self.full)
    }

    @Test(
        "every payload digest in the public corpus WARCs matches", .enabled(if: Corpus.available, Corpus.skipReason),
        arguments: [
            "pywb-iana.warc.gz", "pywb-dupes.warc.gz", "pywb-example-wget-1-14.warc.gz", "pywb-example-wpull.warc.gz",
            "pywb-post-test.warc.gz", "warcio-example-iana.org-chunked.warc",
            "warcio-example-space-in-target-uri.warc.gz",
        ])
    func corpusDigestsMatch(name: String) throws {
        let folder = try TemporaryFolder()
        let (summary, _) = try importFiles([try Corpus.path(name)], in: folder, options: ImportOptions(keep: .all))
        #expect(summary.notes.filter { $0.kind == "payloadDigestMismatch" }.map(\.description) == [])
    }
}

extension ImportFidelityTests {
    @Test(
        "a WARC status of three digits outside 100–599 leaves that record out with a note; the import goes on",
        arguments: [999, 0, 600, 99])
    func statusOutOfRangeIsLeftOut(status: Int) throws {
        let folder = try TemporaryFolder()
        let odd = WARCFixture.record(
            "response", uri: "http://example.com/odd", id: "2",
            fields: [("Content-Type", "application/http; msgtype=response")],
            block: Array("HTTP/1.1 \(String(format: "%03d", status)) Odd\r\nContent-Length: 0\r\n\r\n".utf8))
        let first = Self.response("1", date: "2024-05-01T10:00:00Z", body: Self.full)
        let warc = try folder.write("odd.warc", first + odd)
        let (summary, path) = try importFiles([warc], in: folder)
        #expect(
            summary.notes == [
                .statusOutOfRange(
                    at: InputLocation(file: warc, offset: UInt64(first.count)), url: "http://example.com/odd",
                    status: status)
            ])
        #expect(try ArchiveDump(path).items.map(\.key) == ["GET \(Self.url)"])
    }

    @Test("a status that is not three digits is a bad HTTP message", arguments: ["2000", "20", "2O0", "+20"])
    func statusNotThreeDigitsIsBad(status: String) throws {
        let folder = try TemporaryFolder()
        let warc = try folder.write(
            "bad.warc",
            WARCFixture.record(
                "response", uri: Self.url, id: "1", fields: [("Content-Type", "application/http; msgtype=response")],
                block: Array("HTTP/1.1 \(status) Odd\r\nContent-Length: 0\r\n\r\n".utf8)))
        let error = #expect(throws: InteropError.self) { try importFiles([warc], in: folder) }
        #expect(error?.code == "bad-http-message")
    }
}
