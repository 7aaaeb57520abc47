import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// Inputs that are not archives at all, progress on a terminal, and interrupted writes.
@Suite("webarc command line: bad inputs, progress, interrupts", .serialized)
struct CLIRobustnessTests {
    static let vectors = CLIRunner.repository.appendingPathComponent("Spec/vectors").path
    static let readingCommands: [[String]] = [["verify"], ["info"], ["ls"], ["cat"], ["unpack"]]

    /// The arguments that make `command` read `archive` (cat needs a URL, unpack an output folder).
    static func arguments(_ command: [String], _ archive: String, scratch: TemporaryFolder) -> [String] {
        switch command {
        case ["cat"]: command + [archive, "http://localhost/"]
        case ["unpack"]: command + [archive, "-o", scratch.file("out-\(UUID().uuidString)")]
        default: command + [archive]
        }
    }

    @Test("a FIFO or a folder given as the archive is refused at once with exit 66, never a hang")
    func notRegularFiles() async throws {
        let scratch = try TemporaryFolder()
        let fifo = scratch.file("pipe.webarc")
        #expect(mkfifo(fifo, 0o644) == 0)
        let folder = scratch.file("folder.webarc")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (input, message) in [(fifo, "not a regular file"), (folder, "directory")] {
            for command in Self.readingCommands {
                let result = try await CLIRunner.runDetached(
                    Self.arguments(command, input, scratch: scratch), timeout: 20)
                #expect(result.status == 66, "\(command) \(input): \(result.status) \(result.stderr)")
                #expect(
                    result.stderr.contains(input) && result.stderr.lowercased().contains(message),
                    "\(command): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(command): \(result.stderr)")
            }
        }
    }

    @Test("an archive of a newer major version is refused by every command, naming both versions")
    func newerMajorVersion() async throws {
        let scratch = try TemporaryFolder()
        let archive = Self.vectors + "/invalid/format-3.webarc"
        for command in Self.readingCommands {
            let result = try await CLIRunner.runDetached(Self.arguments(command, archive, scratch: scratch))
            #expect(result.status == 65, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("3") && result.stderr.contains("2"), "\(command): \(result.stderr)")
            #expect(result.stderr.lowercased().contains("upgrade"), "\(command): \(result.stderr)")
        }
    }

    @Test("every invalid vector gives every reading command a non-zero exit and one line on stderr")
    func invalidVectorsThroughTheBinary() async throws {
        let scratch = try TemporaryFolder()
        let folder = Self.vectors + "/invalid"
        // Vectors that fail at open or verify (the others fail only a trust check or a stack, and
        // verify clean on their own).
        let expected =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/expected.json")))
            as! [String: [String: Any]]
        let files = expected.filter { ["open", "verify"].contains($0.value["at"] as? String) }.keys.sorted()
        #expect(files.count >= 20)
        for file in files {
            // A vector read over bases (an update) is verified over them: its frames need their references.
            let bases = (expected[file]?["bases"] as? [String] ?? []).flatMap { ["--base", Self.vectors + "/" + $0] }
            let verify = try await CLIRunner.runDetached(
                ["verify", folder + "/" + file, "--quiet"] + bases, timeout: 30)
            #expect(verify.status == 65, "\(file): \(verify.status) \(verify.stderr)")
            #expect(!verify.stderr.isEmpty, "\(file)")
            for command in [["info"], ["ls"]] {
                let result = try await CLIRunner.runDetached(
                    Self.arguments(command, folder + "/" + file, scratch: scratch), timeout: 30)
                // Problems only a full verification finds (a body's bytes) may still list or describe.
                #expect(
                    result.status == 0 || result.status == 65, "\(command) \(file): \(result.status) \(result.stderr)")
                if result.status == 65 {
                    #expect(result.stderr.split(separator: "\n").count == 1, "\(command) \(file): \(result.stderr)")
                }
            }
        }
    }

    @Test(
        "progress shows on a terminal (items, bytes, rate; the ETA once it means something) and never when stderr is a pipe"
    )
    func progressOnlyOnATerminal() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            Issue.record("/usr/bin/script (util-linux) is needed to give the binary a terminal")
            return
        }
        let scratch = try TemporaryFolder()
        let site = scratch.file("site")
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        for index in 0..<40 {
            try Data(repeating: UInt8(index), count: 200_000).write(to: URL(fileURLWithPath: site + "/f\(index).bin"))
        }
        let archive = scratch.file("site.webarc")
        let command = [CLIRunner.binary, "pack", site, "-o", archive].map { "'\($0)'" }.joined(separator: " ")
        let terminal = Process()
        terminal.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        terminal.arguments = ["-qec", command, "/dev/null"]
        let output = Pipe()
        terminal.standardOutput = output
        terminal.standardError = output
        try terminal.run()
        let screen = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        terminal.waitUntilExit()
        #expect(terminal.terminationStatus == 0, "\(screen)")
        // No ETA is asserted: it waits for a second and 1 % of the bytes (FirstContactTests), which a fast pack may not last.
        #expect(screen.contains("packing") && screen.contains("/40 files"), "\(screen)")
        #expect(
            screen.components(separatedBy: "ETA ").count - 1
                == screen.matches(of: /ETA [0-9]+(s|m[0-9]{2}s|h[0-9]{2}m)/).count, "\(screen)")
        #expect(screen.contains("/s"), "\(screen)")

        let piped = try await CLIRunner.runDetached(["pack", site, "-o", archive, "--force"])
        #expect(piped.status == 0)
        #expect(!piped.stderr.contains("ETA") && !piped.stderr.contains("\r"), "\(piped.stderr)")
        let verify = try await CLIRunner.runDetached(["verify", archive])
        #expect(!verify.stderr.contains("ETA"))
    }

    @Test("Ctrl-C during a pack leaves neither the output nor a temporary file, and exits 130")
    func interruptedPack() throws {
        let scratch = try TemporaryFolder()
        let (process, output) = try Self.packWritingItsTemporary(in: scratch)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(try FileManager.default.contentsOfDirectory(atPath: output).isEmpty)
    }

    @Test("kill -9 during a pack leaves its temporary file; the next pack into that folder removes it")
    func killedPackLeftoverIsSwept() async throws {
        let scratch = try TemporaryFolder()
        let (process, output) = try Self.packWritingItsTemporary(in: scratch)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let leftover = try FileManager.default.contentsOfDirectory(atPath: output)
        #expect(
            leftover.count == 1 && leftover[0].hasPrefix(".site.webarc.tmp-\(process.processIdentifier)-"),
            "\(leftover)")

        let small = scratch.file("small")
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        try Data("<p>small</p>".utf8).write(to: URL(fileURLWithPath: small + "/index.html"))
        let next = try await CLIRunner.runDetached(["pack", small, "-o", output + "/small.webarc", "--quiet"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: output) == ["small.webarc"])
    }

    /// Starts `webarc pack` of 64 MiB of random bytes at LZ4HC level 12 (slow enough to interrupt)
    /// into an empty folder, and returns once its temporary file holds data.
    static func packWritingItsTemporary(in scratch: TemporaryFolder) throws -> (Process, String) {
        let site = scratch.file("site")
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        let big = (0..<(64 << 20) / 8).map { _ in generator.next() as UInt64 }
        try big.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: site + "/big.bin")) }
        let output = scratch.file("out")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLIRunner.binary)
        process.arguments = ["pack", site, "-o", output + "/site.webarc", "--level", "12", "--quiet"]
        process.standardError = Pipe()
        try process.run()
        // Wait for the event (the temporary file has bytes in it), not for a time.
        func written() -> Bool {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []
            return names.contains { name in
                name.hasPrefix(".site.webarc.tmp-")
                    && ((try? FileManager.default.attributesOfItem(atPath: output + "/" + name)[.size] as? UInt64) ?? 0)
                        > 0
            }
        }
        #expect(waitUntil { written() || !process.isRunning } && written(), "the pack never wrote its temporary file")
        return (process, output)
    }

    @Test("a large file packs through the streaming path and unpacks byte for byte")
    func largeFileStreams() async throws {
        let scratch = try TemporaryFolder()
        let site = scratch.file("site")
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        var bytes = [UInt8](repeating: 0, count: 3 << 20)
        var generator = SeededGenerator(seed: 3)
        for index in bytes.indices {
            bytes[index] = index % 3 == 0 ? UInt8(truncatingIfNeeded: generator.next() >> 56) : UInt8(index % 251)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: site + "/video.bin"))
        try Data("<p>small</p>".utf8).write(to: URL(fileURLWithPath: site + "/index.html"))
        var seen: [UInt64] = []
        var options = SitePacker.Options()
        options.streamingThreshold = 1 << 20
        let archive = scratch.file("site.webarc")
        _ = try SitePacker(options: options).pack(folder: site, to: archive) { _, _, done, _ in seen.append(done) }
        // Progress moved inside the large file, not only when it was done.
        #expect(seen.contains { $0 > 0 && $0 < UInt64(bytes.count) }, "\(seen)")
        let reader = try ArchiveReader(path: archive)
        guard case .response(let response)? = try reader.lookup(url: "http://localhost/video.bin")?.record else {
            Issue.record("video.bin is not in the archive")
            return
        }
        #expect(Array(try reader.body(response.body)) == bytes)
        #expect(try reader.bodyEntry(response.body).chunkCount == UInt32((bytes.count + (256 << 10) - 1) / (256 << 10)))
        let unpack = try await CLIRunner.runDetached(["unpack", archive, "-o", scratch.file("out")])
        #expect(unpack.status == 0, "\(unpack.stderr)")
        #expect(FileManager.default.contents(atPath: scratch.file("out/video.bin")) == Data(bytes))
    }
}
