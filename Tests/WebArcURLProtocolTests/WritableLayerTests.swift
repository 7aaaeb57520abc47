import Dispatch
import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcURLProtocol

/// The writable layer on its own: serialized, coalesced rewrites; replaced keys; bodies the
/// bundle holds not stored again; nothing left behind but the layer file.
@Suite("WritableLayer", .timeLimit(.minutes(10)))
struct WritableLayerTests {
    func response(_ url: String, _ text: String) -> LayerEntry {
        .response(
            LayerResponse(
                request: RequestRecord(url: url), status: 200,
                headers: [HTTPHeader("Content-Length", String(text.utf8.count))],
                mimeType: "text/plain", textEncoding: nil, captureDate: Date(), body: .bytes(Data(text.utf8))))
    }

    func text(_ reader: ArchiveReader, _ url: String) throws -> String? {
        guard case .response(let record)? = try reader.lookup(url: url)?.record else { return nil }
        return String(decoding: try reader.body(record.body), as: UTF8.self)
    }

    @Test("entries queued from many threads at once all land in the layer, in fewer rewrites than entries")
    func concurrentEntries() async throws {
        let folder = try TemporaryFolder()
        var archive = ArchiveBuilder()
        archive.response("https://example.com/", text: "home")
        let bundle = try archive.build(in: folder, name: "bundle.webarc")
        let layer = WritableLayer(path: folder.file("layer.webarc"), bundle: [bundle])
        DispatchQueue.concurrentPerform(iterations: 40) { index in
            layer.enqueue([response("https://example.com/\(index)", "page \(index)")])
        }
        await layer.flush()
        #expect(layer.lastError == nil)
        #expect(layer.writes >= 1 && layer.writes < 40)
        let written = try ArchiveReader(path: layer.path, bases: [bundle])
        try written.validateBases()
        #expect(written.recordCount == 40)
        #expect(try text(written, "https://example.com/7") == "page 7")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
                "bundle.webarc", "layer.webarc",
            ])
    }

    @Test("a rewrite keeps earlier entries, replaces a key's records, and stores no body the bundle holds")
    func replacesAndDeduplicates() async throws {
        let folder = try TemporaryFolder()
        var archive = ArchiveBuilder()
        archive.response("https://example.com/a", text: String(repeating: "shipped body ", count: 200))
        let bundle = try archive.build(in: folder, name: "bundle.webarc")
        let layer = WritableLayer(path: folder.file("layer.webarc"), bundle: [bundle])
        await layer.add([response("https://example.com/b", "b, first")])
        await layer.add([response("https://example.com/b", "b, second"), response("https://example.com/c", "c")])
        let before = try ArchiveReader(path: layer.path, bases: [bundle]).storedBodyBytes
        await layer.add([response("https://example.com/a", String(repeating: "shipped body ", count: 200))])

        let reopened = WritableLayer(path: layer.path, bundle: [bundle])
        #expect(reopened.discarded == nil)
        let top = try #require(reopened.layers.first)
        #expect(try text(top, "https://example.com/b") == "b, second")
        #expect(try text(top, "https://example.com/c") == "c")
        #expect(try text(top, "https://example.com/a") == String(repeating: "shipped body ", count: 200))
        #expect(top.recordCount == 3)
        #expect(top.storedBodyBytes == before)
    }

    @Test("a changed body is stored as a delta against the bundle's version, and stays one across rewrites")
    func changedBodyAsDelta() async throws {
        let folder = try TemporaryFolder()
        let shipped = SeededGenerator.packedBytes(64 << 10, seed: 0x5EED)
        var edited = shipped
        edited.replaceSubrange(1000..<1010, with: Array("an edit ok".utf8))
        var archive = ArchiveBuilder()
        archive.response("https://example.com/big", body: shipped)
        let bundle = try archive.build(in: folder, name: "bundle.webarc")
        let layer = WritableLayer(path: folder.file("layer.webarc"), bundle: [bundle])
        await layer.add([
            .response(
                LayerResponse(
                    request: RequestRecord(url: "https://example.com/big"), status: 200, headers: [], mimeType: nil,
                    textEncoding: nil,
                    captureDate: Date(), body: .bytes(Data(edited))))
        ])
        #expect(layer.lastError == nil)
        let top = try #require(layer.layers.first)
        guard case .response(let record)? = try top.lookup(url: "https://example.com/big")?.record else {
            Issue.record("no response stored")
            return
        }
        #expect(try top.body(record.body) == Data(edited))
        #expect(top.storedBodyBytes < 4096)
        // Still a delta after the layer is rewritten for another entry.
        await layer.add([response("https://example.com/small", "small")])
        let rewritten = try #require(layer.layers.first)
        #expect(rewritten.recordCount == 2)
        #expect(rewritten.storedBodyBytes < 4096)
    }
}
