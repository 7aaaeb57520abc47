import Foundation
import Testing

@testable import WebArc

/// Which bodies are dictionary anchors (spec Appendix C step 13): every n-th, or keyed by the
/// records' keys and body lengths so that anchors stay put when pages are added or dropped.
@Suite struct AnchorPlanTests {
    typealias Release = UpdateTests.Release

    /// `count` distinct keys that are candidates' keys (`candidate` true) or not, for interval `n`.
    static func keys(_ count: Int, candidate: Bool, interval: Int, tag: String) -> [[UInt8]] {
        var found: [[UInt8]] = []
        var index = 0
        while found.count < count {
            let key = Array("GET http://localhost/\(tag)-\(index).html".utf8)
            if AnchorPlan.isCandidate(key: key, length: 10_000, interval: interval) == candidate { found.append(key) }
            index += 1
        }
        return found
    }

    @Test("keyed rule: position 0; a candidate only ⌊3n/4⌋ or more after the last anchor; 8 192 to 65 536 bytes; an anchor ⌊3n/2⌋ after the last whatever the key")
    func keyedRule() {
        let n = 16  // candidates: hash a multiple of 2; gaps 12 (candidate) and 24 (forced)
        let yes = Self.keys(8, candidate: true, interval: n, tag: "yes")
        let no = Self.keys(40, candidate: false, interval: n, tag: "no")
        var noKeys = no.makeIterator()
        var bodies: [(key: [UInt8], length: UInt64)] = []
        bodies.append((noKeys.next()!, 10))                      // 0: an anchor whatever it is
        for _ in 1...10 { bodies.append((noKeys.next()!, 10_000)) }
        bodies.append((yes[0], 10_000))                          // 11: a candidate at gap 11: no
        bodies.append((yes[1], 8_191))                           // 12: gap 12, one byte short: no
        bodies.append((yes[2], 65_537))                          // 13: one byte over: no
        bodies.append((yes[3], 65_536))                          // 14: in range, gap 14: anchor
        for _ in 15...37 { bodies.append((noKeys.next()!, 20_000)) }
        bodies.append((noKeys.next()!, 20_000))                  // 38: gap 24, forced
        bodies.append((yes[4], 8_192))                           // 39: gap 1: no
        let plan = AnchorPlan(interval: n, bodies: bodies)
        #expect(plan.isKeyed)
        #expect((0..<bodies.count).filter(plan.isAnchor) == [0, 14, 38])
        #expect(plan.anchor(of: 13) == 0 && plan.anchor(of: 37) == 14 && plan.anchor(of: 39) == 38)
        // Past the keys given: no candidates, so one every 24 after the last anchor.
        #expect(plan.anchor(of: 61) == 38 && plan.anchor(of: 62) == 62 && plan.anchor(of: 90) == 86)
    }

    @Test("every n-th rule, and no anchors with interval 0")
    func everyNth() {
        let plan = AnchorPlan(interval: 32)
        #expect(!plan.isKeyed)
        #expect((0..<100).filter(plan.isAnchor) == [0, 32, 64, 96])
        #expect(plan.anchor(of: 63) == 32)
        let none: [(key: [UInt8], length: UInt64)] = [(Array("GET x".utf8), 10_000)]
        #expect(AnchorPlan(interval: 0, bodies: none).anchor(of: 0) == nil)
    }

    /// Packs `release` with keyed or every-32nd anchors, then a second release with one page
    /// added at the front, and applies the update: how many chunks apply coded again.
    func chunksCodedAfterAddingAPage(keyed: Bool, in scratch: TemporaryFolder) throws -> Int {
        var options = SitePacker.Options()
        options.keyedAnchors = keyed
        let first = Release.first(pages: 120)
        var second = first
        second.files["docs/aaa-added.html"] = second.files["docs/page1.html"]! + Array("<p>added</p>".utf8)
        let tag = keyed ? "keyed" : "nth"
        for (release, name) in [(first, "v1"), (second, "v2")] {
            try release.write(to: scratch.file("\(tag)-\(name)-site"))
            _ = try SitePacker(options: options).pack(folder: scratch.file("\(tag)-\(name)-site"), to: scratch.file("\(tag)-\(name).webarc"))
        }
        let old = try LayerStack([try ArchiveReader(path: scratch.file("\(tag)-v1.webarc"))])
        _ = try UpdateBuilder(old: old, new: try ArchiveReader(path: scratch.file("\(tag)-v2.webarc"))).write(to: scratch.file("\(tag)-u.webarc"))
        let stack = try LayerStack([scratch.file("\(tag)-u.webarc"), scratch.file("\(tag)-v1.webarc")].map { try ArchiveReader(path: $0) })
        let summary = try UpdateApplier(stack: stack).write(to: scratch.file("\(tag)-applied.webarc"))
        let applied = try Data(contentsOf: URL(fileURLWithPath: scratch.file("\(tag)-applied.webarc")))
        #expect(applied == (try Data(contentsOf: URL(fileURLWithPath: scratch.file("\(tag)-v2.webarc")))))
        #expect(try ArchiveReader(path: scratch.file("\(tag)-v2.webarc")).metadata.writer?.anchors == (keyed ? .keyed : .everyNth))
        return summary.chunksCoded
    }

    @Test("a page added at the front: with keyed anchors apply codes again only bodies near it; with every-32nd anchors, every later body's first chunk")
    func addedPageMovesFewAnchors() throws {
        let scratch = try TemporaryFolder()
        let keyed = try chunksCodedAfterAddingAPage(keyed: true, in: scratch)
        let everyNth = try chunksCodedAfterAddingAPage(keyed: false, in: scratch)
        #expect(everyNth > 100, "every 32nd: \(everyNth) chunks coded")
        #expect(keyed < 40 && keyed * 4 < everyNth, "keyed: \(keyed) chunks coded, every 32nd: \(everyNth)")
    }

    @Test("a file that grew or shrank across a candidate bound between the scan and its read fails the pack, naming it; within a bound it packs")
    func changedWhilePacking() throws {
        let file = ScannedFile(relativePath: "docs/a.html", readPath: "/nowhere", size: 9_000, modified: 0)
        let keyed = AnchorPlan(interval: 32, bodies: [(key: Array("GET http://localhost/docs/a.html".utf8), length: UInt64(9_000))])
        #expect(throws: SitePacker.Failure.changedWhilePacking(path: "docs/a.html", scanned: 9_000, read: 70_000)) {
            try SitePacker.checkPlannedLength(file, read: 70_000, anchors: keyed)
        }
        #expect(throws: SitePacker.Failure.changedWhilePacking(path: "docs/a.html", scanned: 9_000, read: 8_191)) {
            try SitePacker.checkPlannedLength(file, read: 8_191, anchors: keyed)
        }
        try SitePacker.checkPlannedLength(file, read: 9_500, anchors: keyed)
        // Every 32nd: lengths do not matter.
        try SitePacker.checkPlannedLength(file, read: 70_000, anchors: AnchorPlan(interval: 32))
    }

    @Test("an update whose result uses an anchor rule this version does not know is refused before anything is written")
    func unknownRuleRefused() throws {
        let scratch = try TemporaryFolder()
        let archive = AppliedArchive(
            metadata: ArchiveMetadata(), recipe: WriterRecipe(level: 1, dictionaryInterval: 32, anchors: .unknown(7)),
            expected: ([UInt8](repeating: 0, count: 32), 0), appendix: [], workers: 1)
        #expect(throws: WebArcError.self) { try archive.write([], to: scratch.file("out.webarc"), overwrite: false, progress: nil) }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
    }
}
