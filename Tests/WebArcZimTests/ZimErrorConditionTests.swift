import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcZim

/// Hostile and damaged ZIM files that webarc's own checks refuse: each gives a ``ZimError``
/// naming the problem, and no output. (Randomly damaged ZIMs, which reach libzim, are imported
/// through the real `webarc`, libzim in a child process, by `ZimCrashTests` of the CLI tests.)
@Suite("ZIM error conditions", .enabled(if: ZimTools.available, ZimTools.skipReason))
struct ZimErrorConditionTests {
    /// The site's ZIM, its bytes.
    private func zimBytes(_ scratch: TemporaryFolder) async throws -> [UInt8] {
        await Array(try Data(contentsOf: URL(fileURLWithPath: try ZimSite.zim(in: scratch))))
    }

    private func importing(
        _ bytes: [UInt8], in scratch: TemporaryFolder, options: ZimImportOptions = ZimImportOptions()
    ) throws {
        let input = try scratch.write("input.zim", bytes)
        try? FileManager.default.removeItem(atPath: scratch.file("out.webarc"))
        _ = try ZimImporter(options: options).run(input: input, output: scratch.file("out.webarc"))
    }

    private func patched(_ bytes: [UInt8], at offset: Int, _ value: UInt64, width: Int) -> [UInt8] {
        var copy = bytes
        for index in 0..<width { copy[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
        return copy
    }

    @Test("a file cut anywhere is refused before libzim reads it", arguments: [0, 3, 40, 79, 80, 1000, -16, -1])
    func truncated(cut: Int) async throws {
        let scratch = try TemporaryFolder()
        let bytes = try await zimBytes(scratch)
        let kept = Array(bytes.prefix(cut >= 0 ? cut : bytes.count + cut))
        let file = scratch.file("input.zim")
        let size = UInt64(kept.count)
        let checksumPosition = UInt64(bytes.count - 16)
        let expected: ZimError =
            switch cut {
            case 0, 3: .notAZim(file: file)
            case 40, 79: .truncated(file: file, what: "the header", needed: 80, size: size)
            default:
                .truncated(
                    file: file, what: "the checksum at \(checksumPosition)", needed: checksumPosition + 16, size: size)
            }
        #expect(throws: expected) { try importing(kept, in: scratch) }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
    }

    @Test("absurd counts and positions in the header are refused with the field")
    func absurdHeader() async throws {
        let scratch = try TemporaryFolder()
        let bytes = try await zimBytes(scratch)
        let file = scratch.file("input.zim")
        let size = UInt64(bytes.count)
        #expect(throws: ZimError.badHeader(file: file, reason: "major version 9, not 5 or 6")) {
            try importing(patched(bytes, at: 4, 9, width: 2), in: scratch)
        }
        let pathPointers = try ZimHeader(parsing: bytes, file: file).pathPointerPosition
        #expect(
            throws: ZimError.truncated(
                file: file, what: "the dirent pointer list (4294967295 × 8 bytes at \(pathPointers))",
                needed: pathPointers + 4_294_967_295 * 8 + 16, size: size)
        ) {
            try importing(patched(bytes, at: 24, UInt64(UInt32.max), width: 4), in: scratch)
        }
        let clusters = try ZimHeader(parsing: bytes, file: file).clusterCount
        #expect(
            throws: ZimError.truncated(
                file: file, what: "the cluster pointer list (\(clusters) × 8 bytes at \(UInt64.max))",
                needed: UInt64.max, size: size)
        ) {
            try importing(patched(bytes, at: 48, UInt64.max, width: 8), in: scratch)
        }
        #expect(
            throws: ZimError.badHeader(
                file: file,
                reason:
                    "main page 4000000 is not one of the \(try ZimHeader(parsing: bytes, file: file).entryCount) entries"
            )
        ) {
            try importing(patched(bytes, at: 64, 4_000_000, width: 4), in: scratch)
        }
    }

    @Test("an entry over the size limit is refused before it is read")
    func entryTooLarge() async throws {
        let scratch = try TemporaryFolder()
        let bytes = try await zimBytes(scratch)
        var options = ZimImportOptions()
        options.maxEntrySize = 64
        #expect {
            try importing(bytes, in: scratch, options: options)
        } throws: { error in
            guard case ZimError.entryTooLarge(_, _, let size, 64) = error else { return false }
            return size > 64
        }
    }
}

/// A ZIM the fuzz target found libzim crashing on that webarc's own checks now refuse before
/// libzim opens it. (Every crasher is imported through the real `webarc`, libzim in a child
/// process, by `ZimCrashTests` of the CLI tests: one that still crashes libzim would stop this runner.)
@Suite("ZIM fuzz regressions")
struct ZimFuzzRegressionTests {
    static let folder = repositoryRoot.appendingPathComponent("Tests/WebArcCLITests/Fixtures/zim-crash").path

    @Test("crash-41aabb22: an absurd first blob offset is refused before libzim sizes a table by it")
    func absurdBlobOffset() {
        let input = Self.folder + "/crash-41aabb22c38f5621dc28b01d2c8307d008375d5a"
        #expect(
            throws: ZimError.badHeader(
                file: input,
                reason: "cluster 1's first blob offset 7323857652817398295 counts more blobs than the 23 entries")
        ) {
            try ZimArchive(path: input)
        }
    }
}
