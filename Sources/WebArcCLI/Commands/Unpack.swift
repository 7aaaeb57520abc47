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

            The folder is created if missing. An existing folder must be empty unless --force is \
            given; with --force, files with the same names are replaced and other files are left as \
            they are (it is written into, not emptied). A file, or a symbolic link, is never replaced \
            by a folder, with or without --force.

            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archive to read: a path or an http(s) URL.")
    var archive: String

    @Option(
        name: .shortAndLong,
        help: "The folder to write (created if missing; an existing one must be empty unless --force).")
    var output: String

    @Flag(name: .shortAndLong, help: "Write into a non-empty folder: same-named files are replaced, other files stay.")
    var force = false

    @Flag(name: .shortAndLong, help: "No progress or summary on stderr.")
    var quiet = false

    func run() throws {
        // Checked before the archive is opened (a URL would be downloaded for nothing); the
        // unpacker checks again, and its refusals get the same words.
        if let refusal = Self.refusal(output, isOutput: true, force: force) { throw refusal }
        let reader = try ArchiveOpening.open(archive, readingAll: true)
        let progress = ProgressReporter(label: "unpacking", quiet: quiet)
        let summary = try withFile(archive) {
            do {
                return try SiteUnpacker(overwrite: force).unpack(reader, into: output) {
                    files, total, bytes, totalBytes in
                    progress.update(items: files, totalItems: total, bytes: bytes, totalBytes: totalBytes)
                }
            } catch WebArcError.outputExists(let path) {
                progress.finish()
                throw Self.refusal(path, isOutput: path == output, force: force)
                    ?? CommandFailure(
                        "\(path) appeared while unpacking: it is not replaced", code: ExitCodes.cannotCreate)
            }
        }
        progress.finish()
        for skipped in summary.skipped { Output.error("webarc: not written: \(skipped)") }
        if !quiet {
            Output.error(
                "unpacked \(Plural.count(summary.filesWritten, "file")) (\(ProgressReporter.size(summary.bytesWritten))) into \(output)"
                    + (summary.duplicates > 0 ? ", \(Plural.count(summary.duplicates, "URL")) shared a file" : "")
                    + (summary.redirects > 0
                        ? ", \(Plural.count(summary.redirects, "redirect")) not written as files" : ""))
        }
        if !summary.skipped.isEmpty {
            throw CommandFailure(
                "\(Plural.count(summary.skipped.count, "response")) could not be written (listed above)",
                code: ExitCodes.dataError)
        }
    }

    /// Why `path` (the output folder, or a file under it) cannot be written, in words that say what
    /// `--force` does and does not do; nil when nothing is in the way.
    static func refusal(_ path: String, isOutput: Bool, force: Bool) -> CommandFailure? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        let kind = info.st_mode & S_IFMT
        let message: String
        if isOutput {
            switch kind {
            case S_IFDIR:
                let contents = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                guard !force, !contents.isEmpty else { return nil }
                message =
                    "\(path) is a folder that is not empty: --force writes into it "
                    + "(files with the same names are replaced, other files are left as they are)"
            case S_IFLNK: message = "\(path) is a symbolic link, not a folder: unpack never writes through one"
            default: message = "\(path) is a file, not a folder: give -o a folder (--force does not replace a file)"
            }
        } else {
            if kind == S_IFREG && force { return nil }
            message =
                kind == S_IFREG
                ? "\(path) exists: use --force to replace it"
                : "\(path) exists and is not a file (a folder or a link): it is not replaced, even with --force"
        }
        return CommandFailure(message, code: ExitCodes.cannotCreate)
    }
}
