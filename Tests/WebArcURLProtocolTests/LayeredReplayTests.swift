import Foundation
import Testing
import WebArc
import WebArcTestSupport
import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class LayeredReplay: ArchiveURLProtocol {}

/// The URL protocol over a layer stack: an update's changed bodies (delta chunks read across
/// layers), its deletions, and what falls through to the base (spec §13).
@Suite("ArchiveURLProtocol over a layer stack", .serialized, .timeLimit(.minutes(10)))
struct LayeredReplayTests {
    @Test("URLSession gets the update's version, the base's unchanged pages, and no deleted page")
    func layered() async throws {
        let folder = try TemporaryFolder()
        func release(_ name: String, _ pages: [(String, String)]) throws -> String {
            var archive = ArchiveBuilder()
            for (url, text) in pages { archive.response(url, text: text) }
            return try archive.build(in: folder, name: name).path
        }
        let long = String(repeating: "a long page shared by both releases. ", count: 400)
        let old = try release(
            "v1.webarc",
            [
                ("https://example.com/", "v1 " + long), ("https://example.com/old", "old"),
                ("https://example.com/same", "same"),
            ])
        let new = try release(
            "v2.webarc",
            [
                ("https://example.com/", "v2 " + long), ("https://example.com/new", "new"),
                ("https://example.com/same", "same"),
            ])
        _ = try UpdateBuilder(old: try LayerStack([try ArchiveReader(path: old)]), new: try ArchiveReader(path: new))
            .write(to: folder.file("u.webarc"))
        LayeredReplay.serve(
            try LayerStack([try ArchiveReader(path: folder.file("u.webarc")), try ArchiveReader(path: old)]))

        let session = session(through: LayeredReplay.self)
        let (home, _) = try await session.data(from: URL(string: "https://example.com/")!)
        #expect(String(decoding: home, as: UTF8.self) == "v2 " + long)
        let (same, _) = try await session.data(from: URL(string: "https://example.com/same")!)
        #expect(String(decoding: same, as: UTF8.self) == "same")
        let (added, _) = try await session.data(from: URL(string: "https://example.com/new")!)
        #expect(String(decoding: added, as: UTF8.self) == "new")
        await #expect(throws: URLError.self) {
            _ = try await session.data(from: URL(string: "https://example.com/old")!)
        }
    }
}
