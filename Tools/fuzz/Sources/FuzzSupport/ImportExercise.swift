import Foundation
import WebArc
import WebArcInterop

/// Runs `webarc import` on bytes: they are written to a file in the ``ScratchDirectory``, imported
/// into an archive beside it, and the archive is read back; both files are removed after each run.
public enum ImportExercise {
    /// Imports `bytes` as a file named `name`; the last byte picks the options (skip bad records,
    /// which captures to keep), so both paths are fuzzed.
    public static func run(_ bytes: [UInt8], name: String) {
        let directory = ScratchDirectory.path
        let input = "\(directory)/\(name)"
        let output = "\(directory)/out.webarc"
        guard FileManager.default.createFile(atPath: input, contents: Data(bytes)) else {
            fatalError("cannot write \(input)")
        }
        defer {
            unlink(input)
            unlink(output)
        }
        let selector = bytes.last ?? 0
        let keep: DuplicatePolicy = [.latest, .earliest, .all, .latest][Int(selector >> 1) & 3]
        let options = ImportOptions(keep: keep, skipBad: selector & 1 == 1, overwrite: true)
        guard (try? ArchiveImporter(options: options).run(inputs: [input], output: output)) != nil else { return }
        // What was written must read back and verify: an importer must never write a bad archive.
        let report = ArchiveVerifier.verify(path: output)
        if !report.passed {
            fatalError("import wrote an archive that does not verify: \(report.problems.prefix(3))")
        }
    }
}
