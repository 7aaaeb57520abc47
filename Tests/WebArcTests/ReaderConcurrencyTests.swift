import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

@Suite("Reader sharing and verification reports")
struct ReaderConcurrencyTests {
    @Test("one reader serves hundreds of concurrent lookups and streams, mapped or not", arguments: [false, true])
    func concurrentReads(mapped: Bool) async throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 21)
        let pages = (0..<40).map {
            ("http://localhost/p\($0)", random.text(Int.random(in: 1...300_000, using: &random)))
        }
        try makeArchive(at: folder.file("c.webarc"), pages: pages)
        let reader = try ArchiveReader(path: folder.file("c.webarc"), mapped: mapped)
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for round in 0..<300 {
                let (url, expected) = pages[round % pages.count]
                group.addTask {
                    guard case .response(let response)? = try reader.lookup(url: url)?.record else { return 1 }
                    var received: [UInt8] = []
                    for try await chunk in reader.chunks(of: response.body) { received += chunk }
                    let lower = UInt64(round % max(1, expected.count))
                    let ranged = try reader.body(response.body, range: lower..<UInt64(expected.count))
                    return received == expected && Array(ranged) == Array(expected[Int(lower)...]) ? 0 : 1
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test("verify reports every damaged body, not only the first")
    func everyProblem() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 22)
        let path = folder.file("v.webarc")
        try makeArchive(at: path, pages: (0..<3).map { ("http://localhost/\($0)", random.bytes(5000)) })
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for offset in [16 + 100, 16 + 5100, 16 + 10_100] { bytes[offset] ^= 0xFF }
        try bytes.write(to: URL(fileURLWithPath: path))
        let report = ArchiveVerifier.verify(path: path)
        #expect(report.problems.filter { $0.code == "chunk-digest" }.count == 3)
        #expect(report.problems.allSatisfy { $0.offset != nil })
    }

    @Test("a byte range outside the body is refused")
    func badRange() throws {
        let folder = try TemporaryFolder()
        try makeArchive(at: folder.file("r.webarc"), pages: [("http://localhost/", Array("0123456789".utf8))])
        let reader = try ArchiveReader(path: folder.file("r.webarc"))
        guard case .response(let response)? = try reader.lookup(url: "http://localhost/")?.record else {
            Issue.record("missing")
            return
        }
        #expect(String(decoding: try reader.body(response.body, range: 2..<5), as: UTF8.self) == "234")
        #expect(throws: WebArcError.rangeOutOfBounds(body: response.body, lower: 5, upper: 11, length: 10)) {
            try reader.body(response.body, range: 5..<11)
        }
    }
}
