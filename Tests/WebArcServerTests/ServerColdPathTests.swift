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

    /// `clients` connections each asking for `each` seeded random pages; the failures, empty when
    /// every answer was its page's own body.
    static func askRandomPaths(_ port: Int, clients: Int, each: Int, seed: Int) async -> [String] {
        await onThreads(clients) { client in
            let connection = try RawHTTPClient(port: port)
            for number in randomPages(count: each, seed: UInt64(client + seed)) {
                let response = try connection.request("GET", "/p/\(number).txt")
                guard response.status == 200, response.text == body(number) else {
                    throw ColdPathMismatch(page: number, status: response.status)
                }
            }
        }
    }

    @Test func randomPathsAnswerTheirOwnBodiesWithinTheCacheBudget() async throws {
        let folder = try TemporaryFolder()
        let reader = try Self.makeReader(in: folder)
        let cacheBytes = 1 << 20
        try await withServer([reader], cacheBytes: cacheBytes) { server in
            let failures = await Self.askRandomPaths(server.port, clients: 4, each: 400, seed: 1)
            #expect(failures.isEmpty, "\(failures.prefix(3))")
            // The server gives its readers half of the budget, a quarter of it for decoded pages.
            let pages = reader.pageCacheUsage
            #expect(pages.limit == cacheBytes / 4)
            #expect(pages.bytes <= pages.limit)
            #expect(pages.pages > 0)
            let bodies = server.responder.bodies.usage
            #expect(bodies.cost <= bodies.capacity)
            #expect(bodies.count < Self.pageCount, "not every body fits, so some requests were cold")
            let resources = server.responder.resources.withLock { ($0.totalCost, $0.capacity) }
            #expect(resources.0 <= resources.1)
            Self.expectWithinBudget(server, [reader], cacheBytes)
        }
    }

    /// Every cache that grows while serving (hot bodies, resolved targets, each reader's pages,
    /// body entries, dictionaries, references and groups) holds no more accounted bytes than its share,
    /// and the shares add up to the budget.
    static func expectWithinBudget(_ server: WebArcServer, _ readers: [ArchiveReader], _ cacheBytes: Int) {
        let bodies = server.responder.bodies.usage
        let resources = server.responder.resources.withLock { ($0.totalCost, $0.capacity) }
        let limits = readers.map(\.cacheLimits)
        let usages = readers.map(\.cacheUsage)
        #expect(bodies.capacity + resources.1 + limits.reduce(0) { $0 + $1.total } <= cacheBytes)
        for (limit, usage) in zip(limits, usages) {
            #expect(usage.pages <= limit.pages)
            #expect(usage.bodyEntries <= limit.bodyEntries)
            #expect(usage.dictionaries <= limit.dictionaries)
            #expect(usage.references <= limit.references)
            #expect(usage.groups <= limit.groups)
        }
        let held = bodies.cost + resources.0 + usages.reduce(0) { $0 + $1.total }
        #expect(held <= cacheBytes, "caches hold \(held) accounted bytes of a \(cacheBytes)-byte budget")
    }

    @Test func aBudgetSmallerThanOneLeafStillAnswersEveryPath() async throws {
        let folder = try TemporaryFolder()
        let reader = try Self.makeReader(in: folder)
        // 32 KiB: a record leaf does not fit the readers' page share, nor a body the hot-body cache.
        let cacheBytes = 32 << 10
        try await withServer([reader], cacheBytes: cacheBytes) { server in
            let failures = await Self.askRandomPaths(server.port, clients: 2, each: 100, seed: 11)
            #expect(failures.isEmpty, "\(failures.prefix(3))")
            #expect(reader.cacheLimits == ReaderCacheLimits(sharing: cacheBytes / 2))
            Self.expectWithinBudget(server, [reader], cacheBytes)
        }
    }

    /// Looks up `count` seeded random pages and reads each body, checking it, then calls `check`.
    static func readRandomPages(_ reader: ArchiveReader, count: Int, seed: UInt64, check: () -> Void) throws {
        for number in randomPages(count: count, seed: seed) {
            let entry = try #require(try reader.lookup(url: "http://localhost/p/\(number).txt"))
            guard case .response(let response) = entry.record else {
                Issue.record("page \(number) is not a response")
                continue
            }
            let bytes = try reader.body(response.body)
            #expect(String(decoding: bytes, as: UTF8.self) == body(number))
            check()
        }
    }

    @Test func limitedReaderCachesStayWithinTheirSharesAcrossEveryLookup() throws {
        let folder = try TemporaryFolder()
        let reader = try Self.makeReader(in: folder)
        let limits = ReaderCacheLimits(sharing: 200 << 10)
        #expect(limits.total == 200 << 10)
        reader.limitCaches(limits)
        #expect(reader.cacheLimits == limits)
        try Self.readRandomPages(reader, count: 1000, seed: 5) {
            let usage = reader.cacheUsage
            #expect(usage.pages <= limits.pages && usage.bodyEntries <= limits.bodyEntries)
            #expect(usage.dictionaries <= limits.dictionaries && usage.references <= limits.references)
        }
        #expect(reader.cacheUsage.bodyEntryCount > 0)
    }

    @Test func aLimitedPageCacheStaysWithinItsBytesAcrossEveryLookup() throws {
        let folder = try TemporaryFolder()
        let reader = try Self.makeReader(in: folder)
        reader.limitPageCache(bytes: 300 << 10)
        #expect(reader.pageCacheUsage.pages == 0, "limiting drops what the cache held")
        try Self.readRandomPages(reader, count: 2000, seed: 9) {
            #expect(reader.pageCacheUsage.bytes <= 300 << 10)
        }
        #expect(reader.pageCacheUsage.limit == 300 << 10)
    }
}

/// A cold-path answer that was not the page's own body.
struct ColdPathMismatch: Error {
    let page: Int
    let status: Int
}
