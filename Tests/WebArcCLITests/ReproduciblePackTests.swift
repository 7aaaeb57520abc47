import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// Reproducible packing (`pack --mtime`, `SOURCE_DATE_EPOCH`), header-only changes in `diff` and
/// `info`, and `unpack` giving files their `Last-Modified` back, through the real binary.
@Suite("reproducible pack and header-only changes")
struct ReproduciblePackTests {
    /// 2026-09-21T14:13:20Z.
    static let epoch: Int64 = 1_790_000_000
    static let files = [
        "index.html": "<h1>Home</h1>", "docs/page.html": "<p>Page</p>", "css/site.css": "body { margin: 0 }",
    ]

    /// The same files written into `name` (a copy or a rebuild), each modified at `modified`.
    static func site(
        _ scratch: TemporaryFolder, _ name: String, modified: Int64, edits: [String: String] = [:]
    ) throws -> String {
        for (path, text) in files.merging(edits, uniquingKeysWith: { $1 }) {
            try scratch.write(name + "/" + path, text)
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: Double(modified))],
                ofItemAtPath: scratch.file(name + "/" + path))
        }
        return scratch.file(name)
    }

    /// This process's environment with `SOURCE_DATE_EPOCH` set to `value`, or without it for nil.
    static func environment(sourceDateEpoch value: String?) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SOURCE_DATE_EPOCH"] = value
        return environment
    }

    static func pack(_ arguments: [String], sourceDateEpoch: String?) async throws -> CLIRunner.Result {
        try await CLIRunner.runDetached(
            ["pack"] + arguments + ["-q"], environment: environment(sourceDateEpoch: sourceDateEpoch))
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    static func json(_ result: CLIRunner.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stderr)")
    }

    static func lastModified(_ archive: String, _ url: String) throws -> String? {
        guard case .response(let response) = try ArchiveReader(path: archive).lookup(url: url)?.record else {
            return nil
        }
        return response.headers.value(for: "Last-Modified")
    }

    @Test("under SOURCE_DATE_EPOCH, a copy and a rebuild pack to the same bytes and diff to nothing")
    func sourceDateEpochCopies() async throws {
        let scratch = try TemporaryFolder()
        let release = try Self.site(scratch, "release", modified: Self.epoch + 100)
        let rebuild = try Self.site(scratch, "rebuild", modified: Self.epoch + 86_400)
        let epoch = String(Self.epoch)
        // The plain form (read without the argument parser) and a parsed one both read the variable.
        #expect(
            try await Self.pack([release, "-o", scratch.file("release.webarc")], sourceDateEpoch: epoch).status == 0)
        let parsed = try await Self.pack(
            [rebuild, "-o", scratch.file("rebuild.webarc"), "--level", "1"], sourceDateEpoch: epoch)
        #expect(parsed.status == 0, "\(parsed.stderr)")
        #expect(try Self.bytes(scratch.file("release.webarc")) == Self.bytes(scratch.file("rebuild.webarc")))
        #expect(
            try Self.lastModified(scratch.file("release.webarc"), "http://localhost/docs/page.html")
                == "Mon, 21 Sep 2026 14:13:20 GMT")
        let diff = try await CLIRunner.runDetached([
            "diff", scratch.file("release.webarc"), scratch.file("rebuild.webarc"), "-o", scratch.file("u.webarc"),
            "--json",
        ])
        let summary = try Self.json(diff)
        #expect(summary["changedURLs"] as? Int == 0)
        #expect(summary["deletedURLs"] as? Int == 0)
        // diff of a folder packs it as pack does, the variable included.
        let folderDiff = try await CLIRunner.runDetached(
            ["diff", scratch.file("release.webarc"), rebuild, "-o", scratch.file("f.webarc"), "--json"],
            environment: Self.environment(sourceDateEpoch: epoch))
        #expect(try Self.json(folderDiff)["changedURLs"] as? Int == 0)

        // Without it, each file's own time goes in: the two archives differ.
        #expect(try await Self.pack([rebuild, "-o", scratch.file("plain.webarc")], sourceDateEpoch: nil).status == 0)
        #expect(try Self.bytes(scratch.file("plain.webarc")) != Self.bytes(scratch.file("release.webarc")))
    }

    @Test("SOURCE_DATE_EPOCH clamps: a file older than it keeps its own time")
    func sourceDateEpochClamps() async throws {
        let scratch = try TemporaryFolder()
        let site = try Self.site(scratch, "site", modified: Self.epoch - 86_400)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: Double(Self.epoch + 60))],
            ofItemAtPath: site + "/index.html")
        let archive = scratch.file("site.webarc")
        await #expect(try Self.pack([site, "-o", archive], sourceDateEpoch: String(Self.epoch)).status == 0)
        #expect(try Self.lastModified(archive, "http://localhost/") == "Mon, 21 Sep 2026 14:13:20 GMT")
        #expect(try Self.lastModified(archive, "http://localhost/css/site.css") == "Sun, 20 Sep 2026 14:13:20 GMT")
    }

    @Test("--mtime gives every file one time, whatever the files' times and SOURCE_DATE_EPOCH")
    func mtimeOption() async throws {
        let scratch = try TemporaryFolder()
        let first = try Self.site(scratch, "first", modified: 1_000_000_000)
        let second = try Self.site(scratch, "second", modified: Self.epoch + 500)
        let iso = try await Self.pack(
            [first, "-o", scratch.file("iso.webarc"), "--mtime", "2027-01-01"], sourceDateEpoch: nil)
        #expect(iso.status == 0, "\(iso.stderr)")
        let seconds = try await Self.pack(
            [second, "-o", scratch.file("seconds.webarc"), "--mtime", "@1798761600"],
            sourceDateEpoch: String(Self.epoch))
        #expect(seconds.status == 0, "\(seconds.stderr)")
        #expect(try Self.bytes(scratch.file("iso.webarc")) == Self.bytes(scratch.file("seconds.webarc")))
        #expect(
            try Self.lastModified(scratch.file("iso.webarc"), "http://localhost/css/site.css")
                == "Fri, 01 Jan 2027 00:00:00 GMT")
        let dateTime = try await Self.pack(
            [first, "-o", scratch.file("time.webarc"), "--mtime", "2027-01-01T12:30:00Z"], sourceDateEpoch: nil)
        #expect(dateTime.status == 0, "\(dateTime.stderr)")
        #expect(
            try Self.lastModified(scratch.file("time.webarc"), "http://localhost/") == "Fri, 01 Jan 2027 12:30:00 GMT")

        for bad in ["+3d", "yesterday", "@-5", "@1e9"] {
            let refused = try await Self.pack(
                [first, "-o", scratch.file("bad.webarc"), "--mtime", bad], sourceDateEpoch: nil)
            #expect(refused.status == 64, "--mtime \(bad): \(refused.stderr)")
            #expect(refused.stderr.contains("--mtime"))
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("bad.webarc")))
    }

    @Test("a malformed SOURCE_DATE_EPOCH is a command-line error naming it, and nothing is written")
    func malformedSourceDateEpoch() async throws {
        let scratch = try TemporaryFolder()
        let site = try Self.site(scratch, "site", modified: Self.epoch)
        for value in ["soon", "-1", "1.5", " 17", "99999999999999"] {
            for extra in [[], ["--level", "1"]] {
                let result = try await Self.pack(
                    [site, "-o", scratch.file("out.webarc")] + extra, sourceDateEpoch: value)
                #expect(result.status == 64, "\(value) \(extra): \(result.stderr)")
                #expect(result.stderr.contains("SOURCE_DATE_EPOCH"), "\(result.stderr)")
                #expect(result.stderr.contains("'\(value)'"), "\(result.stderr)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
        // Empty counts as unset, as in most tools that read it.
        #expect(try await Self.pack([site, "-o", scratch.file("out.webarc")], sourceDateEpoch: "").status == 0)
    }

    @Test("diff and info tell changes of headers only from changes of bodies; the update stores no body for them")
    func headerOnlyChanges() async throws {
        let scratch = try TemporaryFolder()
        let old = try Self.site(scratch, "old", modified: Self.epoch)
        let new = try Self.site(
            scratch, "new", modified: Self.epoch + 3600, edits: ["docs/page.html": "<p>Page, edited</p>"])
        #expect(try await Self.pack([old, "-o", scratch.file("old.webarc")], sourceDateEpoch: nil).status == 0)
        #expect(try await Self.pack([new, "-o", scratch.file("new.webarc")], sourceDateEpoch: nil).status == 0)

        let update = scratch.file("u.webarc")
        let diff = try await CLIRunner.runDetached([
            "diff", scratch.file("old.webarc"), scratch.file("new.webarc"), "-o", update, "--json",
        ])
        let summary = try Self.json(diff)
        // index.html answers / too: 4 responses changed, 3 of them (/, /index.html, the CSS) in headers only.
        #expect(summary["changedURLs"] as? Int == 4)
        #expect(summary["headerOnlyURLs"] as? Int == 3)
        #expect(summary["bodiesStored"] as? Int == 3)  // one new body; the other two are the base's
        let text = try await CLIRunner.runDetached([
            "diff", scratch.file("old.webarc"), scratch.file("new.webarc"), "-o", update, "--force",
        ])
        #expect(text.stderr.contains("4 changed (3 headers only), 0 deleted"), "\(text.stderr)")

        let info = try await Self.json(try CLIRunner.runDetached(["info", update, "--json"]))
        #expect(info["baseBodyResponses"] as? Int == 3)
        #expect(info["newBodyResponses"] as? Int == 1)
        let infoText = try await CLIRunner.runDetached(["info", update]).text
        #expect(
            infoText.contains("3 with a body the bases hold (headers only, or a copy), 1 with a new or changed body"),
            "\(infoText)")
        let plain = try await Self.json(try CLIRunner.runDetached(["info", scratch.file("new.webarc"), "--json"]))
        #expect(plain["baseBodyResponses"] is NSNull)

        let compact = try await CLIRunner.runDetached([
            "diff", scratch.file("old.webarc"), scratch.file("new.webarc"), "-o", scratch.file("u.webarcu"),
            "--compact", "--json",
        ])
        let compactSummary = try Self.json(compact)
        #expect(compactSummary["changedURLs"] as? Int == 4)
        #expect(compactSummary["headerOnlyURLs"] as? Int == 3)

        // Headers alone: the update holds records but not one body byte of its own.
        #expect(
            try await Self.pack(
                [old, "-o", scratch.file("touched.webarc"), "--mtime", "2027-01-01"], sourceDateEpoch: nil
            )
            .status == 0)
        let touched = scratch.file("touched-update.webarc")
        let headersOnly = try Self.json(
            try await CLIRunner.runDetached([
                "diff", scratch.file("old.webarc"), scratch.file("touched.webarc"), "-o", touched, "--json",
            ]))
        #expect(headersOnly["changedURLs"] as? Int == 4)
        #expect(headersOnly["headerOnlyURLs"] as? Int == 4)
        #expect(headersOnly["storedBodyBytes"] as? Int == 0)
        #expect(
            try await Self.json(try CLIRunner.runDetached(["info", touched, "--json"]))["newBodyResponses"] as? Int == 0
        )
    }

    @Test("unpack gives each file its Last-Modified back, so pack, unpack, pack gives the same bytes")
    func unpackRestoresTimes() async throws {
        let scratch = try TemporaryFolder()
        let site = try Self.site(scratch, "site", modified: 1_234_567_890)
        let archive = scratch.file("site.webarc")
        #expect(try await Self.pack([site, "-o", archive], sourceDateEpoch: nil).status == 0)
        let unpack = try await CLIRunner.runDetached(["unpack", archive, "-o", scratch.file("out"), "-q"])
        #expect(unpack.status == 0, "\(unpack.stderr)")
        for path in Self.files.keys {
            let modified = try #require(
                try FileManager.default.attributesOfItem(atPath: scratch.file("out/" + path))[.modificationDate]
                    as? Date)
            #expect(modified.timeIntervalSince1970 == 1_234_567_890, "\(path)")
        }
        #expect(
            try await Self.pack([scratch.file("out"), "-o", scratch.file("again.webarc")], sourceDateEpoch: nil).status
                == 0)
        #expect(try Self.bytes(scratch.file("again.webarc")) == Self.bytes(archive))
    }
}
