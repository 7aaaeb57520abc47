import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// Compact updates (Spec/compact-update.md): applied to their bases they give the new archive byte
/// for byte, the layer made from the result is the update archive a diff writes, and a wrong base,
/// a damaged file or a wrong result is refused with nothing written.
@Suite struct CompactUpdateTests {
    typealias Release = UpdateTests.Release

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    func stack(_ paths: [String]) throws -> LayerStack { try LayerStack(try paths.map { try ArchiveReader(path: $0) }) }

    @discardableResult
    func compact(_ old: [String], _ new: String, to path: String) throws -> CompactUpdateBuilder.Summary {
        try CompactUpdateBuilder(old: try stack(old), new: try ArchiveReader(path: new)).write(
            to: path, overwrite: true)
    }

    func apply(_ update: String, over old: [String], to path: String) throws {
        try CompactApplier(update: update, bases: try stack(old)).write(to: path, overwrite: true)
    }

    @Test(
        "a release with changed, deleted, renamed and new pages: the compact update applies byte for byte and is smaller than the update archive"
    )
    func roundTrip() throws {
        let scratch = try TemporaryFolder()
        let (old, new, _) = try Release.first(pages: 40).update(in: scratch) { second in
            second.addLine(to: "docs/page1.html", "<p>changed</p>")
            second.addLine(to: "docs/big.html", "<p>2</p>")
            second.files["docs/renamed.html"] = second.files.removeValue(forKey: "docs/page2.html")
            second.files["docs/page3.html"] = nil
            second.files["docs/new.html"] = second.files["docs/page5.html"]! + Array("<p>new</p>".utf8)
        }
        let summary = try compact([old], new, to: scratch.file("u.webarcu"))
        #expect(summary.changedKeys == 2 && summary.addedKeys == 2 && summary.deletedKeys == 2, "\(summary)")
        try apply(scratch.file("u.webarcu"), over: [old], to: scratch.file("v2-applied.webarc"))
        #expect(try firstDifference(bytes(scratch.file("v2-applied.webarc")), bytes(new)) == nil)
        let layerSize = try bytes(scratch.file("u.webarc")).count
        #expect(summary.bytes < layerSize / 4, "compact \(summary.bytes) bytes, update archive \(layerSize)")
    }

    @Test(
        "the update archive made from the applied result is the one diff writes, so serve U OLD works from a compact update"
    )
    func layerFromCompact() throws {
        let scratch = try TemporaryFolder()
        let (old, new, _) = try Release.first(pages: 24).update(in: scratch) { second in
            second.addLine(to: "docs/page1.html", "<p>changed</p>")
            second.files["docs/page3.html"] = nil
            second.files["docs/zz.html"] = Array("<p>new</p>".utf8)
        }
        try compact([old], new, to: scratch.file("u.webarcu"))
        try apply(scratch.file("u.webarcu"), over: [old], to: scratch.file("v2-applied.webarc"))
        _ = try UpdateBuilder(old: try stack([old]), new: try ArchiveReader(path: scratch.file("v2-applied.webarc")))
            .write(to: scratch.file("u-expanded.webarc"))
        #expect(try firstDifference(bytes(scratch.file("u-expanded.webarc")), bytes(scratch.file("u.webarc"))) == nil)
    }

    @Test("an unchanged release gives a compact update of a few hundred bytes with no bodies, which applies")
    func emptyUpdate() throws {
        let scratch = try TemporaryFolder()
        let old = try Release.first(pages: 12).pack(in: scratch, as: "v1")
        let new = try Release.first(pages: 12).pack(in: scratch, as: "v2")
        let summary = try compact([old], new, to: scratch.file("u.webarcu"))
        #expect(
            summary.changedKeys == 0 && summary.addedKeys == 0 && summary.deletedKeys == 0 && summary.newBodies == 0)
        #expect(summary.bodiesBytes == 0 && summary.bytes < 400, "\(summary)")
        try apply(scratch.file("u.webarcu"), over: [old], to: scratch.file("v2-applied.webarc"))
        #expect(try firstDifference(bytes(scratch.file("v2-applied.webarc")), bytes(new)) == nil)
    }

    @Test(
        "over a stack of many record leaves, the base view read in passes names the right records: changed, dropped in either layer, added as a copy or a near copy; apply gives the release byte for byte"
    )
    func manyLeavesOverAStack() throws {
        let scratch = try TemporaryFolder()
        var random = SeededGenerator(seed: 11)
        var release = Release(files: [:])
        // Keys far past one batch of decoded leaves, so that passes end early and ordinals run high.
        for number in 0..<3_000 {
            release.files["docs/f\(number / 500)/page\(number).html"] =
                Array("<title>Page \(number)</title>".utf8) + random.text(200 + number % 300)
        }
        let r0 = try release.pack(in: scratch, as: "r0")
        release.addLine(to: "docs/f0/page3.html", "<p>release 1</p>")
        release.files["docs/f5/page2990.html"] = nil
        release.files["docs/f2/added.html"] = Array("<p>added in release 1</p>".utf8)
        let r1 = try release.pack(in: scratch, as: "r1")
        _ = try UpdateBuilder(old: try stack([r0]), new: try ArchiveReader(path: r1)).write(
            to: scratch.file("u1.webarc"))
        let bases = [scratch.file("u1.webarc"), r0]
        for number in stride(from: 7, to: 3_000, by: 97) where number != 2990 {
            release.addLine(to: "docs/f\(number / 500)/page\(number).html", "<p>release 2</p>")
        }
        release.addLine(to: "docs/f0/page3.html", "<p>release 2</p>")
        release.files["docs/f0/page1.html"] = nil
        release.files["docs/f5/page2999.html"] = nil
        release.files["docs/f2/added.html"] = nil
        // A copy of a body the bases hold (its source is that base record), and near copies of
        // pages in either layer (a similar body, named by the first record answering with it).
        release.files["docs/f4/copy.html"] = release.files["docs/f4/page2400.html"]
        release.files["docs/f3/near.html"] = release.files["docs/f3/page1800.html"]! + Array("<p>near</p>".utf8)
        release.files["docs/f0/near.html"] = release.files["docs/f0/page3.html"]! + Array("<p>near</p>".utf8)
        release.files["docs/f5/zz.html"] = release.files["docs/f5/page2998.html"]! + Array("<p>last</p>".utf8)
        let r2 = try release.pack(in: scratch, as: "r2")
        let summary = try compact(bases, r2, to: scratch.file("u2.webarcu"))
        #expect(summary.changedKeys == 32 && summary.deletedKeys == 3 && summary.addedKeys == 4, "\(summary)")
        #expect(summary.newBodies == 35 && summary.similarBodies == 3, "\(summary)")
        try apply(scratch.file("u2.webarcu"), over: bases, to: scratch.file("r2-applied.webarc"))
        #expect(try firstDifference(bytes(scratch.file("r2-applied.webarc")), bytes(r2)) == nil)
    }

    @Test(
        "over a stack with tombstones, the passes that skim keys and class names see the keys, ordinals and records the decoding pass sees"
    )
    func skimmedViewIsTheDecodedView() throws {
        let scratch = try TemporaryFolder()
        var random = SeededGenerator(seed: 12)
        var release = Release(files: [:])
        for number in 0..<1_500 {
            release.files["docs/f\(number / 300)/page\(number).html"] =
                Array("<title>Page \(number)</title>".utf8) + random.text(200 + number % 300)
        }
        let r0 = try release.pack(in: scratch, as: "r0")
        // Deleted: the first and last keys of the base, one inside; changed and added in between.
        for name in ["f0/page0", "f4/page1499", "f2/page700"] { release.files["docs/\(name).html"] = nil }
        release.addLine(to: "docs/f1/page400.html", "<p>release 1</p>")
        release.files["docs/f3/added.html"] = Array("<p>added</p>".utf8)
        let r1 = try release.pack(in: scratch, as: "r1")
        _ = try UpdateBuilder(old: try stack([r0]), new: try ArchiveReader(path: r1)).write(
            to: scratch.file("u1.webarc"))
        let view = CompactBaseView(try stack([scratch.file("u1.webarc"), r0]))
        var decoded: [CompactBaseView.Key] = []
        try view.forEachKey {
            decoded.append($0)
            return true
        }
        var skimmed: [CompactBaseView.Key] = []
        try view.forEachSkimmedKey {
            skimmed.append(try view.decoded($0))
            return true
        }
        func summary(_ key: CompactBaseView.Key) -> String {
            "\(key.ordinal) \(key.key) \(key.firstRecord) \(key.records.map { "\($0.layer) \($0.record) \(String(describing: $0.body))" })"
        }
        #expect(skimmed.map(summary) == decoded.map(summary))
        #expect(!decoded.contains { $0.key.contains("page700.html") } && decoded.contains { $0.key.contains("added") })
        let counts = try view.counts()
        #expect(counts.keys == decoded.count && counts.records == decoded.map(\.records.count).reduce(0, +))
        let ordinals: Set = [0, 7, decoded.count - 1]
        #expect(
            try view.keys(ordinals).mapValues(summary)
                == decoded.filter { ordinals.contains($0.ordinal) }.reduce(into: [:]) { $0[$1.ordinal] = summary($1) })
    }

    @Test("a chain of five releases: each compact update applies to the archive the one before gave")
    func chain() throws {
        let scratch = try TemporaryFolder()
        var release = Release.first(pages: 16)
        var current = try release.pack(in: scratch, as: "r0")
        var applied = current
        for step in 1...5 {
            release.addLine(to: "docs/page\([1, 2, 3, 5, 6][step - 1]).html", "<p>release \(step)</p>")
            release.files["docs/added\(step).html"] = Array("<p>added in \(step)</p>".utf8)
            if step == 3 { release.files["docs/page9.html"] = nil }
            let next = try release.pack(in: scratch, as: "r\(step)")
            try compact([current], next, to: scratch.file("u\(step).webarcu"))
            let output = scratch.file("applied\(step).webarc")
            try apply(scratch.file("u\(step).webarcu"), over: [applied], to: output)
            #expect(try firstDifference(bytes(output), bytes(next)) == nil, "release \(step)")
            current = next
            applied = output
        }
    }

    @Test("a compact update over the wrong base is refused before anything is written, naming both")
    func wrongBase() throws {
        let scratch = try TemporaryFolder()
        let (old, new, _) = try Release.first(pages: 12).update(in: scratch) {
            $0.addLine(to: "docs/page1.html", "<p>2</p>")
        }
        try compact([old], new, to: scratch.file("u.webarcu"))
        #expect {
            try apply(scratch.file("u.webarcu"), over: [new], to: scratch.file("out.webarc"))
        } throws: { error in
            guard case .badBase(let reason) = error as? WebArcError else { return false }
            return reason.contains("u.webarcu") && reason.contains("v2.webarc")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
    }

    @Test(
        "a byte changed at any offset of a compact update is refused (or gives the same archive), never a crash, never a wrong archive"
    )
    func damagedAnywhere() throws {
        let scratch = try TemporaryFolder()
        let (old, new, _) = try Release.first(pages: 12).update(in: scratch) { second in
            second.addLine(to: "docs/page1.html", "<p>2</p>")
            second.files["docs/page3.html"] = nil
            second.files["docs/zz.html"] = Array("<p>new</p>".utf8)
        }
        try compact([old], new, to: scratch.file("u.webarcu"))
        let original = try bytes(scratch.file("u.webarcu"))
        let expected = try bytes(new)
        let bases = try stack([old])
        var refused = 0
        for offset in stride(from: 0, to: original.count, by: max(1, original.count / 150)) {
            for flip: UInt8 in [0x01, 0x80] {
                var damaged = original
                damaged[offset] ^= flip
                let path = scratch.file("d.webarcu")
                try Data(damaged).write(to: URL(fileURLWithPath: path))
                let output = scratch.file("d-out.webarc")
                do {
                    try CompactApplier(update: path, bases: bases).write(to: output, overwrite: true)
                    #expect(try firstDifference(bytes(output), expected) == nil, "offset \(offset)")
                } catch let error as WebArcError {
                    #expect(
                        ["bad-compact", "bad-base", "bad-target"].contains(error.code), "offset \(offset): \(error)")
                    refused += 1
                }
            }
        }
        #expect(refused > 0)
        // Cut at every length: refused.
        for length in stride(from: 0, to: original.count, by: max(1, original.count / 60)) {
            let path = scratch.file("cut.webarcu")
            try Data(original[..<length]).write(to: URL(fileURLWithPath: path))
            #expect(throws: WebArcError.self, "cut at \(length)") {
                try CompactApplier(update: path, bases: bases).write(to: scratch.file("c.webarc"), overwrite: true)
            }
        }
    }

    @Test(
        "a change over a section's bound is refused as compact-too-large once the walk finds it, nothing written; under it the same pair writes"
    )
    func tooLarge() throws {
        let scratch = try TemporaryFolder()
        let (old, new, _) = try Release.first(pages: 30).update(in: scratch) { second in
            for path in second.files.keys.sorted() where path.hasSuffix(".html") {
                second.addLine(to: path, "<p>every page changed</p>")
            }
        }
        var builder = CompactUpdateBuilder(old: try stack([old]), new: try ArchiveReader(path: new))
        builder.sectionLimit = 2048
        let output = scratch.file("u.webarcu")
        #expect {
            try builder.write(to: output)
        } throws: { error in
            // The base's versions of the changed pages pass 2 KiB during the walk, before any
            // section is coded.
            guard case .compactTooLarge(let section, let limit) = error as? WebArcError else { return false }
            return section == "records' dictionary" && limit == 2048
                && (error as? WebArcError)?.category == .badArgument
        }
        #expect(!FileManager.default.fileExists(atPath: output))
        builder.sectionLimit = CompactUpdate.maxSection
        try builder.write(to: output)
        try apply(output, over: [old], to: scratch.file("applied.webarc"))
        #expect(try firstDifference(bytes(scratch.file("applied.webarc")), bytes(new)) == nil)
    }

    @Test("a result whose digest is not the target's is refused and nothing is written")
    func badTarget() throws {
        let scratch = try TemporaryFolder()
        let (old, new, _) = try Release.first(pages: 12).update(in: scratch) {
            $0.addLine(to: "docs/page1.html", "<p>2</p>")
        }
        try compact([old], new, to: scratch.file("u.webarcu"))
        var damaged = try bytes(scratch.file("u.webarcu"))
        let (header, _) = try CompactPlan.header(damaged)
        let digestAt = damaged.firstRange(of: header.targetDigest)!.lowerBound
        damaged[digestAt] ^= 1
        try Data(damaged).write(to: URL(fileURLWithPath: scratch.file("bad.webarcu")))
        #expect {
            try apply(scratch.file("bad.webarcu"), over: [old], to: scratch.file("out.webarc"))
        } throws: { ($0 as? WebArcError)?.code == "bad-target" }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
    }

    @Test(
        "the previous versions are read on every core, each into its place: two damaged ones, the first and the last, name the first every time, as a read one after the other would; nothing written"
    )
    func damagedPreviousVersionsNamedInOrder() throws {
        let scratch = try TemporaryFolder()
        var first = Release.first(pages: 40)
        for (path, bytes) in first.files where path.hasSuffix(".html") {
            first.files[path] = bytes + Array("<footer>3.0.1</footer>".utf8)
        }
        var second = first
        for (path, bytes) in second.files where path.hasSuffix(".html") {
            second.files[path] = Array(
                String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "3.0.1", with: "3.0.2").utf8)
        }
        let old = try first.pack(in: scratch, as: "v1")
        let new = try second.pack(in: scratch, as: "v2")
        try compact([old], new, to: scratch.file("u.webarcu"))
        // A literal byte near each block's end: both pages still decode, to other bytes.
        // The versions go in key order: docs/big.html (700 KB, the first core's run alone) first,
        // docs/part9/index.html last (the second core's).
        let (_, early) = try UpdateApplierTests().damage(
            old, url: "http://localhost/docs/big.html", chunk: 0, at: { Int($0.storedLength) - 3 }, mask: 0x01)
        let (_, late) = try UpdateApplierTests().damage(
            old, url: "http://localhost/docs/part9/index.html", chunk: 0, at: { Int($0.storedLength) - 3 }, mask: 0x01)
        #expect(early.offset != late.offset)
        for _ in 0..<6 {
            #expect {
                try apply(scratch.file("u.webarcu"), over: [old], to: scratch.file("v2-applied.webarc"))
            } throws: { error in
                guard case .chunkDigest(_, let chunk, let offset)? = error as? WebArcError else { return false }
                return chunk == 0 && offset == early.offset
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.file("v2-applied.webarc")))
        }
    }

    @Test(
        "the runs the previous versions are read in: every index once, in order, at most one run a core, of about equal bytes"
    )
    func partsOfAboutEqualBytes() {
        #expect(CoreRuns.ofAboutEqualBytes([], runs: 2).isEmpty)
        #expect(CoreRuns.ofAboutEqualBytes([5], runs: 2) == [0..<1])
        #expect(CoreRuns.ofAboutEqualBytes([0, 0, 0], runs: 2) == [0..<3])
        #expect(CoreRuns.ofAboutEqualBytes([10, 10, 10, 10], runs: 2) == [0..<2, 2..<4])
        #expect(CoreRuns.ofAboutEqualBytes([100, 1, 1, 1], runs: 2) == [0..<1, 1..<4])
        var random = SeededGenerator(seed: 9)
        for _ in 0..<50 {
            let lengths = (0..<Int(random.next() % 40 + 1)).map { _ in Int(random.next() % 70_000) }
            for parts in 1...4 {
                let runs = CoreRuns.ofAboutEqualBytes(lengths, runs: parts)
                #expect(runs.count <= parts && runs.allSatisfy { !$0.isEmpty })
                #expect(runs.flatMap { Array($0) } == Array(lengths.indices))
            }
        }
    }

    @Test(
        "a version string edited in every page costs about once: the compact update is a fraction of the update archive"
    )
    func versionStringEveryPage() throws {
        let scratch = try TemporaryFolder()
        var first = Release.first(pages: 30)
        for (path, bytes) in first.files where path.hasSuffix(".html") {
            first.files[path] =
                Array("<title>Project 3.0.1</title>".utf8) + bytes + Array("<footer>3.0.1</footer>".utf8)
        }
        var second = first
        for (path, bytes) in second.files where path.hasSuffix(".html") {
            second.files[path] = Array(
                String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "3.0.1", with: "3.0.2").utf8)
        }
        let old = try first.pack(in: scratch, as: "v1")
        let new = try second.pack(in: scratch, as: "v2")
        let summary = try compact([old], new, to: scratch.file("u.webarcu"))
        _ = try UpdateBuilder(old: try stack([old]), new: try ArchiveReader(path: new)).write(
            to: scratch.file("u.webarc"))
        let layer = try bytes(scratch.file("u.webarc")).count
        #expect(summary.changedKeys >= 30 && summary.newBodies >= 30, "\(summary)")
        #expect(summary.bytes * 10 < layer, "compact \(summary.bytes), update archive \(layer)")
        try apply(scratch.file("u.webarcu"), over: [old], to: scratch.file("v2-applied.webarc"))
        #expect(try firstDifference(bytes(scratch.file("v2-applied.webarc")), bytes(new)) == nil)
    }
}

/// The compact update vectors (`Spec/vectors/compact/`, README "Compact updates").
@Suite("Compact update vectors")
struct CompactVectorTests {
    static let folder = SpecVectorTests.vectors.appendingPathComponent("compact").path

    static var validNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/valid")) ?? [])
            .filter { $0.hasSuffix(".webarcu") }.map { String($0.dropLast(8)) }.sorted()
    }

    static func json(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    }

    static func bases(_ names: [String]) throws -> LayerStack {
        try LayerStack(names.map { try ArchiveReader(path: SpecVectorTests.vectors.path + "/valid/" + $0) })
    }

    @Test("the vectors are there")
    func present() {
        #expect(Self.validNames.count >= 5)
    }

    @Test("each valid compact update applies to its result vector byte for byte", arguments: validNames)
    func valid(_ name: String) throws {
        let info = try Self.json(Self.folder + "/valid/\(name).json")
        let scratch = try TemporaryFolder()
        let output = scratch.file("out.webarc")
        try CompactApplier(
            update: Self.folder + "/valid/\(name).webarcu", bases: try Self.bases(info["bases"] as! [String])
        )
        .write(to: output)
        let expected = try Data(
            contentsOf: SpecVectorTests.vectors.appendingPathComponent("valid/" + (info["result"] as! String)))
        #expect(try firstDifference(Data(contentsOf: URL(fileURLWithPath: output)), expected) == nil)
        let header = try CompactApplier.header(path: Self.folder + "/valid/\(name).webarcu")
        #expect(header.targetDigest.map { String(format: "%02x", $0) }.joined() == info["targetDigest"] as? String)
    }

    @Test(
        "the Swift encoder writes the Python one's bytes where no similar body is chosen (the choice is the encoder's: site-update differs)",
        arguments: ["delta", "delta-stacked", "best-delta", "empty"])
    func sameEncoder(_ name: String) throws {
        let info = try Self.json(Self.folder + "/valid/\(name).json")
        let new = try ArchiveReader(path: SpecVectorTests.vectors.path + "/valid/" + (info["result"] as! String))
        let (bytes, _) = try CompactUpdateBuilder(old: try Self.bases(info["bases"] as! [String]), new: new).encode()
        #expect(bytes == [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.folder + "/valid/\(name).webarcu"))))
    }

    @Test(
        "the encoder reading the base view in passes writes the bytes the encoder holding the whole view wrote (SHA-256 of its output)",
        arguments: [
            ("site-update", "6de78f45c5f9b9f1d682fadf35626d8796274cf2ca2223fec2c5655c6ce435a7"),
            ("grouped", "38e213280424bf96333702f31bfff8aaaa908dbb6421d024b0de1892013cd379"),
            ("delta-window", "bceeef7b025b5ebebd98a6a3f88682fbce4bbab54472710d9618ff3ea7ffab61"),
        ])
    func sameAsWholeView(_ name: String, _ digest: String) throws {
        let info = try Self.json(Self.folder + "/valid/\(name).json")
        let new = try ArchiveReader(path: SpecVectorTests.vectors.path + "/valid/" + (info["result"] as! String))
        let (bytes, _) = try CompactUpdateBuilder(old: try Self.bases(info["bases"] as! [String]), new: new).encode()
        #expect(SHA256Hash.of(bytes).hex == digest)
    }

    static var invalidNames: [String] {
        ((try? json(folder + "/invalid/expected.json")) ?? [:]).keys.sorted()
    }

    @Test("each invalid compact update is refused as expected.json says, nothing written", arguments: invalidNames)
    func invalid(_ name: String) throws {
        let entry = try Self.json(Self.folder + "/invalid/expected.json")[name] as! [String: Any]
        let scratch = try TemporaryFolder()
        let output = scratch.file("out.webarc")
        #expect {
            try CompactApplier(
                update: Self.folder + "/invalid/\(name).webarcu", bases: try Self.bases(entry["bases"] as! [String])
            )
            .write(to: output)
        } throws: { error in
            guard let error = error as? WebArcError, error.code == entry["code"] as? String else { return false }
            return (entry["offset"] as? NSNumber).map { error.offset == $0.uint64Value } ?? true
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
