import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// `webarc diff`, `apply`, `pack --base`, and `ls`/`info` on stacks, through the real binary (spec §13).
@Suite("webarc diff and apply", .serialized)
struct UpdateCommandTests {
    /// Two releases of the sample site: release 2 edits two pages, deletes one and adds one.
    struct Releases {
        let scratch: TemporaryFolder
        var old: String { scratch.file("v1.webarc") }
        var new: String { scratch.file("v2.webarc") }

        init() async throws {
            scratch = try TemporaryFolder()
            let manager = FileManager.default
            for name in ["v1", "v2"] { try manager.copyItem(atPath: CLITests.sampleSite, toPath: scratch.file(name)) }
            for page in ["index.html", "about/index.html"] {
                let path = scratch.file("v2/" + page)
                var text = try String(contentsOfFile: path, encoding: .utf8)
                text = text.replacingOccurrences(of: "</body>", with: "<p>Release 2</p>\n</body>")
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            }
            try manager.removeItem(atPath: scratch.file("v2/robots.txt"))
            try "<h1>New in release 2</h1>".write(
                toFile: scratch.file("v2/new.html"), atomically: true, encoding: .utf8)
            for name in ["v1", "v2"] {
                let files = manager.enumerator(atPath: scratch.file(name))!.compactMap { $0 as? String }
                for file in files {
                    try manager.setAttributes(
                        [.modificationDate: Date(timeIntervalSince1970: 1_790_000_000)],
                        ofItemAtPath: scratch.file(name + "/" + file))
                }
                let pack = try await CLIRunner.runDetached([
                    "pack", scratch.file(name), "-o", scratch.file(name + ".webarc"), "-q",
                ])
                #expect(pack.status == 0, "\(pack.stderr)")
            }
        }

        func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }
    }

    @Test("diff then apply gives the new archive byte for byte; the update is a small fraction of it")
    func diffApply() async throws {
        let releases = try await Releases()
        let update = releases.scratch.file("u.webarc")
        let diff = try await CLIRunner.runDetached(["diff", releases.old, releases.new, "-o", update, "--json"])
        #expect(diff.status == 0, "\(diff.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: diff.stdout) as? [String: Any])
        #expect(summary["changedURLs"] as? Int == 5)  // index.html and /, about/index.html and about/, new.html
        #expect(summary["deletedURLs"] as? Int == 1)
        #expect(summary["checked"] as? Bool == true)
        let updateBytes = try releases.bytes(update).count
        #expect(updateBytes * 5 < (try releases.bytes(releases.new)).count, "update \(updateBytes) bytes")

        let apply = try await CLIRunner.runDetached([
            "apply", releases.old, update, "-o", releases.scratch.file("v2-applied.webarc"), "--json",
        ])
        #expect(apply.status == 0, "\(apply.stderr)")
        #expect(try releases.bytes(releases.scratch.file("v2-applied.webarc")) == releases.bytes(releases.new))
        // What apply reports of its result is what `info` reads from the file.
        let applied = try #require(try JSONSerialization.jsonObject(with: apply.stdout) as? [String: Any])
        let newInfo = try #require(
            try await JSONSerialization.jsonObject(
                with: CLIRunner.runDetached(["info", releases.new, "--json"]).stdout)
                as? [String: Any])
        #expect(applied["archiveDigest"] as? String == newInfo["archiveDigest"] as? String)
        #expect(applied["bytes"] as? Int == (try releases.bytes(releases.new)).count)
        // The unchanged pages' analyses come from release 1's search index.
        #expect((applied["searchDocumentsReused"] as? Int ?? 0) > 0, "\(applied)")
        #expect(applied["searchRebuilt"] as? Bool == false)

        let again = try await CLIRunner.runDetached([
            "apply", releases.old, update, "-o", releases.scratch.file("v2-applied.webarc"),
        ])
        #expect(again.status == 73, "an existing output needs --force: \(again.stderr)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: releases.scratch.path).filter {
            $0.hasPrefix(".")
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("pack --base writes the same update as diff, and leaves no temporary archive")
    func packWithBase() async throws {
        let releases = try await Releases()
        let diffed = releases.scratch.file("diffed.webarc")
        #expect(try await CLIRunner.runDetached(["diff", releases.old, releases.new, "-o", diffed, "-q"]).status == 0)
        let packed = releases.scratch.file("packed.webarc")
        let pack = try await CLIRunner.runDetached([
            "pack", releases.scratch.file("v2"), "--base", releases.old, "-o", packed,
        ])
        #expect(pack.status == 0, "\(pack.stderr)")
        #expect(pack.stderr.contains("wrote the update over"))
        #expect(try releases.bytes(packed) == releases.bytes(diffed))
        let fromFolder = releases.scratch.file("from-folder.webarc")
        let folderDiff = try await CLIRunner.runDetached([
            "diff", releases.old, releases.scratch.file("v2"), "-o", fromFolder, "-q",
        ])
        #expect(folderDiff.status == 0, "\(folderDiff.stderr)")
        #expect(try releases.bytes(fromFolder) == releases.bytes(diffed))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: releases.scratch.path).filter {
            $0.hasPrefix(".")
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("ls lists the layered view; info shows the writer, the base and what the update applies to")
    func listAndInfo() async throws {
        let releases = try await Releases()
        let update = releases.scratch.file("u.webarc")
        #expect(try await CLIRunner.runDetached(["diff", releases.old, releases.new, "-o", update, "-q"]).status == 0)
        let layered = try await CLIRunner.runDetached(["ls", update, releases.old])
        let plain = try await CLIRunner.runDetached(["ls", releases.new])
        #expect(layered.status == 0, "\(layered.stderr)")
        let strip = { (text: String) in
            text.split(separator: "\n").map {
                $0.replacingOccurrences(of: #" \[\d\]$"#, with: "", options: .regularExpression)
            }
        }
        #expect(strip(layered.text) == strip(plain.text))
        #expect(layered.text.contains("new.html 25") && layered.text.contains("[1]") && layered.text.contains("[2]"))
        #expect(!layered.text.contains("robots.txt"))
        let info = try await CLIRunner.runDetached(["info", update])
        #expect(info.text.contains("base 1       v1.webarc"))
        #expect(info.text.contains("applies to   archive digest"))
        #expect(info.text.contains("delta-codec") || info.text.contains("layer"))
        let json = try #require(
            try await JSONSerialization.jsonObject(with: try CLIRunner.runDetached(["info", update, "--json"]).stdout)
                as? [String: Any])
        #expect((json["bases"] as? [Any])?.count == 1)
        #expect(json["target"] is [String: Any])

        let alone = try await CLIRunner.runDetached(["verify", update])
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(alone.stderr.contains("checked only over its bases"), "\(alone.stderr)")
        let stacked = try await CLIRunner.runDetached(["verify", update, "--base", releases.old])
        #expect(stacked.status == 0, "\(stacked.stderr)")
        #expect(stacked.text.contains(" 0 warnings"), "\(stacked.text)")
        let wrong = try await CLIRunner.runDetached(["verify", update, "--base", releases.new])
        #expect(wrong.status == 65, "\(wrong.stderr)")
    }

    @Test("apply refuses a wrong base and a damaged update with exit 65, writing nothing")
    func refusals() async throws {
        let releases = try await Releases()
        let update = releases.scratch.file("u.webarc")
        #expect(try await CLIRunner.runDetached(["diff", releases.old, releases.new, "-o", update, "-q"]).status == 0)
        let output = releases.scratch.file("out.webarc")
        let wrongBase = try await CLIRunner.runDetached(["apply", releases.new, update, "-o", output])
        #expect(wrongBase.status == 65)
        #expect(wrongBase.stderr.contains("do not match the update's bases"), "\(wrongBase.stderr)")
        var damaged = [UInt8](try releases.bytes(update))
        damaged[17] ^= 0x10
        try Data(damaged).write(to: URL(fileURLWithPath: releases.scratch.file("damaged.webarc")))
        let broken = try await CLIRunner.runDetached([
            "apply", releases.old, releases.scratch.file("damaged.webarc"), "-o", output,
        ])
        #expect(broken.status == 65, "\(broken.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let missingBase = try await CLIRunner.runDetached(["apply", update, "-o", output])
        #expect(missingBase.status == 64)
    }

    @Test(
        "a signed release: apply --trust refuses an unsigned update, accepts a signed one, and the publisher's signature verifies on the result"
    )
    func signedRelease() async throws {
        let releases = try await Releases()
        let scratch = releases.scratch
        #expect(try await CLIRunner.runDetached(["keygen", "-o", scratch.file("publisher")]).status == 0)
        #expect(
            try await CLIRunner.runDetached([
                "sign", releases.new, "--key", scratch.file("publisher.key"), "--sequence", "2",
            ]).status
                == 0)
        let update = scratch.file("u.webarc")
        #expect(try await CLIRunner.runDetached(["diff", releases.old, releases.new, "-o", update, "-q"]).status == 0)
        let output = scratch.file("v2-kiosk.webarc")
        let unsigned = try await CLIRunner.runDetached([
            "apply", releases.old, update, "-o", output, "--trust", scratch.file("publisher.pub"),
        ])
        #expect(unsigned.status == 65)
        #expect(unsigned.stderr.contains("unsigned"), "\(unsigned.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))

        #expect(
            try await CLIRunner.runDetached(["sign", update, "--key", scratch.file("publisher.key"), "--sequence", "2"])
                .status == 0)
        let signed = try await CLIRunner.runDetached([
            "apply", releases.old, update, "-o", output, "--trust", scratch.file("publisher.pub"),
        ])
        #expect(signed.status == 0, "\(signed.stderr)")
        #expect(try releases.bytes(output) == releases.bytes(releases.new))
        let verify = try await CLIRunner.runDetached(["verify", output, "--trust", scratch.file("publisher.pub"), "-q"])
        #expect(verify.status == 0, "\(verify.stderr)")
    }

    @Test(
        "diff --compact then apply gives the new archive; apply --layer gives diff's update archive; pack --base --compact writes the same compact update; a wrong base is refused with nothing written"
    )
    func compactUpdate() async throws {
        let releases = try await Releases()
        let scratch = releases.scratch
        let compact = scratch.file("u.webarcu")
        let diff = try await CLIRunner.runDetached([
            "diff", releases.old, releases.new, "--compact", "-o", compact, "--json",
        ])
        #expect(diff.status == 0, "\(diff.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: diff.stdout) as? [String: Any])
        #expect(summary["form"] as? String == "compact")
        #expect(summary["deletedURLs"] as? Int == 1)
        #expect(summary["checked"] as? Bool == true)
        #expect(summary["updateBytes"] as? Int == (try releases.bytes(compact)).count)

        let apply = try await CLIRunner.runDetached([
            "apply", releases.old, compact, "-o", scratch.file("v2-applied.webarc"), "--json",
        ])
        #expect(apply.status == 0, "\(apply.stderr)")
        #expect(try releases.bytes(scratch.file("v2-applied.webarc")) == releases.bytes(releases.new))
        // Reported without opening the result: the target's digest and size, which `info` reads from the file.
        let applied = try #require(try JSONSerialization.jsonObject(with: apply.stdout) as? [String: Any])
        let newInfo = try #require(
            try await JSONSerialization.jsonObject(
                with: CLIRunner.runDetached(["info", releases.new, "--json"]).stdout)
                as? [String: Any])
        #expect(applied["archiveDigest"] as? String == newInfo["archiveDigest"] as? String)
        #expect(applied["bytes"] as? Int == (try releases.bytes(releases.new)).count)

        #expect(
            try await CLIRunner.runDetached(["diff", releases.old, releases.new, "-o", scratch.file("u.webarc"), "-q"])
                .status == 0)
        let layer = try await CLIRunner.runDetached([
            "apply", releases.old, compact, "--layer", "-o", scratch.file("u-expanded.webarc"), "-q",
        ])
        #expect(layer.status == 0, "\(layer.stderr)")
        #expect(try releases.bytes(scratch.file("u-expanded.webarc")) == releases.bytes(scratch.file("u.webarc")))
        #expect(try releases.bytes(compact).count * 4 < (try releases.bytes(scratch.file("u.webarc"))).count)

        let packed = try await CLIRunner.runDetached([
            "pack", scratch.file("v2"), "--base", releases.old, "--compact", "-o", scratch.file("packed.webarcu"), "-q",
        ])
        #expect(packed.status == 0, "\(packed.stderr)")
        #expect(try releases.bytes(scratch.file("packed.webarcu")) == releases.bytes(compact))

        let output = scratch.file("wrong.webarc")
        let wrong = try await CLIRunner.runDetached(["apply", releases.new, compact, "-o", output])
        #expect(wrong.status == 65)
        #expect(wrong.stderr.contains("bad") || wrong.stderr.contains("made over"), "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        var damaged = [UInt8](try releases.bytes(compact))
        damaged[damaged.count - 5] ^= 0x40
        try Data(damaged).write(to: URL(fileURLWithPath: scratch.file("damaged.webarcu")))
        let broken = try await CLIRunner.runDetached([
            "apply", releases.old, scratch.file("damaged.webarcu"), "-o", output,
        ])
        #expect(broken.status == 65, "\(broken.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test(
        "info describes a compact update (its base, what it gives, its sections) without its base; ls and verify say it must be applied first"
    )
    func compactInfo() async throws {
        let releases = try await Releases()
        let scratch = releases.scratch
        let compact = scratch.file("u.webarcu")
        #expect(
            try await CLIRunner.runDetached(["diff", releases.old, releases.new, "--compact", "-o", compact, "-q"])
                .status == 0)
        let oldInfo = try #require(
            try await JSONSerialization.jsonObject(
                with: CLIRunner.runDetached(["info", releases.old, "--json"]).stdout)
                as? [String: Any])
        let newInfo = try #require(
            try await JSONSerialization.jsonObject(
                with: CLIRunner.runDetached(["info", releases.new, "--json"]).stdout)
                as? [String: Any])

        let info = try await CLIRunner.runDetached(["info", compact, "--json"])
        #expect(info.status == 0, "\(info.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: info.stdout) as? [String: Any])
        #expect(summary["kind"] as? String == "compact update")
        #expect(summary["fileBytes"] as? Int == (try releases.bytes(compact)).count)
        let bases = try #require(summary["bases"] as? [[String: Any]])
        #expect(bases.count == 1)
        #expect(bases.first?["digest"] as? String == oldInfo["archiveDigest"] as? String)
        let target = try #require(summary["target"] as? [String: Any])
        #expect(target["digest"] as? String == newInfo["archiveDigest"] as? String)
        #expect(target["archiveLength"] as? Int == newInfo["archiveLength"] as? Int)
        // Version 2 names the new archive's body data digest.
        #expect(summary["compactVersion"] as? Int == 2)
        #expect(target["bodyData"] as? String == (try ArchiveReader(path: releases.new).bodyDataDigest().hex))
        let sections = try #require(summary["sectionBytes"] as? [String: Int])
        #expect(Set(sections.keys) == ["index", "records", "bodies"])
        #expect(sections.values.reduce(0, +) < (try releases.bytes(compact)).count)

        let text = try await CLIRunner.runDetached(["info", compact])
        #expect(text.status == 0 && text.text.contains("webarc apply BASE"), "\(text.text)")
        #expect(text.text.contains("version 2") && text.text.contains("body data    SHA-256 "), "\(text.text)")

        for command in [["ls", compact], ["verify", compact]] {
            let refused = try await CLIRunner.runDetached(command)
            #expect(refused.status != 0)
            #expect(
                refused.stderr.contains("is a compact update") && refused.stderr.contains("webarc apply"),
                "\(command): \(refused.stderr)")
        }
        var cut = [UInt8](try releases.bytes(compact))
        cut.removeLast(3)
        try Data(cut).write(to: URL(fileURLWithPath: scratch.file("cut.webarcu")))
        let broken = try await CLIRunner.runDetached(["info", scratch.file("cut.webarcu")])
        #expect(broken.status == 65, "\(broken.stderr)")
        #expect(broken.stderr.contains("section"), "\(broken.stderr)")
    }

    @Test(
        "a compact update carries the publisher's signature on the new archive: apply --trust accepts it, and refuses one made from an unsigned release"
    )
    func compactSigned() async throws {
        let releases = try await Releases()
        let scratch = releases.scratch
        #expect(try await CLIRunner.runDetached(["keygen", "-o", scratch.file("publisher")]).status == 0)
        let output = scratch.file("v2-kiosk.webarc")
        #expect(
            try await CLIRunner.runDetached([
                "diff", releases.old, releases.new, "--compact", "-o", scratch.file("unsigned.webarcu"), "-q",
            ]).status == 0)
        let unsigned = try await CLIRunner.runDetached([
            "apply", releases.old, scratch.file("unsigned.webarcu"), "-o", output, "--trust",
            scratch.file("publisher.pub"),
        ])
        #expect(unsigned.status == 65)
        #expect(unsigned.stderr.contains("unsigned"), "\(unsigned.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))

        #expect(
            try await CLIRunner.runDetached([
                "sign", releases.new, "--key", scratch.file("publisher.key"), "--sequence", "2",
            ]).status
                == 0)
        #expect(
            try await CLIRunner.runDetached([
                "diff", releases.old, releases.new, "--compact", "-o", scratch.file("signed.webarcu"), "-q",
            ]).status == 0)
        let signed = try await CLIRunner.runDetached([
            "apply", releases.old, scratch.file("signed.webarcu"), "-o", output, "--trust",
            scratch.file("publisher.pub"),
        ])
        #expect(signed.status == 0, "\(signed.stderr)")
        #expect(try releases.bytes(output) == releases.bytes(releases.new))
        let verify = try await CLIRunner.runDetached(["verify", output, "--trust", scratch.file("publisher.pub"), "-q"])
        #expect(verify.status == 0, "\(verify.stderr)")
    }
}
