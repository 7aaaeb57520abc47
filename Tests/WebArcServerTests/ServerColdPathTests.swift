import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcServer

/// Random paths over an archive whose record leaves and bodies do not all fit the server's cache:
/// every answer is the right body, and every cache (the readers' decoded pages included) stays
/// within its share of the budget.
@Suite struct ServerColdPathTests {
    static let pageCount = 3000

    /// The body of page `number`: a few KiB that name the page, different for each.
    static func body(_ number: Int) -> String {
        let line = "page \(number) of the cold-path archive, line "
        return (0..<(20 + number % 40)).map { line + String($0) }.joined(separator: "\n")
    }

    /// A seeded sequence of page numbers (a linear congruential generator: the same every run).
    static func randomPages(count: Int, seed: UInt64) -> [Int] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(pageCount))
        }
    }

    static func makeReader(in folder: TemporaryFolder) throws -> ArchiveReader {
        try makeArchive(
            in: folder,
            (0..<pageCount).map { .text("http://localhost/p/\($0).txt", body($0), type: "text/plain") })
    }

    @Test func randomPathsAnswerTheirOwnBodiesWithinTheCacheBudget() async throws {
        let folder = try TemporaryFolder()
        let reader = try Self.makeReader(in: folder)
        let cacheBytes = 1 << 20
        try await withServer([reader], cacheBytes: cacheBytes) { server in
            let port = server.port
            let failures = await onThreads(4) { client in
                let connection = try RawHTTPClient(port: port)
                for number in Self.randomPages(count: 400, seed: UInt64(client + 1)) {
                    let response = try connection.request("GET", "/p/\(number).txt")
                    guard response.status == 200, response.text == Self.body(number) else {
                        throw ColdPathMismatch(page: number, status: response.status)
                    }
                }
            }
            #expect(failures.isEmpty, "\(failures.prefix(3))")
            // The server gives its readers a quarter of the budget for decoded pages.
            let pages = reader.pageCacheUsage
            #expect(pages.limit == cacheBytes / 4)
            #expect(pages.bytes <= pages.limit)
            #expect(pages.pages > 0)
            let bodies = server.responder.bodies.usage
            #expect(bodies.cost <= bodies.capacity)
            #expect(bodies.count < Self.pageCount, "not every body fits, so some requests were cold")
            let resources = server.responder.resources.withLock { ($0.totalCost, $0.capacity) }
            #expect(resources.0 <= resources.1)
        }
    }

    @Test func aLimitedPageCacheStaysWithinItsBytesAcrossEveryLookup() throws {
        let folder = try TemporaryFolder()
        let reader = try Self.makeReader(in: folder)
        reader.limitPageCache(bytes: 300 << 10)
        #expect(reader.pageCacheUsage.pages == 0, "limiting drops what the cache held")
        for number in Self.randomPages(count: 2000, seed: 9) {
            let entry = try #require(try reader.lookup(url: "http://localhost/p/\(number).txt"))
            guard case .response(let response) = entry.record else {
                Issue.record("page \(number) is not a response")
                continue
            }
            let bytes = try reader.body(response.body)
            #expect(String(decoding: bytes, as: UTF8.self) == Self.body(number))
            let usage = reader.pageCacheUsage
            #expect(usage.bytes <= 300 << 10)
        }
        #expect(reader.pageCacheUsage.limit == 300 << 10)
    }
}

/// A cold-path answer that was not the page's own body.
struct ColdPathMismatch: Error {
    let page: Int
    let status: Int
}
