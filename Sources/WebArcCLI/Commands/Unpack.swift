import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport

struct Unpack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpack",
        abstract: "Write every response body of an archive to files under a folder.",
        discussion: """
            Paths follow the URLs: one origin unpacks at the folder's top, several get a folder per \
            host (host_port for other ports). folder/ becomes folder/index.html; a query becomes part \
            of the file name (page?q=1, with / written %2F). Names that would escape the folder \
            (.., %2e%2e, \\, NUL) stay percent-encoded, so nothing is ever written outside it. URLs \
            that cannot all be files at once (/a beside /a/b) are listed and make the exit code 65. \
            Each file's modification time is its response's Last-Modified (as pack stored it), so \
            packing the folder again gives the same archive.

              webarc unpack site.webarc -o site/
              webarc unpack site.webarc -o site/ --force

            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archive to read: a path or an http(s) URL.")
    var archive: String

    @Option(name: .shortAndLong, help: "The folder to write (created; must be empty unless --force).")
    var output: String

    @Flag(name: .shortAndLong, help: "Write into a non-empty folder, replacing files.")
    var force = false

    @Flag(name: .shortAndLong, help: "No progress or summary on stderr.")
    var quiet = false

    func run() throws {
        let reader = try ArchiveOpening.open(archive, readingAll: true)
        let progress = ProgressReporter(label: "unpacking", quiet: quiet)
        let summary = try withFile(archive) {
            try SiteUnpacker(overwrite: force).unpack(reader, into: output) { files, total, bytes, totalBytes in
                progress.update(items: files, totalItems: total, bytes: bytes, totalBytes: totalBytes)
            }
        }
        progress.finish()
        for skipped in summary.skipped { Output.error("webarc: not written: \(skipped)") }
        if !quiet {
            Output.error("unpacked \(summary.filesWritten) files (\(ProgressReporter.size(summary.bytesWritten))) into \(output)"
                + (summary.duplicates > 0 ? ", \(summary.duplicates) URLs shared a file" : "")
                + (summary.redirects > 0 ? ", \(summary.redirects) redirects not written as files" : ""))
        }
        if !summary.skipped.isEmpty {
            throw CommandFailure("\(summary.skipped.count) responses could not be written (listed above)", code: ExitCodes.dataError)
        }
    }
}
