import AsyncHTTPClient
import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// A kiosk's `webarc serve https://cdn/site.webarc` when the publisher replaces the file at that
/// URL: the old version's bytes are gone from the server, so reads of it fail (never mixed with
/// the new one), and the server reopens the URL and serves the new version.
@Suite("Serving a remote archive that is replaced at its URL")
struct RemoteServeReloadTests {
    @Test("webarc serve answers from the new version once the file at its URL is replaced, even with every page it needs cached")
    func servesTheNewVersion() async throws {
        let origin = try RangeServer(file: Fixture.archive.bytes, tls: true)
        defer { origin.stop() }
        let folder = try TemporaryFolder()
        try Data(Fixture.other).write(to: URL(fileURLWithPath: folder.file("other.webarc")))
        let other = try ArchiveReader(path: folder.file("other.webarc"))
        var otherURL: String?
        try other.forEachEntry { entry in if otherURL == nil, case .response(let response) = entry.record { otherURL = response.request.url } }
        guard case .response(let otherResponse)? = try other.lookup(url: otherURL!)?.record else { Issue.record("no record"); return }
        let otherBody = Array(try other.body(otherResponse.body))

        let serve = try ServeProcess(["serve", origin.url, "--port", "0", "--recheck", "0.5"])
        defer { serve.stop() }
        let base = serve.base

        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        func get(_ url: String) async throws -> (Int, [UInt8]) {
            let response = try await client.execute(HTTPClientRequest(url: base + URL(string: url)!.path), timeout: .seconds(30))
            return (Int(response.status.code), Array(try await response.body.collect(upTo: 4 << 20).readableBytesView))
        }
        let before = try await get(Fixture.firstURL)
        let firstBody = try Fixture.body(Fixture.firstURL)
        #expect(before.0 == 200 && before.1 == firstBody)
        #expect(try await get(otherURL!).0 == 404)

        origin.replace(with: Fixture.other)
        // Every page this lookup needs is cached from the old version, so no read fails: the
        // recheck (every 0.5 s here) finds the file replaced and the server reopens it.
        var after = try await get(otherURL!)
        for _ in 0..<40 where after.0 != 200 {
            try await Task.sleep(for: .milliseconds(250))
            after = try await get(otherURL!)
        }
        #expect(after.0 == 200 && after.1 == otherBody)
        #expect(try await get(Fixture.firstURL).0 == 404)
        try await client.shutdown()

        let log = serve.stop()
        #expect(log.contains(": serving the new version"), "\(log)")
    }

    @Test("with --trust, a replacement the key did not sign is not served: the old version's reads fail, nothing of the new one is answered")
    func untrustedReplacement() async throws {
        let folder = try TemporaryFolder()
        let signed = folder.file("site.webarc")
        try Data(Fixture.archive.bytes).write(to: URL(fileURLWithPath: signed))
        let environment = ["SSL_CERT_FILE": RangeServer.certificatePath, "PATH": "/usr/bin:/bin"]
        let keygen = try runWebarc(["keygen", "-o", folder.file("publisher")], environment: environment)
        let sign = try runWebarc(["sign", signed, "--key", folder.file("publisher.key")], environment: environment)
        #expect(keygen.status == 0 && sign.status == 0, "\(keygen.stderr) \(sign.stderr)")
        let origin = try RangeServer(file: Array(try Data(contentsOf: URL(fileURLWithPath: signed))), tls: true)
        defer { origin.stop() }
        let serve = try ServeProcess(["serve", origin.url, "--port", "0", "--recheck", "0.3", "--trust", folder.file("publisher.pub")])
        defer { serve.stop() }
        let base = serve.base

        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        func status(_ url: String) async throws -> Int {
            Int(try await client.execute(HTTPClientRequest(url: base + URL(string: url)!.path), timeout: .seconds(30)).status.code)
        }
        #expect(try await status(Fixture.firstURL) == 200)
        origin.replace(with: Fixture.other)
        try await Task.sleep(for: .seconds(1))
        var otherURL: String?
        try Data(Fixture.other).write(to: URL(fileURLWithPath: folder.file("other.webarc")))
        try ArchiveReader(path: folder.file("other.webarc")).forEachEntry { entry in
            if otherURL == nil, case .response(let response) = entry.record { otherURL = response.request.url }
        }
        // The unsigned release is never answered from; an uncached URL of the old one cannot be
        // read any more (the server is a gateway to a file that is gone): 502.
        #expect(try await status(otherURL!) == 404)
        #expect(try await status(Fixture.archive.urls[900]) == 502)
        try await client.shutdown()
        let log = serve.stop()
        #expect(log.contains("the new version is not served") && log.contains("not trusted"), "\(log)")
        #expect(!log.contains("serving the new version"))
    }
}

/// `webarc serve` running in its own process, trusting the test certificate; ``base`` is the URL
/// it printed, without the final slash.
final class ServeProcess {
    let process = Process()
    let errors = Pipe()
    private(set) var base = ""

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: webarcBinary())
        process.arguments = arguments
        process.environment = ["SSL_CERT_FILE": RangeServer.certificatePath, "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errors
        try process.run()
        var line: [UInt8] = []
        while line.last != 0x0A, let byte = try out.fileHandleForReading.read(upToCount: 1)?.first { line.append(byte) }
        base = String(decoding: line.dropLast(), as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        #expect(base.hasPrefix("http://127.0.0.1:"), "serve printed \(base)")
    }

    /// Stops the server (once) and returns what it wrote on stderr.
    @discardableResult
    func stop() -> String {
        guard process.isRunning else { return "" }
        process.terminate()
        process.waitUntilExit()
        return String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}
