import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// A version 2 compact update names the target's body data digest (Spec/compact-update.md §2, §6):
/// apply then copies the bases' stored chunks undecoded and checks what it wrote in one pass, and a
/// damaged stored chunk fails that check and is named by a pass that checks every chunk. Version 1
/// (no digest) still applies, decoding every chunk.
@Suite struct CompactBodyDataTests {
    typealias Release = UpdateTests.Release

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    func bases(_ paths: [String]) throws -> LayerStack { try LayerStack(try paths.map { try ArchiveReader(path: $0) }) }

    /// `update` (version 2) written again as version 1: the same without `targetBodyData`.
    func versionOne(of update: [UInt8]) throws -> [UInt8] {
        let (_, headerEnd) = try CompactPlan.header(update)
        return Array(update[..<8]) + [1] + Array(update[9..<headerEnd - 32]) + Array(update[headerEnd...])
    }

    @Test(
        "version 2 names the target's body data and apply copies the base's chunks undecoded; the same update as version 1 decodes every chunk, to the same bytes"
    )
    func bothVersionsApply() throws {
        let scratch = try TemporaryFolder()
        let (old, new, _) = try Release.first(pages: 40).update(in: scratch) {
            $0.addLine(to: "docs/page1.html", "<p>2</p>")
        }
        _ = try CompactUpdateBuilder(old: try bases([old]), new: try ArchiveReader(path: new)).write(
            to: scratch.file("u2.webarcu"))
        let update = try bytes(scratch.file("u2.webarcu"))
        let header = try CompactApplier.header(path: scratch.file("u2.webarcu"))
        #expect(header.version == 2)
        #expect(header.targetBodyData == (try ArchiveReader(path: new).bodyDataDigest()))
        try Data(try versionOne(of: update)).write(to: URL(fileURLWithPath: scratch.file("u1.webarcu")))
        let older = try CompactApplier.header(path: scratch.file("u1.webarcu"))
        #expect(older.version == 1 && older.targetBodyData == nil && older.targetDigest == header.targetDigest)

        let fromTwo = try CompactApplier(update: scratch.file("u2.webarcu"), bases: try bases([old])).write(
            to: scratch.file("a2.webarc"))
        #expect(fromTwo.copiedUnchecked && !fromTwo.checkedAgain && fromTwo.chunksReused > 0, "\(fromTwo)")
        let fromOne = try CompactApplier(update: scratch.file("u1.webarcu"), bases: try bases([old])).write(
            to: scratch.file("a1.webarc"))
        #expect(!fromOne.copiedUnchecked && fromOne.chunksReused > 0, "\(fromOne)")
        #expect(try firstDifference(bytes(scratch.file("a2.webarc")), bytes(new)) == nil)
        #expect(try firstDifference(bytes(scratch.file("a1.webarc")), bytes(new)) == nil)
    }

    @Test(
        "a damaged chunk of the base, which apply copies undecoded, fails the body data check; the checking pass names it, nothing written"
    )
    func damagedBaseChunkNamed() throws {
        let scratch = try TemporaryFolder()
        let (old, new, _) = try Release.first(pages: 40).update(in: scratch) {
            $0.addLine(to: "docs/page1.html", "<p>2</p>")
        }
        _ = try CompactUpdateBuilder(old: try bases([old]), new: try ArchiveReader(path: new)).write(
            to: scratch.file("u.webarcu"))
        // docs/big.html is unchanged and cut in three chunks; its second is LZ4 without a
        // dictionary, reused as it is. A literal byte near the block's end: it still decodes, to
        // other bytes, and the base's archive digest does not cover stored bytes.
        let reader = try ArchiveReader(path: old)
        guard case .response(let big)? = try reader.lookup(url: "http://localhost/docs/big.html")?.record else {
            Issue.record("no docs/big.html")
            return
        }
        let chunk = try reader.bodyEntry(big.body).chunks[1]
        #expect(chunk.codec == .lz4)
        var damaged = try bytes(old)
        damaged[Int(chunk.offset) + Int(chunk.storedLength) - 3] ^= 0x01
        try Data(damaged).write(to: URL(fileURLWithPath: old))

        let output = scratch.file("out.webarc")
        #expect {
            try CompactApplier(update: scratch.file("u.webarcu"), bases: try bases([old])).write(to: output)
        } throws: { error in
            guard case .chunkDigest(let body, let index, let offset) = error as? WebArcError else {
                return (error as? WebArcError)?.code == "corrupt-chunk"
            }
            return body == big.body && index == 1 && offset == chunk.offset
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
