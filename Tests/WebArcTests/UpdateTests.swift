import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// `diff` and `apply` in the library (spec §13.1): updates hold only what changed, apply gives the
/// new archive byte for byte, and the layered view answers as the new archive does.
@Suite struct UpdateTests {
    /// A release of a small site on disk: pages of text with shared boilerplate, written by the
    /// packer (so the insertion order is not the tree's: index.html answers at folder/ too).
    struct Release {
        var files: [String: [UInt8]]

        static func first(pages: Int = 40, seed: UInt64 = 7) -> Release {
            var random = SeededGenerator(seed: seed)
            var files: [String: [UInt8]] = [:]
            let boilerplate = Array(
                "<html><head><link rel=stylesheet href=/css/site.css></head><body><nav>home about docs</nav>\n".utf8)
            for index in 0..<pages {
                let folder = index % 4 == 0 ? "docs/part\(index / 4)/" : "docs/"
                files[folder + (index % 4 == 0 ? "index.html" : "page\(index).html")] =
                    boilerplate + random.text(3_000 + index * 400)
            }
            files["css/site.css"] = random.text(5_000)
            files["img/photo.bin"] = random.bytes(70_000)
            files["docs/big.html"] = boilerplate + random.text(700_000)
            return Release(files: files)
        }

        /// Inserts one line in the middle of `path`.
        mutating func addLine(to path: String, _ line: String) {
            let bytes = files[path]!
            let middle = bytes.count / 2
            files[path] = Array(bytes[..<middle]) + Array("\n\(line)\n".utf8) + Array(bytes[middle...])
        }

        func write(to folder: String) throws {
            for (path, bytes) in files {
                let file = folder + "/" + path
                try FileManager.default.createDirectory(
                    atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(bytes).write(to: URL(fileURLWithPath: file))
                // Fixed dates: Last-Modified is part of each record.
                try FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: file)
            }
        }

        /// Packs the release into `archive` with the packer's defaults.
        @discardableResult
        func pack(in scratch: TemporaryFolder, as name: String) throws -> String {
            let folder = scratch.file(name + "-site")
            try write(to: folder)
            _ = try SitePacker(options: .init()).pack(folder: folder, to: scratch.file(name + ".webarc"))
            return scratch.file(name + ".webarc")
        }
    }

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    func stack(_ paths: [String]) throws -> LayerStack { try LayerStack(try paths.map { try ArchiveReader(path: $0) }) }

    @discardableResult
    func diff(_ old: [String], _ new: String, to path: String) throws -> UpdateBuilder.Summary {
        try UpdateBuilder(old: try stack(old), new: try ArchiveReader(path: new)).write(to: path)
    }

    func apply(_ update: String, over old: [String], to path: String) throws {
        try UpdateApplier(stack: try stack([update] + old)).write(to: path)
    }

    @Test(
        "a release with changed, deleted, renamed and new pages: the update is small, applies byte for byte, and the stack answers as the new archive"
    )
    func roundTrip() throws {
        let scratch = try TemporaryFolder()
        let first = Release.first()
        let old = try first.pack(in: scratch, as: "v1")
        var second = first
        for path in first.files.keys.sorted().filter({ $0.hasSuffix(".html") }).prefix(6) {
            second.addLine(to: path, "<p>release 2</p>")
        }
        second.addLine(to: "docs/big.html", "<p>release 2 in a big page</p>")
        second.files["docs/page1.html"] = nil
        second.files["docs/moved.html"] = second.files.removeValue(forKey: "docs/page2.html")
        second.files["docs/new.html"] = Array("<h1>new</h1>".utf8)
        let new = try second.pack(in: scratch, as: "v2")

        let summary = try diff([old], new, to: scratch.file("u.webarc"))
        #expect(summary.deletedKeys == 2)
        // The first six pages in path order are big, page1 (deleted), page10, 11, 13 and 14; then
        // big again, moved and new: 7 keys; page1 and page2 (moved away) are deleted.
        #expect(summary.changedKeys + summary.unchangedKeys == (try ArchiveReader(path: new)).recordCount)
        #expect(summary.changedKeys == 7, "\(summary)")
        let update = try ArchiveReader(path: scratch.file("u.webarc"))
        #expect(update.trailer.requiredFeatures.contains([.layer, .deltaCodec]))
        #expect(try update.metadata.target?.digest == (try ArchiveReader(path: new)).archiveDigest)
        let updateSize = try bytes(scratch.file("u.webarc")).count
        let newSize = try bytes(new).count
        #expect(updateSize * 20 < newSize, "update \(updateSize) bytes, new archive \(newSize)")

        try apply(scratch.file("u.webarc"), over: [old], to: scratch.file("v2-applied.webarc"))
        #expect(try firstDifference(bytes(scratch.file("v2-applied.webarc")), bytes(new)) == nil)

        let layered = try stack([scratch.file("u.webarc"), old])
        let archives = ReplayArchivesProbe(stack: layered)
        #expect(try archives.body("http://localhost/docs/big.html") == second.files["docs/big.html"])
        #expect(try archives.body("http://localhost/docs/moved.html") == second.files["docs/moved.html"])
        #expect(try archives.body("http://localhost/css/site.css") == second.files["css/site.css"])
        #expect(try archives.body("http://localhost/docs/page1.html") == nil)
        #expect(try archives.body("http://localhost/docs/page2.html") == nil)
        var keys = 0
        try layered.forEachKey { _, _ in keys += 1 }
        #expect(keys == (try ArchiveReader(path: new)).recordCount)
        let report = ArchiveVerifier.verify(layered.top)
        #expect(report.problems.allSatisfy { $0.severity != .error }, "\(report.problems)")
    }

    @Test("a packed site with many folders (index.html answering twice) is written again byte for byte")
    func packedFoldersReproduce() throws {
        // Each folder's index.html takes two dictionary positions (spec Appendix C step 13): a
        // packer that counted one would be out of step with apply after the first folder.
        let scratch = try TemporaryFolder()
        var random = SeededGenerator(seed: 21)
        var files: [String: [UInt8]] = [:]
        for index in 0..<90 {
            let path = index % 3 == 0 ? "section\(index)/index.html" : "section\(index - index % 3)/page\(index).html"
            files[path] = Array("<html><nav>site</nav>".utf8) + random.text(2_000 + index * 50)
        }
        let old = try Release(files: ["index.html": Array("<p>start</p>".utf8)]).pack(in: scratch, as: "v1")
        let new = try Release(files: files).pack(in: scratch, as: "v2")
        try diff([old], new, to: scratch.file("u.webarc"))
        try apply(scratch.file("u.webarc"), over: [old], to: scratch.file("again.webarc"))
        #expect(try firstDifference(bytes(scratch.file("again.webarc")), bytes(new)) == nil)
        #expect(try ArchiveReader(path: new).trailer.requiredFeatures.contains(.dictionaryCodec))
    }

    @Test("an update between equal archives holds no record and applies to the same bytes")
    func emptyUpdate() throws {
        let scratch = try TemporaryFolder()
        let release = Release.first(pages: 12)
        let old = try release.pack(in: scratch, as: "v1")
        let summary = try diff([old], old, to: scratch.file("u.webarc"))
        #expect(summary.changedKeys == 0 && summary.deletedKeys == 0)
        #expect(try ArchiveReader(path: scratch.file("u.webarc")).recordCount == 0)
        try apply(scratch.file("u.webarc"), over: [old], to: scratch.file("again.webarc"))
        #expect(try firstDifference(bytes(scratch.file("again.webarc")), bytes(old)) == nil)
    }

    @Test("a chain of five updates applied in turn gives each release; stacked updates give the same")
    func chainOfFive() throws {
        let scratch = try TemporaryFolder()
        var release = Release.first(pages: 16)
        var archives = [try release.pack(in: scratch, as: "v0")]
        for step in 1...5 {
            let pages = release.files.keys.sorted().filter { $0.hasSuffix(".html") }
            release.addLine(to: pages[step % pages.count], "<p>step \(step)</p>")
            release.files["docs/step\(step).html"] = Array("<p>\(step)</p>".utf8)
            if step == 3 { release.files["docs/step1.html"] = nil }
            archives.append(try release.pack(in: scratch, as: "v\(step)"))
        }
        var current = archives[0]
        for step in 1...5 {
            try diff([current], archives[step], to: scratch.file("u\(step).webarc"))
            try apply(scratch.file("u\(step).webarc"), over: [current], to: scratch.file("applied\(step).webarc"))
            #expect(
                try firstDifference(bytes(scratch.file("applied\(step).webarc")), bytes(archives[step])) == nil,
                "step \(step)")
            current = scratch.file("applied\(step).webarc")
        }
        // Stacked: s1 over v0, s2 over (s1, v0), s3 over (s2, s1, v0).
        var below = [archives[0]]
        for step in 1...3 {
            try diff(below, archives[step], to: scratch.file("s\(step).webarc"))
            below.insert(scratch.file("s\(step).webarc"), at: 0)
            try apply(below[0], over: Array(below.dropFirst()), to: scratch.file("stacked\(step).webarc"))
            #expect(
                try firstDifference(bytes(scratch.file("stacked\(step).webarc")), bytes(archives[step])) == nil,
                "stacked step \(step)")
        }
        #expect(try ArchiveReader(path: scratch.file("s3.webarc")).metadata.bases.count == 3)
    }

    @Test("a wrong base is refused before anything is written; a damaged update writes nothing")
    func refusals() throws {
        let scratch = try TemporaryFolder()
        let first = Release.first(pages: 12)
        let old = try first.pack(in: scratch, as: "v1")
        var second = first
        second.addLine(to: "docs/page1.html", "<p>2</p>")
        let new = try second.pack(in: scratch, as: "v2")
        try diff([old], new, to: scratch.file("u.webarc"))

        #expect(throws: WebArcError.self) {
            try apply(scratch.file("u.webarc"), over: [new], to: scratch.file("out.webarc"))
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))

        // A flipped byte in the update's body data: its delta chunk fails its digest.
        var damaged = try bytes(scratch.file("u.webarc"))
        damaged[20] ^= 0x40
        try Data(damaged).write(to: URL(fileURLWithPath: scratch.file("damaged.webarc")))
        #expect(throws: WebArcError.self) {
            try apply(scratch.file("damaged.webarc"), over: [old], to: scratch.file("out.webarc"))
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
    }

    @Test("an update whose target does not match what it gives is refused as bad-target, nothing written")
    func badTarget() throws {
        let scratch = try TemporaryFolder()
        let old = try Release.first(pages: 6).pack(in: scratch, as: "v1")
        let base = try ArchiveReader(path: old)
        let writer = try ArchiveWriter(path: scratch.file("u.webarc"), bases: [base])
        try writer.add(TombstoneRecord(request: RequestRecord(url: "http://localhost/docs/page1.html")))
        var archive = try base.metadata
        archive.writer = WriterRecipe(level: 1, dictionaryInterval: 32)
        writer.metadata.target = UpdateTarget(
            digest: base.archiveDigest, archiveLength: base.archiveLength, archive: archive)
        try writer.finish()
        #expect {
            try apply(scratch.file("u.webarc"), over: [old], to: scratch.file("out.webarc"))
        } throws: { ($0 as? WebArcError)?.code == "bad-target" }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
        // An update made by hand names no target at all.
        let plain = try ArchiveWriter(path: scratch.file("plain.webarc"), bases: [base])
        try plain.finish()
        #expect { try apply(scratch.file("plain.webarc"), over: [old], to: scratch.file("out.webarc")) } throws: {
            ($0 as? WebArcError)?.code == "bad-target"
        }
    }

    @Test("the stack is checked: an update over more archives than given is bad-base")
    func stackNeedsItsBases() throws {
        let scratch = try TemporaryFolder()
        let old = try Release.first(pages: 6).pack(in: scratch, as: "v1")
        var second = Release.first(pages: 6)
        second.files["docs/new.html"] = Array("x".utf8)
        let new = try second.pack(in: scratch, as: "v2")
        try diff([old], new, to: scratch.file("u.webarc"))
        #expect { _ = try stack([scratch.file("u.webarc")]) } throws: { ($0 as? WebArcError)?.code == "bad-base" }
        #expect { _ = try stack([scratch.file("u.webarc"), new]) } throws: { ($0 as? WebArcError)?.code == "bad-base" }
    }
}

/// Reads whole bodies through the replay engine's layered lookup.
struct ReplayArchivesProbe {
    let stack: LayerStack

    /// The body answering `url`, or nil when the stack answers "not found" (absent or deleted).
    func body(_ url: String) throws -> [UInt8]? {
        for reader in stack.layers {
            guard let entry = try reader.lookup(url: url) else { continue }
            guard case .response(let response) = entry.record else { return nil }
            return [UInt8](try reader.body(response.body))
        }
        return nil
    }
}
