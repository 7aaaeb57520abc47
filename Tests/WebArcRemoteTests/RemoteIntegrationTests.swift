import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import WebArc
import WebArcRemote
import WebArcServer
import WebArcTestSupport
import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class RemoteReplay: ArchiveURLProtocol {}

@Suite("Remote archives in verify, serve, the URL protocol and the CLI")
struct RemoteIntegrationTests {
    @Test(
        "verify streams the file from its first request, beside its tail with the pages: two requests, each byte once; a cut stream resumes"
    )
    func verify() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        let size = UInt64(Fixture.archive.bytes.count)
        var configuration = testConfiguration()
        // The pages and a little body data: the stream brings the rest.
        let tail = Int(size - Fixture.local.trailer.bodyDataEnd) + 4096
        configuration.downloadTailLength = tail
        // The stream lags (as a long one would): the tail's head comes first and says where it stops.
        server.setFault(.pauseFromStart(bytes: 65536, seconds: 0.2))
        let (report, source) = try verifyDownloading(server.url, configuration)
        #expect(report.passed && report.bodies == Fixture.local.bodyCount)
        // One round trip, no more: the stream from byte 0 and the tail, sent together.
        #expect(server.requests.map(\.range).sorted { ($0 ?? "") < ($1 ?? "") } == ["bytes=-\(tail)", "bytes=0-"])
        // The stream stopped where the tail began: each byte came once (and at most one read's
        // worth more, the stream's last part, which its end cut).
        #expect(
            source.statistics.bytes >= size && source.statistics.bytes <= size + Self.slack,
            "\(source.statistics.bytes) for \(size)")
        server.resetLog()
        server.setFault(.dropMidBody(1))
        #expect(try RemoteVerifier.verify(url: server.url, configuration: configuration).report.passed)
        #expect(server.requests.count == 3)
    }

    @Test(
        "verify URL with the default 1 MiB tail transfers at most the file and that tail: two requests; a stream that lags brings each byte once"
    )
    func verifyTransfersFileOnce() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/bodies.webarc"
        var random = SeededGenerator(seed: 41)
        let writer = try ArchiveWriter(path: path)
        // 6 MiB of body data, stored (incompressible), and pages that fit in the default tail.
        for index in 0..<24 {
            let body = try writer.addBody(random.bytes(index % 3 == 0 ? 512 << 10 : 100_000 + 1000 * index))
            try writer.add(
                ResponseRecord(request: RequestRecord(url: "http://example.com/\(index).bin"), headers: [], body: body))
        }
        try writer.finish()
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let size = UInt64(file.count)
        let server = try RangeServer(file: file)
        defer { server.stop() }
        let configuration = testConfiguration()
        let tail = UInt64(configuration.downloadTailLength)
        #expect(tail == 1 << 20 && size > 4 * tail)
        let (report, source) = try verifyDownloading(server.url, configuration)
        #expect(report.passed && report.bodies == 24, "\(report.problems)")
        #expect(server.requests.map(\.range).sorted { ($0 ?? "") < ($1 ?? "") } == ["bytes=-\(tail)", "bytes=0-"])
        // The server writes the stream's bytes as fast as the socket takes them; whatever the
        // client cut, no more than the file and its tail left the server or reached the client.
        #expect(server.bytesSent <= size + tail, "\(server.bytesSent) sent for a file of \(size)")
        #expect(
            source.statistics.bytes >= size && source.statistics.bytes <= size + tail,
            "\(source.statistics.bytes) for \(size)")
        // When the tail's head comes first (the stream lags, as a long one does), the stream stops
        // where the tail begins: each byte reaches the client once, give or take the part that
        // crossed the cut.
        server.resetLog()
        server.setFault(.pauseFromStart(bytes: 65536, seconds: 0.2))
        let sentBefore = server.bytesSent
        let (lagging, laggingSource) = try verifyDownloading(server.url, configuration)
        #expect(lagging.passed)
        #expect(server.requests.count == 2)
        #expect(server.bytesSent - sentBefore <= size + tail)
        #expect(
            laggingSource.statistics.bytes >= size && laggingSource.statistics.bytes <= size + Self.slack,
            "\(laggingSource.statistics.bytes) for \(size)")
    }

    /// Bytes a stream may bring past its end before the cut takes effect: the part that crossed it.
    static let slack: UInt64 = 256 << 10

    /// What ``RemoteVerifier`` does, with the source kept for its statistics.
    func verifyDownloading(
        _ url: String, _ configuration: RemoteConfiguration
    ) throws -> (VerificationReport, DownloadedByteSource) {
        let source = try DownloadedByteSource(url: url, configuration: configuration)
        let reader = try ArchiveReader(source: source, path: url)
        source.fetchRest(first: reader.trailer.bodyDataEnd..<source.size)
        let report = ArchiveVerifier.verify(reader)
        try source.finish()
        return (report, source)
    }

    @Test(
        "verify of an archive whose pages start before a short tail: the stream stops at the pages, which come in one more request"
    )
    func verifyPagesBeforeTail() throws {
        let size = UInt64(Fixture.archive.bytes.count)
        let bodyDataEnd = Fixture.local.trailer.bodyDataEnd
        #expect(size - 16384 > bodyDataEnd)
        let ranges = try verifyWithLaggingStream { $0.downloadTailLength = 16384 }
        #expect(ranges.count == 3 && ranges.contains("bytes=0-") && ranges.contains("bytes=-16384"), "\(ranges)")
        #expect(ranges.contains("bytes=\(bodyDataEnd)-\(size - 16384 - 1)"), "\(ranges)")
    }

    @Test(
        "verify with a record root before a tiny tail: the open gets the root in its own request instead of waiting for the stream"
    )
    func verifyRootBeforeTail() throws {
        let size = UInt64(Fixture.archive.bytes.count)
        let root = Fixture.local.trailer.recordRoot
        #expect(root.offset < size - 300 && root.offset > (1 << 20) + 65536)  // far ahead of the paused stream
        let ranges = try verifyWithLaggingStream { configuration in
            configuration.tailLength = 300
            configuration.downloadTailLength = 300
        }
        #expect(ranges.count == 4 && ranges.contains("bytes=0-") && ranges.contains("bytes=-300"), "\(ranges)")
        #expect(ranges.contains("bytes=\(root.offset)-\(size - 301)"), "\(ranges)")
        #expect(ranges.contains("bytes=\(Fixture.local.trailer.bodyDataEnd)-\(root.offset - 1)"), "\(ranges)")
    }

    /// Verifies the fixture with `configure`d settings while the stream waits at 64 KiB for half a
    /// second, as a long one would still be in the body data: what the open and the pages need is
    /// fetched, and checked, before it gets there. Expects a passing report and each byte once;
    /// returns the `Range` of each request.
    func verifyWithLaggingStream(_ configure: (inout RemoteConfiguration) -> Void) throws -> [String] {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        let size = UInt64(Fixture.archive.bytes.count)
        var configuration = testConfiguration()
        configure(&configuration)
        server.setFault(.pauseFromStart(bytes: 65536, seconds: 0.5))
        let (report, source) = try verifyDownloading(server.url, configuration)
        #expect(report.passed && report.bodies == Fixture.local.bodyCount)
        #expect(
            source.statistics.bytes >= size && source.statistics.bytes <= size + Self.slack,
            "\(source.statistics.bytes) for \(size)")
        return server.requests.compactMap(\.range)
    }

    @Test("verify of a file replaced between the stream's request and the tail's fails with changed")
    func verifyReplacedAtOpen() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        server.replace(with: Fixture.other, after: 1)
        #expect {
            _ = try RemoteVerifier.verify(url: server.url, configuration: testConfiguration())
        } throws: { error in
            guard case .changed(let url, _)? = error as? RemoteError else { return false }
            return url == server.url
        }
    }

    @Test("verify of a remote archive with a damaged chunk names the chunk's offset and the record's URL")
    func verifyDamagedChunk() throws {
        guard case .response(let response)? = try Fixture.local.lookup(url: Fixture.bigURL)?.record else {
            Issue.record("no big body")
            return
        }
        let chunk = try Fixture.local.bodyEntry(response.body).chunks[1]
        var bytes = Fixture.archive.bytes
        bytes[Int(chunk.offset) + 100] ^= 0x01
        let server = try RangeServer(file: bytes)
        defer { server.stop() }
        let (report, _) = try RemoteVerifier.verify(url: server.url, configuration: testConfiguration())
        let problems = report.problems.filter { $0.check == "chunks" }
        #expect(problems.count == 1 && problems.first?.code == "chunk-digest", "\(report.problems)")
        #expect(problems.first?.offset == chunk.offset && problems.first?.url == Fixture.bigURL)
    }

    @Test("a download whose file does not open as an archive stops its stream instead of fetching the rest")
    func downloadNotAnArchive() throws {
        var random = SeededGenerator(seed: 20)
        let bytes = random.bytes(4 << 20)
        let server = try RangeServer(file: bytes)
        defer { server.stop() }
        server.setFault(.pauseFromStart(bytes: 65536, seconds: 0.3))
        let source = try DownloadedByteSource(url: server.url, configuration: testConfiguration())
        #expect(throws: WebArcError.self) { _ = try ArchiveReader(source: source, path: server.url) }
        source.cancel()
        try source.finish()
        // The tail (1 MiB), the stream's first 64 KiB and at most its next part.
        #expect(source.statistics.bytes < 2 << 20, "\(source.statistics.bytes) of \(bytes.count)")
        #expect(throws: WebArcError.self) {
            _ = try RemoteVerifier.verify(url: server.url, configuration: testConfiguration())
        }
    }

    @Test("verify of an empty file is the open's empty error")
    func verifyEmpty() throws {
        let server = try RangeServer(file: [])
        defer { server.stop() }
        #expect(throws: WebArcError.empty(path: server.url)) {
            _ = try RemoteVerifier.verify(url: server.url, configuration: testConfiguration())
        }
    }

    @Test("verify of a server that ignores Range: one whole-file download (and a tail request ended at its head)")
    func verifyIgnoringRange() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        server.setFault(.ignoreRange)
        let (report, _) = try RemoteVerifier.verify(url: server.url, configuration: testConfiguration())
        #expect(report.passed && report.bodies == Fixture.local.bodyCount)
        #expect(server.requests.count == 2)
    }

    @Test("verify finds a damaged body in a remote archive")
    func verifyDamaged() throws {
        var bytes = Fixture.archive.bytes
        bytes[Int(Fixture.local.trailer.bodyDataEnd) / 2] ^= 0x40
        let server = try RangeServer(file: bytes)
        defer { server.stop() }
        let (report, _) = try RemoteVerifier.verify(url: server.url, configuration: testConfiguration())
        #expect(!report.passed && report.problems.contains { $0.check == "chunks" || $0.check == "body-digests" })
    }

    @Test("a signed remote archive is checked against a trust list before use")
    func signed() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("signed.webarc")
        try Data(Fixture.archive.bytes).write(to: URL(fileURLWithPath: path))
        let key = SigningKey()
        let block = try ArchiveSigner.sign(
            path: path, with: key, sequence: 1, expires: Date(timeIntervalSinceNow: 3600))
        let server = try RangeServer(file: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        defer { server.stop() }
        let reader = try ArchiveReader(url: server.url, configuration: testConfiguration())
        #expect(try reader.checkTrust(TrustPolicy(trusting: [key.publicKey])).accepted == [block])
        #expect(throws: WebArcError.self) { try reader.checkTrust(TrustPolicy(trusting: [SigningKey().publicKey])) }
        let (report, trust) = try RemoteVerifier.verify(
            url: server.url, configuration: testConfiguration(), trusting: TrustPolicy(trusting: [key.publicKey]))
        #expect(report.passed && trust?.accepted == [block])
        let (refused, none) = try RemoteVerifier.verify(
            url: server.url, configuration: testConfiguration(),
            trusting: TrustPolicy(trusting: [SigningKey().publicKey]))
        #expect(!refused.passed && none == nil && refused.problems.contains { $0.check == "appendix" })
    }

    @Test("a download whose file is replaced before it resumes fails with changed")
    func verifyReplaced() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        server.setFault(.dropMidBody(1))
        server.replace(with: Fixture.other, after: 1)
        #expect {
            _ = try RemoteVerifier.verify(url: server.url, configuration: testConfiguration())
        } throws: { error in
            guard case .changed? = error as? RemoteError else { return false }
            return true
        }
    }

    @Test("webarc serve layers a remote archive over a local one; its server failing answers 502")
    func serve() async throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        let folder = try TemporaryFolder()
        let writer = try ArchiveWriter(path: folder.file("local.webarc"))
        try writer.add(
            ResponseRecord(
                request: RequestRecord(url: "http://example.com/local.txt"),
                body: try writer.addBody(Array("local".utf8))))
        try writer.finish()
        let archives = try ArchiveSet(readers: [
            ArchiveReader(url: server.url, configuration: testConfiguration()),
            ArchiveReader(path: folder.file("local.webarc")),
        ])
        var configuration = WebArcServer.Configuration(port: 0)
        configuration.readerThreads = 8
        let webarc = try await WebArcServer.start(archives: archives, configuration: configuration)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        func get(_ path: String) async throws -> (Int, [UInt8]) {
            let response = try await client.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(webarc.port)\(path)"), timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 4 << 20)
            return (Int(response.status.code), Array(body.readableBytesView))
        }
        let page = URL(string: Fixture.firstURL)!.path
        let first = try await get(page)
        let firstBody = try Fixture.body(Fixture.firstURL)
        #expect(first.0 == 200 && first.1 == firstBody)
        let big = try await get("/video.bin")
        let bigBody = try Fixture.body(Fixture.bigURL)
        #expect(big.0 == 200 && big.1 == bigBody)
        let local = try await get("/local.txt")
        #expect(local.0 == 200 && local.1 == Array("local".utf8))
        #expect(try await get("/nothing-here").0 == 404)
        // The archive's server failing is a gateway's error, not a damaged archive.
        server.setFault(.status(503, 1000))
        let uncached = URL(string: Fixture.archive.urls[700])!.path
        let failed = try await get(uncached)
        #expect(failed.0 == 502 && String(decoding: failed.1, as: UTF8.self).contains("could not be fetched"))
        try await client.shutdown()
        await webarc.stop()
    }

    @Test("the URL protocol replays a remote archive; its server failing is URLError.cannotConnectToHost")
    func urlProtocol() async throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        RemoteReplay.serve(try ArchiveReader(url: server.url, configuration: testConfiguration()))
        defer { RemoteReplay.stopServing() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [RemoteReplay.self]
        let session = URLSession(configuration: configuration)
        let (data, response) = try await session.data(from: URL(string: Fixture.firstURL)!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let expected = try Fixture.body(Fixture.firstURL)
        #expect(Array(data) == expected)
        // The archive's server failing reaches the app as a network error, not a damaged archive.
        server.setFault(.status(503, 1000))
        await #expect {
            _ = try await session.data(from: URL(string: Fixture.archive.urls[700])!)
        } throws: { error in
            (error as? URLError)?.code == .cannotConnectToHost
        }
    }

    @Test("webarc ls, cat, info, verify, export and unpack take a URL; a missing or unreachable one exits 66")
    func cli() async throws {
        let server = try RangeServer(file: Fixture.archive.bytes, tls: true)
        defer { server.stop() }
        let environment = ["SSL_CERT_FILE": RangeServer.certificatePath, "PATH": "/usr/bin:/bin"]
        let cat = try await runWebarc(["cat", server.url, Fixture.firstURL], environment: environment)
        let expected = try Fixture.body(Fixture.firstURL)
        #expect(cat.status == 0 && cat.stdout == expected)
        let list = try await runWebarc(["ls", server.url], environment: environment)
        #expect(list.status == 0 && list.text.split(separator: "\n").count == Fixture.archive.urls.count)
        let info = try await runWebarc(["info", server.url, "--json"], environment: environment)
        let fields = try JSONSerialization.jsonObject(with: Data(info.stdout)) as? [String: Any]
        #expect(info.status == 0 && fields?["records"] as? Int == Fixture.archive.urls.count)
        let verify = try await runWebarc(["verify", server.url, "--quiet"], environment: environment)
        #expect(verify.status == 0, "\(verify.stderr)")
        let folder = try TemporaryFolder()
        // export and unpack read every body: the file is downloaded once (a stream from its start
        // and its tail), not fetched a body per request.
        server.resetLog()
        let export = try await runWebarc(
            ["export", server.url, "--format", "har", "-o", folder.file("site.har"), "--quiet"],
            environment: environment)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(server.requests.count <= 3, "export made \(server.requests.count) requests")
        let har =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("site.har"))))
            as? [String: Any]
        #expect(((har?["log"] as? [String: Any])?["entries"] as? [Any])?.count == Fixture.archive.urls.count)
        server.resetLog()
        let unpack = try await runWebarc(
            ["unpack", server.url, "-o", folder.file("site"), "--quiet"], environment: environment)
        #expect(unpack.status == 0, "\(unpack.stderr)")
        #expect(server.requests.count <= 3, "unpack made \(server.requests.count) requests")
        let unpacked = try FileManager.default.subpathsOfDirectory(atPath: folder.file("site"))
        #expect(unpacked.contains { $0.hasSuffix("video.bin") })
        let video = unpacked.first { $0.hasSuffix("video.bin") }!
        #expect(
            Array(try Data(contentsOf: URL(fileURLWithPath: folder.file("site/" + video))))
                == (try Fixture.body(Fixture.bigURL)))
        let missing = try await runWebarc(
            ["cat", "https://127.0.0.1:\(server.port)/missing.webarc", Fixture.firstURL], environment: environment)
        #expect(missing.status == 66 && missing.stderr.contains("not found (HTTP 404)"))
        // A server that cannot be reached at all is missing input too (66), not an I/O error mid-read (74).
        let refused = try await runWebarc(
            ["ls", "https://127.0.0.1:\(try TestHTTPServer.refusedPort())/site.webarc"], environment: environment)
        #expect(
            refused.status == 66 && refused.stderr.contains("cannot connect: connection refused"), "\(refused.stderr)")
        // NIO ignores SIGPIPE once it opens a socket; a closed stdout still ends webarc by SIGPIPE
        // (bash reports 141), not with a crash.
        let binary = webarcBinary()
        let piped = Process()
        piped.executableURL = URL(fileURLWithPath: "/bin/bash")
        piped.arguments = [
            "-c", "set -o pipefail; \"$0\" ls \"$1\" | head -n 1 > /dev/null; echo $?", binary, server.url,
        ]
        piped.environment = environment
        let pipedOut = Pipe()
        piped.standardOutput = pipedOut
        piped.standardError = FileHandle.nullDevice
        try piped.run()
        let status = String(decoding: pipedOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        piped.waitUntilExit()
        #expect(status.trimmingCharacters(in: .whitespacesAndNewlines) == "141")
        let untrusted = try await runWebarc(
            ["ls", server.url], environment: ["PATH": "/usr/bin:/bin", "SSL_CERT_FILE": "/dev/null"])
        #expect(untrusted.status == 66 && untrusted.stderr.contains("TLS"))
        // The system's roots do not hold the test CA: the one failure SSL_CERT_FILE fixes, and the message says so.
        let unknownCA = try await runWebarc(["ls", server.url], environment: ["PATH": "/usr/bin:/bin"])
        #expect(
            unknownCA.status == 66 && unknownCA.stderr.contains("TLS failed: the server's certificate is not trusted"))
        #expect(unknownCA.stderr.contains("(a private CA: set SSL_CERT_FILE to its PEM file)"), "\(unknownCA.stderr)")
    }
}

/// The bytes a logged `Range` header asked for (`bytes=a-b` or `bytes=-n`).
func span(_ range: String?, size: UInt64) -> Range<UInt64>? {
    guard let range, range.hasPrefix("bytes=") else { return nil }
    let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
    guard bounds.count == 2, let last = UInt64(bounds[1]) else { return nil }
    if bounds[0].isEmpty { return size - min(last, size)..<size }
    guard let first = UInt64(bounds[0]) else { return nil }
    return first..<min(last + 1, size)
}

/// The `webarc` binary: ``builtWebarc``, or an empty path when there is none.
func webarcBinary() -> String { builtWebarc ?? "" }

/// Runs the `webarc` binary built beside the tests.
func runWebarc(
    _ arguments: [String], environment: [String: String]
) async throws -> (status: Int32, stdout: [UInt8], text: String, stderr: String) {
    let binary = webarcBinary()
    let run = try await onOwnThread { try runProgram(binary, arguments, environment: environment) }
    return (run.status, Array(run.stdout), run.text, run.stderr)
}
