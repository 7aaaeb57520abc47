import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// Zstandard bodies (spec Appendix C step 15, `pack --best`): chunks of bodies that have a
/// dictionary are also coded as Zstandard frames against the anchor's reference chunk, in the same
/// archive, and stored as codec 3 where that is shorter.
@Suite("Zstandard bodies")
struct ZstdBodyTests {
    /// The chunk entries of the body answering `name` in a packed site.
    static func chunks(_ reader: ArchiveReader, _ name: String) throws -> [ChunkEntry] {
        let entry = try #require(try reader.lookup(url: "http://localhost/\(name)"))
        guard case .response(let response) = entry.record else {
            Issue.record("\(name) is not a response")
            return []
        }
        return try reader.bodyEntry(response.body).chunks
    }

    static func pack(
        _ folder: String, to path: String, zstdLevel: Int?, workers: Int = 0, streamingThreshold: UInt64? = nil
    ) throws {
        var options = SitePacker.Options(zstdLevel: zstdLevel)
        // Every 32nd body an anchor, as the writer's own order below and the pins (p000, p064) assume.
        options.anchorRule = nil
        options.workers = workers
        if let streamingThreshold { options.streamingThreshold = streamingThreshold }
        _ = try SitePacker(options: options).pack(folder: folder, to: path)
    }

    @Test(
        "pages with a dictionary become codec 3 against the anchor's last chunk in the same archive; anchors, media and duplicates do not; all reads back and verifies"
    )
    func packed() throws {
        let folder = try TemporaryFolder()
        let files = try PackPipelineTests.makeSite(at: folder.file("site"))
        try Self.pack(folder.file("site"), to: folder.file("lz4.webarc"), zstdLevel: nil)
        try Self.pack(folder.file("site"), to: folder.file("zstd.webarc"), zstdLevel: 3)
        let plain = try ArchiveReader(path: folder.file("lz4.webarc"))
        let reader = try ArchiveReader(path: folder.file("zstd.webarc"))
        #expect(reader.trailer.requiredFeatures.contains(.deltaCodec))
        #expect(!plain.trailer.requiredFeatures.contains(.deltaCodec))
        #expect(
            reader.storedBodyBytes < plain.storedBodyBytes,
            "zstd \(reader.storedBodyBytes) vs LZ4 \(plain.storedBodyBytes)")
        #expect(try reader.metadata.writer?.zstdLevel == 3)
        #expect(try plain.metadata.writer?.zstdLevel == nil)
        #expect(ArchiveVerifier.verify(reader).passed)
        for (name, bytes) in files {
            let entry = try #require(try reader.lookup(url: "http://localhost/\(name)"))
            guard case .response(let response) = entry.record else { continue }
            #expect(Array(try reader.body(response.body)) == bytes, "\(name)")
        }
        // An ordinary page: its one chunk is a frame whose reference is the anchor's last chunk here.
        let page = try Self.chunks(reader, "p002.html")
        #expect(page.count == 1 && page[0].codec == .zstdDelta)
        let anchorLast = try #require(try Self.chunks(reader, "p000.html").last)
        #expect(page[0].reference == anchorLast)
        #expect(page[0].reference?.layer == 0)
        // Every chunk of a body larger than a chunk is tried against the same reference.
        let large = try Self.chunks(reader, "p040.html")
        #expect(large.count == 3)
        #expect(large.allSatisfy { $0.codec == .zstdDelta && $0.reference == large[0].reference })
        // Anchors are not coded against anything; incompressible bytes stay raw.
        #expect(try Self.chunks(reader, "p064.html").allSatisfy { $0.codec == .lz4 || $0.codec == .raw })
        #expect(try Self.chunks(reader, "p009.html").allSatisfy { $0.codec == .raw })
        // Duplicates are one body.
        #expect(try Self.chunks(reader, "p050.html") == Self.chunks(reader, "p010.html"))
    }

    @Test("workers and streaming do not change a byte, and the packer writes what the writer's own order writes")
    func deterministic() throws {
        let folder = try TemporaryFolder()
        let files = try PackPipelineTests.makeSite(at: folder.file("site"))
        var archives: Set<Data> = []
        for (workers, threshold) in [(1, UInt64(64 << 10)), (2, UInt64(8 << 20))] {
            let path = folder.file("w\(workers).webarc")
            try Self.pack(folder.file("site"), to: path, zstdLevel: 3, workers: workers, streamingThreshold: threshold)
            archives.insert(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        #expect(archives.count == 1, "archives differ between worker counts or streaming thresholds")
        let writer = try ArchiveWriter(
            path: folder.file("written.webarc"),
            options: .init(dictionaryInterval: SitePacker.defaultDictionaryInterval, zstdLevel: 3))
        for name in files.keys.sorted() { _ = try writer.addBody(files[name]!) }
        try writer.finish()
        let packed = try ArchiveReader(path: folder.file("w1.webarc"))
        let written = try ArchiveReader(path: folder.file("written.webarc"))
        let packedData = try Data(contentsOf: URL(fileURLWithPath: folder.file("w1.webarc")))
        let writtenData = try Data(contentsOf: URL(fileURLWithPath: folder.file("written.webarc")))
        #expect(packed.trailer.bodyDataEnd == written.trailer.bodyDataEnd)
        #expect(
            firstDifference(
                packedData.prefix(Int(packed.trailer.bodyDataEnd)), writtenData.prefix(Int(written.trailer.bodyDataEnd))
            ) == nil)
    }

    @Test("an anchor that repeats a stored codec-3 body gets a 64 KiB dictionary chunk, stored once, as the reference")
    func dictionaryChunkReference() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 29)
        let shared = random.text(70_000)
        // Interval 3: positions 0 and 3 are anchors. The anchor at 3 repeats body 1, a codec-3
        // body, so its last chunk cannot be the reference (codec 3 cannot be one, spec §6.2).
        let bodies = [shared + random.text(9000), shared + random.text(8000), shared + random.text(7000)]
        let order = [
            bodies[0], bodies[1], bodies[2], bodies[1], shared + random.text(5000), shared + random.text(6000),
        ]
        let path = folder.file("a.webarc")
        let writer = try ArchiveWriter(path: path, options: .init(dictionaryInterval: 3, zstdLevel: 3))
        var stored: [StoredBody] = []
        for body in order { stored.append(try writer.addBody(body)) }
        for (index, body) in stored.enumerated() {
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(method: "GET", url: "http://localhost/\(index)"), status: 200, headers: [],
                    body: body))
        }
        try writer.finish()
        let reader = try ArchiveReader(path: path)
        #expect(ArchiveVerifier.verify(reader).passed)
        for (index, body) in order.enumerated() {
            let entry = try #require(try reader.lookup(url: "http://localhost/\(index)"))
            guard case .response(let response) = entry.record else { continue }
            #expect(Array(try reader.body(response.body)) == body)
        }
        #expect(try Self.chunks(reader, "1").first?.codec == .zstdDelta)
        let after = try Self.chunks(reader, "4").first
        let next = try Self.chunks(reader, "5").first
        #expect(after?.codec == .zstdDelta)
        let reference = try #require(after?.reference)
        #expect(reference.rawLength == UInt32(ChunkEntry.maxDictionaryLength))
        #expect(next?.reference == reference, "one dictionary chunk per anchor")
        // The dictionary chunk lies right before the first chunk naming it.
        #expect(reference.offset + UInt64(reference.storedLength) == after?.offset)
    }

    @Test("a damaged reference chunk fails the read of every body coded against it, naming the body")
    func damagedReference() throws {
        let folder = try TemporaryFolder()
        _ = try PackPipelineTests.makeSite(at: folder.file("site"))
        let path = folder.file("zstd.webarc")
        try Self.pack(folder.file("site"), to: path, zstdLevel: 3)
        let anchorLast = try #require(try Self.chunks(try ArchiveReader(path: path), "p000.html").last)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: anchorLast.offset + UInt64(anchorLast.storedLength / 2))
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: anchorLast.offset + UInt64(anchorLast.storedLength / 2))
        try handle.write(contentsOf: [byte ^ 0x20])
        try handle.close()
        let reader = try ArchiveReader(path: path)
        let entry = try #require(try reader.lookup(url: "http://localhost/p002.html"))
        guard case .response(let response) = entry.record else { return }
        #expect(throws: WebArcError.self) { _ = try reader.body(response.body) }
        #expect(!ArchiveVerifier.verify(reader).passed)
    }

    @Test("apply writes a Zstandard release again byte for byte from an update (the recipe carries the level)")
    func updateToZstdRelease() throws {
        let scratch = try TemporaryFolder()
        var release = UpdateTests.Release.first()
        let old = try release.pack(in: scratch, as: "v1")
        release.addLine(to: "docs/page5.html", "<p>one more line</p>")
        release.files["docs/new.html"] = release.files["docs/page6.html"]! + Array("<p>new</p>".utf8)
        try release.write(to: scratch.file("v2-site"))
        let new = scratch.file("v2.webarc")
        try Self.pack(scratch.file("v2-site"), to: new, zstdLevel: 5)
        #expect(try ArchiveReader(path: new).trailer.requiredFeatures.contains(.deltaCodec))
        let stack = try LayerStack([try ArchiveReader(path: old)])
        _ = try UpdateBuilder(old: stack, new: try ArchiveReader(path: new)).write(to: scratch.file("u.webarc"))
        try UpdateApplier(
            stack: try LayerStack([try ArchiveReader(path: scratch.file("u.webarc")), try ArchiveReader(path: old)])
        )
        .write(to: scratch.file("again.webarc"))
        #expect(
            try firstDifference(
                Data(contentsOf: URL(fileURLWithPath: scratch.file("again.webarc"))),
                Data(contentsOf: URL(fileURLWithPath: new))) == nil)

        // An update from one Zstandard release to the next keeps the frames whose inputs did not
        // change (their stored bytes, not a new zstd pass) and still gives the release byte for byte.
        release.addLine(to: "docs/page9.html", "<p>and another</p>")
        try release.write(to: scratch.file("v3-site"))
        let newer = scratch.file("v3.webarc")
        try Self.pack(scratch.file("v3-site"), to: newer, zstdLevel: 5)
        let base = try LayerStack([try ArchiveReader(path: new)])
        _ = try UpdateBuilder(old: base, new: try ArchiveReader(path: newer)).write(to: scratch.file("u2.webarc"))
        let summary = try UpdateApplier(
            stack: try LayerStack([try ArchiveReader(path: scratch.file("u2.webarc")), try ArchiveReader(path: new)])
        )
        .write(to: scratch.file("again3.webarc"))
        #expect(
            try firstDifference(
                Data(contentsOf: URL(fileURLWithPath: scratch.file("again3.webarc"))),
                Data(contentsOf: URL(fileURLWithPath: newer))) == nil)
        #expect(!summary.codedAgain)
        #expect(
            summary.chunksReused > summary.chunksCoded, "reused \(summary.chunksReused), coded \(summary.chunksCoded)")
    }

    @Test("a writer's Zstandard level outside 1–22 is a corrupt metadata page")
    func levelOutOfRange() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("bad.webarc")
        let writer = try ArchiveWriter(path: path, options: .init(dictionaryInterval: 2, zstdLevel: 23))
        try writer.finish()
        #expect(throws: WebArcError.self) { _ = try ArchiveReader(path: path).metadata }
    }
}
