import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// `webarc import FILE.zim` and `webarc export --format zim` through the `webarc-zim` binary.
@Suite("ZIM in and out through webarc-zim")
struct ZimCommandTests {
    /// A small site packed, then exported as `site.zim` by `webarc export --format zim`.
    private func siteZim(
        _ scratch: TemporaryFolder, arguments: [String] = []
    ) async throws -> (archive: String, zim: String) {
        try scratch.write(
            "site/index.html",
            Array("<html><head><title>Kiosk home</title></head><body><a href=\"a.html\">a</a></body></html>".utf8))
        try scratch.write("site/a.html", Array("<html><head><title>A</title></head><body>a</body></html>".utf8))
        try scratch.write("site/style.css", Array("p { color: red }".utf8))
        let archive = scratch.file("site.webarc")
        #expect(try await CLIRunner.runDetached(["pack", scratch.file("site"), "-o", archive, "-q"]).status == 0)
        let zim = scratch.file("site.zim")
        let exported = try await CLIRunner.runDetached(["export", archive, "--format", "zim", "-o", zim] + arguments)
        #expect(exported.status == 0, "\(exported.stderr)")
        // stdout carries data only: libzim's own progress lines must not reach it.
        #expect(exported.text.isEmpty, "\(exported.text)")
        // The page at the base URL is index.html's body: the ZIM holds it once, as its main page.
        #expect(exported.stderr.contains("exported 3 responses and 0 redirects"), "\(exported.stderr)")
        return (archive, zim)
    }

    @Test("export --format zim, then import: the same URLs and bodies, told a ZIM by its content")
    func roundTrip() async throws {
        let scratch = try TemporaryFolder()
        let (archive, zim) = try await siteZim(scratch)
        // Named as no ZIM is: the kind comes from the bytes.
        try FileManager.default.moveItem(atPath: zim, toPath: scratch.file("site.data"))
        let imported = try await CLIRunner.runDetached([
            "import", scratch.file("site.data"), "-o", scratch.file("back.webarc"), "--json",
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        let summary = try JSONSerialization.jsonObject(with: imported.stdout) as? [String: Any]
        #expect((summary?["inputs"] as? [[String: Any]])?.first?["format"] as? String == "zim")
        #expect(summary?["startURL"] as? String == "http://localhost/")
        let before = try ArchiveReader(path: archive)
        let after = try ArchiveReader(path: scratch.file("back.webarc"))
        for url in [
            "http://localhost/", "http://localhost/index.html", "http://localhost/a.html", "http://localhost/style.css",
        ] {
            guard case .response(let old)? = try before.lookup(url: url)?.record,
                case .response(let new)? = try after.lookup(url: url)?.record
            else {
                Issue.record("\(url) missing")
                continue
            }
            #expect(old.body == new.body, "\(url)")
        }
        #expect(after.recordCount == before.recordCount)
    }

    @Test("ZIM options reach webarc-zim: the title, and the base URL on import")
    func options() async throws {
        let scratch = try TemporaryFolder()
        let (_, zim) = try await siteZim(scratch, arguments: ["--title", "Lobby kiosk", "--no-index"])
        let imported = try await CLIRunner.runDetached([
            "import", zim, "-o", scratch.file("back.webarc"), "--base-url", "https://kiosk.example/",
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        let reader = try ArchiveReader(path: scratch.file("back.webarc"))
        #expect(try reader.metadata.entries.contains(ArchiveMetadata.Entry("zim:Title", "Lobby kiosk")))
        #expect(try reader.lookup(url: "https://kiosk.example/a.html") != nil)
    }

    @Test("a ZIM is imported on its own; ZIM options without a ZIM are refused; exit 64")
    func usage() async throws {
        let scratch = try TemporaryFolder()
        let (_, zim) = try await siteZim(scratch)
        try scratch.write("page.har", Array(#"{"log":{"version":"1.2","entries":[]}}"#.utf8))
        let mixed = try await CLIRunner.runDetached([
            "import", zim, scratch.file("page.har"), "-o", scratch.file("x.webarc"),
        ])
        #expect(mixed.status == 64)
        #expect(mixed.stderr.contains("a ZIM file is imported on its own"), "\(mixed.stderr)")
        let best = try await CLIRunner.runDetached([
            "import", scratch.file("page.har"), "-o", scratch.file("x.webarc"), "--best",
        ])
        #expect(best.status == 64)
        #expect(best.stderr.contains("apply to ZIM input only"), "\(best.stderr)")
        let title = try await CLIRunner.runDetached([
            "export", scratch.file("site.webarc"), "--format", "har", "-o", scratch.file("x.har"), "--title", "T",
        ])
        #expect(title.status == 64)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("x.webarc")))
    }

    @Test("a truncated ZIM: one error line naming the file, exit 65, no output")
    func truncated() async throws {
        let scratch = try TemporaryFolder()
        let (_, zim) = try await siteZim(scratch)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: zim)))
        let cut = try scratch.write("cut.zim", Array(bytes.prefix(bytes.count / 2)))
        let result = try await CLIRunner.runDetached(["import", cut, "-o", scratch.file("x.webarc")])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("webarc: error: \(cut) is truncated: the checksum at"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("x.webarc")))
    }

    @Test("import and export help name ZIM and its options")
    func help() async throws {
        let importHelp = try await CLIRunner.runDetached(["import", "--help"]).text
        #expect(importHelp.contains("webarc import python.zim -o python.webarc"))
        #expect(importHelp.contains("--base-url"))
        #expect(importHelp.contains("--max-entry-size"))
        let exportHelp = try await CLIRunner.runDetached(["export", "--help"]).text
        #expect(exportHelp.contains("webarc export site.webarc --format zim -o site.zim"))
        #expect(exportHelp.contains("--no-index"))
    }
}
