import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// HAR 1.2 import on small made-up files (mapping: `Spec/interop.md` §5).
@Suite("HAR import")
struct HARImportTests {
    /// A HAR entry as JSON-ready dictionaries.
    static func entry(
        _ url: String, status: Int = 200, headers: [[String: String]] = [], content: [String: Any],
        redirectURL: String = "", started: String = "2024-05-01T10:00:00.250+02:00", method: String = "GET"
    ) -> [String: Any] {
        [
            "startedDateTime": started, "time": 1,
            "request": [
                "method": method, "url": url, "httpVersion": "HTTP/1.1",
                "headers": [["name": "Accept", "value": "*/*"]],
                "cookies": [], "queryString": [], "headersSize": -1, "bodySize": 0,
            ] as [String: Any],
            "response": [
                "status": status, "statusText": "X", "httpVersion": "HTTP/1.1", "headers": headers, "cookies": [],
                "content": content, "redirectURL": redirectURL, "headersSize": -1, "bodySize": -1,
            ] as [String: Any],
            "cache": [:], "timings": ["send": 0, "wait": 0, "receive": 0],
        ]
    }

    static func har(_ entries: [[String: Any]], bom: Bool = false) throws -> [UInt8] {
        let json = try JSONSerialization.data(
            withJSONObject: ["log": ["version": "1.2", "creator": ["name": "t", "version": "1"], "entries": entries]],
            options: [.prettyPrinted])
        return (bom ? [0xEF, 0xBB, 0xBF] : []) + Array(json)
    }

    @Test("text and base64 bodies, redirects, unsaved bodies and failed requests")
    func entries() throws {
        let folder = try TemporaryFolder()
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 255]
        let input = try folder.write(
            "a.har",
            try Self.har(
                [
                    Self.entry(
                        "https://example.com/",
                        headers: [
                            ["name": ":status", "value": "200"],
                            ["name": "Content-Type", "value": "text/html; charset=utf-8"],
                            ["name": "Content-Encoding", "value": "gzip"], ["name": "Content-Length", "value": "20"],
                        ],
                        content: ["size": 12, "mimeType": "text/html", "text": "<p>héllo</p>"]),
                    Self.entry(
                        "https://example.com/i.png",
                        content: [
                            "size": png.count, "mimeType": "image/png", "text": Data(png).base64EncodedString(),
                            "encoding": "base64",
                        ]),
                    Self.entry(
                        "https://example.com/old", status: 301, headers: [["name": "Location", "value": "/"]],
                        content: ["size": 0, "mimeType": ""], redirectURL: "https://example.com/"),
                    Self.entry(
                        "https://example.com/lost.js", content: ["size": 500, "mimeType": "application/javascript"]),
                    Self.entry("https://example.com/blocked", status: 0, content: ["size": 0, "mimeType": ""]),
                    Self.entry("https://example.com/empty", status: 204, content: ["size": 0, "mimeType": ""]),
                    Self.entry(
                        "https://example.com/latin",
                        headers: [["name": "Content-Type", "value": "text/plain; charset=iso-8859-1"]],
                        content: ["size": 4, "mimeType": "text/plain", "text": "café"]),
                ], bom: true))
        let (summary, path) = try importFiles([input], in: folder)
        #expect(summary.inputs.first?.format == .har)
        #expect(summary.responses == 4)
        #expect(summary.redirects == 1)
        #expect(summary.notes.map(\.kind) == ["bodyNotSaved", "noResponse"])
        let dump = try ArchiveDump(path)
        let page = try #require(dump["GET https://example.com/"])
        #expect(page.body == Array("<p>héllo</p>".utf8))
        #expect(
            page.headers == [
                HTTPHeader("Content-Type", "text/html; charset=utf-8"), HTTPHeader("Content-Length", "13"),
            ],
            "pseudo-headers dropped; the HAR body is decoded, so Content-Encoding goes and Content-Length is fixed")
        #expect(page.captureDate == Date(timeIntervalSince1970: 1_714_550_400.25))
        #expect(dump["GET https://example.com/i.png"]?.body == png)
        #expect(dump["GET https://example.com/old"]?.target == "https://example.com/")
        #expect(dump["GET https://example.com/empty"]?.body == [])
        #expect(
            dump["GET https://example.com/latin"]?.body == [0x63, 0x61, 0x66, 0xE9],
            "text goes back to its declared charset")
    }

    @Test("a damaged entry is named by number and offset; --skip-bad imports the others")
    func badEntry() throws {
        let folder = try TemporaryFolder()
        var entries = [
            Self.entry("https://example.com/a", content: ["size": 1, "mimeType": "text/plain", "text": "a"])
        ]
        entries.append(
            Self.entry(
                "https://example.com/b",
                content: ["size": 1, "mimeType": "text/plain", "text": "%%%", "encoding": "base64"]))
        entries.append(Self.entry("no-scheme/c", content: ["size": 1, "mimeType": "text/plain", "text": "c"]))
        let bytes = try Self.har(entries)
        let input = try folder.write("bad.har", bytes)
        let offsets = JSONOffsets.elementOffsets(in: bytes, path: ["log", "entries"])
        #expect(offsets.count == 3)
        #expect(
            throws: InteropError.badHAREntry(
                at: InputLocation(file: input, offset: UInt64(offsets[1]), item: "entry 1"),
                reason: "content.text is not valid base64")
        ) {
            try importFiles([input], in: folder)
        }
        let (summary, _) = try importFiles([input], in: folder, options: ImportOptions(skipBad: true))
        #expect(summary.responses == 1)
        #expect(summary.skipped.map(\.code) == ["bad-har-entry", "bad-url"])
        #expect(
            summary.skipped.last?.location == InputLocation(file: input, offset: UInt64(offsets[2]), item: "entry 2"))
    }

    @Test("a file that is not a HAR log fails as a whole")
    func notHAR() throws {
        let folder = try TemporaryFolder()
        let broken = try folder.write("broken.har", Array("{\"log\": [".utf8))
        #expect(throws: InteropError.self) { try importFiles([broken], in: folder) }
        let other = try folder.write("other.json", Array("{\"a\": 1}".utf8))
        #expect(throws: InteropError.badJSON(at: InputLocation(file: other), reason: "no log.entries array")) {
            try importFiles([other], in: folder)
        }
        #expect(try folder.names() == ["broken.har", "other.json"])
    }
}
