import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// `webarc import` and `webarc export` end to end: the real binary, real files, stdout, stderr
/// and exit codes (`Spec/interop.md` §8).
@Suite("webarc import and export", .serialized)
struct ImportExportTests {
    /// A WARC holding `http://example.com/` (HTML) and its request, plus a redirect from `/old`.
    static let warc = InteropText.warc([
        InteropText.response(uri: "http://example.com/", id: "1", body: "<!doctype html><img src=\"/a.txt\"><p>hi</p>"),
        InteropText.record(
            "request", uri: "http://example.com/", id: "1-rq",
            fields: "WARC-Concurrent-To: <urn:uuid:1>\r\n", block: "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"),
        InteropText.response(
            uri: "http://example.com/old", id: "2", status: "301 Moved", headers: "Location: /\r\n", body: ""),
    ])

    /// A HAR with one text entry.
    static let har = """
        {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [
          {"startedDateTime": "2024-05-01T10:00:00Z", "time": 0,
           "request": {"method": "GET", "url": "http://example.com/a.txt", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
           "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [{"name": "Content-Type", "value": "text/plain"}], "cookies": [],
                        "content": {"size": 5, "mimeType": "text/plain", "text": "hello"}, "redirectURL": "", "headersSize": -1, "bodySize": 5},
           "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0}}]}}
        """

    /// Writes `text` into `scratch` and returns its path.
    static func input(_ scratch: TemporaryFolder, _ name: String, _ text: String) throws -> String {
        try scratch.write(name, text)
        return scratch.file(name)
    }

    @Test("a WARC and a HAR import into one archive with a summary on stderr")
    func importWARCAndHAR() async throws {
        let scratch = try TemporaryFolder()
        let out = scratch.file("out.webarc")
        let result = try await CLIRunner.runDetached([
            "import", try Self.input(scratch, "a.warc", Self.warc), try Self.input(scratch, "b.har", Self.har), "-o",
            out,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr.contains("imported 2 responses and 1 redirect from 3 captures in 2 files into \(out): "),
            "\(result.stderr)")
        #expect(!result.stderr.contains("left out") && !result.stderr.contains("skipped"), "nothing was left out")
        let reader = try ArchiveReader(path: out)
        #expect(try reader.lookup(url: "http://example.com/a.txt") != nil)
        #expect(try reader.lookup(url: "http://example.com/old") != nil)
    }

    @Test(
        "import writes dictionaries placed right before each page (format 2.1.8); --dictionary-placement apart as webarc 2.4 did"
    )
    func dictionaryPlacement() async throws {
        let scratch = try TemporaryFolder()
        let warc = try Self.input(scratch, "a.warc", Self.warc)
        for (arguments, expected) in [
            ([String](), DictionaryPlacement.prefix), (["--dictionary-placement", "apart"], .apart),
        ] {
            let out = scratch.file("out-\(arguments.count).webarc")
            let result = try await CLIRunner.runDetached(["import", warc, "-o", out, "-q"] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try ArchiveReader(path: out).metadata.writer?.placement == expected, "\(arguments)")
        }
        #expect(
            try await CLIRunner.runDetached([
                "import", warc, "-o", scratch.file("x.webarc"), "--dictionary-placement", "aside",
            ])
            .status == 64)
    }

    @Test("a bad record fails with exit 65 naming file and offset, leaving nothing at -o; --skip-bad lists it")
    func badRecord() async throws {
        let scratch = try TemporaryFolder()
        let good = InteropText.response(uri: "http://example.com/", id: "1", body: "fine")
        let bad = InteropText.response(
            uri: "http://example.com/bad", id: "2", body: "a body longer than declared", declared: 4)
        let input = try Self.input(scratch, "bad.warc", InteropText.warc([good, bad]))
        let out = scratch.file("out.webarc")
        let failed = try await CLIRunner.runDetached(["import", input, "-o", out])
        #expect(failed.status == 65)
        let offset = good.utf8.count
        #expect(
            failed.stderr.contains(
                "webarc: error: WARC record in \(input) at offset \(offset) (0x\(String(offset, radix: 16)))"),
            "\(failed.stderr)")
        #expect(failed.stderr.contains("Content-Length is wrong"))
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["bad.warc"],
            "no temporary file is left either")

        let skipped = try await CLIRunner.runDetached(["import", input, "-o", out, "--skip-bad"])
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(
            skipped.stderr.contains("webarc: skipped: WARC record in \(input) at offset \(offset)"), "\(skipped.stderr)"
        )
        #expect(skipped.stderr.contains("(1 bad record skipped)"), "\(skipped.stderr)")
        #expect(try ArchiveReader(path: out).lookup(url: "http://example.com/") != nil)
    }

    @Test("a missing input exits 66; an existing output exits 73 unless --force")
    func missingInputAndExistingOutput() async throws {
        let scratch = try TemporaryFolder()
        let missing = try await CLIRunner.runDetached([
            "import", scratch.file("nope.warc"), "-o", scratch.file("out.webarc"),
        ])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("nope.warc"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))

        let input = try Self.input(scratch, "a.warc", Self.warc)
        try scratch.write("out.webarc", "keep me")
        let exists = try await CLIRunner.runDetached(["import", input, "-o", scratch.file("out.webarc")])
        #expect(exists.status == 73)
        #expect(exists.stderr.contains("already exists"), "\(exists.stderr)")
        #expect(FileManager.default.contents(atPath: scratch.file("out.webarc")) == Data("keep me".utf8))
        #expect(
            try await CLIRunner.runDetached(["import", input, "-o", scratch.file("out.webarc"), "--force", "-q"]).status
                == 0)

        let archive = scratch.file("out.webarc")
        try scratch.write("page.har", "")
        let exportExists = try await CLIRunner.runDetached([
            "export", archive, "--format", "har", "-o", scratch.file("page.har"),
        ])
        #expect(exportExists.status == 73)
        #expect(
            try await CLIRunner.runDetached([
                "export", archive, "--format", "har", "-o", scratch.file("page.har"), "-f", "-q",
            ]).status
                == 0)
        #expect(
            try await CLIRunner.runDetached([
                "export", scratch.file("none.webarc"), "--format", "har", "-o", scratch.file("x.har"),
            ])
            .status == 66)
    }

    @Test("--keep chooses among captures of one URL; a bad value is a usage error")
    func keep() async throws {
        let scratch = try TemporaryFolder()
        let input = try Self.input(
            scratch, "twice.warc",
            InteropText.warc([
                InteropText.response(uri: "http://example.com/", id: "1", date: "2024-05-01T10:00:00Z", body: "first"),
                InteropText.response(uri: "http://example.com/", id: "2", date: "2024-05-02T10:00:00Z", body: "second"),
            ]))
        for (policy, responses, body) in [("latest", 1, "second"), ("earliest", 1, "first"), ("all", 2, "second")] {
            let out = scratch.file("\(policy).webarc")
            let result = try await CLIRunner.runDetached(["import", input, "-o", out, "--keep", policy])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    responses == 1 ? "imported 1 response and 0 redirects" : "imported 2 responses and 0 redirects"),
                "\(policy): \(result.stderr)")
            let leftOut = "(1 duplicate capture of a URL left out: --keep all keeps it)"
            #expect(result.stderr.contains(leftOut) == (policy != "all"), "\(policy): \(result.stderr)")
            let cat = try await CLIRunner.runDetached(["cat", out, "http://example.com/"])
            #expect(cat.text == body, "\(policy)")
        }
        let bad = try await CLIRunner.runDetached(["import", input, "-o", scratch.file("x.webarc"), "--keep", "newest"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--keep"))
    }

    @Test("export writes each format; --json prints one object on stdout", arguments: ["warc", "har", "webarchive"])
    func export(_ format: String) async throws {
        let scratch = try TemporaryFolder()
        let archive = scratch.file("in.webarc")
        let imported = try await CLIRunner.runDetached([
            "import", try Self.input(scratch, "a.warc", Self.warc), try Self.input(scratch, "b.har", Self.har), "-o",
            archive, "--json",
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: imported.stdout) as? [String: Any])
        #expect(summary["responses"] as? Int == 2)
        #expect(summary["redirects"] as? Int == 1)
        #expect((summary["inputs"] as? [[String: Any]])?.map { $0["format"] as? String } == ["warc", "har"])

        let out = scratch.file("out.\(format)")
        var arguments = ["export", archive, "--format", format, "-o", out]
        if format == "webarchive" { arguments += ["--page", "http://example.com/"] }
        let plain = try await CLIRunner.runDetached(arguments)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.isEmpty)
        #expect(plain.stderr.contains("exported "), "\(plain.stderr)")
        let bytes = try #require(FileManager.default.contents(atPath: out))
        switch format {
        case "warc": #expect(bytes.starts(with: [0x1F, 0x8B]), "gzip per record")
        case "har": #expect((try JSONSerialization.jsonObject(with: bytes) as? [String: Any])?["log"] != nil)
        default: #expect(bytes.starts(with: Array("bplist00".utf8)))
        }

        let json = try await CLIRunner.runDetached(arguments + ["--force", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect(object["format"] as? String == format)
        #expect(object["output"] as? String == out)
        // The second export rewrote the file (an undated record takes the export date, so its
        // size may differ from the first one's by a byte of gzip): compare with what is there now.
        #expect((object["bytes"] as? Int) == FileManager.default.contents(atPath: out)?.count)
        #expect((object["responses"] as? Int ?? 0) >= 1)
    }

    @Test("--page is only for webarchive and must name a page the archive holds")
    func pageValidation() async throws {
        let scratch = try TemporaryFolder()
        let archive = scratch.file("in.webarc")
        #expect(
            try await CLIRunner.runDetached([
                "import", try Self.input(scratch, "a.warc", Self.warc), "-o", archive, "-q",
            ]).status == 0
        )
        let wrongFormat = try await CLIRunner.runDetached([
            "export", archive, "--format", "har", "--page", "http://example.com/", "-o", scratch.file("x.har"),
        ])
        #expect(wrongFormat.status == 64)
        #expect(wrongFormat.stderr.contains("--page applies only to --format webarchive"))
        let absent = try await CLIRunner.runDetached([
            "export", archive, "--format", "webarchive", "--page", "http://example.com/nope", "-o",
            scratch.file("x.webarchive"),
        ])
        #expect(absent.status == 64)
        #expect(absent.stderr.contains("http://example.com/nope"), "\(absent.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("x.webarchive")))
        let redirected = try await CLIRunner.runDetached([
            "export", archive, "--format", "webarchive", "--page", "http://example.com/old", "-o",
            scratch.file("y.webarchive"),
        ])
        #expect(redirected.status == 0, "a redirect is followed to its page: \(redirected.stderr)")
    }
}

/// Plain-text WARC records for the CLI tests (CRLF line ends, `Content-Length` in UTF-8 bytes).
enum InteropText {
    /// One record; `declared` replaces the block's true length to make a lying `Content-Length`.
    static func record(
        _ type: String, uri: String, id: String, date: String = "2024-05-01T10:00:00Z", fields: String = "",
        block: String, declared: Int? = nil
    ) -> String {
        "WARC/1.1\r\nWARC-Type: \(type)\r\nWARC-Record-ID: <urn:uuid:\(id)>\r\nWARC-Date: \(date)\r\nWARC-Target-URI: \(uri)\r\n"
            + fields + "Content-Length: \(declared ?? block.utf8.count)\r\n\r\n" + block + "\r\n\r\n"
    }

    /// A `response` record holding an HTTP response with `body`.
    static func response(
        uri: String, id: String, date: String = "2024-05-01T10:00:00Z", status: String = "200 OK",
        headers: String = "Content-Type: text/html\r\n", body: String, declared: Int? = nil
    ) -> String {
        let http = "HTTP/1.1 \(status)\r\n\(headers)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        return record(
            "response", uri: uri, id: id, date: date, fields: "Content-Type: application/http; msgtype=response\r\n",
            block: http, declared: declared.map { $0 + http.utf8.count - body.utf8.count })
    }

    /// Records one after another, as a plain WARC file.
    static func warc(_ records: [String]) -> String { records.joined() }
}
