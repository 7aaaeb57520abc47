import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// An export's temporary file is listed in ``PendingOutputs`` while it is written, so an
/// interrupted `webarc export` removes it, and is forgotten once renamed or discarded.
@Suite("Export output file")
struct OutputFileTests {
    @Test("the temporary file is pending until commit or discard, and commit leaves only the target")
    func pendingUntilDone() throws {
        let scratch = try TemporaryFolder()
        let folder = scratch.path

        let kept = try InteropOutputFile(targetPath: folder + "/kept.warc", overwrite: false)
        try kept.append(Array("WARC/1.1\r\n".utf8))
        #expect(PendingOutputs.current.contains(kept.temporaryPath))
        try kept.commit()
        #expect(!PendingOutputs.current.contains(kept.temporaryPath))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["kept.warc"])

        let dropped = try InteropOutputFile(targetPath: folder + "/dropped.warc", overwrite: false)
        try dropped.append([1, 2, 3])
        #expect(PendingOutputs.current.contains(dropped.temporaryPath))
        // (removeAll() is exercised end to end by the CLI's interrupt test: calling it here would
        // remove the temporary files of tests running in parallel.)
        dropped.discard()
        #expect(!PendingOutputs.current.contains(dropped.temporaryPath))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["kept.warc"])
    }

    @Test("the core's errors come out as InteropErrors naming the path")
    func errorsAreTranslated() throws {
        let scratch = try TemporaryFolder()
        let folder = scratch.path
        _ = FileManager.default.createFile(atPath: folder + "/taken.warc", contents: Data("old".utf8))

        #expect(throws: InteropError.archive(.outputExists(path: folder + "/taken.warc"), path: folder + "/taken.warc"))
        {
            try InteropOutputFile(targetPath: folder + "/taken.warc", overwrite: false)
        }
        #expect {
            try InteropOutputFile(targetPath: folder + "/no-such-folder/out.warc", overwrite: false)
        } throws: { error in
            guard case InteropError.io(let path, _, let code)? = error as? InteropError else { return false }
            return path == folder + "/no-such-folder/out.warc" && code == ENOENT
        }
        // A target that appears while the export is written is not replaced.
        let late = try InteropOutputFile(targetPath: folder + "/late.warc", overwrite: false)
        try late.append([1])
        _ = FileManager.default.createFile(atPath: folder + "/late.warc", contents: Data("theirs".utf8))
        #expect(throws: InteropError.archive(.outputExists(path: folder + "/late.warc"), path: folder + "/late.warc")) {
            try late.commit()
        }
        #expect(FileManager.default.contents(atPath: folder + "/late.warc") == Data("theirs".utf8))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == ["taken.warc", "late.warc"])
    }
}
