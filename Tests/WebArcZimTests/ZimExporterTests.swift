import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcZim

@Suite("ZIM export, checked against zimcheck and zimdump", .enabled(if: ZimTools.available, ZimTools.skipReason))
struct ZimExporterTests {
    /// The site packed as `webarc pack` packs it, then exported.
    private func exported(
        _ scratch: TemporaryFolder, options: ZimExportOptions = ZimExportOptions()
    ) throws -> (archive: String, zim: String, summary: ZimExportSummary) {
        let folder = try ZimSite.write(in: scratch)
        let archive = scratch.file("site.webarc")
        _ = try SitePacker(options: SitePacker.Options()).pack(folder: folder, to: archive)
        let zim = scratch.file("site.zim")
        let summary = try ZimExporter(options: options).run(archive: archive, output: zim)
        return (archive, zim, summary)
    }

    @Test(
        "zimcheck passes the exported ZIM, with no redundant data",
        .enabled(if: ZimTools.path("zimcheck") != nil, "zimcheck not installed"))
    func zimcheckPasses() async throws {
        let scratch = try TemporaryFolder()
        let (_, zim, _) = try exported(scratch)
        let check = try await ZimTools.run("zimcheck", [zim])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("Overall Test Status: Pass"))
        #expect(!check.output.contains("[WARNING]"), "\(check.output)")
    }

    @Test("zimdump shows every file of the site, byte for byte; an empty one is listed in WebArc-Empty")
    func filesComeBack() async throws {
        let scratch = try TemporaryFolder()
        let (_, zim, summary) = try exported(scratch)
        for (name, bytes) in ZimSite.files where !bytes.isEmpty {
            let shown = try await ZimTools.run("zimdump", ["show", "--url=\(name)", zim])
            #expect(shown.status == 0)
            #expect(shown.bytes == bytes, "\(name)")
        }
        #expect(try ZimMetadata(reading: ZimArchive(path: zim)).empties == ["empty.txt": "text/plain; charset=utf-8"])
        #expect(summary.mainPath == "index.html")
        #expect(summary.baseURL == "http://localhost/")
    }

    @Test("metadata: the main page's title, the mandatory names, webarc's base URL")
    func metadata() throws {
        let scratch = try TemporaryFolder()
        let (_, zim, _) = try exported(scratch)
        let archive = try ZimArchive(path: zim)
        let values = try ZimMetadata(reading: archive)
        #expect(values.text("Title") == "Home & away")
        #expect(values.text("Language") == "eng")
        #expect(values.text("Name") == "site")
        #expect(values.text("Scraper") == WebArcVersion.creator)
        #expect(values.text(ZimPaths.baseURLMetadata) == "http://localhost/")
        #expect(values.bytes("Illustration_48x48@1") == ZimIllustration.png())
        for name in ["Creator", "Publisher", "Date", "Description"] { #expect(values.text(name) != nil, "\(name)") }
    }

    @Test("webarc → ZIM → webarc keeps every URL and body; redirects become 302")
    func roundTrip() throws {
        let scratch = try TemporaryFolder()
        let (archive, zim, _) = try exported(scratch)
        try ZimImporter().run(input: zim, output: scratch.file("back.webarc"))
        let before = try ArchiveReader(path: archive).recordsByURL()
        let after = try ArchiveReader(path: scratch.file("back.webarc")).recordsByURL()
        #expect(Set(before.keys) == Set(after.keys))
        for (url, record) in before {
            switch (record, after[url]) {
            case (.response(let old), .response(let new)?):
                #expect(old.body == new.body, "\(url)")
                #expect(old.status == new.status)
                #expect(old.headers.value(for: "Content-Type") == new.headers.value(for: "Content-Type"), "\(url)")
            case (.redirect(let old), .redirect(let new)?):
                #expect(old.target == new.target)
                #expect(new.status == 302)
            default:
                Issue.record("\(url): \(record) became \(String(describing: after[url]))")
            }
        }
    }

    @Test("URLs outside the base and with queries are listed and come back")
    func listedURLs() throws {
        let scratch = try TemporaryFolder()
        let archive = scratch.file("mixed.webarc")
        let writer = try ArchiveWriter(path: archive)
        let page = try writer.addBody(Array("<title>Start</title>".utf8))
        let other = try writer.addBody(Array("other origin".utf8))
        let query = try writer.addBody(Array("query".utf8))
        let html = [HTTPHeader("Content-Type", "text/html")]
        try writer.add(
            ResponseRecord(
                request: RequestRecord(url: "https://example.com/"), headers: html, mimeType: "text/html", body: page))
        try writer.add(ResponseRecord(request: RequestRecord(url: "https://cdn.example.net/a.js"), body: other))
        try writer.add(ResponseRecord(request: RequestRecord(url: "https://example.com/search?q=a%20b"), body: query))
        try writer.add(
            RedirectRecord(
                request: RequestRecord(url: "https://example.com/gone"), target: "https://elsewhere.example/"))
        writer.metadata = ArchiveMetadata(startURL: "https://example.com/")
        try writer.finish()
        let summary = try ZimExporter().run(archive: archive, output: scratch.file("mixed.zim"))
        #expect(summary.baseURL == "https://example.com/")
        #expect(summary.mainPath == "index.html")
        #expect(summary.leftOut.count == 1)
        try ZimImporter().run(input: scratch.file("mixed.zim"), output: scratch.file("back.webarc"))
        let reader = try ArchiveReader(path: scratch.file("back.webarc"))
        #expect(try reader.responseBody("https://example.com/") == Array("<title>Start</title>".utf8))
        #expect(try reader.responseBody("https://cdn.example.net/a.js") == Array("other origin".utf8))
        #expect(try reader.responseBody("https://example.com/search?q=a%20b") == Array("query".utf8))
        #expect(try reader.metadata.startURL == "https://example.com/")
    }
}
