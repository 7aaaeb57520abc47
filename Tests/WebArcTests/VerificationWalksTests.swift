import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// `verify` with the full-text index and the record tree walked on another thread beside the body
/// tree (``Verification/checkPagesApart()``) against one walk after the other: the same report,
/// whatever the damage.
@Suite("Verification walks")
struct VerificationWalksTests {
    /// Both ways of walking, for one reader.
    static func bothWays(_ reader: ArchiveReader) -> (apart: VerificationReport, inTurn: VerificationReport) {
        let lanes = MD5Lanes.isAvailable
        return (
            ArchiveVerifier.verify(reader, laneHashing: lanes, walksApart: true),
            ArchiveVerifier.verify(reader, laneHashing: lanes, walksApart: false)
        )
    }

    @Test("every valid vector, and every invalid one that opens, gets the same report with the walks apart")
    func vectors() throws {
        for name in SpecVectorTests.validNames {
            let reader = try SpecVectorTests.open("valid/\(name).webarc", bases: SpecVectorTests.bases[name] ?? [])
            let (apart, inTurn) = Self.bothWays(reader)
            #expect(apart == inTurn, "\(name)")
        }
        for vector in SpecVectorTests.invalidCases {
            guard let reader = try? SpecVectorTests.open("invalid/\(vector.file)", bases: vector.bases) else {
                continue
            }
            let (apart, inTurn) = Self.bothWays(reader)
            #expect(apart == inTurn, "\(vector.file)")
        }
    }

    @Test(
        "a flipped byte in the pages (trees of several levels, a full-text index) or the body data gives the same report with the walks apart",
        arguments: ["large", "search-large-v3", "search"])
    func flippedBytes(name: String) throws {
        let folder = try TemporaryFolder()
        let archive = try ArchiveBytes(path: SpecVectorTests.vectors.path + "/valid/\(name).webarc")
        let trailer = try archive.trailer()
        var random = SeededGenerator(seed: 41)
        let pages = Int(trailer.bodyDataEnd)..<archive.trailerOffset
        let offsets =
            (0..<60).map { _ in Int.random(in: pages, using: &random) }
            + (0..<8).map { _ in Int.random(in: Int(Lead.size)..<Int(trailer.bodyDataEnd), using: &random) }
        var problems = 0
        for offset in offsets {
            var damaged = archive
            damaged.bytes[offset] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
            let path = folder.file("damaged-\(offset).webarc")
            try damaged.write(to: path)
            guard let reader = try? ArchiveReader(path: path) else { continue }
            let (apart, inTurn) = Self.bothWays(reader)
            #expect(apart == inTurn, "\(name): byte \(offset)")
            problems += apart.problems.count
        }
        #expect(problems > 0, "\(name): no damage was found")
    }

    @Test(
        "a body root that is the record root: the walks meet on it, and the report is that of one walk after the other")
    func walksMeet() throws {
        let folder = try TemporaryFolder()
        var archive = try ArchiveBytes(path: SpecVectorTests.vectors.path + "/valid/large.webarc")
        var trailer = try archive.trailer()
        trailer.bodyRoot = trailer.recordRoot
        archive.seal(trailer)
        let path = folder.file("met.webarc")
        try archive.write(to: path)
        let reader = try ArchiveReader(path: path)
        let verification = Verification(reader: reader, progress: nil)
        let (bodies, walksMet) = verification.checkPagesApart()
        bodies.group.wait()
        #expect(walksMet)
        let (apart, inTurn) = Self.bothWays(reader)
        #expect(apart == inTurn)
        #expect(apart.problems.contains { $0.check == "pages" }, "\(apart.problems)")
    }
}
