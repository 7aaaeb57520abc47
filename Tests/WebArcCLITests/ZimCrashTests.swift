import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// ZIM files that crash libzim (`Fixtures/zim-crash/`, found by the ZIM fuzz target): `webarc
/// import` runs libzim in `webarc-zim`, a child process, so each ends as one error line naming
/// the file, exit 65, with nothing written and no temporary left.
@Suite("Hostile ZIMs: libzim runs in a child process")
struct ZimCrashTests {
    static let folder = CLIRunner.repository.appendingPathComponent("Tests/WebArcCLITests/Fixtures/zim-crash").path
    static let cases = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
        .filter { $0.hasPrefix("crash-") }.sorted()
    /// The crasher libzim still dies on (a SIGSEGV while it opens the file).
    static let segfault = folder + "/crash-096b7d8186ca0fb851b0fe39493226985af06eb7"

    @Test("the fixtures are there")
    func fixtures() {
        #expect(Self.cases.count == 2, "\(Self.folder)")
    }

    @Test("each: one error line naming the file, exit 65, no archive, no temporary", arguments: cases)
    func crashCase(name: String) async throws {
        let scratch = try TemporaryFolder()
        let input = Self.folder + "/" + name
        let result = try await CLIRunner.runDetached(["import", input, "-o", scratch.file("out.webarc")])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("webarc: error: "), "\(result.stderr)")
        #expect(result.stderr.contains(input), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == [])
    }

    @Test("a crash of libzim: the signal named, the temporary the child made removed")
    func segfault() async throws {
        let scratch = try TemporaryFolder()
        // webarc-zim alone dies on it and leaves its output's temporary: what webarc cleans up.
        let alone = try await CLIRunner.runDetached(
            ["import", Self.segfault, "-o", scratch.file("alone.webarc")],
            executable: (CLIRunner.binary as NSString).deletingLastPathComponent + "/webarc-zim",
            environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(alone.status == SIGSEGV, "\(alone.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        #expect(left.count == 1 && left[0].hasPrefix(".alone.webarc.tmp-"), "\(left)")
        try FileManager.default.removeItem(atPath: scratch.file(left[0]))

        let result = try await CLIRunner.runDetached(["import", Self.segfault, "-o", scratch.file("out.webarc")])
        #expect(result.status == 65)
        #expect(
            result.stderr
                == "webarc: error: libzim stopped on \(Self.segfault) (signal 11, SIGSEGV): the ZIM is damaged or hostile\n"
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == [])
    }

    @Test("an archive already at -o stays as it was when libzim crashes under --force")
    func existingOutputUntouched() async throws {
        let scratch = try TemporaryFolder()
        let existing = try scratch.write("out.webarc", Array("an earlier archive".utf8))
        let result = try await CLIRunner.runDetached(["import", Self.segfault, "-o", existing, "--force"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == Data("an earlier archive".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["out.webarc"])
    }

    @Test("damaged bytes after the header: an archive that verifies, or one error line and nothing written (seeded)")
    func damagedBytes() async throws {
        let scratch = try TemporaryFolder()
        try scratch.write(
            "site/index.html",
            Array("<html><head><title>Home</title></head><body><a href=a.html>a</a></body></html>".utf8))
        try scratch.write("site/a.html", Array("<html><head><title>A</title></head><body>a</body></html>".utf8))
        try scratch.write("site/style.css", Array("p { color: red }".utf8))
        #expect(
            try await CLIRunner.runDetached(["pack", scratch.file("site"), "-o", scratch.file("site.webarc"), "-q"])
                .status == 0)
        let zim = scratch.file("site.zim")
        let exported = try await CLIRunner.runDetached([
            "export", scratch.file("site.webarc"), "--format", "zim", "-o", zim, "-q",
        ])
        #expect(exported.status == 0, "\(exported.stderr)")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: zim)))
        try FileManager.default.createDirectory(atPath: scratch.file("out"), withIntermediateDirectories: true)
        var generator = SeededGenerator(seed: 20_261_127)
        var outcomes: [Int32: Int] = [:]
        for _ in 0..<24 {
            var damaged = bytes
            for _ in 0..<4 {
                let offset = 80 + Int(generator.next() % UInt64(bytes.count - 96))
                damaged[offset] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            }
            let input = try scratch.write("damaged.zim", damaged)
            let output = scratch.file("out/site.webarc")
            let result = try await CLIRunner.runDetached(["import", input, "-o", output, "--force", "-q"])
            outcomes[result.status, default: 0] += 1
            if result.status == 0 {
                #expect(ArchiveVerifier.verify(path: output).passed)
                try FileManager.default.removeItem(atPath: output)
            } else {
                #expect(result.status == 65, "\(result.stderr)")
                #expect(result.stderr.hasPrefix("webarc: error: ") && result.stderr.contains(input), "\(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("out")) == [])
        }
        #expect(outcomes.values.reduce(0, +) == 24)
    }
}
