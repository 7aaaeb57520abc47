import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport
import WebArcSearch

struct Index: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Write a copy of an archive with a full-text search index.",
        discussion: """
            pack, import, capture and diff add an index by default (--no-search leaves it out); \
            this adds one to an archive written without it, or by an older webarc. The copy holds \
            the same records and bodies, the bodies coded again at the archive's compression level.

              webarc index site.webarc -o site-indexed.webarc
              webarc search site-indexed.webarc "json dumps"
            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archive to index.")
    var archive: String

    @Option(name: .shortAndLong, help: "The archive to write.")
    var output: String

    @Flag(name: .shortAndLong, help: "Replace the output if it exists.")
    var force = false

    @Flag(name: .shortAndLong, help: "No summary on stderr.")
    var quiet = false

    @Flag(help: "Print the summary as one JSON object on stdout.")
    var json = false

    func run() throws {
        let reader = try withFile(archive) { try ArchiveReader(path: archive) }
        let started = Date()
        let summary = try withFile(output) { try IndexedCopy.write(from: reader, to: output, overwrite: force) }
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? UInt64) ?? 0
        let seconds = Date().timeIntervalSince(started)
        if json {
            Output.json(
                [
                    "archive": output, "records": summary.records, "documents": summary.documents, "bytes": size,
                    "seconds": seconds,
                ] as [String: Any])
        } else if !quiet {
            Output.error(
                "\(output): \(summary.records) records, \(summary.documents) pages indexed, "
                    + "\(ProgressReporter.size(size)) in " + String(format: "%.2f s", seconds))
        }
    }
}
