import Foundation
import Testing
import WebArc

@testable import WebArcInterop

/// An export's temporary file is listed in ``PendingOutputs`` while it is written, so an
/// interrupted `webarc export` removes it, and is forgotten once renamed or discarded.
@Suite("Export output file")
struct OutputFileTests {
    @Test("the temporary file is pending until commit or discard, and commit leaves only the target")
    func pendingUntilDone() throws {
        let folder = NSTemporaryDirectory() + "webarc-output-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let kept = try OutputFile(targetPath: folder + "/kept.warc", overwrite: false)
        try kept.append(Array("WARC/1.1\r\n".utf8))
        #expect(PendingOutputs.current.contains(kept.temporaryPath))
        try kept.commit()
        #expect(!PendingOutputs.current.contains(kept.temporaryPath))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["kept.warc"])

        let dropped = try OutputFile(targetPath: folder + "/dropped.warc", overwrite: false)
        try dropped.append([1, 2, 3])
        #expect(PendingOutputs.current.contains(dropped.temporaryPath))
        // (removeAll() is exercised end to end by the CLI's interrupt test: calling it here would
        // remove the temporary files of tests running in parallel.)
        dropped.discard()
        #expect(!PendingOutputs.current.contains(dropped.temporaryPath))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["kept.warc"])
    }
}
