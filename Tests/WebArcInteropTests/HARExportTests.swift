import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// The shape of exported HAR files, read as plain JSON (mapping: `Spec/interop.md` §7.2).
@Suite("HAR export")
struct HARExportTests {
    /// Imports `input`, exports it as HAR, and returns the `log` object and its entries by request URL.
    static func exportedLog(
        _ input: String, in folder: TemporaryFolder
    ) throws -> (log: [String: Any], entries: [String: [String: Any]]) {
        let (_, archive) = try importFiles([input], in: folder)
        let har = folder.file("out.har")
        _ = try ArchiveExporter(options: ExportOptions(date: RoundTripTests.fixedDate)).run(
            archive: archive, format: .har, output: har)
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any]
        let log = try #require(root?["log"] as? [String: Any])
        let entries = try #require(log["entries"] as? [[String: Any]])
        let byURL = Dictionary(
            entries.map { (($0["request"] as? [String: Any])?["url"] as? String ?? "", $0) },
            uniquingKeysWith: { a, _ in a })
        #expect(byURL.count == entries.count, "one entry per URL here")
        return (log, byURL)
    }

    @Test("log, creator and every entry have the fields HAR 1.2 requires")
    func shape() throws {
        let folder = try TemporaryFolder()
        let (log, entries) = try Self.exportedLog(try RoundTripTests.madeUpHAR(in: folder), in: folder)
        #expect(log["version"] as? String == "1.2")
        let creator = try #require(log["creator"] as? [String: Any])
        #expect(creator["name"] as? String == "webarc")
        #expect((creator["version"] as? String)?.isEmpty == false)
        #expect(entries.count == 3)
        for (url, entry) in entries {
            #expect((entry["startedDateTime"] as? String).flatMap(ISODate.parse) != nil, "\(url)")
            #expect(entry["time"] is NSNumber && entry["cache"] is [String: Any], "\(url)")
            let timings = try #require(entry["timings"] as? [String: Any], "\(url)")
            #expect(["send", "wait", "receive"].allSatisfy { timings[$0] is NSNumber }, "\(url)")
            let request = try #require(entry["request"] as? [String: Any], "\(url)")
            #expect(request["method"] as? String == "GET")
            #expect(
                request["httpVersion"] is String && request["headers"] is [[String: String]]
                    && request["queryString"] is [Any])
            #expect(
                request["cookies"] is [Any] && request["headersSize"] is NSNumber && request["bodySize"] is NSNumber)
            let response = try #require(entry["response"] as? [String: Any], "\(url)")
            #expect(
                response["status"] is NSNumber && response["statusText"] is String && response["httpVersion"] is String)
            #expect(
                response["headers"] is [[String: String]] && response["cookies"] is [Any]
                    && response["redirectURL"] is String)
            #expect(response["headersSize"] is NSNumber && response["bodySize"] is NSNumber)
            let content = try #require(response["content"] as? [String: Any], "\(url)")
            #expect(content["size"] is NSNumber && content["mimeType"] is String, "\(url)")
        }
        let text = try #require(Self.content(entries["https://example.com/"]))
        #expect(text["text"] as? String == "<p/>")
        #expect(text["encoding"] == nil, "a text body is written as text")
        let binary = try #require(Self.content(entries["https://example.com/x.bin"]))
        #expect(binary["encoding"] as? String == "base64")
        #expect(binary["text"] as? String == "AAEC")
        #expect(binary["size"] as? Int == 3)
        let redirect = try #require(entries["https://example.com/go"]?["response"] as? [String: Any])
        #expect(redirect["status"] as? Int == 302)
        #expect(redirect["redirectURL"] as? String == "https://example.com/")
        #expect(
            (redirect["headers"] as? [[String: String]])?.contains([
                "name": "Location", "value": "https://example.com/",
            ]) == true)
    }

    @Test("a body still under a coding webarc cannot decode is base64 with a comment")
    func stillEncoded() throws {
        let folder = try TemporaryFolder()
        let (_, entries) = try Self.exportedLog(try RoundTripTests.mixedWARC(in: folder), in: folder)
        let script = try #require(Self.content(entries["http://example.com/b.js"]))
        #expect(script["encoding"] as? String == "base64")
        #expect(script["text"] as? String == Data([9, 8, 7]).base64EncodedString())
        #expect((script["comment"] as? String)?.contains("br") == true)
        let page = try #require(Self.content(entries["http://example.com/"]))
        #expect(page["encoding"] == nil, "the gzip page was decoded on import, so it is text")
        #expect((page["text"] as? String)?.hasPrefix("round trip ") == true)
    }

    static func content(_ entry: [String: Any]?) -> [String: Any]? {
        (entry?["response"] as? [String: Any])?["content"] as? [String: Any]
    }
}
