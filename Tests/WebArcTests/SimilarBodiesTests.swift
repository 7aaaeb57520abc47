import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// A body new under its URL is coded against the most similar body of the bases (``SimilarBodies``,
/// ``ContentSketch``), and the update still applies byte for byte.
@Suite struct SimilarBodiesTests {
    typealias Release = UpdateTests.Release

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    func stack(_ paths: [String]) throws -> LayerStack { try LayerStack(try paths.map { try ArchiveReader(path: $0) }) }

    @Test("the candidates nearest in length are found by search, as a scan of every body ranks them")
    func nearestCandidatesMatchAFullScan() throws {
        let scratch = try TemporaryFolder()
        let path = scratch.file("bodies.webarc")
        let writer = try ArchiveWriter(path: path)
        var random = SeededGenerator(seed: 5)
        let mediaTypes: [String?] = ["text/html", "text/css", nil]
        var bodies: [StoredBody] = []
        for number in 0..<400 {
            // Every fifth page answers with an earlier page's body: a body is one candidate.
            let reuse = number % 5 == 4 && !bodies.isEmpty
            let body = reuse ? bodies[number / 2] : try writer.addBody(random.bytes(1 + Int(random.next() % 3_000)))
            bodies.append(body)
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(method: "GET", url: "http://localhost/p\(number)"), status: 200,
                    headers: [], mimeType: mediaTypes[number % 3], textEncoding: nil, body: body))
        }
        try writer.finish()
        let stack = try LayerStack([try ArchiveReader(path: path)])
        // The reference: every body of the view once (first seen), filtered and sorted in full.
        var scanned: [(body: BodyReference, length: UInt64, mimeType: String?)] = []
        try stack.forEachKey { _, records in
            for entry in records.entries {
                guard case .response(let response) = entry.record,
                    !scanned.contains(where: { $0.body == response.body })
                else { continue }
                scanned.append((response.body, response.bodyLength, response.mimeType))
            }
        }
        let similar = try SimilarBodies(stack: stack)
        for length: UInt64 in [1, 2, 40, 700, 1_500, 2_999, 3_000, 6_500, 9_000] {
            for mimeType in mediaTypes + ["image/png"] {
                let distance = { (other: UInt64) in other > length ? other - length : length - other }
                let expected = scanned.enumerated()
                    .filter {
                        $0.element.mimeType == mimeType && $0.element.length <= 2 * length
                            && length <= 2 * $0.element.length
                    }
                    .sorted { (distance($0.element.length), $0.offset) < (distance($1.element.length), $1.offset) }
                    .prefix(SimilarBodies.maxCandidates).map(\.element.body)
                let found = similar.nearest(to: length, mimeType: mimeType).map(\.body)
                #expect(found == Array(expected), "length \(length), \(mimeType ?? "no type")")
            }
        }
    }

    @Test("near copies resemble each other; unrelated text does not")
    func sketches() {
        var random = SeededGenerator(seed: 11)
        let page = random.text(60_000)
        var edited = page
        edited.insert(contentsOf: Array("<p>a new paragraph in the middle</p>".utf8), at: 30_000)
        let unrelated = random.text(60_000)
        let sketch = ContentSketch(page)
        #expect(sketch.resemblance(to: ContentSketch(edited)) > 0.9)
        #expect(sketch.resemblance(to: ContentSketch(unrelated)) < 0.1)
        #expect(ContentSketch([UInt8]()).resemblance(to: sketch) == 0)
    }

    @Test(
        "a page added under a new URL as an edited copy of another is a delta against it; the update applies byte for byte"
    )
    func newPageCopiesAnother() throws {
        let scratch = try TemporaryFolder()
        let (old, new, summary) = try Release.first(pages: 24).update(in: scratch) { second in
            let source = second.files["docs/page9.html"]!
            second.files["docs/release-notes.html"] =
                Array(source[..<2_000]) + Array("<p>what is new</p>".utf8) + Array(source[2_000...])
        }
        #expect(summary.similarBodies == 1, "\(summary)")
        #expect(summary.statistics.storedBytes < 400, "\(summary.statistics)")
        let update = try ArchiveReader(path: scratch.file("u.webarc"))
        guard case .response(let response) = try update.lookup(url: "http://localhost/docs/release-notes.html")?.record
        else {
            Issue.record("the update lacks the new page")
            return
        }
        #expect(try update.bodyEntry(response.body).chunks.allSatisfy { $0.codec == .zstdDelta })

        try UpdateApplier(stack: try stack([scratch.file("u.webarc"), old])).write(
            to: scratch.file("v2-applied.webarc"))
        #expect(try firstDifference(bytes(scratch.file("v2-applied.webarc")), bytes(new)) == nil)
    }

    @Test("a new page like no other is stored whole; a renamed page equal to a base's body is not searched for")
    func nothingSimilar() throws {
        let scratch = try TemporaryFolder()
        let (old, new, summary) = try Release.first(pages: 8).update(in: scratch) { second in
            var random = SeededGenerator(seed: 99)
            second.files["docs/other.html"] = random.bytes(9_000)
            second.files["docs/renamed.html"] = second.files.removeValue(forKey: "docs/page1.html")
        }
        #expect(summary.similarBodies == 0, "\(summary)")
        try UpdateApplier(stack: try stack([scratch.file("u.webarc"), old])).write(
            to: scratch.file("v2-applied.webarc"))
        #expect(try firstDifference(bytes(scratch.file("v2-applied.webarc")), bytes(new)) == nil)
    }
}
