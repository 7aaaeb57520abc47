import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// WACZ import on WACZs made here (`ZIPFixture`), independently of webarc's WACZ writer: the WARCs
/// read in place, the digests checked, the page list read, and each kind of damage refused by name.
@Suite("WACZ import")
struct WACZImporterTests {
    static let page = Array("<html><head><title>Home</title></head><body>hello</body></html>".utf8)

    /// A gzip WARC of two pages and a plain WARC of one.
    static func warcs() -> [(String, [UInt8])] {
        let first =
            WARCImportTests.pair(
                "a", uri: "http://example.com/",
                response: WARCFixture.response(
                    headers: [("Content-Type", "text/html")], body: page))
            + WARCImportTests.pair(
                "b", uri: "http://example.com/style.css",
                response: WARCFixture.response(
                    headers: [("Content-Type", "text/css")], body: Array("body{}".utf8)))
        let second = WARCImportTests.pair(
            "c", uri: "http://example.com/about.html",
            response: WARCFixture.response(
                headers: [("Content-Type", "text/html; charset=utf-8")], body: Array("<title>About us</title>".utf8)))
        return [("one.warc.gz", WARCFixture.gzipPerRecord(first)), ("two.warc", second.flatMap { $0 })]
    }

    static let pages = [
        #"{"url": "http://example.com/about.html", "ts": "2024-05-01T10:00:00Z", "title": "About"}"#,
        #"{"url": "http://example.com/", "ts": "2024-05-01T10:00:00Z", "title": "Home page"}"#,
    ]

    @Test("every WARC is read in place; the first page is the start URL; titles are kept", arguments: [true, false])
    func imports(_ deflateSmall: Bool) throws {
        let folder = try TemporaryFolder()
        let wacz = try folder.write(
            "crawl.wacz",
            ZIPFixture.wacz(warcs: Self.warcs(), pages: Self.pages, title: "A crawl", deflateSmall: deflateSmall))
        let (summary, path) = try importFiles([wacz], in: folder)
        #expect(summary.inputs.map(\.format) == [.wacz])
        #expect(summary.inputs.first?.captures == 3, "captures in the WACZ's WARCs count for the WACZ")
        #expect(summary.responses == 3)
        #expect(summary.startURL == "http://example.com/about.html")
        let dump = try ArchiveDump(path)
        #expect(dump["GET http://example.com/"]?.body == Self.page)
        #expect(dump["GET http://example.com/style.css"]?.body == Array("body{}".utf8))
        let metadata = try ArchiveReader(path: path).metadata
        #expect(metadata.entries.first { $0.key == "title" }?.value == "A crawl")
        let pages = try WACZPage.parseList(
            Array(try #require(metadata.entries.first { $0.key == "pages" }).value.utf8), name: "pages")
        #expect(pages.map(\.title) == ["About", "Home page"])
        #expect(metadata.entries.contains { $0.key == "source" && $0.value == "crawl.wacz (WACZ)" })
    }

    @Test("the package's mainPageURL wins over the page list")
    func mainPage() throws {
        let folder = try TemporaryFolder()
        let wacz = try folder.write(
            "c.wacz", ZIPFixture.wacz(warcs: Self.warcs(), pages: Self.pages, mainPageURL: "http://example.com/"))
        #expect(try importFiles([wacz], in: folder).summary.startURL == "http://example.com/")
    }

    @Test("a WACZ gives the same archive as its WARCs imported from files")
    func sameAsWARCs() throws {
        let folder = try TemporaryFolder()
        let warcs = Self.warcs()
        let wacz = try folder.write("c.wacz", ZIPFixture.wacz(warcs: warcs, pages: nil))
        let files = try warcs.map { try folder.write($0.0, $0.1) }
        let fromWACZ = try ArchiveDump(try importFiles([wacz], in: folder, name: "1.webarc").path)
        let fromFiles = try ArchiveDump(try importFiles(files, in: folder, name: "2.webarc").path)
        #expect(fromWACZ == fromFiles)
    }

    @Test("a member whose digest does not match fails the import, naming it, even with --skip-bad")
    func digestMismatch() throws {
        let folder = try TemporaryFolder()
        let wrong = "sha256:" + String(repeating: "0", count: 64)
        let wacz = try folder.write(
            "c.wacz", ZIPFixture.wacz(warcs: Self.warcs(), pages: Self.pages, digests: ["archive/two.warc": wrong]))
        let computed = ZIPFixture.sha256(Self.warcs()[1].1)
        #expect(
            throws: InteropError.waczDigestMismatch(
                file: wacz, member: "archive/two.warc", declared: wrong, computed: computed)
        ) {
            try importFiles([wacz], in: folder, options: ImportOptions(skipBad: true))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.webarc")))
    }

    @Test("a damaged WARC inside is reported by its digest first, then by its record")
    func damagedWARC() throws {
        let folder = try TemporaryFolder()
        var warcs = Self.warcs()
        let declared = ZIPFixture.sha256(warcs[1].1)
        warcs[1].1[5] = UInt8(ascii: "9")
        let wacz = try folder.write(
            "c.wacz", ZIPFixture.wacz(warcs: warcs, pages: nil, digests: ["archive/two.warc": declared]))
        #expect(
            throws: InteropError.waczDigestMismatch(
                file: wacz, member: "archive/two.warc", declared: declared, computed: ZIPFixture.sha256(warcs[1].1))
        ) {
            try importFiles([wacz], in: folder)
        }
        // With a digest that matches the damage, the WARC error names the member and the offset.
        let lying = try folder.write("d.wacz", ZIPFixture.wacz(warcs: warcs, pages: nil))
        do {
            _ = try importFiles([lying], in: folder)
            Issue.record("the damaged record was not refused")
        } catch let error as InteropError {
            #expect(
                error.location == InputLocation(file: lying + "!/archive/two.warc", offset: 0),
                "\(error.code): \(error)")
        }
    }

    @Test("datapackage.json's own digest is checked against datapackage-digest.json")
    func packageDigest() throws {
        let folder = try TemporaryFolder()
        let wrong = "sha256:" + String(repeating: "a", count: 64)
        let wacz = try folder.write(
            "c.wacz", ZIPFixture.wacz(warcs: Self.warcs(), pages: nil, digests: ["datapackage.json": wrong]))
        do {
            _ = try importFiles([wacz], in: folder)
            Issue.record("the mismatch was not refused")
        } catch InteropError.waczDigestMismatch(_, let member, let declared, _) {
            #expect(member == "datapackage.json" && declared == wrong)
        }
    }

    @Test(
        "a WACZ that breaks its own manifest is refused by name",
        arguments: [
            "no package", "missing resource", "wrong size", "deflated WARC", "bad pages", "bad digest", "not a WARC",
        ])
    func broken(_ kind: String) throws {
        let folder = try TemporaryFolder()
        let warcs = Self.warcs()
        let bytes: [UInt8]
        let expected: String
        switch kind {
        case "no package":
            bytes = ZIPFixture.zip([.init(name: "archive/one.warc.gz", bytes: warcs[0].1)]).bytes
            expected = "it holds no datapackage.json (a ZIP, but not a WACZ)"
        case "missing resource":
            let package = WACZPackage(resources: [
                .init(name: "gone.warc", path: "archive/gone.warc", hash: ZIPFixture.sha256([]), bytes: 0)
            ])
            bytes =
                ZIPFixture.zip([
                    .init(name: "archive/one.warc.gz", bytes: warcs[0].1),
                    .init(name: "datapackage.json", bytes: package.serialized()),
                ]).bytes
            expected = "datapackage.json lists \"archive/gone.warc\", which the ZIP does not hold"
        case "wrong size":
            let package = WACZPackage(resources: [
                .init(name: "one.warc.gz", path: "archive/one.warc.gz", hash: ZIPFixture.sha256(warcs[0].1), bytes: 5)
            ])
            bytes =
                ZIPFixture.zip([
                    .init(name: "archive/one.warc.gz", bytes: warcs[0].1),
                    .init(name: "datapackage.json", bytes: package.serialized()),
                ]).bytes
            expected = "datapackage.json says \"archive/one.warc.gz\" is 5 bytes; the ZIP holds \(warcs[0].1.count)"
        case "deflated WARC":
            bytes =
                ZIPFixture.zip([
                    .init(name: "archive/one.warc.gz", bytes: warcs[0].1, deflated: true),
                    .init(name: "datapackage.json", bytes: WACZPackage(resources: []).serialized()),
                ]).bytes
            expected =
                "\"archive/one.warc.gz\" is stored deflated, not as it is (WACZ stores WARCs uncompressed in the ZIP so that they can be read in place): unzip it and import the WARC"
        case "bad pages":
            bytes = ZIPFixture.wacz(warcs: warcs, pages: [#"{"url": "http://example.com/"}"#, "not json"])
            expected = "pages/pages.jsonl line 3 is not a JSON object"
        case "bad digest":
            bytes = ZIPFixture.wacz(warcs: warcs, pages: nil, digests: ["archive/one.warc.gz": "crc32:1234"])
            expected =
                "datapackage.json resource \"archive/one.warc.gz\": the digest \"crc32:1234\" is not sha256:HEX, md5:HEX or another algorithm webarc checks"
        default:
            bytes = ZIPFixture.wacz(warcs: [("x.warc", Array("hello".utf8))], pages: nil)
            expected = "\"archive/x.warc\" is neither a WARC nor a gzip WARC"
        }
        let wacz = try folder.write("c.wacz", bytes)
        #expect(throws: InteropError.badWACZ(file: wacz, reason: expected)) { try importFiles([wacz], in: folder) }
    }

    @Test("the CDXJ index is not read: a wrong one changes nothing")
    func indexIgnored() throws {
        let folder = try TemporaryFolder()
        let junk = ZIPFixture.Member(
            name: "indexes/index.cdxj", bytes: Array("com,example)/ 2024 {\"offset\": \"999999\"}\n".utf8))
        let wacz = try folder.write("c.wacz", ZIPFixture.wacz(warcs: Self.warcs(), pages: nil, extra: [junk]))
        #expect(try importFiles([wacz], in: folder).summary.responses == 3)
    }

    @Test("a ZIP is detected by content whatever its name")
    func detection() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("crawl.bin", ZIPFixture.wacz(warcs: Self.warcs(), pages: nil))
        #expect(try InputFormat.detect(try InputFile(path: path)) == .wacz)
    }
}
