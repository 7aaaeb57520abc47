import Crypto
import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

@Suite("Archive writer")
struct WriterTests {
    @Test("the same input gives the same bytes")
    func deterministic() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 3)
        let pages = (0..<30).map { ("http://localhost/\($0)", random.text(5000)) }
        try makeArchive(at: folder.file("a.webarc"), pages: pages)
        try makeArchive(at: folder.file("b.webarc"), pages: pages)
        #expect(
            try firstDifference(
                Data(contentsOf: URL(fileURLWithPath: folder.file("a.webarc"))),
                Data(contentsOf: URL(fileURLWithPath: folder.file("b.webarc")))) == nil)
    }

    @Test("different bodies with one MD5 are both kept as variants, equal ones merged")
    func collisions() throws {
        // Wang & Yu's 2004 pair: two 128-byte messages with one MD5.
        let first = Self.hex(
            "d131dd02c5e6eec4693d9a0698aff95c2fcab58712467eab4004583eb8fb7f8955ad340609f4b30283e488832571415a085125e8f7cdc99fd91dbdf280373c5bd8823e3156348f5bae6dacd436c919c6dd53e2b487da03fd02396306d248cda0e99f33420f577ee8ce54b67080a80d1ec69821bcb6a8839396f9652b6ff72a70"
        )
        let second = Self.hex(
            "d131dd02c5e6eec4693d9a0698aff95c2fcab50712467eab4004583eb8fb7f8955ad340609f4b30283e4888325f1415a085125e8f7cdc99fd91dbd7280373c5bd8823e3156348f5bae6dacd436c919c6dd53e23487da03fd02396306d248cda0e99f33420f577ee8ce54b67080280d1ec69821bcb6a8839396f965ab6ff72a70"
        )
        #expect(first != second)
        #expect(Insecure.MD5.hash(data: first) == Insecure.MD5.hash(data: second))
        let folder = try TemporaryFolder()
        let writer = try ArchiveWriter(path: folder.file("c.webarc"))
        let a = try writer.addBody(first)
        let b = try writer.addBody(second)
        let c = try writer.addBody(second)
        #expect(a.reference.variant == 0 && b.reference.variant == 1 && c.reference == b.reference && c.wasDeduplicated)
        for (index, body) in [a, b].enumerated() {
            try writer.add(ResponseRecord(request: RequestRecord(url: "http://localhost/\(index)"), body: body))
        }
        try writer.finish()
        let reader = try ArchiveReader(path: folder.file("c.webarc"))
        #expect(Array(try reader.body(a.reference)) == first)
        #expect(Array(try reader.body(b.reference)) == second)
        #expect(ArchiveVerifier.verify(reader).passed)
    }

    @Test(
        "an update stores a body whose MD5 and length a base's body shares but not its bytes, and refers to an equal one"
    )
    func collisionsAcrossLayers() throws {
        var random = SeededGenerator(seed: 43)
        let (body, twin) = PackPipelineTests.collidingPair(suffix: random.text(300_000))
        let folder = try TemporaryFolder()
        let basePath = folder.file("base.webarc")
        let base = try ArchiveWriter(path: basePath)
        try base.add(ResponseRecord(request: RequestRecord(url: "http://localhost/a"), body: try base.addBody(body)))
        try base.finish()
        let update = try ArchiveWriter(path: folder.file("update.webarc"), bases: [try ArchiveReader(path: basePath)])
        let stored = try update.addBody(twin)
        let referred = try update.addBody(body)
        #expect(
            !stored.wasDeduplicated && referred.wasDeduplicated && stored.reference.digest == referred.reference.digest)
        try update.add(ResponseRecord(request: RequestRecord(url: "http://localhost/a"), body: stored))
        try update.add(ResponseRecord(request: RequestRecord(url: "http://localhost/b"), body: referred))
        try update.finish()
        let reader = try ArchiveReader(path: folder.file("update.webarc"))
        #expect(try reader.bodyEntry(stored.reference).chunks.allSatisfy { $0.layer == 0 })
        #expect(try reader.bodyEntry(referred.reference).chunks.allSatisfy { $0.layer == 1 })
    }

    @Test("a streamed duplicate is rolled back, so the file holds it once")
    func streamedDedup() async throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 4)
        let bytes = random.bytes(700_000)
        let writer = try ArchiveWriter(path: folder.file("s.webarc"))
        let pieces = AsyncStream<[UInt8]> { continuation in
            for start in stride(from: 0, to: bytes.count, by: 100_000) {
                continuation.yield(Array(bytes[start..<min(start + 100_000, bytes.count)]))
            }
            continuation.finish()
        }
        let streamed = try await writer.addBody(streaming: pieces)
        let again = try writer.addBody(bytes)
        #expect(streamed.reference == again.reference && again.wasDeduplicated)
        #expect(writer.statistics.bodiesStored == 1)
        try writer.add(ResponseRecord(request: RequestRecord(url: "http://localhost/x"), body: again))
        try writer.finish()
        let reader = try ArchiveReader(path: folder.file("s.webarc"))
        #expect(reader.storedBodyBytes < 710_000)
        #expect(Array(try reader.body(streamed.reference)) == bytes)
    }

    @Test("nothing appears at the path until finish; cancel and errors leave nothing behind")
    func atomic() throws {
        let folder = try TemporaryFolder()
        let writer = try ArchiveWriter(path: folder.file("x.webarc"))
        _ = try writer.addBody(Array("hello".utf8))
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.webarc")))
        writer.cancel()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        #expect(throws: WebArcError.writerClosed) { try writer.finish() }

        let failing = try ArchiveWriter(path: folder.file("y.webarc"))
        #expect(throws: WebArcError.self) { try failing.addBody(contentsOfFile: folder.file("missing")) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("an existing file is never overwritten without the option")
    func noOverwrite() throws {
        let folder = try TemporaryFolder()
        try Data("keep".utf8).write(to: URL(fileURLWithPath: folder.file("k.webarc")))
        #expect(throws: WebArcError.outputExists(path: folder.file("k.webarc"))) {
            try ArchiveWriter(path: folder.file("k.webarc"))
        }
        let writer = try ArchiveWriter(path: folder.file("k.webarc"), options: .init(overwrite: true))
        try writer.finish()
        #expect(try ArchiveReader(path: folder.file("k.webarc")).recordCount == 0)
    }

    @Test("records the format cannot hold are refused with the URL")
    func invalidRecords() throws {
        let folder = try TemporaryFolder()
        let writer = try ArchiveWriter(path: folder.file("r.webarc"))
        let body = try writer.addBody([UInt8]())
        #expect(throws: WebArcError.self) {
            try writer.add(ResponseRecord(request: RequestRecord(url: "relative/path"), body: body))
        }
        #expect(throws: WebArcError.self) {
            try writer.add(ResponseRecord(request: RequestRecord(url: "http://a/"), status: 999, body: body))
        }
        #expect(throws: WebArcError.self) {
            try writer.add(RedirectRecord(request: RequestRecord(url: "http://a/"), status: 200, target: "http://a/b"))
        }
    }

    @Test(
        "an update over a base does not store a body the base holds, streamed or not; it reads and verifies over the base"
    )
    func updateOverBase() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 5)
        let shared = random.bytes(300_000)
        let fresh = random.text(10_000)
        try makeArchive(at: folder.file("base.webarc"), pages: [("http://localhost/big", shared)])
        let base = try ArchiveReader(path: folder.file("base.webarc"))
        try Data(shared).write(to: URL(fileURLWithPath: folder.file("shared.bin")))
        let writer = try ArchiveWriter(path: folder.file("update.webarc"), bases: [base])
        let streamed = try writer.addBody(contentsOfFile: folder.file("shared.bin"))
        let again = try writer.addBody(shared)
        let new = try writer.addBody(fresh)
        #expect(streamed.wasDeduplicated && again.reference == streamed.reference && !new.wasDeduplicated)
        try writer.add(ResponseRecord(request: RequestRecord(url: "http://localhost/big"), body: again))
        try writer.add(ResponseRecord(request: RequestRecord(url: "http://localhost/new"), body: new))
        try writer.add(TombstoneRecord(request: RequestRecord(url: "http://localhost/old")))
        try writer.finish()

        let update = try ArchiveReader(path: folder.file("update.webarc"), bases: [base])
        try update.validateBases()
        #expect(
            try update.metadata.bases == [
                BaseArchive(digest: base.archiveDigest, archiveLength: base.archiveLength, name: "base.webarc")
            ])
        #expect(update.storedBodyBytes < 10_000)
        #expect(try update.bodyEntry(streamed.reference).chunks.allSatisfy { $0.layer == 1 })
        #expect(Array(try update.body(streamed.reference)) == shared)
        #expect(ArchiveVerifier.verify(update).problems.isEmpty, "\(ArchiveVerifier.verify(update).problems)")
        let alone = try ArchiveReader(path: folder.file("update.webarc"))
        #expect(throws: WebArcError.baseRequired(body: streamed.reference, chunk: 0, layer: 1)) {
            try alone.body(streamed.reference)
        }
        #expect(Array(try alone.body(new.reference)) == fresh)
    }

    @Test(
        "a base is named by its file name, from a path or a URL alike; a URL's query (a presigned URL's signature) is never kept"
    )
    func baseNameHints() {
        #expect(BaseArchive.nameHint(location: "/var/lib/kiosk/site-v1.webarc") == "site-v1.webarc")
        #expect(BaseArchive.nameHint(location: "site-v1.webarc") == "site-v1.webarc")
        #expect(BaseArchive.nameHint(location: "https://cdn.example.com/releases/site-v1.webarc") == "site-v1.webarc")
        #expect(
            BaseArchive.nameHint(
                location:
                    "https://bucket.s3.example.com/site-v1.webarc?X-Amz-Credential=AKIA&X-Amz-Signature=0123abcd#part")
                == "site-v1.webarc")
        #expect(BaseArchive.nameHint(location: "HTTP://cdn.example.com/site%20v1.webarc") == "site v1.webarc")
        #expect(BaseArchive.nameHint(location: "https://cdn.example.com/?file=site.webarc") == nil)
        #expect(BaseArchive.nameHint(location: "https://cdn.example.com") == nil)
    }

    static func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map {
            UInt8(
                text[text.index(text.startIndex, offsetBy: $0)..<text.index(text.startIndex, offsetBy: $0 + 2)],
                radix: 16)!
        }
    }
}

@Suite("Compression levels")
struct CompressionLevelTests {
    @Test("LZ4HC levels write the same format, smaller on text, and read back identically")
    func highLevel() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 9)
        let text = random.text(400_000)
        var sizes: [Int: UInt64] = [:]
        for level in [1, 3, 9] {
            let path = folder.file("l\(level).webarc")
            let writer = try ArchiveWriter(path: path, options: .init(compressionLevel: level))
            let body = try writer.addBody(text)
            try writer.add(ResponseRecord(request: RequestRecord(url: "http://localhost/t"), body: body))
            try writer.finish()
            let reader = try ArchiveReader(path: path)
            #expect(Array(try reader.body(body.reference)) == text)
            #expect(ArchiveVerifier.verify(reader).passed)
            sizes[level] = reader.storedBodyBytes
        }
        #expect(sizes[3]! < sizes[1]!)
        #expect(sizes[9]! <= sizes[3]!)
    }
}
