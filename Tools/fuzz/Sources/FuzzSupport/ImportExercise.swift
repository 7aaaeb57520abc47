import Foundation
import WebArc
import WebArcInterop

/// Runs `webarc import` on bytes: they are written to a file in a per-process directory (on
/// `/dev/shm` when there is one, so the writer's fsync costs nothing), imported into an archive
/// beside it, and the archive is read back; both files are removed after each run.
public enum ImportExercise {
    nonisolated(unsafe) static var directory: String?

    static func workDirectory() -> String {
        if let directory { return directory }
        let root = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        var template = Array("\(root)/webarc-fuzz-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "cannot make a temporary directory under \(root)")
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        directory = path
        atexit { if let directory = ImportExercise.directory { try? FileManager.default.removeItem(atPath: directory) } }
        return path
    }

    /// Imports `bytes` as a file named `name`; the last byte picks the options (skip bad records,
    /// which captures to keep), so both paths are fuzzed.
    public static func run(_ bytes: [UInt8], name: String) {
        let directory = workDirectory()
        let input = "\(directory)/\(name)"
        let output = "\(directory)/out.webarc"
        guard FileManager.default.createFile(atPath: input, contents: Data(bytes)) else { fatalError("cannot write \(input)") }
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
