import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// Applying an update reuses the stored chunks the writer would write again (``ChunkRecoder``),
/// codes the others on worker threads, and still gives the new archive byte for byte and refuses
/// damaged chunks.
@Suite struct UpdateApplierTests {
    /// A fixture without the response a test damages.
    struct MissingResponse: Error {
        var url: String
    }

    typealias Release = UpdateTests.Release

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    func stack(_ paths: [String]) throws -> LayerStack { try LayerStack(try paths.map { try ArchiveReader(path: $0) }) }

    /// Flips `mask` in the byte at `position(chunk)` of chunk `index` of the body `url` answers
    /// with in the archive at `path`; returns that body and chunk.
    @discardableResult
    func damage(
        _ path: String, url: String, chunk index: Int, at position: (ChunkEntry) -> Int, mask: UInt8
    ) throws -> (BodyReference, ChunkEntry) {
        let reader = try ArchiveReader(path: path)
        guard case .response(let response) = try reader.lookup(url: url)?.record else {
            throw MissingResponse(url: url)
        }
        let chunk = try reader.bodyEntry(response.body).chunks[index]
        var damaged = try bytes(path)
        damaged[Int(chunk.offset) + position(chunk)] ^= mask
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        return (response.body, chunk)
    }

    @discardableResult
    func apply(_ update: String, over old: [String], to path: String, workers: Int = 0) throws -> UpdateApplier.Summary
    {
        var applier = UpdateApplier(stack: try stack([update] + old))
        applier.workers = workers
        return try applier.write(to: path, overwrite: true)
    }

    @Test(
        "pages added and deleted early move every later body to another dictionary anchor: apply codes those first chunks again, reuses the rest, byte for byte with any number of workers"
    )
    func anchorsMoved() throws {
        let scratch = try TemporaryFolder()
        let (old, new, _) = try Release.first(pages: 80).update(in: scratch) { second in
            second.files["docs/aaa-new.html"] = second.files["docs/page1.html"]! + Array("<p>added</p>".utf8)
            second.files["docs/page2.html"] = nil
            second.files["docs/page3.html"] = nil
            second.addLine(to: "docs/big.html", "<p>2</p>")
        }

        var summaries: [UpdateApplier.Summary] = []
        for workers in [1, 2, 3] {
            let output = scratch.file("v2-\(workers).webarc")
            summaries.append(try apply(scratch.file("u.webarc"), over: [old], to: output, workers: workers))
            #expect(try firstDifference(bytes(output), bytes(new)) == nil, "\(workers) workers")
        }
        #expect(summaries.allSatisfy { $0 == summaries[0] })
        let summary = summaries[0]
        #expect(summary.chunksReused > 0 && summary.chunksCoded > 0, "\(summary)")
        #expect(!summary.codedAgain)
        // The reused chunks were copied undecoded, the body data checked whole (Target.bodyData):
        // a first chunk reused against a moved anchor's dictionary would have failed that check.
        #expect(summary.copiedUnchecked && !summary.checkedAgain, "\(summary)")
    }

    @Test("an unchanged release applies with every chunk reused")
    func everythingReused() throws {
        let scratch = try TemporaryFolder()
        let (old, new, _) = try Release.first(pages: 20).update(in: scratch) {
            $0.files["docs/zzz.html"] = Array("<p>last</p>".utf8)
        }
        let summary = try apply(scratch.file("u.webarc"), over: [old], to: scratch.file("v2-applied.webarc"))
        #expect(try firstDifference(bytes(scratch.file("v2-applied.webarc")), bytes(new)) == nil)
        // Coded: every first chunk stored raw (it may have been tried against another dictionary
        // than its position's): the new page, the photo, any anchor page LZ4 did not shrink. The
        // rest is reused.
        var rawFirstChunks = 0
        try ArchiveReader(path: new).forEachBody { if $0.chunks.first?.codec == .raw { rawFirstChunks += 1 } }
        #expect(rawFirstChunks >= 2)
        #expect(summary.chunksCoded == rawFirstChunks, "\(summary)")
        #expect(summary.chunksReused > 20, "\(summary)")
        #expect(summary.copiedUnchecked && !summary.checkedAgain, "\(summary)")
    }

    @Test(
        "a release of photos (stored raw) applies checking each chunk: copying undecoded would hash every stored byte to save little; still byte for byte"
    )
    func incompressibleReleaseChecksEachChunk() throws {
        let scratch = try TemporaryFolder()
        var random = SeededGenerator(seed: 3)
        var photos = Release(files: [:])
        for index in 0..<12 { photos.files["img/photo\(index).bin"] = random.bytes(40_000 + index * 1_000) }
        photos.files["index.html"] = Array("<p>gallery</p>".utf8)
        let (old, new, _) = try photos.update(in: scratch) { $0.files["index.html"] = Array("<p>gallery, 2</p>".utf8) }
        #expect(
            try ArchiveReader(path: scratch.file("u.webarc")).metadata.target?.bodyData
                == ArchiveReader(path: new).bodyDataDigest())
        let summary = try apply(scratch.file("u.webarc"), over: [old], to: scratch.file("v2-applied.webarc"))
        #expect(try firstDifference(bytes(scratch.file("v2-applied.webarc")), bytes(new)) == nil)
        #expect(!summary.copiedUnchecked && !summary.checkedAgain, "\(summary)")
    }

    @Test("a damaged chunk of the old archive is refused, never copied into the result")
    func damagedBaseChunkRefused() throws {
        let scratch = try TemporaryFolder()
        let (old, _, _) = try Release.first(pages: 12).update(in: scratch) {
            $0.addLine(to: "docs/page1.html", "<p>2</p>")
        }

        // css/site.css is unchanged, so its stored chunk would be reused as it is.
        try damage(old, url: "http://localhost/css/site.css", chunk: 0, at: { Int($0.storedLength) / 2 }, mask: 0x20)

        for workers in [1, 2] {
            #expect {
                try apply(scratch.file("u.webarc"), over: [old], to: scratch.file("out.webarc"), workers: workers)
            } throws: { ["chunk-digest", "corrupt-chunk"].contains(($0 as? WebArcError)?.code) }
            #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
        }
    }

    @Test(
        "a damaged later chunk of an unchanged page, which apply copies undecoded, fails the body data check; the checking pass names it as chunk-digest, nothing written"
    )
    func damagedChunkCopiedUndecodedRefused() throws {
        let scratch = try TemporaryFolder()
        let (old, _, _) = try Release.first(pages: 40).update(in: scratch) {
            $0.addLine(to: "docs/page1.html", "<p>2</p>")
        }
        // docs/big.html is unchanged and cut in three chunks; its second is LZ4 without a
        // dictionary, reused as it is wherever the page lands.
        // A literal byte near the block's end: it still decodes, to other bytes.
        let (big, chunk) = try damage(
            old, url: "http://localhost/docs/big.html", chunk: 1, at: { Int($0.storedLength) - 3 }, mask: 0x01)
        #expect(chunk.codec == .lz4)
        for workers in [1, 2] {
            #expect {
                try apply(scratch.file("u.webarc"), over: [old], to: scratch.file("out.webarc"), workers: workers)
            } throws: { error in
                guard case .chunkDigest(let body, let index, let offset) = error as? WebArcError else {
                    return (error as? WebArcError)?.code == "corrupt-chunk"
                }
                return body == big && index == 1 && offset == chunk.offset
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
        }
    }

    @Test(
        "a damaged base chunk that must be coded again (its anchor moved), which the first pass decodes without checking, is named as chunk-digest by the checking pass, nothing written"
    )
    func damagedMovedChunkNamed() throws {
        let scratch = try TemporaryFolder()
        let (old, _, _) = try Release.first(pages: 80).update(in: scratch) { second in
            second.files["docs/aaa-new.html"] = second.files["docs/page1.html"]! + Array("<p>added</p>".utf8)
            second.files["docs/page2.html"] = nil
        }
        // A late page, unchanged: its first chunk is coded against another anchor's dictionary now.
        // A literal byte near the block's end: it still decodes, to other bytes.
        let (body, chunk) = try damage(
            old, url: "http://localhost/docs/page78.html", chunk: 0, at: { Int($0.storedLength) - 3 }, mask: 0x01)
        #expect(chunk.codec == .lz4Dictionary)
        try expectRefusal(applying: scratch.file("u.webarc"), over: old, in: scratch, naming: body, chunk: chunk)
    }

    @Test(
        "a damaged chunk of the update that still decodes, which the first pass codes without checking, fails the body data check; the checking pass names it as chunk-digest, nothing written"
    )
    func damagedUpdateChunkNamed() throws {
        let scratch = try TemporaryFolder()
        let url = "http://localhost/docs/new.html"
        let (old, _, _) = try Release.first(pages: 40).update(in: scratch) { second in
            second.files["docs/new.html"] = Array(
                (0..<400).map { "<p>a page the old release lacks, line \($0)</p>\n" }.joined().utf8)
        }
        // A literal byte near the block's end: it still decodes, to other bytes.
        let (body, chunk) = try damage(
            scratch.file("u.webarc"), url: url, chunk: 0, at: { Int($0.storedLength) - 3 }, mask: 0x01)
        #expect(chunk.codec == .lz4 || chunk.codec == .lz4Dictionary)
        try expectRefusal(applying: scratch.file("u.webarc"), over: old, in: scratch, naming: body, chunk: chunk)
    }

    /// Applies `update` over `old` with one and two workers: each refuses it as chunk-digest at
    /// `chunk` (chunk 0 of `body`) and leaves nothing at the output.
    private func expectRefusal(
        applying update: String, over old: String, in scratch: TemporaryFolder, naming body: BodyReference,
        chunk: ChunkEntry
    ) throws {
        for workers in [1, 2] {
            #expect {
                try apply(update, over: [old], to: scratch.file("out.webarc"), workers: workers)
            } throws: { error in
                guard case .chunkDigest(let named, let index, let offset)? = error as? WebArcError else { return false }
                return named == body && index == 0 && offset == chunk.offset
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
        }
    }

    @Test(
        "a chunk of the old archive that decodes but does not match its digest is refused as chunk-digest at that chunk, with any number of workers, nothing written"
    )
    func baseChunkDigestRefused() throws {
        let scratch = try TemporaryFolder()
        let (old, _, _) = try Release.first(pages: 40).update(in: scratch) {
            $0.addLine(to: "docs/page1.html", "<p>2</p>")
        }
        // img/photo.bin is incompressible, so stored raw: a flipped byte still decodes.
        let (_, chunk) = try damage(old, url: "http://localhost/img/photo.bin", chunk: 0, at: { _ in 100 }, mask: 0x01)
        #expect(chunk.codec == .raw)
        for workers in [1, 2, 3] {
            #expect {
                try apply(scratch.file("u.webarc"), over: [old], to: scratch.file("out.webarc"), workers: workers)
            } throws: { error in
                guard case .chunkDigest(_, let index, let offset)? = error as? WebArcError else { return false }
                return index == 0 && offset == chunk.offset
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
        }
    }

    @Test(
        "a damaged previous version, which apply decodes an update's delta against without checking it (the delta's own digest finds the damage), is named as a checked read names it: chunk-digest at the base's chunk, with any number of workers, nothing written"
    )
    func damagedDeltaReferenceNamed() throws {
        let scratch = try TemporaryFolder()
        let url = "http://localhost/docs/page5.html"
        let (old, _, _) = try Release.first(pages: 40).update(in: scratch) {
            $0.addLine(to: "docs/page5.html", "<p>2</p>")
        }
        let update = try ArchiveReader(path: scratch.file("u.webarc"))
        guard case .response(let changed) = try update.lookup(url: url)?.record else { throw MissingResponse(url: url) }
        let delta = try update.bodyEntry(changed.body).chunks[0]
        #expect(delta.codec == .zstdDelta)
        // A literal byte near the block's end: the previous version still decodes, to other bytes.
        let (_, previous) = try damage(old, url: url, chunk: 0, at: { Int($0.storedLength) - 3 }, mask: 0x01)
        #expect(previous.offset != delta.offset)
        for workers in [1, 2] {
            #expect {
                try apply(scratch.file("u.webarc"), over: [old], to: scratch.file("out.webarc"), workers: workers)
            } throws: { error in
                guard case .chunkDigest(_, let index, let offset)? = error as? WebArcError else { return false }
                return index == 0 && offset == previous.offset
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
        }
    }

    @Test(
        "a chunk is reused only with the position's dictionary: codec 2 needs the same dictionary bytes placed alike, codec 1 none, raw not first"
    )
    func reuseRules() throws {
        let text = Array(repeating: Array("<p>the same boilerplate, again and again</p>\n".utf8), count: 200).flatMap {
            $0
        }
        let dictionary = LZ4Dictionary(Array(text.prefix(4_000)), placement: .prefix)
        let other = LZ4Dictionary(Array(text.dropFirst(7).prefix(4_000)), placement: .prefix)
        let apart = LZ4Dictionary(Array(text.prefix(4_000)), placement: .apart)
        func written(level: Int, _ placement: DictionaryPlacement = .prefix) -> (ArchiveReader) -> WriterRecipe? {
            { _ in WriterRecipe(level: level, dictionaryInterval: 32, placement: placement) }
        }
        let scratch = try TemporaryFolder()
        let writer = try ArchiveWriter(path: scratch.file("a.webarc"))
        _ = try writer.addBody(Array("placeholder".utf8))
        try writer.finish()
        let store = try ArchiveReader(path: scratch.file("a.webarc"))
        func verified(_ encoded: ChunkEncoder.Encoded) -> VerifiedChunk {
            VerifiedChunk(
                entry: ChunkEncoder.entry(for: encoded, at: 16), stored: encoded.stored, raw: text,
                dictionary: encoded.dictionary?.bytes,
                store: store)
        }
        let withDictionary = text.withUnsafeBytes { ChunkEncoder.encode($0, level: 1, dictionary: dictionary) }
        let plain = text.withUnsafeBytes { ChunkEncoder.encode($0, level: 1) }
        #expect(withDictionary.codec == .lz4Dictionary && plain.codec == .lz4)
        #expect(
            ChunkRecoder.reusable(verified(withDictionary), first: true, dictionary: dictionary, placement: .prefix))
        #expect(!ChunkRecoder.reusable(verified(withDictionary), first: true, dictionary: other, placement: .prefix))
        #expect(!ChunkRecoder.reusable(verified(withDictionary), first: true, dictionary: nil, placement: .prefix))
        #expect(ChunkRecoder.reusable(verified(plain), first: true, dictionary: nil, placement: .prefix))
        #expect(!ChunkRecoder.reusable(verified(plain), first: true, dictionary: dictionary, placement: .prefix))
        // The same bytes placed otherwise (an archive written before 2.1.8, or for one) may code
        // otherwise: never reused across placements; codec 1 does not depend on it.
        #expect(!ChunkRecoder.reusable(verified(withDictionary), first: true, dictionary: apart, placement: .prefix))
        #expect(
            !ChunkRecoder.reusable(verified(withDictionary), first: true, dictionary: dictionary, placement: .apart))
        #expect(ChunkRecoder.reusable(verified(plain), first: true, dictionary: nil, placement: .apart))

        // Coded against another dictionary, the first chunk comes out as coding it afresh gives.
        let recoded = ChunkRecoder.code(
            [verified(withDictionary)], level: 1, dictionary: other, recipeOf: written(level: 1))
        let fresh = text.withUnsafeBytes { ChunkEncoder.encode($0, level: 1, dictionary: other) }
        #expect(recoded.reused == 0 && recoded.chunks[0].stored == fresh.stored)
        #expect(
            ChunkRecoder.code([verified(withDictionary)], level: 1, dictionary: dictionary, recipeOf: written(level: 1))
                .reused == 1)
        #expect(
            ChunkRecoder.code(
                [verified(withDictionary)], level: 1, dictionary: dictionary, recipeOf: written(level: 1, .apart)
            ).reused == 0)
        // An archive written at another level never lends its bytes.
        #expect(
            ChunkRecoder.code([verified(plain)], level: 9, dictionary: nil, recipeOf: written(level: 1)).reused == 0)
        #expect(
            ChunkRecoder.code([verified(plain)], level: 1, dictionary: nil, recipeOf: written(level: 1)).reused == 1)
    }
}

extension UpdateTests.Release {
    /// Packs this release as `v1.webarc` and a copy changed by `change` as `v2.webarc`, and diffs
    /// them into `u.webarc`.
    func update(
        in scratch: TemporaryFolder, _ change: (inout Self) -> Void
    ) throws -> (old: String, new: String, summary: UpdateBuilder.Summary) {
        let old = try pack(in: scratch, as: "v1")
        var second = self
        change(&second)
        let new = try second.pack(in: scratch, as: "v2")
        let stack = try LayerStack([try ArchiveReader(path: old)])
        let summary = try UpdateBuilder(old: stack, new: try ArchiveReader(path: new)).write(
            to: scratch.file("u.webarc"))
        return (old, new, summary)
    }
}
