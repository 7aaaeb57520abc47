import Foundation
import WebArc
import WebArcCLISupport
import WebArcSearch

/// `webarc search ARCHIVE... --bench-queries FILE [--bench-rounds N]` (hidden from --help): runs a
/// list of queries warm in one process and prints one JSON object of their latencies in
/// milliseconds, for Tools/bench/search-bench.sh.
///
/// Printed: `open` (the archives opened), `first` (the first query, cold), then over every query
/// of every round after one warm-up round: `rank` (`search` without snippets), `search` (with
/// them) and `suggest` (the query's first four letters), each as `p50`, `p99` and `mean`; and
/// `slowest`: the ten queries whose slowest ranking took longest, with that time.
struct SearchBench {
    let archives: [String]
    let queryFile: String
    let rounds: Int
    let limit: Int

    func run() throws {
        let start = DispatchTime.now().uptimeNanoseconds
        let stack = try ArchiveOpening.stack(archives)
        let open = Self.milliseconds(since: start)
        let text = try withFile(queryFile) { try String(contentsOfFile: queryFile, encoding: .utf8) }
        let queries = text.split(whereSeparator: \.isNewline).map(String.init).filter {
            (try? SearchQuery.parse($0)) != nil
        }
        guard !queries.isEmpty else {
            throw CommandFailure("\(queryFile) holds no query that can be searched", code: ExitCodes.usage)
        }
        let first = try Self.timed { _ = try stack.search(queries[0], limit: limit) }
        for query in queries { _ = try stack.search(query, limit: limit) }
        var rank: [Double] = []
        var search: [Double] = []
        var suggest: [Double] = []
        var slowest = [Double](repeating: 0, count: queries.count)
        for _ in 0..<rounds {
            for (number, query) in queries.enumerated() {
                rank.append(try Self.timed { _ = try stack.search(query, limit: limit, snippets: false) })
                slowest[number] = max(slowest[number], rank[rank.count - 1])
                search.append(try Self.timed { _ = try stack.search(query, limit: limit) })
                let prefix = String(query.filter { $0 != "*" && $0 != "\"" }.prefix(4))
                suggest.append(try Self.timed { _ = try stack.suggest(prefix) })
            }
        }
        Output.json([
            "queries": queries.count, "rounds": rounds, "limit": limit, "open": open, "first": first,
            "rank": Self.summary(rank), "search": Self.summary(search), "suggest": Self.summary(suggest),
            "slowest": slowest.indices.sorted { slowest[$0] > slowest[$1] }.prefix(10).map {
                ["query": queries[$0], "rank": slowest[$0]] as [String: Any]
            },
        ])
    }

    private static func milliseconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }

    private static func timed(_ body: () throws -> Void) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return milliseconds(since: start)
    }

    /// The 50th and 99th percentiles (nearest rank) and the mean of `samples`.
    private static func summary(_ samples: [Double]) -> [String: Double] {
        let sorted = samples.sorted()
        func percentile(_ p: Double) -> Double {
            sorted[min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))]
        }
        return ["p50": percentile(50), "p99": percentile(99), "mean": sorted.reduce(0, +) / Double(sorted.count)]
    }
}
