import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// The portable mode (`WEBARC_PORTABLE=1`: no AVX-512 lanes, SHA-NI, thread pinning, allocator
/// tuning, writeback hints, `sendfile` or `O_TMPFILE`) through the real binary: it writes the
/// archive the fast paths write, byte for byte, and reads it back the same.
@Suite("portable mode")
struct PortableModeTests {
    /// A site that reaches every hashing path of pack: batches of small pages (lanes), bodies of
    /// several chunks read whole, a file large enough to stream chunk by chunk, duplicates of both
    /// kinds, incompressible bytes and an empty file.
    static func site(in scratch: TemporaryFolder) throws -> String {
        var random = SeededGenerator(seed: 83)
        for number in 0..<120 {
            let length = 200 + Int.random(in: 0...20_000, using: &random)
            _ = try scratch.write(
                "site/pages/\(number).html", number % 5 == 0 ? random.bytes(length) : random.text(length))
        }
        let long = random.text(3 * ChunkEntry.maxRawLength + 1000)
        _ = try scratch.write("site/long.html", long)
        _ = try scratch.write("site/copy/long.html", long)
        _ = try scratch.write("site/media.bin", random.bytes(2 * ChunkEntry.maxRawLength + 5))
        let streamed = random.text(Int(SitePacker.parallelLimit) + 3 * ChunkEntry.maxRawLength + 17)
        _ = try scratch.write("site/streamed.txt", streamed)
        _ = try scratch.write("site/copy/streamed.txt", streamed)
        _ = try scratch.write("site/empty.txt", [UInt8]())
        return scratch.file("site")
    }

    /// This process's environment with `WEBARC_PORTABLE=1` or without the variable, and a fixed
    /// `SOURCE_DATE_EPOCH` (so that two packs differ only by the mode).
    static func environment(portable: Bool) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["WEBARC_PORTABLE"] = portable ? "1" : nil
        environment["SOURCE_DATE_EPOCH"] = "1790000000"
        return environment
    }

    static func run(_ arguments: [String], portable: Bool) async throws -> CLIRunner.Result {
        try await CLIRunner.runDetached(arguments, environment: environment(portable: portable))
    }

    @Test("pack writes the same bytes with WEBARC_PORTABLE=1 as without; verify and unpack read it alike either way")
    func sameBytes() async throws {
        let scratch = try TemporaryFolder()
        let site = try Self.site(in: scratch)
        var archives: [Bool: Data] = [:]
        for portable in [false, true] {
            let path = scratch.file("portable-\(portable).webarc")
            let packed = try await Self.run(["pack", site, "-o", path, "-q"], portable: portable)
            try #require(packed.status == 0, "portable \(portable): \(packed.stderr)")
            archives[portable] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        #expect(archives[true] == archives[false], "the archive's bytes depend on WEBARC_PORTABLE")
        let files = try FileManager.default.subpathsOfDirectory(atPath: site).filter {
            FileManager.default.contents(atPath: site + "/" + $0) != nil
        }
        #expect(files.count == 126)
        for portable in [false, true] {
            let archive = scratch.file("portable-false.webarc")
            let verified = try await Self.run(["verify", archive, "-q"], portable: portable)
            #expect(verified.status == 0, "portable \(portable): \(verified.stderr)")
            let out = scratch.file("out-\(portable)")
            let unpacked = try await Self.run(["unpack", archive, "-o", out, "-q"], portable: portable)
            try #require(unpacked.status == 0, "portable \(portable): \(unpacked.stderr)")
            for file in files {
                #expect(
                    FileManager.default.contents(atPath: out + "/" + file)
                        == FileManager.default.contents(atPath: site + "/" + file),
                    "portable \(portable): \(file)")
            }
        }
    }

    @Test("a damaged archive fails verify with the same report with WEBARC_PORTABLE=1 as without")
    func sameProblems() async throws {
        let scratch = try TemporaryFolder()
        let site = try Self.site(in: scratch)
        let path = scratch.file("site.webarc")
        let packed = try await Self.run(["pack", site, "-o", path, "-q"], portable: false)
        try #require(packed.status == 0, "\(packed.stderr)")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // Past the header, in the body data: one byte of a stored or compressed chunk.
        bytes[bytes.count / 3] ^= 0x20
        try bytes.write(to: URL(fileURLWithPath: path))
        var runs: [CLIRunner.Result] = []
        for portable in [false, true] {
            runs.append(try await Self.run(["verify", path, "--json"], portable: portable))
        }
        #expect(runs.map(\.status) == [65, 65], "\(runs.map(\.stderr))")
        // The reports but for how long each took.
        let reports = try runs.map { run in
            var report = try #require(
                try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], "\(run.text)")
            report["seconds"] = nil
            return report as NSDictionary
        }
        #expect(reports[0] == reports[1])
        let problems = try #require(reports[0]["problems"] as? [[String: Any]])
        #expect(problems.map { $0["check"] as? String } == ["chunks"], "\(problems)")
    }
}
