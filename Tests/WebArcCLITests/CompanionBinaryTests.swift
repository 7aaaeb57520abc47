import Foundation
import Testing
import WebArcTestSupport

/// `webarc capture` runs the `webarc-capture` binary, so that `webarc` itself links no networking.
@Suite("webarc capture through webarc-capture")
struct CompanionBinaryTests {
    static let ldd = ["/usr/bin/ldd", "/bin/ldd"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The shared libraries `binary` loads, one `ldd` line each.
    static func libraries(_ binary: String) throws -> String {
        try runProgram(ldd!, [binary]).text
    }

    @Test("webarc does not load libcurl; webarc-capture does", .enabled(if: ldd != nil, "ldd not installed"))
    func noNetworkingInWebarc() throws {
        let webarc = try Self.libraries(CLIRunner.binary)
        #expect(webarc.contains("libc.so"), "ldd printed no libraries: \(webarc)")
        #expect(!webarc.contains("libcurl"))
        let capture = try Self.libraries((CLIRunner.binary as NSString).deletingLastPathComponent + "/webarc-capture")
        #expect(capture.contains("libcurl"))
    }

    @Test("webarc capture --help shows the capture options and examples")
    func help() async throws {
        for arguments in [["capture", "--help"], ["capture", "-h"]] {
            let help = try await CLIRunner.runDetached(arguments)
            #expect(help.status == 0, "\(help.stderr)")
            #expect(help.text.contains("OVERVIEW: Record pages from a running site into one archive."))
            #expect(help.text.contains("USAGE: webarc capture <urls> ... --output <output>"))
            #expect(help.text.contains("--same-origin"))
            #expect(help.text.contains("webarc capture http://localhost:8080/ -o kiosk.webarc"))
        }
        #expect(
            try await CLIRunner.runDetached(["--help"]).text.contains(
                "Record pages from a running site into one archive."))
    }

    @Test("arguments pass through unchanged: a bad one is reported by webarc-capture with exit 64")
    func passThrough() async throws {
        let result = try await CLIRunner.runDetached([
            "capture", "http://example.test/", "-o", "x.webarc", "--jobs", "0",
        ])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--jobs must be 1 to 64, got 0"))
    }

    @Test("without webarc-capture, one error line names where it looked; exit 1")
    func missingCompanion() async throws {
        let scratch = try TemporaryFolder()
        let lonely = scratch.file("webarc")
        do {
            try FileManager.default.linkItem(atPath: CLIRunner.binary, toPath: lonely)
        } catch {
            try FileManager.default.copyItem(atPath: CLIRunner.binary, toPath: lonely)
        }
        let result = try await CLIRunner.runDetached(
            ["capture", "http://127.0.0.1:9/", "-o", scratch.file("out.webarc")], executable: lonely,
            environment: ["PATH": scratch.file("empty")])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "webarc: error: webarc-capture not found in \(scratch.path) (next to webarc) nor on PATH (\(scratch.file("empty"))): it is built with webarc (swift build --product webarc-capture); install it beside webarc\n"
        )
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
    }
}
