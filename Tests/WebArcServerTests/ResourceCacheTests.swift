import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcServer

/// The resource cache stays within its budget however long and varied the request targets are.
@Suite struct ResourceCacheTests {
    /// A query of `length` bytes that differs for each `number`.
    static func query(_ number: Int, length: Int) -> String {
        let tag = String(number)
        return tag + String(repeating: "x", count: length - tag.count)
    }

    /// What the server's resource cache holds: entries, accounted bytes and budget.
    static func usage(_ server: WebArcServer) -> (count: Int, cost: Int, capacity: Int) {
        server.responder.resources.withLock { ($0.count, $0.totalCost, $0.capacity) }
    }

    @Test func unknownQueriesShareTheEntryOfTheTargetWithoutThem() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let client = try RawHTTPClient(port: server.port)
            for number in 0..<300 {
                let response = try client.request("GET", "/small.txt?" + Self.query(number, length: 4000))
                #expect(response.status == 200)
                #expect(response.body == SiteFixture.small)
            }
            let usage = Self.usage(server)
            #expect(usage.count == 1)
            #expect(usage.cost < 4000)
        }
    }

    @Test func longStoredTargetsCountTowardsTheBudget() async throws {
        let folder = try TemporaryFolder()
        let urls = (0..<600).map { "http://localhost/q?" + Self.query($0, length: 4000) }
        let reader = try makeArchive(in: folder, urls.map { .text($0, "ok", type: "text/plain") })
        try await withServer([reader], cacheBytes: 1 << 20) { server in
            let client = try RawHTTPClient(port: server.port)
            for url in urls {
                let response = try client.request("GET", String(url.dropFirst("http://localhost".count)))
                #expect(response.status == 200)
                #expect(response.text == "ok")
            }
            let usage = Self.usage(server)
            #expect(usage.cost <= usage.capacity)
            #expect(usage.count < urls.count)
            #expect(usage.cost >= usage.count * 4000, "every entry's key is counted")
        }
    }
}
