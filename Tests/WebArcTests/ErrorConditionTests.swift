import Foundation
import Testing

@testable import WebArc

/// Damage a valid archive — a flipped byte in every region, every cut length — and check that the
/// damage is reported with the right error, never a crash or a hang.
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
            try writer.add(ResponseRecord(request: RequestRecord(url: "http://localhost/\(index)"), headers: [HTTPHeader("A", "b")], body: stored))
        }
        try writer.add(RedirectRecord(request: RequestRecord(url: "http://localhost/r"), target: "http://localhost/0"))
        try writer.finish()
        return (path, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test("a flipped byte in each region is reported by verify with that region's exact error and offset")
    func flippedBytes() throws {
        let folder = try TemporaryFolder()
        let (_, bytes) = try Self.sample(in: folder)
        let reader = try ArchiveReader(path: folder.file("sample.webarc"))
        let sections = Dictionary(uniqueKeysWithValues: reader.sectionEntries.map { ($0.type, $0) })
        let header = reader.header
        // (region, offset to flip, the (code, offset) pairs any one of which the report must hold)
        var cases: [(String, UInt64, [(String, UInt64)])] = [
            ("magic", 1, [("not-an-archive", 0)]),
            ("header flags", 12, [("header-checksum", 120)]),
            ("header reserved", 100, [("header-checksum", 120)]),
            ("header check", 125, [("header-checksum", 120)]),
            ("section table", header.sectionTableOffset + 30, [("index-digest", header.indexOffset)]),
        ]
        for type in ["BTAB", "CTAB", "STRS", "OBJS", "LKUP"] {
            cases.append((type, sections[type]!.offset + sections[type]!.length / 2, [("index-digest", header.indexOffset)]))
        }
        // A flipped chunk byte either stops the LZ4 block decoding (`corrupt-chunk` at the chunk's
        // bytes) or decodes to other bytes (`body-digest` at the body's BTAB entry).
        for (name, offset) in [("BDAT first chunk", sections["BDAT"]!.offset + 40), ("BDAT last chunk", sections["BDAT"]!.end - 10)] {
            let (chunkOffset, bodyEntryOffset) = try Self.owners(of: offset, in: reader)
            cases.append((name, offset, [("corrupt-chunk", chunkOffset), ("body-digest", bodyEntryOffset)]))
        }
        for (name, offset, expected) in cases {
            var damaged = bytes
            damaged[Int(offset)] ^= 0x5A
            let path = folder.file("damaged-\(offset).webarc")
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            let report = ArchiveVerifier.verify(path: path)
            #expect(!report.passed, "\(name): flip at \(offset) went unnoticed")
            let found = report.problems.map { ($0.code, $0.offset ?? UInt64.max) }
            #expect(found.contains { problem in expected.contains { $0 == problem } }, "\(name): \(found), expected one of \(expected)")
        }
    }

    /// The stored offset of the chunk holding byte `offset` of `BDAT`, and the `BTAB` entry offset
    /// of the body that chunk belongs to.
    static func owners(of offset: UInt64, in reader: ArchiveReader) throws -> (chunk: UInt64, bodyEntry: UInt64) {
        for position in 0..<reader.bodyCount {
            let body = try reader.bodyEntry(atPosition: position)
            for (_, chunk) in try reader.chunkEntries(of: body) where chunk.offset <= offset && offset < chunk.offset + UInt64(chunk.storedLength) {
                return (chunk.offset, reader.bodyTable.offset(of: position))
            }
        }
        throw WebArcError.corruptIndex(section: "BDAT", offset: offset, reason: "no chunk holds this byte")
    }

    @Test("every byte flipped in turn never crashes; every flip that changes content is caught")
    func everyByte() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("tiny.webarc")
        try makeArchive(at: path, pages: [("http://localhost/", Array("<p>tiny page, tiny page</p>".utf8))])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let reader = try ArchiveReader(path: path)
        var missed: [Int] = []
        for offset in 0..<bytes.count {
            var damaged = bytes
            damaged[offset] ^= 0x01
            let damagedPath = folder.file("flip.webarc")
            try Data(damaged).write(to: URL(fileURLWithPath: damagedPath))
            guard ArchiveVerifier.verify(path: damagedPath).passed else { continue }
            // Spec §8: an LZ4 block can differ in a bit that does not change what it decodes to;
            // such a flip is harmless. Anything else passing verify is a miss.
            let damagedReader = try ArchiveReader(path: damagedPath)
            let body = try #require(try damagedReader.lookup(url: "http://localhost/"))
            guard case .response(let response) = body.record,
                Array(try damagedReader.body(response.body)) == Array("<p>tiny page, tiny page</p>".utf8),
                reader.sectionEntries.first(where: { $0.type == "BDAT" })!.offset <= UInt64(offset)
            else {
                missed.append(offset)
                continue
            }
        }
        #expect(missed.isEmpty, "flips that changed content were not detected at \(missed)")
    }

    @Test("truncation at many lengths is an error at open, never a crash")
    func truncation() throws {
        let folder = try TemporaryFolder()
        let (_, bytes) = try Self.sample(in: folder)
        for length in Array(0..<140) + stride(from: 140, to: bytes.count, by: max(1, bytes.count / 97)).map({ $0 }) + [bytes.count - 1] {
            let path = folder.file("cut.webarc")
            try Data(bytes[0..<length]).write(to: URL(fileURLWithPath: path))
            do {
                _ = try ArchiveReader(path: path)
                Issue.record("a \(length)-byte prefix opened")
            } catch let error as WebArcError {
                let expected: Set<String> = length == 0 ? ["empty"] : length < 8 ? ["not-an-archive"] : ["truncated"]
                #expect(expected.contains(error.code), "length \(length): \(error)")
            }
        }
    }

    @Test("a newer major version is refused naming both versions; a newer minor is read")
    func versions() throws {
        let folder = try TemporaryFolder()
        let (_, bytes) = try Self.sample(in: folder)
        var header = try FileHeader(parsing: Array(bytes[0..<128]), path: "x")
        header.majorVersion = 2
        let newer = Array(header.serialize()) + bytes[128...]
        try Data(newer).write(to: URL(fileURLWithPath: folder.file("v2.webarc")))
        #expect(throws: WebArcError.unsupportedVersion(major: 2, minor: 0, supportedMajor: 1)) {
            try ArchiveReader(path: folder.file("v2.webarc"))
        }
        #expect(WebArcError.unsupportedVersion(major: 2, minor: 0, supportedMajor: 1).description.contains("upgrade webarc"))
        header.majorVersion = 1
        header.minorVersion = 9
        try Data(Array(header.serialize()) + bytes[128...]).write(to: URL(fileURLWithPath: folder.file("v1.9.webarc")))
        let reader = try ArchiveReader(path: folder.file("v1.9.webarc"))
        #expect(try reader.lookup(url: "http://localhost/0") != nil)
    }

    @Test("a directory or a missing file given as archive is an I/O error naming it")
    func notFiles() throws {
        let folder = try TemporaryFolder()
        #expect(throws: WebArcError.io(path: folder.path, operation: "read", errno: EISDIR)) { try ArchiveReader(path: folder.path) }
        #expect(throws: WebArcError.io(path: folder.file("none"), operation: "open", errno: ENOENT)) { try ArchiveReader(path: folder.file("none")) }
    }
}
