import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport
import WebArcZim

/// `webarc export ARCHIVE --format zim -o OUT.zim`: the options of `webarc export`, with those
/// only a ZIM reads.
struct ZimExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export an archive as a ZIM file.",
        discussion: """
            Writes a ZIM through libzim (Zstandard clusters, title index, and a Xapian full-text \
            index of the HTML pages unless --no-index), which every Kiwix reader plays: each GET \
            response becomes an item at its path below the base URL with its Content-Type as mime \
            type and its HTML <title>, each redirect a redirect entry, the start URL the main \
            page. Statuses, headers, capture dates and other methods have no place in a ZIM and are \
            dropped. Title, Language and Description come from the options, else the archive's \
            zim: metadata, else the main page and the file name.

              webarc export site.webarc --format zim -o site.zim
              webarc export python.webarc --format zim -o python.zim --title "Python docs" --language eng

            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archive to export (a local file).")
    var archive: String

    @Option(help: "The format to write: zim.")
    var format: String = "zim"

    @Option(name: .shortAndLong, help: "The file to write.")
    var output: String

    @OptionGroup var writing: WritingOptions

    @OptionGroup(title: "ZIM output") var zim: ZimExportArguments

    func validate() throws {
        guard format == "zim" else { throw ValidationError("webarc-zim writes --format zim only, not \(format)") }
    }

    func run() throws {
        let started = Date()
        var options = ZimExportOptions(overwrite: writing.force)
        options.baseURL = zim.baseURL
        options.title = zim.title
        options.language = zim.language
        options.description = zim.zimDescription
        options.fullTextIndex = !zim.noIndex
        let summary = try ZimJob.run(label: "exporting", unit: "items", quiet: writing.quiet) { progress in
            try ZimExporter(options: options).run(archive: archive, output: output, progress: progress)
        }
        let seconds = Date().timeIntervalSince(started)
        if writing.json {
            Output.json(
                [
                    "output": output, "format": "zim", "responses": summary.items, "redirects": summary.redirects,
                    "revisits": 0,
                    "requests": 0, "bytes": summary.bytes, "seconds": seconds, "mainPath": summary.mainPath ?? NSNull(),
                    "baseURL": summary.baseURL, "statusesDropped": summary.statusesDropped,
                    "listedURLs": summary.listedURLs,
                    "notes": summary.leftOut,
                ] as [String: Any])
        }
        guard !writing.quiet else { return }
        for note in summary.leftOut.prefix(20) { Output.error("webarc: note: left out \(note)") }
        if summary.leftOut.count > 20 {
            Output.error("webarc: note: and \(summary.leftOut.count - 20) more left out (--json lists them)")
        }
        if summary.statusesDropped > 0 {
            Output.error(
                "webarc: note: \(Plural.count(summary.statusesDropped, "response")) with a status other than 200 written as plain entries (a ZIM entry has no status)"
            )
        }
        Output.error(
            String(
                format: "exported %d responses and %d redirects to %@ (%@) in %.2fs", summary.items, summary.redirects,
                output,
                ProgressReporter.size(summary.bytes), seconds))
    }
}
