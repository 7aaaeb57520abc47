import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// The reference implementation's `apply_update.py` (`Tools/make-vectors`) and a python3 to run it.
enum ReferenceImplementation {
    static let python = python3
    static let applyScript = repositoryRoot.appendingPathComponent("Tools/make-vectors/apply_update.py").path
}

/// The reference implementation (`Tools/make-vectors`, written from the spec alone) applies
/// updates that `webarc` makes to the same bytes: its writer places every dictionary anchor where
/// `pack` placed it (spec Appendix C step 13), on sites larger than the vectors.
@Suite(.enabled(if: ReferenceImplementation.python != nil, "no python3 to run the reference implementation"))
struct ReferenceApplyTests {

    /// Writes `pages` pages of 9 to 30 KiB (most of them anchor candidates), a folder index every
    /// tenth (two positions each) and a few small files, less `dropped`, with `edited` changed.
    static func writeSite(to folder: String, pages: Int, dropped: Set<Int> = [], edited: Set<Int> = []) throws {
        for page in 0..<pages where !dropped.contains(page) {
            let path =
                page % 10 == 0 ? folder + "/part\(page / 10)/index.html" : folder + String(format: "/p%03d.html", page)
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            var text =
                "<nav>home docs about</nav><h1>page \(page)</h1>\n" + (edited.contains(page) ? "<p>edited</p>\n" : "")
            text += String(repeating: "<p>page \(page) of the reference site</p>\n", count: 250 + page * 37 % 600)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            if page % 7 == 0 {
                try Data("small \(page)".utf8).write(to: URL(fileURLWithPath: folder + "/s\(page).txt"))
            }
        }
    }

    @Test(
        "an update of a packed site (local-minimum anchors, folders, a page dropped early and one edited) applied by the reference implementation gives the new archive byte for byte"
    )
    func referenceApplyMatches() async throws {
        let scratch = try TemporaryFolder()
        try Self.writeSite(to: scratch.file("v1"), pages: 150)
        try Self.writeSite(to: scratch.file("v2"), pages: 150, dropped: [3], edited: [77])
        for name in ["v1", "v2"] {
            _ = try SitePacker(options: SitePacker.Options()).pack(
                folder: scratch.file(name), to: scratch.file("\(name).webarc"))
        }
        let new = try ArchiveReader(path: scratch.file("v2.webarc"))
        #expect(try new.metadata.writer?.anchors == .localMinimum)
        let old = try LayerStack([try ArchiveReader(path: scratch.file("v1.webarc"))])
        _ = try UpdateBuilder(old: old, new: new).write(to: scratch.file("u.webarc"))

        let run = await Self.run(
            ReferenceImplementation.python!,
            [
                ReferenceImplementation.applyScript, scratch.file("u.webarc"), scratch.file("v1.webarc"), "-o",
                scratch.file("ref.webarc"),
            ])
        #expect(run.status == 0, "\(run.error)")
        let reference = try Data(contentsOf: URL(fileURLWithPath: scratch.file("ref.webarc")))
        #expect(
            firstDifference(reference, try Data(contentsOf: URL(fileURLWithPath: scratch.file("v2.webarc")))) == nil)

        // A wrong base is refused the same way: nothing written, the spec's code named.
        let refused = await Self.run(
            ReferenceImplementation.python!,
            [
                ReferenceImplementation.applyScript, scratch.file("u.webarc"), scratch.file("v2.webarc"), "-o",
                scratch.file("bad.webarc"),
            ])
        #expect(refused.status == 65 && refused.error.contains("bad-base"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("bad.webarc")))
    }

    /// Runs a program and returns its exit status and stderr (stdout is discarded).
    static func run(_ executable: String, _ arguments: [String]) async -> (status: Int32, error: String) {
        do {
            let run = try await onOwnThread { try runProgram(executable, arguments) }
            return (run.status, run.stderr)
        } catch {
            return (-1, "\(error)")
        }
    }
}
