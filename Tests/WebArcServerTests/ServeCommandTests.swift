import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// The real `webarc serve` binary: URL on the first stdout line, access log on stderr, clean stop
/// on SIGTERM and SIGINT, exit codes. Skipped when the binary has not been built next to the tests.
@Suite struct ServeCommandTests {
    static let binary = builtWebarc

    /// A running `webarc serve`, its URL read from the first stdout line.
    typealias Serving = ServeProcess

    @Test(
        .enabled(if: binary != nil, "webarc binary not built next to the tests: run swift build first"),
        arguments: [SIGTERM, SIGINT])
    func servesLogsAndStopsOnSignal(signal: Int32) async throws {
        let folder = try TemporaryFolder()
        _ = try SiteFixture.make(in: folder)
        let serving = try Serving([folder.file("test.webarc"), "--port", "0"])
        #expect(serving.url.hasPrefix("http://127.0.0.1:"))
        #expect(serving.url.hasSuffix("/"))
        #expect(try fetch(serving.port, "/small.txt").body == SiteFixture.small)
        let missing = try fetch(serving.port, "/missing")
        #expect(missing.status == 404)
        let (status, log) = serving.stop(with: signal)
        #expect(status == 0)
        let lines = log.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix("127.0.0.1 \"GET /small.txt HTTP/1.1\" 200 1000") == true)
        #expect(lines.last?.hasSuffix("\"GET /missing HTTP/1.1\" 404 \(missing.body.count)") == true)
    }

    @Test(.enabled(if: binary != nil, "webarc binary not built next to the tests: run swift build first"))
    func quietLogsNothing() async throws {
        let folder = try TemporaryFolder()
        _ = try SiteFixture.make(in: folder)
        let serving = try Serving([folder.file("test.webarc"), "--port", "0", "--quiet"])
        #expect(try fetch(serving.port, "/small.txt").status == 200)
        let (status, log) = serving.stop(with: SIGTERM)
        #expect(status == 0)
        #expect(log.isEmpty)
    }

    @Test(.enabled(if: binary != nil, "webarc binary not built next to the tests: run swift build first"))
    func missingArchiveAndBusyPortFail() async throws {
        let folder = try TemporaryFolder()
        let missing = try await runToExit(["serve", folder.file("absent.webarc"), "--port", "0"])
        #expect(missing.status == 66)
        #expect(missing.stderr.hasPrefix("webarc: error:"))

        _ = try SiteFixture.make(in: folder)
        let first = try Serving([folder.file("test.webarc"), "--port", "0", "--quiet"])
        let busy = try await runToExit(["serve", folder.file("test.webarc"), "--port", String(first.port)])
        #expect(busy.status == 69)
        #expect(busy.stderr.contains("the port is in use"))
        #expect(first.stop(with: SIGTERM).status == 0)
    }

    /// Runs `webarc` with `arguments` to its end.
    private func runToExit(_ arguments: [String]) async throws -> ProgramResult {
        try await onOwnThread { try runProgram(Self.binary!, arguments) }
    }
}

extension ServeProcess {
    /// Starts the `webarc` built next to the tests with `serve arguments…`.
    convenience init(_ arguments: [String]) throws {
        try self.init(binary: ServeCommandTests.binary!, arguments: arguments)
    }
}
