import Foundation
import Testing
import WebArc
import WebArcServer
import WebArcTestSupport

/// Crafted requests: traversal, encoded dots, odd targets, overlong lines and huge headers. Nothing
/// but the archive's records may come back, and the server must keep serving afterwards.
@Suite struct ServerSafetyTests {
    static let traversals = [
        "/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
        "/docs/..%2f..%2f..%2fetc/passwd", "/..\\..\\etc\\passwd", "/%5c..%5c..%5cetc%5cpasswd", "//etc/passwd",
        "/./././etc/passwd", "/%00/etc/passwd", "/index.html%00.txt", "/_/file//etc/passwd",
        "/_/http/localhost/../../etc/passwd",
        "/%252e%252e/etc/passwd", "/\u{00e9}t\u{00e9}/../../etc/passwd",
    ]

    @Test(arguments: traversals)
    func traversalOnlyReachesArchiveRecords(target: String) async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let response = try fetch(server.port, target)
            #expect([400, 404].contains(response.status), "\(target) gave \(response.status)")
            #expect(!response.text.contains("root:"))
            #expect(try fetch(server.port, "/small.txt").body == SiteFixture.small)
        }
    }

    @Test func dotSegmentsResolveInsideTheArchive() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let bodies = try ["/docs/../small.txt", "/%2e%2e/%2e%2e/small.txt"].map { try fetch(server.port, $0).body }
            #expect(bodies == [SiteFixture.small, SiteFixture.small])
        }
    }

    @Test(arguments: ["*", "../etc/passwd", "file:///etc/passwd", "etc/passwd", "ftp://localhost/small.txt"])
    func targetsThatAreNotPathsOrHTTPURLs(target: String) async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let response = try fetch(server.port, target)
            #expect([400, 404].contains(response.status), "\(target) gave \(response.status)")
            #expect(!response.text.contains("root:"))
        }
    }

    @Test func overlongTargetGets414() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let response = try fetch(server.port, "/" + String(repeating: "a", count: 9000))
            #expect(response.status == 414)
            #expect(try fetch(server.port, "/small.txt").status == 200)
        }
    }

    @Test func hugeRequestLineAndHeadersAreRefused() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            for lines in [
                ["GET /" + String(repeating: "x", count: 200_000) + " HTTP/1.1", "Host: x"],
                ["GET /small.txt HTTP/1.1", "Host: x", "X-Big: " + String(repeating: "y", count: 100_000)],
                ["GET /small.txt HTTP/1.1", "Host: x"] + (0..<2000).map { "X-Many-\($0): z" },
            ] {
                let client = try RawHTTPClient(port: server.port)
                try? client.send(lines.joined(separator: "\r\n") + "\r\n\r\n")
                if let response = try? client.readResponse() {
                    #expect(response.status == 400 || response.status == 431 || response.status == 414)
                }
            }
            let garbage = try RawHTTPClient(port: server.port)
            try garbage.send([0x16, 0x03, 0x01, 0x00, 0xFF] + Array(repeating: 0, count: 300))
            if let response = try? garbage.readResponse() { #expect(response.status == 400) }
            #expect(try fetch(server.port, "/small.txt").body == SiteFixture.small)
        }
    }

    @Test func hostHeaderDoesNotSelectAnything() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let client = try RawHTTPClient(port: server.port)
            try client.send("GET /small.txt HTTP/1.1\r\nHost: evil.example\r\n\r\n")
            #expect(try client.readResponse().body == SiteFixture.small)
        }
    }
}
