import ArgumentParser
import Foundation
import WebArcCLISupport
import WebArcInterop

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export an archive as WARC, WACZ, HAR, a Safari web archive or ZIM.",
        discussion: """
            warc writes WARC 1.1 with one gzip member per record, request and response records, \
            SHA-1 digests, and a revisit record for every body already written once. har writes HAR \
            1.2 (bodies as text where textual, base64 otherwise). webarchive writes one page (--page, \
            or the archive's start URL) with the resources it uses and its frames. wacz writes WACZ \
            1.1.1: a stored ZIP of that WARC, a sorted CDXJ index, pages/pages.jsonl (the start page \
            and every HTML page with its title) and datapackage.json (each file's SHA-256 and size). \
            zim writes a ZIM that every Kiwix reader plays, through libzim, by the companion \
            webarc-zim binary: each GET response an entry at its path below the base URL with its \
            HTML title, a full-text index of the pages, the start URL the main page; statuses, \
            headers and dates have no place in a ZIM.

              webarc export site.webarc --format warc -o site.warc.gz
              webarc export site.webarc --format har -o site.har
              webarc export site.webarc --format wacz -o site.wacz
              webarc export site.webarc --format zim -o site.zim --title "Our site"
              webarc export site.webarc --format webarchive --page https://example.com/ -o page.webarchive

            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archive to export: a path, or an http(s):// URL read in place.")
    var archive: String

    @Option(help: "The format to write: warc, wacz, har, webarchive or zim.")
    var format: ExportFormat

    @Option(name: .shortAndLong, help: "The file to write.")
    var output: String

    @Option(help: "For webarchive: the page to export (default: the archive's start URL).")
    var page: String?

    @OptionGroup var writing: WritingOptions

    @OptionGroup(title: "ZIM output") var zim: ZimExportArguments

    func validate() throws {
        if page != nil && format != .webarchive { throw ValidationError("--page applies only to --format webarchive") }
        if zim.isSet && format != .zim {
            throw ValidationError(
                "--base-url, --title, --language, --zim-description and --no-index apply only to --format zim")
        }
    }

    func run() throws {
        // A ZIM is written through libzim, which the static `webarc` does not link: webarc-zim
        // exports it, parsing these same arguments, in a child process (as import reads one).
        if format == .zim {
            switch try CompanionBinary.run(
                "webarc-zim", arguments: Array(CommandLine.arguments.dropFirst()), output: output)
            {
            case .exited(let status): Foundation.exit(status)
            case .signaled(let signal):
                throw CommandFailure(
                    "webarc-zim stopped writing \(output) (\(CompanionBinary.describe(signal))): nothing was written",
                    code: CompanionBinary.isFault(signal) ? ExitCodes.failure : 128 + signal)
            }
        }
        let started = Date()
        let summary: ExportSummary
        do {
            summary = try ArchiveExporter(options: ExportOptions(overwrite: writing.force, page: page))
                .run(
                    archive: archive, opening: { try ArchiveOpening.reader(archive, readingAll: page == nil) },
                    format: format, output: output)
        } catch let error as InteropError {
            throw CommandFailure(error.description, code: error.exitCode)
        }
        let seconds = Date().timeIntervalSince(started)
        if writing.json {
            Output.json(
                [
                    "output": output, "format": format.rawValue, "responses": summary.responses,
                    "redirects": summary.redirects,
                    "revisits": summary.revisits, "requests": summary.requests, "bytes": summary.bytes,
                    "seconds": seconds,
                    "notes": summary.notes.map(\.description),
                ] as [String: Any])
        }
        guard !writing.quiet else { return }
        for note in summary.notes { Output.error("webarc: note: \(note)") }
        Output.error(
            String(
                format: "exported %d responses, %d redirects and %d revisits to %@ (%@) in %.2fs", summary.responses,
                summary.redirects, summary.revisits, output, ProgressReporter.size(summary.bytes), seconds))
    }
}

extension ExportFormat: ExpressibleByArgument {}
