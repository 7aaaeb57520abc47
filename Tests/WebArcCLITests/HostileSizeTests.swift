import Foundation
import Testing
import WebArcCLISupport
import WebArcTestSupport

@testable import WebArc

/// Sizes an archive declares are not trusted by the commands that sum or print them: a body entry
/// whose `length` is near 2^64 (its digests recomputed, so every read gets to it) is reported,
/// never a trap.
@Suite("webarc command line: declared sizes near 2^64")
struct HostileSizeTests {
    @Test("info, ls and verify on two responses whose body declares 2^63 bytes: no trap")
    func hugeDeclaredBodyLength() async throws {
        let scratch = try TemporaryFolder()
        let path = scratch.file("huge.webarc")
        // No stored totals (as a writer before 2.2.2): info sums the crafted lengths as it walks.
        var options = ArchiveWriter.Options()
        options.writesTotals = false
        let writer = try ArchiveWriter(path: path, options: options)
        let body = try writer.addBody([UInt8](repeating: 0x61, count: 777))
        for name in ["a", "b"] {
            try writer.add(ResponseRecord(request: RequestRecord(url: "http://localhost/\(name)"), body: body))
        }
        try writer.finish()
        try CraftedArchive.setBodyLengths(at: path, from: 777, to: 1 << 63)
        for command in [["info"], ["info", "--json"], ["ls"], ["ls", "--json"]] {
            let result = try await CLIRunner.runDetached(command + [path], timeout: 60)
            #expect(result.status == 0, "\(command): \(result.status) \(result.stderr)")
        }
        let info = try await CLIRunner.runDetached(["info", "--json", path])
        let object = try JSONSerialization.jsonObject(with: info.stdout) as? [String: Any]
        #expect((object?["rawBytes"] as? NSNumber)?.uint64Value == UInt64.max)
        let verify = try await CLIRunner.runDetached(["verify", path], timeout: 60)
        #expect(verify.status == 65 && verify.stderr.contains("2^40"), "\(verify.status) \(verify.stderr)")
    }

    @Test("the progress line's rate and ETA saturate instead of trapping on declared totals")
    func progressSpeedSaturates() {
        #expect(ProgressReporter.speed(bytes: .max, totalBytes: .max, elapsed: 0).rate == .max)
        #expect(ProgressReporter.speed(bytes: 1, totalBytes: .max, elapsed: 1_000).eta == .max)
        #expect(ProgressReporter.speed(bytes: 512, totalBytes: 1024, elapsed: 1) == (512, 1))
        #expect(ProgressReporter.speed(bytes: 0, totalBytes: 1024, elapsed: 1) == (0, 0))
    }
}

/// Rewrites an archive with single-leaf trees so that its body entries and `bodyLength` fields
/// declare another length, with the pages stored again raw and every digest and the trailer
/// recomputed (the old pages stay behind as dead bytes, which only `verify` minds).
enum CraftedArchive {
    static func setBodyLengths(at path: String, from old: UInt64, to new: UInt64) throws {
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let trailerOffset = bytes.count - Trailer.size
        var trailer = try Trailer(
            parsing: Array(bytes[trailerOffset...]), at: UInt64(trailerOffset), fileLength: UInt64(bytes.count))
        func little(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
        var pages: [[UInt8]] = []
        for (index, reference) in [trailer.recordRoot, trailer.bodyRoot].enumerated() {
            precondition(reference.height == 0, "a single-leaf tree")
            let start = Int(reference.offset)
            let stored = Array(bytes[start..<start + Int(reference.storedLength)])
            var raw = reference.codec == .lz4 ? LZ4.decode(stored, rawLength: Int(reference.rawLength))! : stored
            let entries =
                index == 0 ? try RecordLeaf(parsing: raw, page: 0).bodies : try BodyLeaf(parsing: raw, page: 0).entries
            for entry in entries where entry.length == old {
                raw.replaceSubrange(entry.origin.position + 24..<entry.origin.position + 32, with: little(new))
            }
            let field = Array("bodyLength".utf8) + [1, 8, 0, 0, 0]
            var at = 0
            while at + field.count + 8 <= raw.count {
                if raw[at..<at + field.count].elementsEqual(field),
                    raw[at + field.count..<at + field.count + 8].elementsEqual(little(old))
                {
                    raw.replaceSubrange(at + field.count..<at + field.count + 8, with: little(new))
                }
                at += 1
            }
            pages.append(raw)
        }
        bytes.removeSubrange(trailerOffset...)
        var references: [PageReference] = []
        for page in pages {
            references.append(
                PageReference(
                    offset: UInt64(bytes.count), storedLength: UInt32(page.count), rawLength: UInt32(page.count),
                    codec: .raw,
                    height: 0, digest: SHA256Hash.of(page)))
            bytes += page
        }
        trailer.recordRoot = references[0]
        trailer.bodyRoot = references[1]
        trailer.archiveLength = UInt64(bytes.count + Trailer.size)
        bytes += trailer.serialize()
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
