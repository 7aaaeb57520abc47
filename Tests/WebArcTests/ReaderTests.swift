import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

@Suite("Archive reader")
struct ReaderTests {
    /// An archive of `count` records sharing one small body, so that the record tree has interior
    /// pages.
    static func large(in folder: TemporaryFolder, count: Int = 2000) throws -> String {
        let path = folder.file("large.webarc")
        let writer = try ArchiveWriter(path: path)
        let body = try writer.addBody(Array("<p>shared</p>".utf8))
        for index in 0..<count {
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: "http://localhost/pages/\(index)/index.html"),
                    headers: [HTTPHeader("Content-Type", "text/html"), HTTPHeader("X-Index", "\(index)")], body: body))
        }
        try writer.finish()
        return path
    }

    @Test("opening reads the lead and the end of the file only, whatever the archive's size")
    func openReadsConstantBytes() throws {
        let folder = try TemporaryFolder()
        let path = try Self.large(in: folder)
        let source = CountingByteSource(try FileByteSource(path: path))
        let reader = try ArchiveReader(source: source, path: path)
        #expect(reader.trailer.recordRoot.height >= 1)
        #expect(source.reads.count == 2)
        #expect(source.reads.map(\.count).reduce(0, +) <= Lead.size + 65_536)
        #expect(source.reads.first?.offset == 0)
    }

    @Test("a source's shorter tail read that misses the record root and metadata gets them in one more read at open")
    func shortTail() throws {
        let folder = try TemporaryFolder()
        let path = try Self.large(in: folder)
        let source = CountingByteSource(try FileByteSource(path: path), openingTailLength: 300)
        let reader = try ArchiveReader(source: source, path: path)
        let root = reader.trailer.recordRoot
        let size = source.size
        #expect(root.height == 1 && root.offset < size - 300)
        #expect(source.reads.map(\.offset) == [0, size - 300, root.offset])
        #expect(source.reads.last.map { $0.offset + UInt64($0.count) } == size - 300)
        source.reset()
        _ = try reader.metadata
        #expect(try reader.lookup(url: "http://localhost/pages/1234/index.html") != nil)
        #expect(source.reads.count == 1, "only the leaf: \(source.reads)")
        // A tail read that holds them already reads nothing more.
        let whole = CountingByteSource(try FileByteSource(path: path), openingTailLength: Int(size - root.offset))
        _ = try ArchiveReader(source: whole, path: path)
        #expect(whole.reads.count == 2)
    }

    @Test("a lookup reads one page per level (the root from the tail read at open); its body needs no page read")
    func lookupReads() throws {
        let folder = try TemporaryFolder()
        let path = try Self.large(in: folder)
        let source = CountingByteSource(try FileByteSource(path: path))
        let reader = try ArchiveReader(source: source, path: path)
        source.reset()
        guard case .response(let response)? = try reader.lookup(url: "http://localhost/pages/1234/index.html")?.record
        else {
            Issue.record("no response")
            return
        }
        #expect(response.headers.value(for: "X-Index") == "1234")
        #expect(source.reads.count <= Int(reader.trailer.recordRoot.height) + 1)
        source.reset()
        #expect(String(decoding: try reader.body(response.body), as: UTF8.self) == "<p>shared</p>")
        #expect(source.reads.allSatisfy { $0.offset < reader.trailer.bodyDataEnd }, "\(source.reads)")
        #expect(source.reads.count == 1)
        #expect(try reader.lookup(url: "http://localhost/pages/99999/") == nil)
        #expect(try reader.lookup(url: "http://a.example/") == nil)
    }

    @Test("every record comes back in key order; counts agree with the trailer")
    func listing() throws {
        let folder = try TemporaryFolder()
        let path = try Self.large(in: folder, count: 1500)
        let reader = try ArchiveReader(path: path)
        var keys: [[UInt8]] = []
        try reader.forEachEntry { keys.append(Array($0.key.utf8)) }
        #expect(keys.count == 1500 && reader.recordCount == 1500)
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) })
        #expect(reader.bodyCount == 1)
        #expect(try reader.chunkCount == 1)
        #expect(ArchiveVerifier.verify(reader).problems.isEmpty)
    }

    @Test(
        "records decoded ahead on every core come as forEachEntry gives them; a damaged leaf stops both after the same records, with the same error"
    )
    func decodedAhead() throws {
        let folder = try TemporaryFolder()
        let path = try Self.large(in: folder, count: 12_000)
        let reader = try ArchiveReader(path: path)
        var leaves: [PageReference] = []
        try reader.forEachLeaf(of: .records) { _, reference in leaves.append(reference) }
        try #require(
            leaves.count > 2 * ArchiveReader.leavesDecodedAhead, "\(leaves.count) leaves: too few for several groups")
        func visit(_ reader: ArchiveReader, ahead: Bool) -> (entries: [ArchiveEntry], error: WebArcError?) {
            var entries: [ArchiveEntry] = []
            do {
                if ahead {
                    try reader.forEachEntryDecodedAhead { entries.append($0) }
                } else {
                    try reader.forEachEntry { entries.append($0) }
                }
            } catch {
                return (entries, error as? WebArcError)
            }
            return (entries, nil)
        }
        let plain = visit(reader, ahead: false)
        #expect(plain.entries.count == 12_000 && plain.error == nil)
        #expect(visit(reader, ahead: true) == plain)
        // One leaf of the second group damaged: the records before it, then its page error.
        let victim = leaves[ArchiveReader.leavesDecodedAhead + 3]
        var archive = try ArchiveBytes(path: path)
        archive.bytes[Int(victim.offset) + 3] ^= 0x20
        let damagedPath = folder.file("damaged.webarc")
        try archive.write(to: damagedPath)
        let damagedPlain = visit(try ArchiveReader(path: damagedPath), ahead: false)
        #expect(damagedPlain.error == .pageDigest(page: victim.offset))
        #expect(damagedPlain.entries.count > 0 && damagedPlain.entries.count < 12_000)
        #expect(visit(try ArchiveReader(path: damagedPath), ahead: true) == damagedPlain)
    }

    @Test("a trailer page reference claiming 4 GiB is refused at open without reading it")
    func hugeRootRefused() throws {
        let folder = try TemporaryFolder()
        let path = try Self.large(in: folder, count: 10)
        var archive = try ArchiveBytes(path: path)
        var trailer = try archive.trailer()
        trailer.recordRoot.storedLength = .max
        trailer.recordRoot.rawLength = .max
        archive.seal(trailer)
        try archive.write(to: path)
        let source = CountingByteSource(try FileByteSource(path: path))
        let error = #expect(throws: WebArcError.self) { try ArchiveReader(source: source, path: path) }
        #expect(
            error?.code == "bad-trailer" && error?.offset == UInt64(archive.trailerOffset) + 120,
            "\(String(describing: error))")
        #expect(source.reads.allSatisfy { $0.count <= 65_536 })
    }

    @Test("a child page reference claiming 4 GiB is refused at its parent without reading it")
    func hugeChildRefused() throws {
        let folder = try TemporaryFolder()
        let path = try Self.large(in: folder)
        let reader = try ArchiveReader(path: path)
        let root = reader.trailer.recordRoot
        guard case .interior(let node) = try reader.page(root, .node(.records)) else {
            Issue.record("the root is not an interior page")
            return
        }
        var children = Array(zip(node.keys.map(Array.init), node.children))
        children[0].1.storedLength = .max
        children[0].1.rawLength = .max
        let raw = InteriorPage.encode(tree: .records, entries: children.map { (key: $0.0, child: $0.1) })
        // The damaged root is stored raw after the other pages, and the trailer names it.
        var archive = try ArchiveBytes(path: path)
        var trailer = try archive.trailer()
        let offset = UInt64(archive.trailerOffset)
        archive.bytes.removeSubrange(archive.trailerOffset...)
        archive.bytes += raw
        trailer.recordRoot = PageReference(
            offset: offset, storedLength: UInt32(raw.count), rawLength: UInt32(raw.count), codec: .raw,
            height: root.height,
            digest: SHA256Hash.of(raw))
        trailer.archiveLength = UInt64(archive.bytes.count + Trailer.size)
        archive.bytes += trailer.serialize()
        try archive.write(to: path)

        let source = CountingByteSource(try FileByteSource(path: path))
        let damaged = try ArchiveReader(source: source, path: path)
        let error = #expect(throws: WebArcError.self) { try damaged.lookup(url: "http://localhost/pages/1/index.html") }
        #expect(
            error?.code == "corrupt-page" && error?.offset == offset && error?.pagePosition == node.childPositions[0],
            "\(String(describing: error))")
        #expect(source.reads.allSatisfy { $0.count <= 65_536 })
        let report = ArchiveVerifier.verify(damaged)
        #expect(report.problems.contains { $0.code == "corrupt-page" && $0.offset == offset }, "\(report.problems)")
    }

    @Test("the archive digest is the SHA-256 of the trailer as stored; the appendix is what follows the archive")
    func digestAndAppendix() throws {
        let folder = try TemporaryFolder()
        let path = try Self.large(in: folder, count: 3)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let reader = try ArchiveReader(path: path)
        #expect(reader.archiveLength == UInt64(bytes.count))
        #expect(reader.archiveDigest == SHA256Hash.of(bytes.suffix(Trailer.size)).bytes)
        #expect(try reader.appendixBytes().isEmpty)
        let appendix = ArchiveAppendix.encode([(type: 126, bytes: Array("hello".utf8))])
        try Data(bytes + appendix).write(to: URL(fileURLWithPath: folder.file("signed.webarc")))
        let signed = try ArchiveReader(path: folder.file("signed.webarc"))
        #expect(signed.archiveLength == reader.archiveLength && signed.archiveDigest == reader.archiveDigest)
        #expect(try signed.appendixBytes() == appendix)
        #expect(try ArchiveAppendix(parsing: appendix, at: signed.archiveLength).blocks.map(\.type) == [126])
        #expect(ArchiveVerifier.verify(signed).problems.isEmpty)
    }

    @Test("an update archive: tombstones and bases set feature bit 0; a tombstone is what a lookup finds")
    func updateArchive() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("update.webarc")
        let writer = try ArchiveWriter(path: path)
        writer.metadata = ArchiveMetadata(bases: [
            BaseArchive(digest: [UInt8](repeating: 7, count: 32), archiveLength: 4559, name: "base.webarc")
        ])
        let body = try writer.addBody(Array("new".utf8))
        try writer.add(ResponseRecord(request: RequestRecord(url: "http://localhost/new"), body: body))
        try writer.add(
            TombstoneRecord(
                request: RequestRecord(url: "http://localhost/gone"),
                captureDate: Date(webarcMilliseconds: 1_795_514_400_000)))
        try writer.finish()
        let reader = try ArchiveReader(path: path)
        #expect(reader.trailer.requiredFeatures == [.layer])
        #expect(try reader.metadata.bases.first?.name == "base.webarc")
        let entry = try #require(try reader.lookup(url: "http://localhost/gone"))
        #expect(entry.record.isTombstone && entry.record.captureDate == Date(webarcMilliseconds: 1_795_514_400_000))
        #expect(ArchiveVerifier.verify(reader).problems.isEmpty, "\(ArchiveVerifier.verify(reader).problems)")
    }

    @Test("a chunk stored in a base layer, read from the update alone, is refused as base-required")
    func layeredChunkNeedsItsBase() throws {
        let path = SpecVectorTests.vectors.path + "/valid/update.webarc"
        let reader = try ArchiveReader(path: path)
        #expect(reader.trailer.requiredFeatures.contains(.layer))
        guard case .response(let response)? = try reader.lookup(url: "https://example.org/style.css")?.record else {
            Issue.record("no response for style.css")
            return
        }
        let error = #expect(throws: WebArcError.self) { try reader.body(response.body) }
        #expect(error?.code == "base-required", "\(String(describing: error))")
        #expect(try reader.lookup(url: "https://example.org/robots.txt")?.record.isTombstone == true)
        let report = ArchiveVerifier.verify(reader)
        #expect(report.passed, "\(report.problems)")
        #expect(report.problems.contains { $0.severity == .warning && $0.code == "base-required" })
    }
}
