import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// The `webarc` binary end to end: stdout, stderr and exit codes.
@Suite("webarc command line", .serialized)
struct CLITests {
    static let sampleSite = CLIRunner.repository.appendingPathComponent("Tools/sample-site").path

    @Test("pack, verify, info, ls, cat and unpack the bundled sample site")
    func sampleSiteRoundTrip() async throws {
        let scratch = try TemporaryFolder()
        let archive = scratch.file("site.webarc")
        let pack = try await CLIRunner.runDetached(["pack", Self.sampleSite, "-o", archive])
        #expect(pack.status == 0, "\(pack.stderr)")
        #expect(pack.stderr.contains("packed"))

        let verify = try await CLIRunner.runDetached(["verify", archive])
        #expect(verify.status == 0)
        #expect(verify.text.contains(": ok:"))

        let info = try await CLIRunner.runDetached(["info", archive, "--json"])
        let object = try JSONSerialization.jsonObject(with: info.stdout) as! [String: Any]
        // Its pages are indexed for search by default (index version 4), which makes it a 2.6 archive.
        #expect(object["formatVersion"] as? String == "2.6")
        #expect(object["startURL"] as? String == "http://localhost/")
        #expect((object["redirects"] as? Int ?? 0) >= 1)
        #expect((object["dedupRatio"] as? Double ?? 0) > 1)
        // pack's dictionary anchors are local minima of the URL key hashes (format 2.1.7).
        let writer = object["writer"] as? [String: Any]
        #expect(
            writer?["anchors"] as? String == "local-minimum" && writer?["dictionaryInterval"] as? Int == 32,
            "\(String(describing: writer))")
        // Each chunk compressed right after its dictionary (format 2.1.8).
        #expect(writer?["dictionaryPlacement"] as? String == "prefix", "\(String(describing: writer))")

        let list = try await CLIRunner.runDetached(["ls", archive, "--json"])
        let lines = list.text.split(separator: "\n")
        #expect(lines.count == (object["responses"] as! Int) + (object["redirects"] as! Int))
        for line in lines { _ = try JSONSerialization.jsonObject(with: Data(line.utf8)) }

        let page = try await CLIRunner.runDetached(["cat", archive, "HTTP://LOCALHOST:80/docs/guide.html#x"])
        #expect(page.status == 0)
        #expect(page.stdout == FileManager.default.contents(atPath: Self.sampleSite + "/docs/guide.html"))

        // A path, as unzip -p takes a member name, resolves against the base URL.
        for path in ["docs/guide.html", "/docs/guide.html", "./docs/../docs/guide.html"] {
            let byPath = try await CLIRunner.runDetached(["cat", archive, path])
            #expect(byPath.status == 0, "\(path): \(byPath.stderr)")
            #expect(
                byPath.stdout == FileManager.default.contents(atPath: Self.sampleSite + "/docs/guide.html"), "\(path)")
        }
        #expect(
            try await CLIRunner.runDetached(["cat", archive, "docs/café menu.html"]).stdout
                == FileManager.default.contents(atPath: Self.sampleSite + "/docs/café menu.html"))

        let unicode = try await CLIRunner.runDetached(["cat", archive, "http://localhost/docs/caf%C3%A9%20menu.html"])
        #expect(unicode.stdout == FileManager.default.contents(atPath: Self.sampleSite + "/docs/café menu.html"))

        let redirect = try await CLIRunner.runDetached(["cat", archive, "http://localhost/about", "-L", "-i"])
        #expect(redirect.text.hasPrefix("HTTP/1.1 301"))
        #expect(redirect.text.contains("HTTP/1.1 200 OK"))

        let missing = try await CLIRunner.runDetached(["cat", archive, "http://localhost/nope.html"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("no record for GET http://localhost/nope.html"))

        let out = scratch.file("out")
        let unpack = try await CLIRunner.runDetached(["unpack", archive, "-o", out])
        #expect(unpack.status == 0, "\(unpack.stderr)")
        #expect(try Self.treeDiff(Self.sampleSite, out).isEmpty)
        let again = try await CLIRunner.runDetached(["unpack", archive, "-o", out])
        #expect(again.status == 73)
        #expect(try await CLIRunner.runDetached(["unpack", archive, "-o", out, "--force"]).status == 0)
    }

    @Test("the same folder packs to the same bytes; an existing output is refused without --force")
    func determinismAndOverwrite() async throws {
        let scratch = try TemporaryFolder()
        #expect(
            try await CLIRunner.runDetached(["pack", Self.sampleSite, "-o", scratch.file("a.webarc"), "-q"]).status == 0
        )
        #expect(
            try await CLIRunner.runDetached(["pack", Self.sampleSite, "-o", scratch.file("b.webarc"), "-q"]).status == 0
        )
        #expect(
            FileManager.default.contents(atPath: scratch.file("a.webarc"))
                == FileManager.default.contents(atPath: scratch.file("b.webarc")))
        let exists = try await CLIRunner.runDetached(["pack", Self.sampleSite, "-o", scratch.file("a.webarc")])
        #expect(exists.status == 73)
        #expect(exists.stderr.contains("already exists"))
        #expect(
            try await CLIRunner.runDetached(["pack", Self.sampleSite, "-o", scratch.file("a.webarc"), "--force", "-q"])
                .status == 0)
    }

    @Test(
        "pack's plain form (read without the argument parser) writes, prints and fails as the parsed form does; any other form goes to the parser"
    )
    func plainPackMatchesParsed() async throws {
        let scratch = try TemporaryFolder()
        let plain = scratch.file("plain.webarc")
        let parsed = scratch.file("parsed.webarc")
        // The second form names the defaults, which only the parser reads.
        let fast = try await CLIRunner.runDetached(["pack", Self.sampleSite, "-o", plain, "--json", "-q"])
        let full = try await CLIRunner.runDetached([
            "pack", Self.sampleSite, "--output", parsed, "--json", "--quiet", "--level", "1", "--base-url",
            "http://localhost/",
        ])
        #expect(fast.status == 0 && full.status == 0, "\(fast.stderr) \(full.stderr)")
        #expect(FileManager.default.contents(atPath: plain) == FileManager.default.contents(atPath: parsed))
        var summaries: [[String: String]] = []
        for run in [fast, full] {
            let object = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
            summaries.append(object.filter { $0.key != "archive" && $0.key != "seconds" }.mapValues { "\($0)" })
        }
        #expect(summaries[0] == summaries[1])
        #expect(summaries[0]["files"] != nil && summaries[0]["distinctBodies"] != nil)

        let loud = try await CLIRunner.runDetached(["pack", Self.sampleSite, "-o", scratch.file("loud.webarc")])
        #expect(loud.status == 0 && loud.stderr.contains("packed ") && loud.stdout.isEmpty, "\(loud.stderr)")
        let exists = try await CLIRunner.runDetached(["pack", Self.sampleSite, "-o", plain])
        #expect(exists.status == 73 && exists.stderr.contains("already exists"), "\(exists.stderr)")
        #expect(try await CLIRunner.runDetached(["pack", Self.sampleSite, "-f", "-o", plain, "-q"]).status == 0)
        let unknown = try await CLIRunner.runDetached([
            "pack", Self.sampleSite, "-o", scratch.file("u.webarc"), "--bogus",
        ])
        #expect(unknown.status == 64 && unknown.stderr.contains("--bogus"), "\(unknown.stderr)")
        let twoFolders = try await CLIRunner.runDetached([
            "pack", Self.sampleSite, Self.sampleSite, "-o", scratch.file("t.webarc"),
        ])
        #expect(twoFolders.status == 64, "\(twoFolders.stderr)")
        #expect(
            !FileManager.default.fileExists(atPath: scratch.file("u.webarc"))
                && !FileManager.default.fileExists(atPath: scratch.file("t.webarc")))
    }

    @Test(
        "pack --dictionary-placement apart writes as webarc 2.4 did (info shows apart), the default prefix; another value is a usage error"
    )
    func dictionaryPlacement() async throws {
        let scratch = try TemporaryFolder()
        for (arguments, expected) in [
            ([String](), "prefix"), (["--dictionary-placement", "apart"], "apart"),
            (["--dictionary-placement", "prefix"], "prefix"),
        ] {
            let archive = scratch.file("\(expected)-\(arguments.count).webarc")
            let pack = try await CLIRunner.runDetached(["pack", Self.sampleSite, "-o", archive, "-q"] + arguments)
            #expect(pack.status == 0, "\(pack.stderr)")
            let info =
                try await JSONSerialization.jsonObject(with: CLIRunner.runDetached(["info", archive, "--json"]).stdout)
                as? [String: Any]
            let writer = info?["writer"] as? [String: Any]
            #expect(writer?["dictionaryPlacement"] as? String == expected, "\(arguments)")
            #expect(try await CLIRunner.runDetached(["verify", archive]).status == 0)
        }
        let wrong = try await CLIRunner.runDetached([
            "pack", Self.sampleSite, "-o", scratch.file("x.webarc"), "--dictionary-placement", "middle",
        ])
        #expect(wrong.status == 64 && wrong.stderr.contains("dictionary-placement"), "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("x.webarc")))
    }

    @Test("links leaving the folder are refused and listed unless a flag says what to do")
    func outsideLinks() async throws {
        let scratch = try TemporaryFolder()
        try scratch.write("site/index.html", "<p>home</p>")
        try scratch.write("secret/key.txt", "do not ship")
        try FileManager.default.createSymbolicLink(
            atPath: scratch.file("site/key.txt"), withDestinationPath: scratch.file("secret/key.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: scratch.file("site/home.html"), withDestinationPath: "index.html")
        let refused = try await CLIRunner.runDetached(["pack", scratch.file("site"), "-o", scratch.file("a.webarc")])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("key.txt: link leaves the folder"))
        #expect(refused.stderr.contains("--follow-outside"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("a.webarc")))

        #expect(
            try await CLIRunner.runDetached([
                "pack", scratch.file("site"), "-o", scratch.file("f.webarc"), "--follow-outside",
            ]).status
                == 0)
        #expect(
            try await CLIRunner.runDetached(["cat", scratch.file("f.webarc"), "http://localhost/key.txt"]).text
                == "do not ship")
        let followed = try ArchiveReader(path: scratch.file("f.webarc"))
        #expect(followed.bodyCount == 2)

        #expect(
            try await CLIRunner.runDetached([
                "pack", scratch.file("site"), "-o", scratch.file("s.webarc"), "--skip-outside", "-q",
            ])
            .status == 0)
        #expect(
            try await CLIRunner.runDetached(["cat", scratch.file("s.webarc"), "http://localhost/key.txt"]).status == 66)
        #expect(
            try await CLIRunner.runDetached(["cat", scratch.file("s.webarc"), "http://localhost/home.html"]).text
                == "<p>home</p>")
    }

    @Test("FIFOs, loops and unreadable files are listed and fail the pack unless skipped")
    func unreadableEntries() async throws {
        let scratch = try TemporaryFolder()
        try scratch.write("site/index.html", "<p>home</p>")
        #expect(mkfifo(scratch.file("site/pipe"), 0o644) == 0)
        try FileManager.default.createSymbolicLink(
            atPath: scratch.file("site/loop"), withDestinationPath: scratch.file("site"))
        try FileManager.default.createSymbolicLink(
            atPath: scratch.file("site/dangling"), withDestinationPath: scratch.file("nowhere"))
        let failed = try await CLIRunner.runDetached(["pack", scratch.file("site"), "-o", scratch.file("a.webarc")])
        #expect(failed.status == 65)
        #expect(failed.stderr.contains("pipe: not a regular file (FIFO)"))
        #expect(failed.stderr.contains("loop: symbolic link loop"))
        #expect(failed.stderr.contains("dangling: unreadable"))
        let skipped = try await CLIRunner.runDetached([
            "pack", scratch.file("site"), "-o", scratch.file("a.webarc"), "--skip-unreadable",
        ])
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(skipped.stderr.contains("skipped"))
        #expect(try ArchiveReader(path: scratch.file("a.webarc")).recordCount == 2)
    }

    @Test(
        "bad archives give one line naming the file and a distinct exit code",
        arguments: [
            ("empty", Data(), 65, "is empty"),
            ("text", Data("hello, this is not an archive\n".utf8), 65, "not a webarc archive"),
        ])
    func badArchives(name: String, bytes: Data, status: Int32, message: String) async throws {
        let scratch = try TemporaryFolder()
        try bytes.write(to: URL(fileURLWithPath: scratch.file(name)))
        for command in [["verify"], ["info"], ["ls"], ["cat"]] {
            let result = try await CLIRunner.runDetached(
                command + [scratch.file(name)] + (command == ["cat"] ? ["http://localhost/"] : []))
            #expect(result.status == status, "\(command): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(command): \(result.stderr)")
        }
    }

    @Test("a damaged archive fails verify with the problem, its offset, and exit 65; --json says the same")
    func damagedArchive() async throws {
        let scratch = try TemporaryFolder()
        let archive = scratch.file("site.webarc")
        #expect(try await CLIRunner.runDetached(["pack", Self.sampleSite, "-o", archive, "-q"]).status == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        bytes[200] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: archive))
        let verify = try await CLIRunner.runDetached(["verify", archive])
        #expect(verify.status == 65)
        #expect(verify.text.contains("FAILED"))
        // A flipped byte in a chunk fails the chunk's SHA-256 (spec §6.2), before any body check.
        #expect(verify.stderr.contains("[chunks]") && verify.stderr.contains("SHA-256"))
        let json =
            try await JSONSerialization.jsonObject(
                with: try CLIRunner.runDetached(["verify", archive, "--json"]).stdout)
            as! [String: Any]
        #expect(json["passed"] as? Bool == false)
        #expect(!(json["problems"] as! [Any]).isEmpty)

        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: archive))
        let truncated = try await CLIRunner.runDetached(["info", archive])
        #expect(truncated.status == 65)
        #expect(truncated.stderr.contains("truncated"))
        #expect(truncated.stderr.split(separator: "\n").count == 1)
    }

    @Test("missing inputs exit 66, a folder given as archive too; bad usage exits 64")
    func missingInputs() async throws {
        let scratch = try TemporaryFolder()
        #expect(try await CLIRunner.runDetached(["verify", scratch.file("none.webarc")]).status == 66)
        #expect(try await CLIRunner.runDetached(["info", scratch.path]).status == 66)
        #expect(
            try await CLIRunner.runDetached(["pack", scratch.file("none"), "-o", scratch.file("x.webarc")]).status == 66
        )
        #expect(try await CLIRunner.runDetached(["pack"]).status == 64)
        #expect(try await CLIRunner.runDetached(["frobnicate"]).status == 64)
    }

    @Test("help teaches: examples and exit codes")
    func help() async throws {
        let help = try await CLIRunner.runDetached(["pack", "--help"])
        #expect(help.text.contains("webarc pack site/ -o site.webarc"))
        #expect(help.text.contains("Exit codes"))
        #expect(try await CLIRunner.runDetached(["--help"]).text.contains("unpack"))
    }

    /// A subcommand is parsed on its own when that parse is clean (start-up), and from the root
    /// otherwise: what a user sees for help, a typo or a failed validation is the root's.
    @Test("a subcommand's help, usage errors and version read as the root command's")
    func subcommandMessages() async throws {
        let scratch = try TemporaryFolder()
        let typo = try await CLIRunner.runDetached([
            "pack", "--frobnicate", scratch.path, "-o", scratch.file("x.webarc"),
        ])
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("Usage: webarc pack"))
        let missing = try await CLIRunner.runDetached(["verify"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("Usage: webarc verify"))
        let help = try await CLIRunner.runDetached(["info", "--help"])
        #expect(help.status == 0)
        #expect(help.text.contains("USAGE: webarc info"))
        let named = try await CLIRunner.runDetached(["help", "ls"])
        #expect(named.status == 0)
        #expect(named.text.contains("USAGE: webarc ls"))
        let version = try await CLIRunner.runDetached(["--version"])
        #expect(version.text.hasPrefix("2."))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("x.webarc")))
    }

    @Test("unpack never writes outside its folder, whatever the URLs hold")
    func unpackEscapes() async throws {
        let scratch = try TemporaryFolder()
        let archive = scratch.file("evil.webarc")
        let writer = try ArchiveWriter(path: archive)
        let urls = [
            "http://x/../../escape1", "http://x/%2e%2e/%2e%2e/escape2", "http://x/a%2F..%2F..%2Fescape3",
            "http://x/%5C..%5C..%5Cescape4", "http://x/a%00b", "http://x//etc/escape5", "http://x/q?../../escape6",
            "http://x/dir/", "http://x/dir", "http://x/dir/file",
        ]
        for (index, url) in urls.enumerated() {
            let body = try writer.addBody(Array("body \(index)".utf8))
            try writer.add(ResponseRecord(request: RequestRecord(url: url), body: body))
        }
        try writer.finish()
        let out = scratch.file("out")
        let result = try await CLIRunner.runDetached(["unpack", archive, "-o", out])
        #expect(result.status == 65, "the /dir file beside /dir/file must be reported")
        #expect(result.stderr.contains("http://x/dir"))
        let outside = try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted()
        #expect(outside == ["evil.webarc", "out"])
        let written = FileManager.default.enumerator(atPath: out)!.allObjects as! [String]
        #expect(written.count >= 8)
        for path in written {
            let resolved = URL(fileURLWithPath: out + "/" + path).standardizedFileURL.path
            #expect(resolved.hasPrefix(URL(fileURLWithPath: out).standardizedFileURL.path + "/"))
        }
    }

    /// Paths whose bytes differ between two trees (both ways), symlinks resolved.
    static func treeDiff(_ first: String, _ second: String) throws -> [String] {
        func files(_ root: String) -> [String: Data] {
            var result: [String: Data] = [:]
            for case let path as String in FileManager.default.enumerator(atPath: root)! {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder),
                    !isFolder.boolValue
                {
                    result[path] = FileManager.default.contents(atPath: root + "/" + path)
                }
            }
            return result
        }
        let a = files(first)
        let b = files(second)
        return Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.sorted()
    }
}
