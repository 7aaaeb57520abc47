import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// How `unpack` writes: a fresh output through a hidden staging folder moved into place at the end,
/// an output that held files in place, and never through a link.
@Suite("Site unpacker output")
struct SiteUnpackerTests {
    /// Every entry under `root`, hidden ones too, as paths relative to it, sorted.
    static func entries(_ root: String) -> [String] {
        ((FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []).sorted()
    }

    /// An archive of pages in a few folders, the last in path order (`z/last.html`) a body of
    /// random bytes, stored raw; returns the reader and that body's entry.
    static func makeSite(at path: String) throws -> (ArchiveReader, BodyEntry) {
        var random = SeededGenerator(seed: 5)
        var pages: [(String, [UInt8])] = []
        for folder in ["a", "a/b", "c"] {
            for index in 0..<5 { pages.append(("http://localhost/\(folder)/p\(index).html", random.text(2000))) }
        }
        pages.append(("http://localhost/z/last.html", random.bytes(100_000)))
        try makeArchive(at: path, pages: pages)
        let reader = try ArchiveReader(path: path)
        var response: ResponseRecord?
        if case .response(let found)? = try reader.lookup(url: "http://localhost/z/last.html")?.record {
            response = found
        }
        return (reader, try reader.bodyEntry(try #require(response).body))
    }

    @Test("a fresh unpack shows only the site's files: its staging folder is gone, into a missing or an empty folder")
    func freshLeavesNoStaging() throws {
        let folder = try TemporaryFolder()
        let (reader, _) = try Self.makeSite(at: folder.file("s.webarc"))
        let empty = folder.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        for output in [folder.file("missing"), empty] {
            let summary = try SiteUnpacker().unpack(reader, into: output)
            #expect(summary.filesWritten == 16)
            let found = Self.entries(output)
            #expect(!found.contains { $0.contains(".webarc-unpack") }, "\(found)")
            #expect(found.filter { $0.hasSuffix(".html") }.count == 16)
            #expect(found.contains("a/b/p4.html") && found.contains("z/last.html"))
            #expect(FileManager.default.contents(atPath: output + "/z/last.html")?.count == 100_000)
        }
    }

    @Test("an unpack that fails on a damaged body leaves a missing output missing and an empty one empty")
    func failureLeavesNothing() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("s.webarc")
        let (_, body) = try Self.makeSite(at: path)
        let chunk = try #require(body.chunks.first)
        #expect(chunk.codec == .raw)
        var archive = try ArchiveBytes(path: path)
        archive.bytes[Int(chunk.offset) + 10] ^= 0x01
        try archive.write(to: path)
        let damaged = try ArchiveReader(path: path)
        let empty = folder.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        for output in [folder.file("missing"), empty] {
            #expect(throws: WebArcError.chunkDigest(body: body.reference, chunk: 0, offset: chunk.offset)) {
                try SiteUnpacker().unpack(damaged, into: output)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("missing")))
        #expect(Self.entries(empty).isEmpty, "\(Self.entries(empty))")
    }

    @Test("a symbolic link where a folder goes is refused with --force, and nothing is written through it")
    func linkInTheWay() throws {
        let folder = try TemporaryFolder()
        let (reader, _) = try Self.makeSite(at: folder.file("s.webarc"))
        let output = folder.file("out")
        let elsewhere = folder.file("elsewhere")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: output + "/c", withDestinationPath: elsewhere)
        #expect(throws: WebArcError.self) { try SiteUnpacker(overwrite: true).unpack(reader, into: output) }
        #expect(Self.entries(elsewhere).isEmpty)
        #expect(!Self.entries(output).contains { $0.contains(".webarc-unpack") })
    }
}
