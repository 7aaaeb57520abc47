import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Safari `.webarchive` import and export, and the round trip between them (`Spec/interop.md` §6, §7.3).
@Suite("Safari web archives")
struct WebArchiveTests {
    static let page = "https://example.com/page"
    static let html =
        #"<html><link rel="stylesheet" href="style.css"><img src="img/a.png"><a href="other.html">x</a><iframe src="frame.html"></iframe></html>"#

    /// An archived `NSHTTPURLResponse`, as Safari stores one per subresource.
    static func response(_ url: String, status: Int = 200, headers: [String: String]) -> Data {
        let http = HTTPURLResponse(
            url: URL(string: url)!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(http, forKey: "WebResourceResponse")
        archiver.finishEncoding()
        return archiver.encodedData
    }

    static func resource(
        _ url: String, _ text: String, mime: String, status: Int = 200, response: Bool = true
    ) -> [String: Any] {
        var resource: [String: Any] = [
            "WebResourceURL": url, "WebResourceData": Data(text.utf8), "WebResourceMIMEType": mime,
        ]
        if mime.hasPrefix("text/") { resource["WebResourceTextEncodingName"] = "UTF-8" }
        if response {
            resource["WebResourceResponse"] = Self.response(
                url, status: status, headers: ["Content-Type": mime, "X-Served-By": "test"])
        } else {
            resource["WebResourceFrameName"] = ""
        }
        return resource
    }

    /// A page with a stylesheet (which uses a font), an image, a script-loaded JSON file (referenced
    /// nowhere in the HTML), a missing image (404) and a frame with its own image.
    static func fixture() -> [String: Any] {
        [
            "WebMainResource": resource(page, html, mime: "text/html", response: false),
            "WebSubresources": [
                resource("https://example.com/style.css", "body { background: url(font.woff) }", mime: "text/css"),
                resource("https://example.com/font.woff", "WOFF", mime: "font/woff"),
                resource("https://example.com/img/a.png", "PNG", mime: "image/png", status: 404),
                resource("https://example.com/data.json", "{}", mime: "application/json"),
            ],
            "WebSubframeArchives": [
                [
                    "WebMainResource": resource(
                        "https://example.com/frame.html", #"<img src="f.png">"#, mime: "text/html", response: false),
                    "WebSubresources": [resource("https://example.com/f.png", "F", mime: "image/png")],
                ]
            ],
        ]
    }

    static func write(_ archive: [String: Any], to path: String) throws {
        try PropertyListSerialization.data(fromPropertyList: archive, format: .binary, options: 0).write(
            to: URL(fileURLWithPath: path))
    }

    @Test("every resource becomes a response with its archived status and headers")
    func importsResources() throws {
        let folder = try TemporaryFolder()
        let input = folder.file("page.webarchive")
        try Self.write(Self.fixture(), to: input)
        let (summary, path) = try importFiles([input], in: folder)
        #expect(summary.inputs.first?.format == .webarchive)
        #expect(summary.responses == 7)
        #expect(summary.startURL == Self.page)
        let dump = try ArchiveDump(path)
        let main = try #require(dump["GET \(Self.page)"])
        #expect(main.headers == [HTTPHeader("Content-Type", "text/html; charset=UTF-8")])
        let image = try #require(dump["GET https://example.com/img/a.png"])
        #expect(image.status == 404)
        #expect(image.headers.value(for: "X-Served-By") == "test")
        #expect(image.requestHeaders == [HTTPHeader("Referer", Self.page)])
        let frame = try #require(dump["GET https://example.com/frame.html"])
        #expect(frame.requestHeaders == [HTTPHeader("Referer", Self.page), HTTPHeader("Sec-Fetch-Dest", "iframe")])
        #expect(
            dump["GET https://example.com/f.png"]?.requestHeaders == [
                HTTPHeader("Referer", "https://example.com/frame.html")
            ])
    }

    @Test("an XML property list .webarchive imports exactly as the binary one does")
    func xmlPropertyList() throws {
        let folder = try TemporaryFolder()
        // One fixture for both files: each archived response's header order is a dictionary's.
        let fixture = Self.fixture()
        let binary = folder.file("binary.webarchive")
        try Self.write(fixture, to: binary)
        let xml = folder.file("xml.webarchive")
        try PropertyListSerialization.data(fromPropertyList: fixture, format: .xml, options: 0).write(
            to: URL(fileURLWithPath: xml))
        #expect(try Data(contentsOf: URL(fileURLWithPath: xml)).starts(with: Array("<?xml".utf8)))
        let (summary, fromXML) = try importFiles([xml], in: folder, name: "xml.webarc")
        #expect(summary.inputs.first?.format == .webarchive)
        #expect(summary.responses == 7)
        #expect(summary.startURL == Self.page)
        let (_, fromBinary) = try importFiles([binary], in: folder, name: "binary.webarc")
        let (xmlItems, binaryItems) = (try ArchiveDump(fromXML).items, try ArchiveDump(fromBinary).items)
        #expect(xmlItems.count == binaryItems.count)
        for (a, b) in zip(xmlItems, binaryItems) { #expect(a == b) }
    }

    @Test("webarchive → webarc → webarchive keeps every resource, frame, status, header and byte")
    func roundTrip() throws {
        let folder = try TemporaryFolder()
        let input = folder.file("page.webarchive")
        try Self.write(Self.fixture(), to: input)
        let (_, archive) = try importFiles([input], in: folder)
        let output = folder.file("again.webarchive")
        let summary = try ArchiveExporter(options: ExportOptions(page: Self.page)).run(
            archive: archive, format: .webarchive, output: output)
        #expect(summary.responses == 7)
        let again = try #require(
            try PropertyListSerialization.propertyList(
                from: Data(contentsOf: URL(fileURLWithPath: output)), format: nil) as? [String: Any])
        try Self.expectSame(again, Self.fixture())
    }

    /// Compares two web archives resource by resource (order of subresources aside).
    static func expectSame(_ actual: [String: Any], _ expected: [String: Any]) throws {
        let actualMain = try #require(actual["WebMainResource"] as? [String: Any])
        let expectedMain = try #require(expected["WebMainResource"] as? [String: Any])
        try expectSameResource(actualMain, expectedMain)
        func subresources(_ archive: [String: Any]) -> [[String: Any]] {
            (archive["WebSubresources"] as? [[String: Any]] ?? []).sorted {
                "\($0["WebResourceURL"] ?? "")" < "\($1["WebResourceURL"] ?? "")"
            }
        }
        let actualSubs = subresources(actual)
        let expectedSubs = subresources(expected)
        #expect(
            actualSubs.map { $0["WebResourceURL"] as? String } == expectedSubs.map { $0["WebResourceURL"] as? String })
        for (a, e) in zip(actualSubs, expectedSubs) { try expectSameResource(a, e) }
        let actualFrames = actual["WebSubframeArchives"] as? [[String: Any]] ?? []
        let expectedFrames = expected["WebSubframeArchives"] as? [[String: Any]] ?? []
        #expect(actualFrames.count == expectedFrames.count)
        for (a, e) in zip(actualFrames, expectedFrames) { try expectSame(a, e) }
    }

    static func expectSameResource(_ actual: [String: Any], _ expected: [String: Any]) throws {
        let url = expected["WebResourceURL"] as? String ?? "?"
        #expect(actual["WebResourceURL"] as? String == url)
        #expect(actual["WebResourceData"] as? Data == expected["WebResourceData"] as? Data, "\(url)")
        #expect(actual["WebResourceMIMEType"] as? String == expected["WebResourceMIMEType"] as? String, "\(url)")
        #expect(
            (actual["WebResourceTextEncodingName"] as? String)?.lowercased()
                == (expected["WebResourceTextEncodingName"] as? String)?.lowercased(), "\(url)")
        guard let expectedBlob = expected["WebResourceResponse"] as? Data else {
            #expect(actual["WebResourceResponse"] == nil, "\(url): the main resource has no response")
            return
        }
        let blob = try #require(actual["WebResourceResponse"] as? Data, "\(url)")
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: blob)
        unarchiver.requiresSecureCoding = false
        let decoded = try #require(
            unarchiver.decodeObject(forKey: "WebResourceResponse") as? HTTPURLResponse,
            "Foundation reads the archived response back")
        let original = try #require(ArchivedResponse(data: expectedBlob))
        #expect(decoded.statusCode == original.status, "\(url)")
        let headers = Dictionary(uniqueKeysWithValues: decoded.allHeaderFields.map { ("\($0.key)", "\($0.value)") })
        #expect(headers == Dictionary(uniqueKeysWithValues: original.headers.map { ($0.name, $0.value) }), "\(url)")
    }

    @Test("a response archived with unknown keys still yields its status and headers")
    func unknownResponseLayout() throws {
        let blob = try NSKeyedArchiver.archivedData(withRootObject: OtherResponse(), requiringSecureCoding: false)
        let decoded = try #require(ArchivedResponse(data: blob))
        #expect(decoded.status == 203)
        #expect(
            decoded.headers.sorted { $0.name < $1.name } == [
                HTTPHeader("Content-Type", "text/css"), HTTPHeader("ETag", "\"x\""),
            ])
    }

    @Test("exporting names a missing page or no page; nothing is left at -o")
    func exportErrors() throws {
        let folder = try TemporaryFolder()
        let archive = folder.file("a.webarc")
        let writer = try ArchiveWriter(path: archive)
        try writer.add(ResponseRecord(request: RequestRecord(url: "http://x/"), body: try writer.addBody([UInt8]())))
        try writer.finish()
        let output = folder.file("out.webarchive")
        #expect(throws: InteropError.noPage(archive: archive)) {
            try ArchiveExporter().run(archive: archive, format: .webarchive, output: output)
        }
        #expect(throws: InteropError.pageNotFound(url: "http://y/", archive: archive)) {
            try ArchiveExporter(options: ExportOptions(page: "http://y/")).run(
                archive: archive, format: .webarchive, output: output)
        }
        #expect(try folder.names() == ["a.webarc"])
    }

    @Test("a property list without WebMainResource, or a resource without URL, is refused")
    func badWebArchive() throws {
        let folder = try TemporaryFolder()
        let notArchive = folder.file("a.webarchive")
        try Self.write(["Other": "x"], to: notArchive)
        #expect(
            throws: InteropError.badPropertyList(
                at: InputLocation(file: notArchive), reason: "no WebMainResource dictionary at the top level")
        ) {
            try importFiles([notArchive], in: folder)
        }
        let noURL = folder.file("b.webarchive")
        var archive = Self.fixture()
        archive["WebSubresources"] = [["WebResourceData": Data()]]
        try Self.write(archive, to: noURL)
        #expect(
            throws: InteropError.badWebArchive(
                at: InputLocation(file: noURL, item: "WebSubresources[0]"), reason: "no WebResourceURL")
        ) {
            try importFiles([noURL], in: folder)
        }
        let (summary, _) = try importFiles([noURL], in: folder, options: ImportOptions(skipBad: true))
        #expect(summary.responses == 3)
    }
}

/// A response class archived under other keys than corelibs-foundation's, as Darwin's private
/// encoding may be.
final class OtherResponse: NSObject, NSCoding {
    override init() {}
    init?(coder: NSCoder) {}

    func encode(with coder: NSCoder) {
        coder.encode(203, forKey: "httpStatusCode")
        coder.encode(["Content-Type": "text/css", "ETag": "\"x\""] as NSDictionary, forKey: "fields")
        coder.encode(4096, forKey: "expectedLength")
    }
}

/// The hand-written binary property-list writer the `.webarchive` export uses for stable bytes.
@Suite("Binary property lists")
struct BinaryPropertyListTests {
    @Test("Foundation reads back every kind of value the writer writes, long and non-ASCII ones too")
    func foundationReadsItBack() throws {
        let long = String(repeating: "x", count: 300)
        let value = PropertyListValue.dictionary([
            ("ascii", .string("hello")), ("unicode", .string("café ☕ 𝄞")), ("long", .string(long)),
            ("data", .data(Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0) }))),
            (
                "numbers",
                .array([.integer(0), .integer(255), .integer(256), .integer(70_000), .integer(1 << 40), .integer(-1)])
            ),
            ("flags", .array([.boolean(true), .boolean(false)])),
            ("many", .array((0..<300).map { .integer($0) })),
        ])
        let data = BinaryPropertyListWriter.data(value)
        #expect(data.prefix(8) == Data("bplist00".utf8))
        let parsed = try #require(
            try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any])
        #expect(parsed["ascii"] as? String == "hello")
        #expect(parsed["unicode"] as? String == "café ☕ 𝄞")
        #expect(parsed["long"] as? String == long)
        #expect((parsed["data"] as? Data)?.count == 70_000)
        #expect((parsed["data"] as? Data)?[69_999] == UInt8(truncatingIfNeeded: 69_999))
        #expect(
            (parsed["numbers"] as? [Any])?.compactMap { ($0 as? NSNumber)?.int64Value } == [
                0, 255, 256, 70_000, 1 << 40, -1,
            ])
        #expect((parsed["flags"] as? [Any])?.compactMap { $0 as? Bool } == [true, false])
        #expect((parsed["many"] as? [Any])?.count == 300)
    }

    @Test("the archived response is a keyed archive whose headers keep their stored order and case")
    func archivedResponse() throws {
        let record = ResponseRecord(
            request: RequestRecord(url: "https://example.com/a.txt"), status: 404, reason: nil,
            headers: [HTTPHeader("ETag", "\"a\""), HTTPHeader("X-Two", "1"), HTTPHeader("x-two", "2")],
            mimeType: "text/plain", textEncoding: nil,
            body: BodyReference(digest: BodyDigest(hex: "d41d8cd98f00b204e9800998ecf8427e")!), bodyLength: 0,
            captureDate: nil)
        let data = WebArchiveExporter.archivedResponse(
            record, url: "https://example.com/a.txt", mimeType: "text/plain", textEncoding: "utf-8")
        #expect(
            data
                == WebArchiveExporter.archivedResponse(
                    record, url: "https://example.com/a.txt", mimeType: "text/plain", textEncoding: "utf-8"))
        let archive = try #require(KeyedArchive(data: data))
        let response = try #require(archive.resolve(archive.top["WebResourceResponse"]) as? [String: Any])
        #expect((response["NS.statusCode"] as? NSNumber)?.intValue == 404)
        #expect(archive.string(response["NS.url"]) == "https://example.com/a.txt")
        let headers = try #require(archive.dictionary(response["NS.allHeaderFields"]))
        #expect(headers.map(\.key) == ["ETag", "X-Two"])
        #expect(headers.map { $0.value as? String } == ["\"a\"", "1, 2"])
    }
}
