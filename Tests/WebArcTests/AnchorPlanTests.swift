import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// Which bodies are dictionary anchors (spec Appendix C step 13): every n-th, or by the records'
/// keys and body lengths (keyed, local minimum) so that anchors stay put when pages are added or
/// dropped.
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

    @Test(
        "keyed rule: position 0; a candidate only ⌊3n/4⌋ or more after the last anchor; 8 192 to 65 536 bytes; an anchor ⌊3n/2⌋ after the last whatever the key"
    )
    func keyedRule() {
        let n = 16  // candidates: hash a multiple of 2; gaps 12 (candidate) and 24 (forced)
        let yes = Self.keys(8, candidate: true, interval: n, tag: "yes")
        let no = Self.keys(40, candidate: false, interval: n, tag: "no")
        var noKeys = no.makeIterator()
        var bodies: [(key: [UInt8], length: UInt64)] = []
        bodies.append((noKeys.next()!, 10))  // 0: an anchor whatever it is
        for _ in 1...10 { bodies.append((noKeys.next()!, 10_000)) }
        bodies.append((yes[0], 10_000))  // 11: a candidate at gap 11: no
        bodies.append((yes[1], 8_191))  // 12: gap 12, one byte short: no
        bodies.append((yes[2], 65_537))  // 13: one byte over: no
        bodies.append((yes[3], 65_536))  // 14: in range, gap 14: anchor
        for _ in 15...37 { bodies.append((noKeys.next()!, 20_000)) }
        bodies.append((noKeys.next()!, 20_000))  // 38: gap 24, forced
        bodies.append((yes[4], 8_192))  // 39: gap 1: no
        let plan = AnchorPlan(interval: n, bodies: bodies, rule: .keyed)
        #expect(plan.isKeyed)
        #expect((0..<bodies.count).filter(plan.isAnchor) == [0, 14, 38])
        #expect(plan.anchor(of: 13) == 0 && plan.anchor(of: 37) == 14 && plan.anchor(of: 39) == 38)
        // Past the keys given: no candidates, so one every 24 after the last anchor.
        #expect(plan.anchor(of: 61) == 38 && plan.anchor(of: 62) == 62 && plan.anchor(of: 90) == 86)
    }

    @Test(
        "local-minimum rule: position 0; a body of 8 192 to 65 536 bytes whose key hash is the least within ⌊3n/8⌋ either side, at any gap; an anchor ⌊3n/2⌋ after the last whatever the key"
    )
    func localMinimumRule() {
        let n = 16  // window 6, forced gap 24
        // Keys in increasing order of their hash: lows[0] has the least.
        let lows = (0..<64).map { Array("GET http://localhost/lm-\($0).html".utf8) }.sorted {
            AnchorPlan.keyHash($0) < AnchorPlan.keyHash($1)
        }
        var bodies: [(key: [UInt8], length: UInt64)] = []
        bodies.append((lows[40], 1_024))  // 0: an anchor whatever it is
        bodies.append((lows[7], 8_192))  // 1: beaten by 3, within 6
        bodies.append((lows[41], 1_024))  // 2
        bodies.append((lows[2], 65_536))  // 3: least within 6: anchor at gap 3
        bodies.append((lows[0], 8_191))  // 4: least hash, one byte short: no
        bodies.append((lows[1], 65_537))  // 5: one byte over: no
        for index in 6...8 { bodies.append((lows[36 + index], 1_024)) }
        bodies.append((lows[5], 10_000))  // 9: beaten by 3 (6 back)
        bodies.append((lows[3], 10_000))  // 10: 3 is 7 back, out of the window: anchor
        for index in 11...33 { bodies.append((lows[index - 11 + 9], 100)) }
        //                                                          34: no candidate since 10: forced at gap 24
        bodies.append((lows[33], 100))
        bodies.append((lows[6], 20_000))  // 35: no other candidate near: anchor at gap 1
        bodies.append((lows[34], 100))  // 36
        let plan = AnchorPlan(interval: n, bodies: bodies, rule: .localMinimum)
        #expect(plan.rule == .localMinimum && plan.isKeyed)
        #expect((0..<bodies.count).filter(plan.isAnchor) == [0, 3, 10, 34, 35])
        #expect(
            plan.anchor(of: 2) == 0 && plan.anchor(of: 9) == 3 && plan.anchor(of: 33) == 10 && plan.anchor(of: 36) == 35
        )
        // Past the keys given: one every 24 after the last anchor.
        #expect(plan.anchor(of: 58) == 35 && plan.anchor(of: 59) == 59)
    }

    @Test(
        "local minima in one pass agree with comparing every neighbour, ties to the earlier position; a window as wide as a hostile recipe's costs no more"
    )
    func localMinimaAgreeWithBruteForce() {
        var random = SeededGenerator(seed: 31)
        for round in 0..<200 {
            let count = Int(random.next() % 300)
            let window = [1, 2, 6, 12, 40, 1_000][round % 6]
            // Few distinct hashes, so that ties happen; about a third of positions hold none.
            let hashes: [UInt64?] = (0..<count).map { _ in random.next() % 3 == 0 ? nil : random.next() % 16 }
            let expected = hashes.indices.map { position -> Bool in
                guard let hash = hashes[position] else { return false }
                return hashes.indices.allSatisfy { other in
                    other == position || abs(other - position) > window
                        || hashes[other].map { ($0, other) > (hash, position) } ?? true
                }
            }
            #expect(
                AnchorPlan.localMinima(hashes, window: window) == expected,
                "round \(round): \(count) positions, window \(window)")
        }
        // Interval 2³¹ − 1 (the largest a recipe may give): a window of 805 306 367 over 200 000
        // candidates, each of which a comparison with every neighbour would visit 200 000 times.
        let hashes: [UInt64?] = (0..<200_000).map { UInt64($0 % 1_000) }
        let minima = AnchorPlan.localMinima(hashes, window: AnchorPlan.window(Int(Int32.max)))
        #expect(minima.indices.filter { minima[$0] } == [0])
    }

    /// For each body of `bodies` after dropping the one at `dropped`: how many take another
    /// dictionary (another anchor, or none where they had one) than before, under `rule`.
    static func bodiesWithAnotherDictionary(
        _ bodies: [(key: [UInt8], length: UInt64)], dropping dropped: Int, rule: AnchorPlan.KeyedRule
    ) -> Int {
        var after = bodies
        after.remove(at: dropped)
        func dictionaries(_ bodies: [(key: [UInt8], length: UInt64)]) -> [[UInt8]: [UInt8]] {
            let plan = AnchorPlan(interval: 32, bodies: bodies, rule: rule)
            var out: [[UInt8]: [UInt8]] = [:]
            for (position, body) in bodies.enumerated() {
                let anchor = plan.anchor(of: position)!
                out[body.key] = anchor == position ? [] : bodies[anchor].key
            }
            return out
        }
        let before = dictionaries(bodies)
        return dictionaries(after).filter { before[$0.key] != $0.value }.count
    }

    @Test(
        "a uniform site (every page 8 KiB to 64 KiB): dropping any one page changes the dictionary of at most ⌊3n/2⌋ pages under the local-minimum rule; under the keyed rule of 2.1.5 it can cascade to every later page"
    )
    func uniformSiteResyncs() {
        let bodies = (0..<300).map {
            (key: Array(String(format: "GET http://localhost/p%03d.html", $0).utf8), length: UInt64(10_000))
        }
        let local = bodies.indices.map { Self.bodiesWithAnotherDictionary(bodies, dropping: $0, rule: .localMinimum) }
        let keyed = bodies.indices.map { Self.bodiesWithAnotherDictionary(bodies, dropping: $0, rule: .keyed) }
        #expect(local.max()! <= 48, "local minimum: at most \(local.max()!) pages")
        #expect(
            local.reduce(0, +) * 10 < keyed.reduce(0, +),
            "local minimum \(local.reduce(0, +)) in all, keyed \(keyed.reduce(0, +))")
        #expect(keyed.max()! > 200, "keyed: at most \(keyed.max()!) pages")
    }

    /// Packs a uniform 120-page site with `rule`'s anchors, then the same site without page
    /// `dropped`, and applies the update: how many chunks apply coded again (the result equal to
    /// the second pack byte for byte).
    func chunksCodedAfterDroppingAPage(
        _ dropped: Int, rule: AnchorPlan.KeyedRule, in scratch: TemporaryFolder
    ) throws -> Int {
        var options = SitePacker.Options()
        options.anchorRule = rule
        let tag = "\(rule)-\(dropped)"
        for (name, skip) in [("v1", -1), ("v2", dropped)] {
            let site = scratch.file("\(tag)-\(name)-site")
            try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
            for page in 0..<120 where page != skip {
                let text =
                    "<nav>home docs about</nav><h1>page \(page)</h1>"
                    + String(repeating: "<p>page \(page) of a uniform site</p>\n", count: 300)
                try Data(text.utf8).write(to: URL(fileURLWithPath: site + String(format: "/p%03d.html", page)))
            }
            _ = try SitePacker(options: options).pack(folder: site, to: scratch.file("\(tag)-\(name).webarc"))
        }
        return try Self.diffAndApply(
            old: scratch.file("\(tag)-v1.webarc"), new: scratch.file("\(tag)-v2.webarc"), tag: tag, in: scratch
        ).chunksCoded
    }

    @Test(
        "a uniform site with its first page dropped: applying the update codes a few chunks with local-minimum anchors, every later page's with keyed ones"
    )
    func uniformSiteApply() throws {
        let scratch = try TemporaryFolder()
        let local = try chunksCodedAfterDroppingAPage(0, rule: .localMinimum, in: scratch)
        let keyed = try chunksCodedAfterDroppingAPage(0, rule: .keyed, in: scratch)
        #expect(local <= 48 && local * 2 < keyed, "local minimum: \(local) chunks coded, keyed: \(keyed)")
    }

    @Test(
        "a fleet upgrading: an archive packed with keyed anchors (2.1.5) takes an update to one packed with local-minimum anchors, as an update archive and as a compact update, and each gives the new archive byte for byte"
    )
    func keyedToLocalMinimumUpdate() throws {
        let scratch = try TemporaryFolder()
        var first = Release.first(pages: 60)
        try first.write(to: scratch.file("v1-site"))
        var options = SitePacker.Options()
        options.anchorRule = .keyed
        _ = try SitePacker(options: options).pack(folder: scratch.file("v1-site"), to: scratch.file("v1.webarc"))
        first.addLine(to: "docs/page5.html", "<p>release 2</p>")
        first.files["docs/page7.html"] = nil
        try first.write(to: scratch.file("v2-site"))
        _ = try SitePacker(options: SitePacker.Options()).pack(
            folder: scratch.file("v2-site"), to: scratch.file("v2.webarc"))
        let new = try ArchiveReader(path: scratch.file("v2.webarc"))
        #expect(try ArchiveReader(path: scratch.file("v1.webarc")).metadata.writer?.anchors == .keyed)
        #expect(try new.metadata.writer?.anchors == .localMinimum)
        let expected = try Data(contentsOf: URL(fileURLWithPath: scratch.file("v2.webarc")))

        _ = try Self.diffAndApply(
            old: scratch.file("v1.webarc"), new: scratch.file("v2.webarc"), tag: "upgrade", in: scratch)

        let old = try LayerStack([try ArchiveReader(path: scratch.file("v1.webarc"))])
        _ = try CompactUpdateBuilder(old: old, new: new).write(to: scratch.file("u.webarcu"))
        _ = try CompactApplier(update: scratch.file("u.webarcu"), bases: old).write(
            to: scratch.file("compact-applied.webarc"))
        #expect(
            firstDifference(
                try Data(contentsOf: URL(fileURLWithPath: scratch.file("compact-applied.webarc"))), expected) == nil)
    }

    @Test("every n-th rule, and no anchors with interval 0")
    func everyNth() {
        let plan = AnchorPlan(interval: 32)
        #expect(!plan.isKeyed)
        #expect((0..<100).filter(plan.isAnchor) == [0, 32, 64, 96])
        #expect(plan.anchor(of: 63) == 32)
        let none: [(key: [UInt8], length: UInt64)] = [(Array("GET x".utf8), 10_000)]
        #expect(AnchorPlan(interval: 0, bodies: none, rule: .localMinimum).anchor(of: 0) == nil)
    }

    /// Diffs the archive at `new` against the one at `old`, applies the update over `old` and
    /// expects the result to be `new` byte for byte; returns the apply's summary.
    static func diffAndApply(
        old: String, new: String, tag: String, in scratch: TemporaryFolder
    ) throws -> UpdateApplier.Summary {
        let base = try LayerStack([try ArchiveReader(path: old)])
        _ = try UpdateBuilder(old: base, new: try ArchiveReader(path: new)).write(to: scratch.file("\(tag)-u.webarc"))
        let stack = try LayerStack([scratch.file("\(tag)-u.webarc"), old].map { try ArchiveReader(path: $0) })
        let summary = try UpdateApplier(stack: stack).write(to: scratch.file("\(tag)-applied.webarc"))
        let applied = try Data(contentsOf: URL(fileURLWithPath: scratch.file("\(tag)-applied.webarc")))
        #expect(firstDifference(applied, try Data(contentsOf: URL(fileURLWithPath: new))) == nil)
        return summary
    }

    /// Packs `release` with `rule`'s anchors (nil: every 32nd), then a second release with one page
    /// added at the front, and applies the update: how many chunks apply coded again.
    func chunksCodedAfterAddingAPage(rule: AnchorPlan.KeyedRule?, in scratch: TemporaryFolder) throws -> Int {
        var options = SitePacker.Options()
        options.anchorRule = rule
        let first = Release.first(pages: 120)
        var second = first
        second.files["docs/aaa-added.html"] = second.files["docs/page1.html"]! + Array("<p>added</p>".utf8)
        let tag = rule.map { "\($0)" } ?? "nth"
        for (release, name) in [(first, "v1"), (second, "v2")] {
            try release.write(to: scratch.file("\(tag)-\(name)-site"))
            _ = try SitePacker(options: options).pack(
                folder: scratch.file("\(tag)-\(name)-site"), to: scratch.file("\(tag)-\(name).webarc"))
        }
        let summary = try Self.diffAndApply(
            old: scratch.file("\(tag)-v1.webarc"), new: scratch.file("\(tag)-v2.webarc"), tag: tag, in: scratch)
        #expect(
            try ArchiveReader(path: scratch.file("\(tag)-v2.webarc")).metadata.writer?.anchors
                == (rule?.anchorRule ?? .everyNth))
        return summary.chunksCoded
    }

    @Test(
        "a page added at the front: with local-minimum or keyed anchors apply codes again only bodies near it; with every-32nd anchors, every later body's first chunk"
    )
    func addedPageMovesFewAnchors() throws {
        let scratch = try TemporaryFolder()
        let everyNth = try chunksCodedAfterAddingAPage(rule: nil, in: scratch)
        // Every body after the page but the anchors and the repeats (a folder's index.html answers
        // twice; the writer takes the second as a duplicate, so it is not coded): over 80 of 121.
        #expect(everyNth > 80, "every 32nd: \(everyNth) chunks coded")
        for rule in [AnchorPlan.KeyedRule.localMinimum, .keyed] {
            let coded = try chunksCodedAfterAddingAPage(rule: rule, in: scratch)
            #expect(coded < 40 && coded * 4 < everyNth, "\(rule): \(coded) chunks coded, every 32nd: \(everyNth)")
        }
    }

    @Test(
        "a file that grew or shrank across a candidate bound between the scan and its read fails the pack, naming it; within a bound it packs"
    )
    func changedWhilePacking() throws {
        let file = ScannedFile(relativePath: "docs/a.html", readPath: "/nowhere", size: 9_000, modified: 0)
        let keyed = AnchorPlan(
            interval: 32, bodies: [(key: Array("GET http://localhost/docs/a.html".utf8), length: UInt64(9_000))],
            rule: .localMinimum)
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
        #expect(throws: WebArcError.self) {
            try archive.write(
                AppliedRecords(layers: []), order: try InsertionOrder().positionsInOrder(count: 0),
                to: scratch.file("out.webarc"), overwrite: false, progress: nil)
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
    }
}
