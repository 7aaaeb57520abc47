import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcZim

@Suite("ZIM import, checked against zimwriterfs and zimdump", .enabled(if: ZimTools.available, ZimTools.skipReason))
struct ZimImporterTests {
    @Test("every item's bytes equal zimdump's, at the base URL plus its path")
    func itemsEqualZimdump() async throws {
        let scratch = try TemporaryFolder()
        let zim = try await ZimSite.zim(in: scratch)
        let dump = scratch.file("dump")
        let dumped = try await ZimTools.run("zimdump", ["dump", "--dir=\(dump)", "--redirect", zim])
        #expect(dumped.status == 0, "zimdump: \(dumped.output)")
        let summary = try ZimImporter().run(input: zim, output: scratch.file("site.webarc"))
        let reader = try ArchiveReader(path: scratch.file("site.webarc"))
        let paths = ZimPaths(baseURL: "http://localhost/")
        var compared = 0
        let files = FileManager.default.enumerator(atPath: dump)!
        while let name = files.nextObject() as? String {
            let path = dump + "/" + name
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            let expected = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(try reader.responseBody(paths.url(forPath: name)) == expected, "\(name)")
            compared += 1
        }
        #expect(compared == ZimSite.files.count)
        #expect(summary.responses == ZimSite.files.count + 1)
        #expect(summary.redirects == 1)
        #expect(ArchiveVerifier.verify(reader).passed)
    }

    @Test("names with spaces and non-ASCII letters are encoded as pack encodes them")
    func encodedNames() async throws {
        let scratch = try TemporaryFolder()
        let zim = try await ZimSite.zim(in: scratch)
        try ZimImporter().run(input: zim, output: scratch.file("site.webarc"))
        let reader = try ArchiveReader(path: scratch.file("site.webarc"))
        #expect(try reader.responseBody("http://localhost/docs/page%20one.html") == ZimSite.files["docs/page one.html"])
        #expect(
            try reader.responseBody("http://localhost/data/%C3%BCn%C3%AFcode.txt") == ZimSite.files["data/ünïcode.txt"])
        #expect(try reader.responseBody("http://localhost/empty.txt") == [])
    }

    @Test("a redirect entry is a 302 to its target; the main page answers at the base URL, the start URL")
    func redirectsAndMainPage() async throws {
        let scratch = try TemporaryFolder()
        let zim = try await ZimSite.zim(in: scratch)
        let summary = try ZimImporter().run(input: zim, output: scratch.file("site.webarc"))
        let reader = try ArchiveReader(path: scratch.file("site.webarc"))
        guard case .redirect(let redirect)? = try reader.lookup(url: "http://localhost/old.html")?.record else {
            Issue.record("old.html is no redirect")
            return
        }
        #expect(redirect.status == 302)
        #expect(redirect.target == "http://localhost/about.html")
        #expect(summary.startURL == "http://localhost/")
        #expect(try reader.metadata.startURL == "http://localhost/")
        #expect(try reader.responseBody("http://localhost/") == ZimSite.files["index.html"])
    }

    @Test("Content-Type is the ZIM's mime type, text labelled UTF-8; metadata go into zim: entries")
    func typesAndMetadata() async throws {
        let scratch = try TemporaryFolder()
        let zim = try await ZimSite.zim(in: scratch)
        try ZimImporter().run(input: zim, output: scratch.file("site.webarc"))
        let reader = try ArchiveReader(path: scratch.file("site.webarc"))
        guard case .response(let page)? = try reader.lookup(url: "http://localhost/about.html")?.record,
            case .response(let image)? = try reader.lookup(url: "http://localhost/img/logo.png")?.record
        else {
            Issue.record("responses missing")
            return
        }
        #expect(page.headers.value(for: "Content-Type") == "text/html; charset=utf-8")
        #expect(page.mimeType == "text/html")
        #expect(image.headers.value(for: "Content-Type") == "image/png")
        let entries = Dictionary(
            try reader.metadata.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(entries["zim:Title"] == "Test site")
        #expect(entries["zim:Language"] == "eng")
        #expect(entries["zim:Creator"] == "webarc tests")
        #expect(
            entries["zim:Illustration_48x48@1"] == "data:image/png;base64,"
                + Data(ZimIllustration.png()).base64EncodedString())
        #expect(entries["source"] == "site.zim (ZIM)")
    }

    @Test("--base-url moves every URL under it")
    func baseURL() async throws {
        let scratch = try TemporaryFolder()
        let zim = try await ZimSite.zim(in: scratch)
        let summary = try ZimImporter(options: ZimImportOptions(baseURL: "https://kiosk.example/docs")).run(
            input: zim, output: scratch.file("site.webarc"))
        let reader = try ArchiveReader(path: scratch.file("site.webarc"))
        #expect(summary.baseURL == "https://kiosk.example/docs/")
        #expect(try reader.responseBody("https://kiosk.example/docs/about.html") == ZimSite.files["about.html"])
        #expect(try reader.metadata.baseURL == "https://kiosk.example/docs/")
    }

    @Test("an existing output is kept unless overwriting is asked")
    func outputExists() async throws {
        let scratch = try TemporaryFolder()
        let zim = try await ZimSite.zim(in: scratch)
        try scratch.write("site.webarc", Array("keep".utf8))
        #expect(
            throws: ZimError.archive(
                .outputExists(path: scratch.file("site.webarc")), path: scratch.file("site.webarc"))
        ) {
            try ZimImporter().run(input: zim, output: scratch.file("site.webarc"))
        }
        try ZimImporter(options: ZimImportOptions(overwrite: true)).run(input: zim, output: scratch.file("site.webarc"))
        #expect(try ArchiveReader(path: scratch.file("site.webarc")).recordCount == ZimSite.files.count + 2)
    }
}
