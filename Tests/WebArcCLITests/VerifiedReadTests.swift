import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// Verified reads through the commands (spec §11.2): a damaged chunk is never printed, unpacked or
/// exported as good data; the command exits 65 naming the body and the offset, and what is not
/// damaged still reads.
@Suite struct VerifiedReadTests {
    static let photo = "http://localhost/img/photo.png"

    /// The sample site packed, with one byte flipped inside the photo's (raw, incompressible) chunk;
    /// returns the archive path and the photo's body reference.
    static func damagedSample(in scratch: TemporaryFolder) async throws -> (String, BodyReference) {
        let archive = scratch.file("site.webarc")
        let pack = try await CLIRunner.runDetached(["pack", CLITests.sampleSite, "-o", archive, "-q"])
        #expect(pack.status == 0, "\(pack.stderr)")
        let reader = try ArchiveReader(path: archive)
        guard case .response(let response)? = try reader.lookup(url: photo)?.record else {
            throw CocoaError(.fileReadCorruptFile)
        }
        let offset = Int(try reader.bodyEntry(response.body).chunks[0].offset)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        bytes[offset + 40] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: archive))
        return (archive, response.body)
    }

    @Test func catRefusesTheDamagedBodyAndStillPrintsOthers() async throws {
        let scratch = try TemporaryFolder()
        let (archive, body) = try await Self.damagedSample(in: scratch)
        let damaged = try await CLIRunner.runDetached(["cat", archive, Self.photo])
        #expect(damaged.status == 65)
        #expect(damaged.stdout.isEmpty, "no byte of a chunk that fails its SHA-256 is printed")
        #expect(damaged.stderr.contains(body.digest.hex) && damaged.stderr.contains("SHA-256"), "\(damaged.stderr)")
        let page = try await CLIRunner.runDetached(["cat", archive, "http://localhost/"])
        #expect(page.status == 0)
        #expect(page.stdout == (try Data(contentsOf: URL(fileURLWithPath: CLITests.sampleSite + "/index.html"))))
    }

    @Test func unpackAndExportLeaveNoDamagedFile() async throws {
        let scratch = try TemporaryFolder()
        let (archive, _) = try await Self.damagedSample(in: scratch)
        let folder = scratch.file("out")
        let unpack = try await CLIRunner.runDetached(["unpack", archive, "-o", folder])
        #expect(unpack.status == 65, "\(unpack.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/img/photo.png"))
        let leftovers = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }.filter {
            $0.contains(".webarc-unpack-")
        }
        #expect(leftovers ?? [] == [])

        for format in ["warc", "har"] {
            let output = scratch.file("out.\(format)")
            let export = try await CLIRunner.runDetached(["export", archive, "--format", format, "-o", output])
            #expect(export.status == 65, "\(format): \(export.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }
}
