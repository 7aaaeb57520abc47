import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class DamagedReplay: ArchiveURLProtocol {}

/// Verified reads through URLSession (spec §11.2): a body whose chunk fails its SHA-256 ends the
/// task with an error, never with the damaged bytes, and other URLs still load.
@Suite("Verified reads", .serialized, .timeLimit(.minutes(10)))
struct VerifiedReadTests {
    static let blob = SeededGenerator.packedBytes(3 * 256 * 1024 + 77, seed: 7)
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        var archive = ArchiveBuilder()
        archive.response("https://damaged.test/blob", mimeType: "application/octet-stream", body: Self.blob)
        archive.response("https://damaged.test/", text: "<p>intact</p>")
        let reader = try archive.build(in: folder)
        guard case .response(let response)? = try reader.lookup(url: "https://damaged.test/blob")?.record else {
            throw CocoaError(.fileReadCorruptFile)
        }
        // The last chunk: the task has already received the first ones when it fails.
        let offset = Int(try reader.bodyEntry(response.body).chunks[3].offset)
        let path = folder.file("test.webarc")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[offset + 10] ^= 0x80
        try bytes.write(to: URL(fileURLWithPath: path))
        DamagedReplay.serve(try ArchiveReader(path: path), onMiss: .offline)
    }

    @Test("a damaged chunk fails the task through every API", arguments: LoadingAPI.allCases)
    func damagedBodyFails(api: LoadingAPI) async throws {
        let fetched = await api.fetch("https://damaged.test/blob", through: DamagedReplay.self)
        #expect(fetched.error != nil)
        #expect(fetched.data != Data(Self.blob))
        let intact = await api.fetch("https://damaged.test/", through: DamagedReplay.self)
        #expect(intact.error == nil)
        #expect(intact.text == "<p>intact</p>")
    }
}
