import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// Damage a valid archive — a flipped byte in every region, every cut length — and check that the
/// damage is reported with the right error and offset, and that no damaged byte is ever delivered.
@Suite("Error conditions")
struct ErrorConditionTests {
    /// A small archive with text and incompressible bodies, a redirect and an empty body.
    static func sample(in folder: TemporaryFolder) throws -> (path: String, bytes: [UInt8]) {
        var random = SeededGenerator(seed: 7)
        let path = folder.file("sample.webarc")
        let writer = try ArchiveWriter(path: path)
        writer.metadata = ArchiveMetadata(startURL: "http://localhost/")
        for (index, body) in [random.text(3000), random.bytes(2000), [], random.text(300_000)].enumerated() {
            let stored = try writer.addBody(body)
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: "http://localhost/\(index)"), headers: [HTTPHeader("A", "b")],
                    body: stored))
        }
        try writer.add(RedirectRecord(request: RequestRecord(url: "http://localhost/r"), target: "http://localhost/0"))
        try writer.finish()
        return (path, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test("a flipped byte in each region is reported with that region's error and offset")
    func flippedBytes() throws {
        let folder = try TemporaryFolder()
        let (path, bytes) = try Self.sample(in: folder)
        let reader = try ArchiveReader(path: path)
        let trailer = reader.trailer
        let trailerOffset = reader.trailerOffset
        // (region, offset to flip, stage, the (code, offset) pairs any one of which must be reported)
        var cases: [(String, UInt64, String, [(String, UInt64)])] = [
            ("lead magic", 1, "open", [("not-an-archive", 0)]),
            ("lead major", 8, "open", [("unsupported-version", 8)]),
            ("lead minor", 10, "open", [("bad-trailer", trailerOffset + 10)]),
            ("lead reserved", 13, "verify", [("bad-layout", 13)]),
            ("trailer magic", trailerOffset + 2, "open", [("truncated", UInt64(bytes.count))]),
            ("trailer field", trailerOffset + 50, "open", [("trailer-checksum", trailerOffset + 240)]),
            ("trailer reserved", trailerOffset + 235, "open", [("trailer-checksum", trailerOffset + 240)]),
            ("trailer check", trailerOffset + 243, "open", [("trailer-checksum", trailerOffset + 240)]),
            ("trailer end magic", UInt64(bytes.count - 1), "open", [("truncated", UInt64(bytes.count))]),
        ]
        for (name, reference) in [
            ("metadata page", trailer.metadata), ("record root", trailer.recordRoot), ("body root", trailer.bodyRoot),
        ] {
            cases.append(
                (
                    name, reference.offset + UInt64(reference.storedLength / 2), "verify",
                    [("page-digest", reference.offset)]
                ))
        }
        // A flipped chunk byte either stops the LZ4 block decoding (`corrupt-chunk`) or decodes to
        // other bytes (`chunk-digest`), both at the chunk's offset.
        var chunks: [ChunkEntry] = []
        try reader.forEachBody { chunks += $0.chunks }
        for chunk in chunks {
            let at = chunk.offset + UInt64(chunk.storedLength) / 2
            cases.append(
                (
                    "chunk at \(chunk.offset)", at, "verify",
                    [("corrupt-chunk", chunk.offset), ("chunk-digest", chunk.offset)]
                ))
        }
        for (name, offset, stage, expected) in cases {
            var damaged = bytes
            damaged[Int(offset)] ^= 0x5A
            let damagedPath = folder.file("damaged-\(offset).webarc")
            try Data(damaged).write(to: URL(fileURLWithPath: damagedPath))
            let report = ArchiveVerifier.verify(path: damagedPath)
            #expect(!report.passed, "\(name): flip at \(offset) went unnoticed")
            #expect(
                report.problems.allSatisfy { stage == "open" ? $0.check == "open" : $0.check != "open" },
                "\(name): \(report.problems)")
            let found = report.problems.map { ($0.code, $0.offset ?? UInt64.max) }
            #expect(
                found.contains { problem in expected.contains { $0 == problem } },
                "\(name): \(found), expected one of \(expected)")
        }
    }

    @Test("a flipped byte in a chunk is never delivered: reads throw chunk-digest naming the body, chunk and offset")
    func damagedChunkNeverDelivered() async throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 11)
        let path = folder.file("c.webarc")
        let bytes = random.bytes(3 * ChunkEntry.maxRawLength)
        try makeArchive(at: path, pages: [("http://localhost/raw", bytes)])
        let reader = try ArchiveReader(path: path)
        guard case .response(let response)? = try reader.lookup(url: "http://localhost/raw")?.record else {
            Issue.record("no response")
            return
        }
        let body = try reader.bodyEntry(response.body)
        let second = body.chunks[1]
        #expect(second.codec == .raw)
        var archive = try ArchiveBytes(path: path)
        archive.bytes[Int(second.offset) + 1000] ^= 0x01
        try archive.write(to: path)

        let damaged = try ArchiveReader(path: path)
        let expected = WebArcError.chunkDigest(body: response.body, chunk: 1, offset: second.offset)
        #expect(throws: expected) { try damaged.body(response.body) }
        #expect(throws: expected) {
            try damaged.body(
                response.body, range: UInt64(ChunkEntry.maxRawLength) + 5..<UInt64(ChunkEntry.maxRawLength) + 6)
        }
        var delivered: [UInt8] = []
        await #expect(throws: expected) {
            for try await piece in damaged.chunks(of: response.body) { delivered += piece }
        }
        // The chunk before the damaged one was verified and delivered; nothing of the damaged one.
        #expect(delivered == Array(bytes[0..<ChunkEntry.maxRawLength]))
        #expect(Array(try damaged.body(response.body, range: 0..<1000)) == Array(bytes[0..<1000]))
    }

    @Test("two bodies with one MD5 swapped in the body data are caught by their SHA-256")
    func collisionSwap() throws {
        let first = WriterTests.hex(
            "d131dd02c5e6eec4693d9a0698aff95c2fcab58712467eab4004583eb8fb7f8955ad340609f4b30283e488832571415a085125e8f7cdc99fd91dbdf280373c5bd8823e3156348f5bae6dacd436c919c6dd53e2b487da03fd02396306d248cda0e99f33420f577ee8ce54b67080a80d1ec69821bcb6a8839396f9652b6ff72a70"
        )
        let second = WriterTests.hex(
            "d131dd02c5e6eec4693d9a0698aff95c2fcab50712467eab4004583eb8fb7f8955ad340609f4b30283e4888325f1415a085125e8f7cdc99fd91dbd7280373c5bd8823e3156348f5bae6dacd436c919c6dd53e23487da03fd02396306d248cda0e99f33420f577ee8ce54b67080280d1ec69821bcb6a8839396f965ab6ff72a70"
        )
        let folder = try TemporaryFolder()
        let path = folder.file("collision.webarc")
        try makeArchive(at: path, pages: [("http://localhost/a", first), ("http://localhost/b", second)])
        let reader = try ArchiveReader(path: path)
        var entries: [BodyEntry] = []
        try reader.forEachBody { entries.append($0) }
        #expect(entries.count == 2 && entries[0].reference.digest == entries[1].reference.digest)
        // Swap the stored bytes of the two (raw) chunks: MD5, lengths and the index are unchanged.
        var archive = try ArchiveBytes(path: path)
        let (a, b) = (entries[0].chunks[0], entries[1].chunks[0])
        #expect(a.codec == .raw && b.codec == .raw && a.storedLength == b.storedLength)
        let saved = Array(archive.bytes[Int(a.offset)..<Int(a.offset) + 128])
        archive.bytes.replaceSubrange(
            Int(a.offset)..<Int(a.offset) + 128, with: archive.bytes[Int(b.offset)..<Int(b.offset) + 128])
        archive.bytes.replaceSubrange(Int(b.offset)..<Int(b.offset) + 128, with: saved)
        try archive.write(to: path)

        let swapped = try ArchiveReader(path: path)
        guard case .response(let response)? = try swapped.lookup(url: "http://localhost/a")?.record else {
            Issue.record("no response")
            return
        }
        #expect(throws: WebArcError.self) { try swapped.body(response.body) }
        let report = ArchiveVerifier.verify(swapped)
        #expect(
            report.problems.filter { $0.code == "chunk-digest" }.map(\.offset) == [a.offset, b.offset],
            "\(report.problems)")
        #expect(report.problems.allSatisfy { $0.code == "chunk-digest" }, "\(report.problems)")
    }

    @Test("a damaged record leaf is refused at lookup, before it is decoded")
    func pageFlipAtLookup() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("p.webarc")
        try makeArchive(at: path, pages: [("http://localhost/", Array("<p>hello</p>".utf8))])
        let root = try ArchiveReader(path: path).trailer.recordRoot
        var archive = try ArchiveBytes(path: path)
        archive.bytes[Int(root.offset) + 3] ^= 0x20
        try archive.write(to: path)
        let reader = try ArchiveReader(path: path)
        #expect(throws: WebArcError.pageDigest(page: root.offset)) { try reader.lookup(url: "http://localhost/") }
        #expect(throws: WebArcError.pageDigest(page: root.offset)) { try reader.forEachEntry { _ in } }
    }

    @Test("every byte flipped in turn never crashes; every flip that changes what is read is caught")
    func everyByte() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("tiny.webarc")
        let content = Array("<p>tiny page, tiny page, tiny page</p>".utf8)
        try makeArchive(at: path, pages: [("http://localhost/", content)])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let bodyDataEnd = try ArchiveReader(path: path).trailer.bodyDataEnd
        var missed: [Int] = []
        for offset in 0..<bytes.count {
            var damaged = bytes
            damaged[offset] ^= 0x01
            let damagedPath = folder.file("flip.webarc")
            try Data(damaged).write(to: URL(fileURLWithPath: damagedPath))
            guard ArchiveVerifier.verify(path: damagedPath).passed else { continue }
            // An LZ4 block can differ in a bit that does not change what it decodes to (a stored
            // chunk's bytes are bound by the digest of what they decode to); anything else passing
            // verify is a miss.
            let reader = try ArchiveReader(path: damagedPath)
            guard case .response(let response)? = try reader.lookup(url: "http://localhost/")?.record,
                Array(try reader.body(response.body)) == content, UInt64(offset) < bodyDataEnd, offset >= Lead.size
            else {
                missed.append(offset)
                continue
            }
        }
        #expect(missed.isEmpty, "flips that changed content were not detected at \(missed)")
    }

    @Test("truncation at every short length and many others is an error at open, never a crash")
    func truncation() throws {
        let folder = try TemporaryFolder()
        let (_, bytes) = try Self.sample(in: folder)
        for length in Array(0..<300) + stride(from: 300, to: bytes.count, by: max(1, bytes.count / 97)).map({ $0 }) + [
            bytes.count - 1
        ] {
            let path = folder.file("cut.webarc")
            try Data(bytes[0..<length]).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: WebArcError.self, "a \(length)-byte prefix opened") {
                try ArchiveReader(path: path)
            }
            let expected = length == 0 ? "empty" : length < 8 ? "not-an-archive" : "truncated"
            #expect(error?.code == expected, "length \(length): \(String(describing: error))")
            #expect(
                error?.offset == (length < 8 ? 0 : UInt64(length)), "length \(length): \(String(describing: error))")
        }
    }

    @Test("a newer major version is refused naming both versions; a newer minor is read")
    func versions() throws {
        let folder = try TemporaryFolder()
        let (path, _) = try Self.sample(in: folder)
        var archive = try ArchiveBytes(path: path)
        var trailer = try archive.trailer()
        archive.bytes[8] = 3
        trailer.majorVersion = 3
        archive.seal(trailer)
        try archive.write(to: folder.file("v3.webarc"))
        #expect(throws: WebArcError.unsupportedVersion(major: 3, minor: Lead.currentMinor, supportedMajor: 2)) {
            try ArchiveReader(path: folder.file("v3.webarc"))
        }
        #expect(
            WebArcError.unsupportedVersion(major: 3, minor: 0, supportedMajor: 2).description.contains("upgrade webarc")
        )

        archive = try ArchiveBytes(path: path)
        trailer = try archive.trailer()
        archive.bytes[10] = 9
        trailer.minorVersion = 9
        archive.seal(trailer)
        try archive.write(to: folder.file("v2.9.webarc"))
        let reader = try ArchiveReader(path: folder.file("v2.9.webarc"))
        #expect(try reader.lookup(url: "http://localhost/0") != nil)
        #expect(ArchiveVerifier.verify(reader).passed)
    }

    @Test("a 1.x archive is refused as unsupported-version at offset 8")
    func formatOne() throws {
        let folder = try TemporaryFolder()
        var lead = Lead()
        lead.majorVersion = 1
        lead.minorVersion = 0
        try Data(lead.serialize() + [UInt8](repeating: 0, count: 1000)).write(
            to: URL(fileURLWithPath: folder.file("old.webarc")))
        let error = #expect(throws: WebArcError.self) { try ArchiveReader(path: folder.file("old.webarc")) }
        #expect(error?.code == "unsupported-version" && error?.offset == 8)
        #expect(error?.description.contains("1.0") == true && error?.description.contains("2.x") == true)
    }

    @Test("an unknown required feature is refused at open naming the bit; bits 0 and 1 are accepted")
    func features() throws {
        let folder = try TemporaryFolder()
        let (path, _) = try Self.sample(in: folder)
        for (bits, refused) in [(UInt64(1) << 5, 5), (3, nil)] as [(UInt64, Int?)] {
            var archive = try ArchiveBytes(path: path)
            var trailer = try archive.trailer()
            trailer.requiredFeatures = Trailer.Features(rawValue: bits)
            archive.seal(trailer)
            try archive.write(to: folder.file("f.webarc"))
            if let refused {
                #expect(
                    throws: WebArcError.unsupportedFeature(bit: refused, offset: UInt64(archive.trailerOffset) + 16)
                ) {
                    try ArchiveReader(path: folder.file("f.webarc"))
                }
            } else {
                #expect(
                    try ArchiveReader(path: folder.file("f.webarc")).trailer.requiredFeatures == [
                        .layer, .dictionaryCodec,
                    ])
            }
        }
    }

    @Test("features a writer must announce: bases or codec 2 without their required bit are corrupt-index")
    func unannouncedFeatures() throws {
        let folder = try TemporaryFolder()
        let base = try ArchiveReader(path: try Self.sample(in: folder).path)
        let writer = try ArchiveWriter(path: folder.file("update.webarc"), bases: [base])
        try writer.add(
            ResponseRecord(request: RequestRecord(url: "http://localhost/x"), body: try writer.addBody(Array("x".utf8)))
        )
        try writer.finish()
        let dictionary = SpecVectorTests.vectors.path + "/valid/dictionary.webarc"
        for (path, check) in [(folder.file("update.webarc"), "objects"), (dictionary, "chunks")] {
            var archive = try ArchiveBytes(path: path)
            var trailer = try archive.trailer()
            #expect(!trailer.requiredFeatures.isEmpty)
            trailer.requiredFeatures = []
            archive.seal(trailer)
            try archive.write(to: folder.file("unannounced.webarc"))
            let report = ArchiveVerifier.verify(path: folder.file("unannounced.webarc"))
            #expect(
                report.problems.map(\.code) == ["corrupt-index"] && report.problems.map(\.check) == [check],
                "\(path): \(report.problems)")
        }
    }

    @Test("bytes in no extent are bad-layout, but only a warning in an archive of a newer minor version")
    func gapsInNewerMinors() throws {
        let folder = try TemporaryFolder()
        let (path, _) = try Self.sample(in: folder)
        for minor: UInt16 in [0, Lead.newestMinor + 1] {
            var archive = try ArchiveBytes(path: path)
            var trailer = try archive.trailer()
            let gap = UInt64(archive.trailerOffset)
            archive.bytes.insert(contentsOf: [UInt8](repeating: 0, count: 8), at: archive.trailerOffset)
            trailer.archiveLength += 8
            trailer.minorVersion = minor
            archive.bytes[10] = UInt8(minor)
            archive.seal(trailer)
            try archive.write(to: folder.file("gap.webarc"))
            let report = ArchiveVerifier.verify(path: folder.file("gap.webarc"))
            #expect(
                report.problems.map(\.code) == ["bad-layout"] && report.problems.first?.offset == gap,
                "\(report.problems)")
            #expect(report.passed == (minor > 0))
        }
    }

    @Test("a directory or a missing file given as archive is an I/O error naming it")
    func notFiles() throws {
        let folder = try TemporaryFolder()
        #expect(throws: WebArcError.io(path: folder.path, operation: .opening("read"), errno: EISDIR)) {
            try ArchiveReader(path: folder.path)
        }
        #expect(throws: WebArcError.io(path: folder.file("none"), operation: .opening("open"), errno: ENOENT)) {
            try ArchiveReader(path: folder.file("none"))
        }
    }
}
