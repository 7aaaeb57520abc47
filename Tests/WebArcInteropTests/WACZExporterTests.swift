import Crypto
import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// WACZ export: the ZIP's layout, the manifest's digests, the index, the page list, ZIP64, and
/// webarc → WACZ → webarc keeping every record.
@Suite("WACZ export")
struct WACZExporterTests {
    /// An archive of the mixed WARC fixture (every mapping case) plus two titled pages.
    static func archive(in folder: TemporaryFolder) throws -> String {
        let pages = WARCImportTests.pair(
            "t", uri: "http://example.com/titled.html",
            response: WARCFixture.response(
                headers: [("Content-Type", "text/html; charset=utf-8")],
                body: Array("<html><head><title>\n  Caf\u{E9} &amp;\n menu </title></head></html>".utf8)))
        let extra = try folder.write("pages.warc", pages.flatMap { $0 })
        return try importFiles(
            [try RoundTripTests.mixedWARC(in: folder), extra], in: folder, name: "a.webarc",
            options: ImportOptions(keep: .all)
        ).path
    }

    /// The fixture archive exported as one gzip WARC.
    static func warc(in folder: TemporaryFolder) throws -> String {
        let output = folder.file("fixture.warc.gz")
        _ = try ArchiveExporter(options: ExportOptions(date: RoundTripTests.fixedDate)).run(
            archive: try archive(in: folder), format: .warc, output: output)
        return output
    }

    static func export(_ archive: String, in folder: TemporaryFolder, forceZIP64: Bool = false) throws -> String {
        let output = folder.file("a.wacz")
        let file = try InteropOutputFile(targetPath: output, overwrite: true)
        var exporter = WACZExporter(
            reader: try ArchiveReader(path: archive), options: ExportOptions(date: RoundTripTests.fixedDate))
        exporter.forceZIP64 = forceZIP64
        _ = try exporter.write(to: file)
        try file.commit()
        return output
    }

    @Test("webarc → WACZ → webarc keeps every URL, status, header and body", arguments: [false, true])
    func roundTrip(_ forceZIP64: Bool) throws {
        let folder = try TemporaryFolder()
        let archive = try Self.archive(in: folder)
        let wacz = try Self.export(archive, in: folder, forceZIP64: forceZIP64)
        let (summary, back) = try importFiles([wacz], in: folder, name: "b.webarc", options: ImportOptions(keep: .all))
        #expect(summary.skipped.isEmpty)
        let before = try ArchiveDump(archive)
        let after = try ArchiveDump(back)
        #expect(before.items.count == after.items.count)
        for (a, b) in zip(before.items, after.items) {
            #expect(a.withoutRequestBodyFraming == b, "\(a.key)")
            #expect(
                a.body.map { Array(Insecure.MD5.hash(data: $0)) } == b.body.map { Array(Insecure.MD5.hash(data: $0)) })
        }
        #expect(try ArchiveReader(path: back).metadata.startURL == ArchiveReader(path: archive).metadata.startURL)
    }

    @Test("every entry is stored, in WACZ order, and the manifest's digests and sizes are the members'")
    func layout() throws {
        let folder = try TemporaryFolder()
        let wacz = try Self.export(try Self.archive(in: folder), in: folder)
        let zip = try ZIPReader(file: try InputFile(path: wacz))
        #expect(
            zip.entries.map(\.name) == [
                "archive/data.warc.gz", "indexes/index.cdxj", "pages/pages.jsonl", "datapackage.json",
                "datapackage-digest.json",
            ])
        #expect(zip.entries.allSatisfy { $0.method == ZIPEntry.stored })
        let packageBytes = try zip.contents(of: try #require(zip.entry("datapackage.json")), limit: 1 << 20)
        let package = try WACZPackage(parsing: packageBytes)
        #expect(package.waczVersion == "1.1.1")
        #expect(package.resources.map(\.path) == ["archive/data.warc.gz", "indexes/index.cdxj", "pages/pages.jsonl"])
        #expect(package.resources.map(\.name) == ["data.warc.gz", "index.cdxj", "pages.jsonl"])
        for resource in package.resources {
            let bytes = try zip.contents(of: try #require(zip.entry(resource.path)), limit: 1 << 24)
            #expect(resource.hash == ZIPFixture.sha256(bytes), "\(resource.path)")
            #expect(resource.bytes == UInt64(bytes.count))
        }
        let digest =
            WACZPackage.json(try zip.contents(of: try #require(zip.entry("datapackage-digest.json")), limit: 4096))
            as? [String: String]
        #expect(digest == ["path": "datapackage.json", "hash": ZIPFixture.sha256(packageBytes)])
    }

    @Test("the CDXJ index is sorted bytewise and each line points at its record")
    func index() throws {
        let folder = try TemporaryFolder()
        let wacz = try Self.export(try Self.archive(in: folder), in: folder)
        let zip = try ZIPReader(file: try InputFile(path: wacz))
        let index = try zip.contents(of: try #require(zip.entry("indexes/index.cdxj")), limit: 1 << 20)
        let lines = index.split(separator: 0x0A).map(Array.init)
        #expect(lines == lines.sorted { $0.lexicographicallyPrecedes($1) })
        let warc = try zip.window(of: try #require(zip.entry("archive/data.warc.gz")))
        var uris: [String] = []
        for line in lines {
            let text = String(decoding: line, as: UTF8.self)
            let json = try #require(
                WACZPackage.json(Array(text.split(separator: " ", maxSplits: 2)[2].utf8)) as? [String: String])
            let offset = try #require(UInt64(json["offset"] ?? "")), length = try #require(Int(json["length"] ?? ""))
            let member = try warc.read(at: offset, count: length)
            let record = try Inflater.inflateAll(member, format: .gzip, maxOutput: 1 << 24)
            #expect(
                String(decoding: record.prefix(200), as: UTF8.self).contains("WARC-Target-URI: \(json["url"]!)\r\n"),
                "\(text)")
            #expect(json["filename"] == "data.warc.gz")
            uris.append(json["url"]!)
        }
        #expect(uris.contains("http://example.com/titled.html") && uris.contains("urn:example:note"))
        #expect(
            lines.contains { String(decoding: $0, as: UTF8.self).hasPrefix("com,example)/copy.html 20240502100000 ") })
    }

    @Test("the page list holds the start page first, then every HTML page with its title")
    func pages() throws {
        let folder = try TemporaryFolder()
        let archive = try Self.archive(in: folder)
        let wacz = try Self.export(archive, in: folder)
        let zip = try ZIPReader(file: try InputFile(path: wacz))
        let bytes = try zip.contents(of: try #require(zip.entry("pages/pages.jsonl")), limit: 1 << 20)
        let header = WACZPackage.json(Array(bytes.split(separator: 0x0A)[0])) as? [String: String]
        #expect(header?["format"] == "json-pages-1.0")
        let pages = try WACZPage.parseList(bytes, name: "pages")
        let start = try #require(try ArchiveReader(path: archive).metadata.startURL)
        #expect(pages.first?.url == start)
        #expect(pages.first { $0.url == "http://example.com/titled.html" }?.title == "Café & menu")
        #expect(pages.allSatisfy { $0.ts != nil && $0.id != nil })
        let package = try WACZPackage(
            parsing: try zip.contents(of: try #require(zip.entry("datapackage.json")), limit: 1 << 20))
        #expect(package.mainPageURL == start)
    }

    @Test(
        "ZIP64 output reads in Python's zipfile as in webarc",
        .enabled(if: Self.python != nil, "python3 is not installed"))
    func zip64Python() async throws {
        let folder = try TemporaryFolder()
        let wacz = try Self.export(try Self.archive(in: folder), in: folder, forceZIP64: true)
        let script = """
            import sys, zipfile, hashlib
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                for info in z.infolist():
                    print(info.filename, info.compress_type, info.file_size, hashlib.sha256(z.read(info)).hexdigest())
            """
        let result = await Warcio.run(try #require(Self.python), ["-c", script, wacz])
        #expect(result.status == 0, "\(result.error)")
        let zip = try ZIPReader(file: try InputFile(path: wacz))
        var expected = ""
        for entry in zip.entries {
            let bytes = try zip.contents(of: entry, limit: 1 << 24)
            expected += "\(entry.name) 0 \(bytes.count) \(ZIPFixture.sha256(bytes).dropFirst(7))\n"
        }
        #expect(result.output == expected)
    }

    static let python = python3
}
