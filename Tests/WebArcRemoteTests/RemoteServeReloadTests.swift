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
    @Test(
        "webarc serve answers from the new version once the file at its URL is replaced, even with every page it needs cached"
    )
    func servesTheNewVersion() async throws {
        let origin = try RangeServer(file: Fixture.archive.bytes, tls: true)
        defer { origin.stop() }
        let folder = try TemporaryFolder()
        try Data(Fixture.other).write(to: URL(fileURLWithPath: folder.file("other.webarc")))
        let other = try ArchiveReader(path: folder.file("other.webarc"))
        var otherURL: String?
        try other.forEachEntry { entry in
            if otherURL == nil, case .response(let response) = entry.record { otherURL = response.request.url }
        }
        guard case .response(let otherResponse)? = try other.lookup(url: otherURL!)?.record else {
            Issue.record("no record")
            return
        }
        let otherBody = Array(try other.body(otherResponse.body))

        let serve = try ServeProcess.remote([origin.url, "--port", "0", "--recheck", "0.5"])
        defer { serve.stop(with: SIGTERM) }
        let base = serve.base

        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        func get(_ url: String) async throws -> (Int, [UInt8]) {
            let response = try await client.execute(
                HTTPClientRequest(url: base + URL(string: url)!.path), timeout: .seconds(30))
            return (Int(response.status.code), Array(try await response.body.collect(upTo: 4 << 20).readableBytesView))
        }
        let before = try await get(Fixture.firstURL)
        let firstBody = try Fixture.body(Fixture.firstURL)
        #expect(before.0 == 200 && before.1 == firstBody)
        #expect(try await get(otherURL!).0 == 404)

        origin.replace(with: Fixture.other)
        // Every page this lookup needs is cached from the old version, so no read fails: the
        // recheck (every 0.5 s here) finds the file replaced and the server reopens it.
        #expect(try await waitUntil { try await get(otherURL!).0 == 200 }, "the recheck reopened the replaced file")
        #expect(try await get(otherURL!).1 == otherBody)
        #expect(try await get(Fixture.firstURL).0 == 404)
        try await client.shutdown()

        let log = serve.stop(with: SIGTERM).stderr
        #expect(log.contains(": serving the new version"), "\(log)")
    }

    @Test(
        "with --trust, a replacement the key did not sign is not served: the old version's reads fail, nothing of the new one is answered"
    )
    func untrustedReplacement() async throws {
        let folder = try TemporaryFolder()
        let signed = folder.file("site.webarc")
        try Data(Fixture.archive.bytes).write(to: URL(fileURLWithPath: signed))
        let environment = ["SSL_CERT_FILE": RangeServer.certificatePath, "PATH": "/usr/bin:/bin"]
        let keygen = try await runWebarc(["keygen", "-o", folder.file("publisher")], environment: environment)
        let sign = try await runWebarc(
            ["sign", signed, "--key", folder.file("publisher.key")], environment: environment)
        #expect(keygen.status == 0 && sign.status == 0, "\(keygen.stderr) \(sign.stderr)")
        let origin = try RangeServer(file: Array(try Data(contentsOf: URL(fileURLWithPath: signed))), tls: true)
        defer { origin.stop() }
        let serve = try ServeProcess.remote([
            origin.url, "--port", "0", "--recheck", "0.3", "--trust", folder.file("publisher.pub"),
        ])
        defer { serve.stop(with: SIGTERM) }
        let base = serve.base

        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        func status(_ url: String) async throws -> Int {
            Int(
                try await client.execute(HTTPClientRequest(url: base + URL(string: url)!.path), timeout: .seconds(30))
                    .status.code)
        }
        #expect(try await status(Fixture.firstURL) == 200)
        origin.replace(with: Fixture.other)
        // The recheck finds the file replaced, and the reopening refuses the unsigned release.
        #expect(serve.waitForStderr(containing: "the new version is not served"), "the recheck saw the replacement")
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
        let log = serve.stop(with: SIGTERM).stderr
        #expect(log.contains("the new version is not served") && log.contains("not trusted"), "\(log)")
        #expect(!log.contains("serving the new version"))
    }
}

extension ServeProcess {
    /// `webarc serve arguments…` trusting the test certificate (`SSL_CERT_FILE`), for an archive
    /// on a ``RangeServer`` over https.
    static func remote(_ arguments: [String]) throws -> ServeProcess {
        let serve = try ServeProcess(
            binary: webarcBinary(), arguments: arguments,
            environment: ["SSL_CERT_FILE": RangeServer.certificatePath, "PATH": "/usr/bin:/bin"])
        #expect(serve.base.hasPrefix("http://127.0.0.1:"), "serve printed \(serve.url)")
        return serve
    }
}
