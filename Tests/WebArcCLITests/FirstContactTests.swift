import Foundation
import Testing
import WebArc
import WebArcCLISupport
import WebArcTestSupport

@testable import WebArcInterop

/// What a new user trips over in the first half hour: words that say what happens, refusals
/// before damage, figures that agree. The real `webarc` binary on real files.
@Suite("First contact: messages, refusals and figures", .serialized)
struct FirstContactTests {
    /// The sample site packed into a fresh folder.
    static func packed() async throws -> (scratch: TemporaryFolder, archive: String) {
        let scratch = try TemporaryFolder()
        let archive = scratch.file("site.webarc")
        let pack = try await CLIRunner.runDetached(["pack", CLITests.sampleSite, "-o", archive, "-q"])
        #expect(pack.status == 0, "\(pack.stderr)")
        return (scratch, archive)
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// `webarc COMMAND --help`, its lines joined with single spaces (the help wraps at any word).
    static func help(_ command: String) async throws -> String {
        try await CLIRunner.runDetached([command, "--help"]).text.split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
    }

    /// `bytes` as one gzip member.
    static func gzip(_ bytes: [UInt8]) -> [UInt8] {
        let writer = GzipWriter()
        var output: [UInt8] = []
        writer.compress(bytes, into: &output)
        writer.finishMember(into: &output)
        return output
    }

    @Test("unpack -o FILE says the file is not a folder, with or without --force, and leaves it alone")
    func unpackOntoFile() async throws {
        let (scratch, archive) = try await Self.packed()
        let victim = scratch.file("victim.webarc")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: victim))
        for force in [[], ["--force"]] {
            let result = try await CLIRunner.runDetached(["unpack", archive, "-o", victim] + force)
            #expect(result.status == 73)
            #expect(
                result.stderr
                    == "webarc: error: \(victim) is a file, not a folder: give -o a folder (--force does not replace a file)\n"
            )
            #expect(!result.stderr.contains("use --force"), "--force was given or would not help")
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")
        let link = scratch.file("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: scratch.path)
        let linked = try await CLIRunner.runDetached(["unpack", archive, "-o", link, "--force"])
        #expect(linked.status == 73 && linked.stderr.contains("\(link) is a symbolic link, not a folder"))
    }

    @Test("unpack into a non-empty folder: refused without --force; with it same-named files are replaced, others stay")
    func unpackForceMerges() async throws {
        let (scratch, archive) = try await Self.packed()
        let folder = scratch.file("out")
        try scratch.write("out/mine.txt", "mine")
        try scratch.write("out/index.html", "old page")
        let refused = try await CLIRunner.runDetached(["unpack", archive, "-o", folder])
        #expect(refused.status == 73)
        #expect(
            refused.stderr == "webarc: error: \(folder) is a folder that is not empty: --force writes into it "
                + "(files with the same names are replaced, other files are left as they are)\n")
        #expect(
            try String(contentsOfFile: folder + "/index.html", encoding: .utf8) == "old page",
            "nothing written when refused")
        let forced = try await CLIRunner.runDetached(["unpack", archive, "-o", folder, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try String(contentsOfFile: folder + "/mine.txt", encoding: .utf8) == "mine")
        #expect(try Self.bytes(folder + "/index.html") == Self.bytes(CLITests.sampleSite + "/index.html"))
        // A folder where the archive has a file is not replaced, and --force does not claim it would be.
        let other = scratch.file("other")
        try FileManager.default.createDirectory(atPath: other + "/index.html", withIntermediateDirectories: true)
        let blocked = try await CLIRunner.runDetached(["unpack", archive, "-o", other, "--force", "-q"])
        #expect(blocked.status == 73)
        #expect(
            blocked.stderr.contains(
                "\(other)/index.html exists and is not a file (a folder or a link): it is not replaced, even with --force"
            ))
        let help = try await Self.help("unpack")
        #expect(help.contains("same-named files are replaced, other files stay"))
        #expect(help.contains("A file, or a symbolic link, is never replaced"))
    }

    @Test("sign --expires in the past is refused (exit 64, the archive's bytes unchanged) unless --force")
    func signExpiredRefused() async throws {
        let (scratch, archive) = try await Self.packed()
        #expect(try await CLIRunner.runDetached(["keygen", "-o", scratch.file("pub")]).status == 0)
        #expect(
            try await CLIRunner.runDetached(["sign", archive, "--key", scratch.file("pub.key"), "--expires", "+30d"])
                .status == 0)
        let signed = try Self.bytes(archive)
        let refused = try await CLIRunner.runDetached([
            "sign", archive, "--key", scratch.file("pub.key"), "--expires", "2020-01-01",
        ])
        #expect(refused.status == 64)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("webarc: error: --expires 2020-01-01T00:00:00Z has already passed"))
        #expect(refused.stderr.contains("--force to sign anyway"))
        #expect(try Self.bytes(archive) == signed, "the valid signature stays")
        #expect(
            try await CLIRunner.runDetached(["verify", archive, "--trust", scratch.file("pub.pub"), "-q"]).status == 0)
        let forced = try await CLIRunner.runDetached([
            "sign", archive, "--key", scratch.file("pub.key"), "--expires", "2020-01-01", "--force",
        ])
        #expect(forced.status == 0)
        #expect(forced.stderr.contains("warning: the signature expires in the past"))
        #expect(try Self.bytes(archive) != signed)
        #expect(
            try await Self.help("sign").contains(
                "An --expires date that has already passed is refused (exit 64, the archive untouched)"))
    }

    @Test("pack's summary gives the archive file's size; info's creator, --version and the HAR export name one release")
    func figuresAgree() async throws {
        let scratch = try TemporaryFolder()
        let archive = scratch.file("site.webarc")
        let pack = try await CLIRunner.runDetached(["pack", CLITests.sampleSite, "-o", archive])
        #expect(pack.status == 0, "\(pack.stderr)")
        let fileBytes = try #require(try FileManager.default.attributesOfItem(atPath: archive)[.size] as? UInt64)
        #expect(pack.stderr.contains("→ \(ProgressReporter.size(fileBytes)) archive in "), "\(pack.stderr)")
        let json = try await CLIRunner.runDetached([
            "pack", CLITests.sampleSite, "-o", archive, "--force", "--json", "-q",
        ])
        let packed = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect((packed["archiveBytes"] as? NSNumber)?.uint64Value == fileBytes)

        let version = try await CLIRunner.runDetached(["--version"]).text
        #expect(version == "\(WebArcVersion.release) (archive format \(WebArcVersion.format))\n")
        // The format named is the newest the spec's changelog describes (it once lagged two behind).
        let changelog = try String(
            contentsOf: CLIRunner.repository.appendingPathComponent("Spec/CHANGELOG.md"), encoding: .utf8)
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }?.dropFirst(3).split(separator: " ")
            .first
        #expect(newest.map(String.init) == WebArcVersion.format, "\(version)")
        let info = try await CLIRunner.runDetached(["info", archive]).text
        #expect(info.contains("creator      webarc \(WebArcVersion.release)\n"), "\(info)")
        let har = scratch.file("site.har")
        #expect(try await CLIRunner.runDetached(["export", archive, "--format", "har", "-o", har, "-q"]).status == 0)
        let log = try #require(
            (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any])?[
                "log"] as? [String: Any])
        #expect((log["creator"] as? [String: Any])?["version"] as? String == WebArcVersion.release)
        let imported = scratch.file("imported.webarc")
        #expect(try await CLIRunner.runDetached(["import", har, "-o", imported, "-q"]).status == 0)
        #expect(
            try await CLIRunner.runDetached(["info", imported]).text.contains(
                "creator      webarc \(WebArcVersion.release) (import)\n"))
    }

    @Test(
        "the dedup ratio is one figure: raw bytes of every response ÷ raw bytes of distinct bodies, in info and import --json"
    )
    func dedupRatioAgrees() async throws {
        let scratch = try TemporaryFolder()
        // Three responses: two share a 30-byte body, one has 10 bytes. By bytes 70 ÷ 40 = 1.75;
        // by bodies it would be 3 ÷ 2 = 1.5.
        let shared = String(repeating: "s", count: 30)
        let entries = [("a", shared), ("b", shared), ("c", String(repeating: "c", count: 10))].map { name, text in
            """
            {"startedDateTime": "2024-05-01T10:00:00Z", "request": {"method": "GET", "url": "http://example.com/\(name)", "headers": []},
             "response": {"status": 200, "statusText": "OK", "headers": [{"name": "Content-Type", "value": "text/plain"}],
             "content": {"size": \(text.count), "mimeType": "text/plain", "text": "\(text)"}}}
            """
        }
        try scratch.write(
            "in.har",
            #"{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": ["#
                + entries.joined(separator: ",") + "]}}")
        let out = scratch.file("out.webarc")
        let imported = try await CLIRunner.runDetached(["import", scratch.file("in.har"), "-o", out, "--json", "-q"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: imported.stdout) as? [String: Any])
        let described = try #require(
            try await JSONSerialization.jsonObject(with: try CLIRunner.runDetached(["info", out, "--json"]).stdout)
                as? [String: Any])
        #expect(summary["dedupRatio"] as? Double == 1.75)
        #expect(described["dedupRatio"] as? Double == 1.75)
        #expect(try await CLIRunner.runDetached(["info", out]).text.contains("dedup ratio  1.75×"))
        #expect(
            try await Self.help("import").contains("dedupRatio is the raw bytes of every response body ÷ the raw bytes")
        )
    }

    @Test("a gzip HAR and a gzip .webarchive import like the plain files; other gzip data is named for what it holds")
    func gzipHARAndWebArchive() async throws {
        let (scratch, archive) = try await Self.packed()
        for format in ["har", "webarchive"] {
            let plain = scratch.file("page.\(format)")
            let exported = try await CLIRunner.runDetached(["export", archive, "--format", format, "-o", plain, "-q"])
            #expect(exported.status == 0, "\(exported.stderr)")
            let compressed = plain + ".gz"
            try Data(Self.gzip(try Self.bytes(plain))).write(to: URL(fileURLWithPath: compressed))
            let fromPlain = try await CLIRunner.runDetached([
                "import", plain, "-o", scratch.file("\(format).webarc"), "--json", "-q",
            ])
            let fromGzip = try await CLIRunner.runDetached([
                "import", compressed, "-o", scratch.file("\(format)-gz.webarc"), "--json", "-q",
            ])
            #expect(fromGzip.status == 0, "\(format): \(fromGzip.stderr)")
            let plainSummary = try #require(try JSONSerialization.jsonObject(with: fromPlain.stdout) as? [String: Any])
            let gzipSummary = try #require(try JSONSerialization.jsonObject(with: fromGzip.stdout) as? [String: Any])
            #expect((gzipSummary["inputs"] as? [[String: Any]])?.first?["format"] as? String == "\(format).gz")
            #expect(gzipSummary["responses"] as? Int == plainSummary["responses"] as? Int)
            #expect((gzipSummary["responses"] as? Int ?? 0) > 0)
            let page = try await CLIRunner.runDetached([
                "cat", scratch.file("\(format)-gz.webarc"), "http://localhost/",
            ])
            #expect(try page.stdout == Data(Self.bytes(CLITests.sampleSite + "/index.html")), "\(format)")
        }
        let text = scratch.file("notes.gz")
        try Data(Self.gzip(Array("just some text".utf8))).write(to: URL(fileURLWithPath: text))
        let refused = try await CLIRunner.runDetached(["import", text, "-o", scratch.file("x.webarc")])
        #expect(refused.status == 65)
        #expect(
            refused.stderr.contains("starts with gzip data that decompresses to \"just some te\""), "\(refused.stderr)")
    }

    @Test("left-out duplicate captures are named as such, with --keep all as the way to keep them, singular and plural")
    func duplicateCapturesWording() async throws {
        let scratch = try TemporaryFolder()
        let three = InteropText.warc(
            (1...3).map {
                InteropText.response(
                    uri: "http://example.com/", id: "\($0)", date: "2024-05-0\($0)T10:00:00Z", body: "v\($0)")
            })
        try scratch.write("three.warc", three)
        let result = try await CLIRunner.runDetached([
            "import", scratch.file("three.warc"), "-o", scratch.file("out.webarc"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "imported 1 response and 0 redirects from 3 captures in 1 file into \(scratch.file("out.webarc")) "
                    + "(2 duplicate captures of a URL left out: --keep all keeps them): 1 distinct body of 1"),
            "\(result.stderr)")
    }

    @Test(
        "a mistyped command gets a suggestion and exit 64",
        arguments: [
            ("sever", "unknown command 'sever'. Did you mean 'serve'?"),
            ("unpak", "unknown command 'unpak'. Did you mean 'unpack'?"),
            ("i", "unknown command 'i'. Did you mean 'info', 'import' or 'index'?"),
            ("xyzzy", "unknown command 'xyzzy': see 'webarc --help' for the commands"),
        ])
    func commandTypo(word: String, message: String) async throws {
        let result = try await CLIRunner.runDetached([word, "site.webarc"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "webarc: error: \(message)\n")
    }

    @Test("commands, help and options still reach the parser")
    func commandsStillParse() async throws {
        #expect(try await CLIRunner.runDetached(["help", "serve"]).text.contains("USAGE: webarc serve"))
        #expect(try await CLIRunner.runDetached(["--help"]).status == 0)
        let unknownOption = try await CLIRunner.runDetached(["--frobnicate"])
        #expect(unknownOption.status == 64 && !unknownOption.stderr.contains("unknown command"))
    }

    @Test("the ETA waits for a second and 1 % of the bytes, and reads as 45s, 3m05s or 5h40m")
    func eta() {
        #expect(ProgressReporter.eta(bytes: 10, totalBytes: 100_000, elapsed: 0.2) == nil, "too early and too little")
        #expect(ProgressReporter.eta(bytes: 50_000, totalBytes: 100_000, elapsed: 0.5) == nil, "under a second")
        #expect(ProgressReporter.eta(bytes: 500, totalBytes: 100_000, elapsed: 2) == nil, "under 1 %")
        #expect(ProgressReporter.eta(bytes: 1_000, totalBytes: 100_000, elapsed: 1) == "1m39s")
        #expect(ProgressReporter.eta(bytes: 1_000, totalBytes: 100_000, elapsed: 60) == "1h39m")
        #expect(ProgressReporter.eta(bytes: 50_000, totalBytes: 100_000, elapsed: 45) == "45s")
        #expect(ProgressReporter.eta(bytes: 0, totalBytes: 0, elapsed: 5) == nil)
        #expect(
            ProgressReporter.eta(bytes: 1 << 62, totalBytes: .max, elapsed: 1e9) == nil,
            "a thousand hours or more is no estimate")
        #expect(ProgressReporter.duration(0) == "0s")
        #expect(ProgressReporter.duration(59) == "59s")
        #expect(ProgressReporter.duration(185) == "3m05s")
        #expect(ProgressReporter.duration(200) == "3m20s")
        #expect(ProgressReporter.duration(20_382) == "5h39m")
        #expect(ProgressReporter.duration(20_400) == "5h40m")
    }
}
