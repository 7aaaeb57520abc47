import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// Each format structure encodes and decodes to itself, and refuses what breaks its rules without
/// allocating for a length it has not checked.
@Suite("Format structures")
struct FormatTests {
    static let digest = SHA256Hash.of(Array("chunk".utf8))

    @Test("lead and trailer round-trip; the trailer check covers its first 240 bytes")
    func leadAndTrailer() throws {
        let lead = Lead()
        #expect(try Lead(parsing: lead.serialize(), fileLength: 1000, path: "x") == lead)
        let reference = PageReference(
            offset: 100, storedLength: 50, rawLength: 90, codec: .lz4, height: 0, digest: Self.digest)
        var trailer = Trailer(metadata: reference, recordRoot: reference, bodyRoot: reference)
        trailer.requiredFeatures = [.layer]
        trailer.archiveLength = 1000
        trailer.bodyDataEnd = 100
        trailer.recordCount = 3
        trailer.bodyCount = 2
        var bytes = trailer.serialize()
        #expect(bytes.count == Trailer.size && Array(bytes.suffix(8)) == Trailer.endMagic)
        #expect(try Trailer(parsing: bytes, at: 744, fileLength: 1000) == trailer)
        bytes[20] ^= 1
        #expect(throws: WebArcError.trailerChecksum(offset: 744 + 240)) {
            try Trailer(parsing: bytes, at: 744, fileLength: 1000)
        }
    }

    @Test("a page reference's rules of §5.1, in order; the ratio last")
    func pageReferenceRules() {
        let area: Range<UInt64> = 100..<1000
        func reference(_ stored: UInt32, _ raw: UInt32, _ codec: UInt8 = 1, at offset: UInt64 = 100) -> PageReference {
            var reference = PageReference(
                offset: offset, storedLength: stored, rawLength: raw, codec: .lz4, height: 0, digest: Self.digest)
            reference.codecValue = codec
            return reference
        }
        #expect(reference(10, 100).violation(pageArea: area) == nil)
        #expect(reference(0, 100).violation(pageArea: area) != nil)
        #expect(reference(10, FormatBounds.maxPageLength + 1).violation(pageArea: area) != nil)
        #expect(reference(10, 100, 2).violation(pageArea: area) != nil)
        #expect(reference(10, 11, 0).violation(pageArea: area) != nil)
        #expect(reference(200, 100).violation(pageArea: area) != nil)
        #expect(reference(10, 100, at: 995).violation(pageArea: area) != nil)
        #expect(reference(10, 100, at: .max - 5).violation(pageArea: area) != nil)
        #expect(reference(10, 2551).violation(pageArea: area) == .amplification)
        #expect(reference(10, 2550).violation(pageArea: area) == nil)
    }

    @Test("body entries round-trip with their chunk entries, dictionary references included")
    func bodyEntries() throws {
        var dictionaryChunk = ChunkEntry(offset: 16, storedLength: 10, rawLength: 10, codec: .raw, digest: Self.digest)
        dictionaryChunk.layer = 1
        var chunk = ChunkEntry(offset: 26, storedLength: 5, rawLength: 40, codec: .lz4Dictionary, digest: Self.digest)
        var writer = ByteWriter()
        dictionaryChunk.serialize(into: &writer)
        var parsedDictionary = ByteReader(writer.bytes, region: .page(offset: 0))
        chunk = try {
            var raw = ByteWriter()
            chunk.serialize(into: &raw)
            raw.write(bytes: writer.bytes)
            var reader = ByteReader(raw.bytes, region: .page(offset: 0))
            return try ChunkEntry(parsing: &reader)
        }()
        #expect(chunk.dictionary == (try ChunkEntry(parsing: &parsedDictionary)))
        #expect(chunk.encodedSize == 112)
        let entry = BodyEntry(
            reference: BodyReference(digest: BodyDigest.ofEmpty, variant: 3), length: 40, sha256: Self.digest,
            chunks: [chunk, ChunkEntry(offset: 31, storedLength: 8, rawLength: 8, codec: .raw, digest: Self.digest)])
        var encoded = ByteWriter()
        entry.serialize(into: &encoded)
        #expect(encoded.count == entry.encodedSize)
        var reader = ByteReader(encoded.bytes, region: .page(offset: 500))
        let parsed = try BodyEntry(parsing: &reader, page: 500)
        #expect(
            parsed == entry && reader.isAtEnd && parsed.origin == .init(page: 500, position: 0, length: encoded.count))
        #expect(entry.chunks[1].relayered(by: 2).layer == 2 && chunk.relayered(by: 1).dictionary?.layer == 2)
    }

    @Test("a body entry claiming 2^32 − 1 chunks is corrupt-page, found before anything is allocated")
    func hugeChunkCount() {
        var writer = ByteWriter()
        writer.write(bytes: BodyDigest.ofEmpty.bytes)
        writer.write(UInt32(0))
        writer.write(UInt32(0))
        writer.write(UInt64(1 << 40))
        Self.digest.serialize(into: &writer)
        writer.write(UInt32.max)
        var reader = ByteReader(writer.bytes, region: .page(offset: 4096))
        let error = #expect(throws: WebArcError.self) { try BodyEntry(parsing: &reader, page: 4096) }
        #expect(error?.code == "corrupt-page" && error?.offset == 4096 && error?.pagePosition == 68)
    }

    @Test("a chunk entry's bounds of §6.2 in the spec's order: lengths, extent, ratio")
    func chunkBounds() {
        func chunk(
            _ stored: UInt32, _ raw: UInt32, codec: ChunkEntry.Codec = .lz4, at offset: UInt64 = 16
        ) -> ChunkEntry {
            ChunkEntry(offset: offset, storedLength: stored, rawLength: raw, codec: codec, digest: Self.digest)
        }
        #expect(chunk(100, 1000).boundsProblem(bodyDataEnd: 1000) == nil)
        #expect(chunk(100, 0).boundsProblem(bodyDataEnd: 1000) != nil)
        #expect(chunk(100, 262_145).boundsProblem(bodyDataEnd: 1000) != nil)
        #expect(chunk(0, 10).boundsProblem(bodyDataEnd: 1000) != nil)
        #expect(chunk(10, 11, codec: .raw).boundsProblem(bodyDataEnd: 1000) != nil)
        #expect(chunk(1019, 1000).boundsProblem(bodyDataEnd: 2000) == nil)
        #expect(chunk(1020, 1000).boundsProblem(bodyDataEnd: 2000) != nil)
        #expect(chunk(100, 1000, at: 950).boundsProblem(bodyDataEnd: 1000) != nil)
        #expect(chunk(16, 262_144).boundsProblem(bodyDataEnd: 1000) == .amplification)
        let context = ChunkContext(body: BodyReference(digest: BodyDigest.ofEmpty), index: 2, page: 777, position: 12)
        var unknown = chunk(10, 10, codec: .raw)
        unknown.codecValue = 7
        #expect(throws: WebArcError.unsupportedCodec(codec: 7, body: context.body, chunk: 2, page: 777)) {
            try unknown.validate(context, bodyDataEnd: 1000)
        }
        #expect(throws: WebArcError.amplification(offset: 16, storedLength: 16, rawLength: 262_144)) {
            try chunk(16, 262_144).validate(context, bodyDataEnd: 1000)
        }
    }

    @Test("records round-trip through keyed objects, nested request included, fields in table order")
    func records() throws {
        let request = RequestRecord(
            method: "post", url: "https://example.com/a?b", headers: [HTTPHeader("Accept", "*/*")])
        let response = ResponseRecord(
            request: request, status: 404, reason: "Not Found",
            headers: [HTTPHeader("Set-Cookie", "a"), HTTPHeader("Set-Cookie", "b")],
            mimeType: "text/html", textEncoding: "utf-8", body: BodyReference(digest: BodyDigest.ofEmpty, variant: 1),
            bodyLength: 0,
            captureDate: Date(webarcMilliseconds: 1_795_348_800_123))
        let records: [ArchiveRecord] = [
            .response(response),
            .redirect(RedirectRecord(request: request, status: 308, target: "https://example.com/")),
            .tombstone(TombstoneRecord(request: request)),
        ]
        for record in records {
            let bytes = RecordObjects.record(record).encoded()
            let object = try DecodedObject(bytes, range: 0..<bytes.count, page: 0)
            #expect(try RecordObjects.record(object, features: [.layer]) == record)
        }
        #expect(
            RecordObjects.record(records[0]).fields.map(\.key) == [
                "request", "status", "reason", "headers", "mimeType", "textEncoding", "body", "bodyLength",
                "captureDate",
            ])
        let tombstone = RecordObjects.record(records[2]).encoded()
        #expect(throws: WebArcError.self) {
            try RecordObjects.record(try DecodedObject(tombstone, range: 0..<tombstone.count, page: 0), features: [])
        }
        let metadata = ArchiveMetadata(
            created: Date(webarcMilliseconds: 5), creator: "webarc 2.0", startURL: "http://a/", baseURL: "http://a/",
            entries: [.init("café", "x")],
            bases: [BaseArchive(digest: [UInt8](repeating: 1, count: 32), archiveLength: 9, name: "b")])
        let archive = RecordObjects.archive(metadata).encoded()
        #expect(try RecordObjects.metadata(try DecodedObject(archive, range: 0..<archive.count, page: 0)) == metadata)
    }

    /// Spec §8: a known class that is not a record, met where a record belongs, is `corrupt-index`.
    @Test("a Writer or Target object where a record belongs is refused as not a record")
    func knownNonRecordClasses() throws {
        let objects = [
            RecordObjects.writer(WriterRecipe(level: 1, dictionaryInterval: 32)),
            RecordObjects.target(
                UpdateTarget(digest: [UInt8](repeating: 7, count: 32), archiveLength: 300, archive: ArchiveMetadata())),
        ]
        for object in objects {
            let bytes = object.encoded()
            let decoded = try DecodedObject(bytes, range: 0..<bytes.count, page: 0)
            #expect(throws: WebArcError.self) { try RecordObjects.record(decoded, features: [.layer]) }
            guard case .other(let name) = try RecordObjects.parse(decoded) else {
                Issue.record("\(object.className) parsed as a record or an unknown class")
                continue
            }
            #expect(name == object.className)
        }
    }

    @Test("object layout: duplicate keys, bad UTF-8 keys, nesting deeper than 4 and short fields are refused")
    func objectLayout() throws {
        var object = KeyedObject(className: "Response")
        object.set("mimeType", .string("a"))
        object.set("mimeType", .string("b"))
        let duplicate = object.encoded()
        #expect(throws: WebArcError.duplicateKey(key: "mimeType", page: 9, position: 34)) {
            try DecodedObject(duplicate, range: 0..<duplicate.count, page: 9)
        }
        var nested = KeyedObject(className: "X")
        for _ in 0..<4 {
            var outer = KeyedObject(className: "X")
            outer.set("inner", .object(nested))
            nested = outer
        }
        let deep = nested.encoded()
        let top = try DecodedObject(deep, range: 0..<deep.count, page: 0)
        var current = top
        // Four levels with the top one are allowed; the fifth is refused.
        for _ in 0..<3 { current = try #require(try current.object("inner", className: "X")) }
        #expect(throws: WebArcError.self) { try current.object("inner", className: "X") }
        var short = duplicate
        short.removeLast()
        #expect(throws: WebArcError.self) { try DecodedObject(short, range: 0..<short.count, page: 0) }
        var badKey = KeyedObject(className: "Request")
        badKey.set("x", .uint(1))
        var bytes = badKey.encoded()
        bytes[bytes.firstIndex(of: UInt8(ascii: "x"))!] = 0xFF
        #expect(throws: WebArcError.self) { try DecodedObject(bytes, range: 0..<bytes.count, page: 0) }
    }

    @Test("pages encode and parse: interior, record leaf, body leaf, metadata")
    func pages() throws {
        let child = PageReference(
            offset: 100, storedLength: 50, rawLength: 90, codec: .lz4, height: 0, digest: Self.digest)
        let interior = InteriorPage.encode(
            tree: .bodies, entries: [(key: [1, 2], child: child), (key: [3], child: child)])
        let parsed = try InteriorPage(parsing: interior, page: 7, tree: .bodies, pageArea: 100..<1000)
        #expect(parsed.children == [child, child] && parsed.keys.map(Array.init) == [[1, 2], [3]])
        #expect(
            parsed.childIndex(for: [0]) == nil && parsed.childIndex(for: [1, 2]) == 0
                && parsed.childIndex(for: [2]) == 0)
        #expect(parsed.childIndex(for: [3, 0]) == 1)
        #expect(throws: WebArcError.self) {
            try InteriorPage(parsing: interior, page: 7, tree: .records, pageArea: 100..<1000)
        }
        #expect(
            throws: WebArcError.corruptPage(
                page: 7, position: 14, reason: "child: page [100, +50) is outside the page area 200..<1000")
        ) {
            try InteriorPage(parsing: interior, page: 7, tree: .bodies, pageArea: 200..<1000)
        }
        let body = BodyEntry(
            reference: BodyReference(digest: BodyDigest.ofEmpty), length: 0, sha256: SHA256Hash.ofEmpty, chunks: [])
        let leaf = RecordLeaf.encode(records: [(key: Array("GET a:b".utf8), object: [1, 2, 3])], bodies: [body])
        let record = try RecordLeaf(parsing: leaf, page: 3)
        #expect(record.entries.count == 1 && record.bodies == [body] && record.body(body.reference) == body)
        #expect(try BodyLeaf(parsing: BodyLeaf.encode([body]), page: 3).entries == [body])
        var trailing = MetadataPage.encode(object: RecordObjects.archive(ArchiveMetadata()).encoded())
        #expect(try MetadataPage(parsing: trailing, page: 1).metadata() == ArchiveMetadata())
        trailing += [0, 0]
        #expect(throws: WebArcError.self) { try MetadataPage(parsing: trailing, page: 1) }
    }

    @Test("the appendix: blocks fill it exactly, signature blocks are 120 bytes, its length is bounded")
    func appendix() throws {
        let blocks: [(type: UInt32, bytes: [UInt8])] = [(1, [UInt8](repeating: 9, count: 120)), (126, [1, 2, 3])]
        let bytes = ArchiveAppendix.encode(blocks)
        let parsed = try ArchiveAppendix(parsing: bytes, at: 1000)
        #expect(parsed.blocks.map(\.type) == [1, 126] && parsed.blocks[1].offset == 1000 + 128)
        let short = ArchiveAppendix.encode([(1, [UInt8](repeating: 9, count: 119))])
        #expect(throws: WebArcError.self) { try ArchiveAppendix(parsing: short, at: 1000) }
        let tail = [UInt8](repeating: 0, count: 8) + Array(bytes.suffix(16))
        #expect(try ArchiveAppendix.archiveEnd(tail: tail, fileLength: 10_000) == 10_000 - UInt64(bytes.count))
        var huge = ByteWriter()
        huge.write(UInt64(2 << 20))
        huge.write(bytes: ArchiveAppendix.endMagic)
        #expect(throws: WebArcError.badAppendix(offset: 9_999_984, reason: "appendixLength 2097152 is over 1 MiB")) {
            try ArchiveAppendix.archiveEnd(tail: huge.bytes, fileLength: 10_000_000)
        }
    }

    @Test("KeyOrder.compare orders keys as KeyOrder.less does: bytes unsigned, a proper prefix first, equal keys 0")
    func keyCompare() {
        var random = SeededGenerator(seed: 5)
        let alphabet: [UInt8] = [0x00, 0x2F, 0x41, 0x61, 0x7F, 0x80, 0xFF]
        let keys =
            [[], [0x41], [0x41, 0x00], [0x80], [0x7F, 0xFF]]
            + (0..<300).map { _ in
                Array("GET http://localhost/".utf8)
                    + (0..<Int.random(in: 0...6, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            }
        var outcomes = Set<Int>()
        for lhs in keys {
            for rhs in keys.prefix(80) {
                let order = KeyOrder.compare(lhs, rhs)
                #expect(
                    (order < 0) == KeyOrder.less(lhs, rhs) && (order == 0) == (lhs == rhs)
                        && (order > 0) == KeyOrder.less(rhs, lhs), "\(lhs) \(rhs)")
                outcomes.insert(order.signum())
            }
        }
        #expect(outcomes == [-1, 0, 1])
    }
}
