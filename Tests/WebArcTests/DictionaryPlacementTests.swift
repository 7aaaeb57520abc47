import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// `Writer.dictionaryPlacement` (spec Appendix C step 13, since 2.1.8): where a codec-2 chunk's
/// dictionary lies when LZ4 compresses it. `pack` places it right before the chunk (prefix); an
/// archive written before 2.1.8 placed it apart, and an update between the two must still apply
/// byte for byte.
@Suite struct DictionaryPlacementTests {
    typealias Release = UpdateTests.Release

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Packs `release` into `name.webarc` with dictionaries placed as `placement` says.
    func pack(
        _ release: Release, _ placement: DictionaryPlacement, in scratch: TemporaryFolder, as name: String
    ) throws -> String {
        let folder = scratch.file(name + "-site")
        try release.write(to: folder)
        var options = SitePacker.Options()
        options.dictionaryPlacement = placement
        _ = try SitePacker(options: options).pack(folder: folder, to: scratch.file(name + ".webarc"))
        return scratch.file(name + ".webarc")
    }

    /// The stored bytes of every first chunk coded against a dictionary (codec 2), by body.
    func dictionaryChunks(_ path: String) throws -> [BodyDigest: [UInt8]] {
        let reader = try ArchiveReader(path: path)
        let data = try bytes(path)
        var chunks: [BodyDigest: [UInt8]] = [:]
        try reader.forEachBody { body in
            guard let first = body.chunks.first, first.codec == .lz4Dictionary else { return }
            chunks[body.reference.digest] = Array(
                data[Int(first.offset)..<Int(first.offset + UInt64(first.storedLength))])
        }
        return chunks
    }

    @Test(
        "pack places dictionaries right before the chunk and says so (dictionaryPlacement 1); packed apart, it says nothing (as before 2.1.8); both verify, and the two code some first chunks differently"
    )
    func packRecordsPlacement() throws {
        let scratch = try TemporaryFolder()
        let release = Release.first(pages: 60)
        let prefixed = try pack(release, .prefix, in: scratch, as: "prefix")
        let apart = try pack(release, .apart, in: scratch, as: "apart")
        #expect(try ArchiveReader(path: prefixed).metadata.writer?.placement == .prefix)
        #expect(try ArchiveReader(path: apart).metadata.writer?.placement == .apart)
        for path in [prefixed, apart] { #expect(ArchiveVerifier.verify(path: path).passed) }
        let (first, second) = (try dictionaryChunks(prefixed), try dictionaryChunks(apart))
        #expect(first.count > 20 && Set(first.keys) == Set(second.keys))
        // The same chunks, the same dictionaries: most blocks alike, some not (a match at the
        // chunk's first byte that the dictionary's last byte extends, in prefix mode only).
        #expect(first.filter { second[$0.key] == $0.value }.count > first.count / 2)
    }

    @Test(
        "an update from an archive placed apart (before 2.1.8) to one placed right before, and back, applies byte for byte; the old archive's codec-2 chunks are coded again, never reused across placements"
    )
    func updateAcrossPlacements() throws {
        let scratch = try TemporaryFolder()
        let first = Release.first(pages: 60)
        var second = first
        second.addLine(to: "docs/page5.html", "<p>2</p>")
        for (oldPlacement, newPlacement) in [
            (DictionaryPlacement.apart, DictionaryPlacement.prefix), (.prefix, .apart), (.prefix, .prefix),
        ] {
            let old = try pack(first, oldPlacement, in: scratch, as: "old")
            let new = try pack(second, newPlacement, in: scratch, as: "new")
            let update = scratch.file("u.webarc")
            _ = try UpdateBuilder(
                old: try LayerStack([try ArchiveReader(path: old)]), new: try ArchiveReader(path: new)
            ).write(to: update, overwrite: true)
            let output = scratch.file("applied.webarc")
            let summary = try UpdateApplier(
                stack: try LayerStack([try ArchiveReader(path: update), try ArchiveReader(path: old)])
            ).write(to: output, overwrite: true)
            #expect(try firstDifference(bytes(output), bytes(new)) == nil, "\(oldPlacement) -> \(newPlacement)")
            let codec2 = try dictionaryChunks(new).count
            if oldPlacement == newPlacement {
                #expect(summary.chunksCoded < codec2, "\(summary)")
            } else {
                #expect(summary.chunksCoded >= codec2, "\(oldPlacement) -> \(newPlacement): \(summary)")
            }
            for path in [old, new, update, output] { try FileManager.default.removeItem(atPath: path) }
        }
    }

    @Test(
        "a release whose writer placed dictionaries in a way this version does not know (dictionaryPlacement 7) is refused by diff, and an update whose target names it by apply, before anything is written"
    )
    func unknownPlacementRefused() throws {
        let scratch = try TemporaryFolder()
        let release = Release.first(pages: 12)
        let old = try pack(release, .prefix, in: scratch, as: "old")
        var changed = release
        changed.addLine(to: "docs/page1.html", "<p>2</p>")
        let new = try pack(changed, .prefix, in: scratch, as: "new")
        let update = scratch.file("u.webarc")
        _ = try UpdateBuilder(old: try LayerStack([try ArchiveReader(path: old)]), new: try ArchiveReader(path: new))
            .write(to: update)

        // A newer writer's release: the same records, its recipe naming placement 7.
        let reader = try ArchiveReader(path: new)
        var options = ArchiveWriter.Options(recipe: try #require(try reader.metadata.writer))
        options.dictionaryPlacement = .unknown(7)
        let newer = try ArchiveWriter(path: scratch.file("newer.webarc"), options: options)
        try reader.forEachEntry { _ = try newer.copy($0.record, from: reader) }
        try newer.finish()
        #expect(try ArchiveReader(path: scratch.file("newer.webarc")).metadata.writer?.placement == .unknown(7))
        #expect {
            try UpdateBuilder(
                old: try LayerStack([try ArchiveReader(path: old)]),
                new: try ArchiveReader(path: scratch.file("newer.webarc"))
            )
            .write(to: scratch.file("u-newer.webarc"))
        } throws: { ($0 as? WebArcError)?.code == "bad-target" && "\($0)".contains("dictionary placement 7") }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("u-newer.webarc")))

        // The update again, its target's recipe naming placement 7.
        let updateReader = try ArchiveReader(path: update, bases: [try ArchiveReader(path: old)])
        var metadata = try updateReader.metadata
        metadata.target?.archive.writer?.placement = .unknown(7)
        let rewritten = try ArchiveWriter(
            path: scratch.file("u7.webarc"), options: .init(dictionaryInterval: 0),
            bases: [try ArchiveReader(path: old)])
        rewritten.metadata = metadata
        try updateReader.forEachEntry { _ = try rewritten.copy($0.record, from: updateReader) }
        try rewritten.finish()
        #expect {
            try UpdateApplier(
                stack: try LayerStack([
                    try ArchiveReader(path: scratch.file("u7.webarc")), try ArchiveReader(path: old),
                ])
            )
            .write(to: scratch.file("applied.webarc"))
        } throws: { ($0 as? WebArcError)?.code == "bad-target" && "\($0)".contains("dictionary placement 7") }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("applied.webarc")))
    }
}
