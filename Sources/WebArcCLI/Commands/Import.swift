import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport
import WebArcInterop

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import WARC, WACZ, HAR, Safari web archive and ZIM files into one archive.",
        discussion: """
            Each input's kind is told from its content: WARC 1.0 or 1.1 (plain, gzip per record or \
            whole-file gzip), HAR 1.2, or a Safari .webarchive, each of the last two plain or gzip \
            (a gzip one is read whole into memory, up to 1 GiB decompressed), or a WACZ (its WARCs \
            read in place from the ZIP, every digest of its datapackage.json checked, its start page \
            and page titles from pages/pages.jsonl; its CDXJ index is not needed). Of several captures of \
            one URL only the latest is kept unless --keep says otherwise (the others are counted as \
            duplicate captures left out); bodies equal across inputs are stored once. \
            gzip and deflate bodies are stored decoded; br and other codings are kept as sent. Bad \
            records fail the import (nothing is written) unless --skip-bad skips and lists them. \
            The --json summary's dedupRatio is the raw bytes of every response body ÷ the raw bytes \
            of the distinct bodies, two decimals, as info shows it.

            A ZIM file (Kiwix) is imported on its own, through libzim, by the companion webarc-zim \
            binary (built with webarc, found next to it or on PATH): every entry becomes a GET \
            response at --base-url plus its path, with its ZIM mime type; redirect entries become \
            redirects; the main page also answers at the base URL, the start URL; its metadata \
            become zim:NAME entries. A ZIM made by warc2zim goes back to its crawled URLs.

              webarc import crawl.warc.gz -o site.webarc
              webarc import crawl.wacz -o site.webarc
              webarc import python.zim -o python.webarc
              webarc import page.har.gz saved.webarchive old.warc -o all.webarc --keep all
              webarc import damaged.warc -o site.webarc --skip-bad

            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The files to import (WARC, WACZ, HAR or .webarchive, in any mix; or one ZIM).")
    var files: [String]

    @Option(name: .shortAndLong, help: "The archive to write.")
    var output: String

    @Option(help: "Which captures of one URL to keep: latest, earliest or all.")
    var keep: DuplicatePolicy = .latest

    @Flag(help: "Skip bad records (listed on stderr) instead of failing.")
    var skipBad = false

    @Option(help: PlacementChoice.help)
    var dictionaryPlacement: PlacementChoice = .prefix

    @OptionGroup var writing: WritingOptions

    @OptionGroup var search: SearchIndexing

    @OptionGroup(title: "ZIM input") var zim: ZimImportArguments

    func run() throws {
        search.apply()
        let started = Date()
        let summary: ImportSummary
        do {
            // A ZIM is read through libzim, which the static `webarc` does not link: webarc-zim
            // imports it, parsing these same arguments, in a child process, so that libzim
            // crashing on a hostile file ends with an error line here.
            if let zimFile = try files.first(where: { try InputFormat.detect(path: $0) == .zim }) {
                let arguments = Array(CommandLine.arguments.dropFirst())
                switch try CompanionBinary.run("webarc-zim", arguments: arguments, output: output) {
                case .exited(let status): Foundation.exit(status)
                case .signaled(let signal) where CompanionBinary.isFault(signal):
                    throw CommandFailure(
                        "libzim stopped on \(zimFile) (\(CompanionBinary.describe(signal))): the ZIM is damaged or hostile",
                        code: ExitCodes.dataError)
                case .signaled(let signal):
                    throw CommandFailure(
                        "webarc-zim stopped importing \(zimFile) (\(CompanionBinary.describe(signal))): nothing was written",
                        code: 128 + signal)
                }
            }
            if zim.isSet {
                throw CommandFailure(
                    "--base-url, --best and --max-entry-size apply to ZIM input only", code: ExitCodes.usage)
            }
            var options = ImportOptions(keep: keep, skipBad: skipBad, overwrite: writing.force)
            options.dictionaryPlacement = dictionaryPlacement.placement
            summary = try ArchiveImporter(options: options).run(inputs: files, output: output)
        } catch let error as InteropError {
            throw CommandFailure(error.description, code: error.exitCode)
        }
        let seconds = Date().timeIntervalSince(started)
        if writing.json {
            Output.json(
                [
                    "archive": output,
                    "inputs": summary.inputs.map {
                        ["path": $0.path, "format": $0.format.rawValue, "records": $0.records, "captures": $0.captures]
                    },
                    "responses": summary.responses, "redirects": summary.redirects,
                    "capturesDropped": summary.duplicatesDropped,
                    "bodiesReferenced": summary.bodiesReferenced, "bodiesStored": summary.bodiesStored,
                    "rawBodyBytes": summary.rawBodyBytes, "distinctBodyBytes": summary.distinctBodyBytes,
                    "storedBodyBytes": summary.storedBodyBytes, "dedupRatio": summary.dedupRatio, "seconds": seconds,
                    "startURL": summary.startURL ?? NSNull(),
                    "skipped": summary.skipped.map { ["code": $0.code, "message": $0.description] },
                    "notes": summary.notes.map(\.description),
                ] as [String: Any])
        }
        guard !writing.quiet else { return }
        for skipped in summary.skipped { Output.error("webarc: skipped: \(skipped)") }
        for note in summary.notes { Output.error("webarc: \(note.isWarning ? "warning" : "note"): \(note)") }
        let captures = summary.inputs.reduce(0) { $0 + $1.captures }
        var leftOut: [String] = []
        if summary.duplicatesDropped > 0 {
            let dropped = summary.duplicatesDropped
            leftOut.append(
                Plural.count(dropped, "duplicate capture") + " of a URL left out: --keep all keeps "
                    + (dropped == 1 ? "it" : "them"))
        }
        if !summary.skipped.isEmpty { leftOut.append(Plural.count(summary.skipped.count, "bad record") + " skipped") }
        Output.error(
            "imported \(Plural.count(summary.responses, "response")) and \(Plural.count(summary.redirects, "redirect")) from "
                + "\(Plural.count(captures, "capture")) in \(Plural.count(summary.inputs.count, "file")) into \(output)"
                + (leftOut.isEmpty ? "" : " (" + leftOut.joined(separator: "; ") + ")")
                + ": \(Plural.count(summary.bodiesStored, "distinct body", plural: "distinct bodies")) of \(summary.bodiesReferenced), "
                + "\(ProgressReporter.size(summary.rawBodyBytes)) → \(ProgressReporter.size(summary.storedBodyBytes))"
                + " in " + String(format: "%.2fs", seconds))
    }
}

extension DuplicatePolicy: ExpressibleByArgument {}

extension InteropError {
    /// The sysexits code `webarc` exits with for this error, by its ``InteropError/category`` (see ``ExitCodes``).
    var exitCode: Int32 { ExitCodes.code(for: category) }
}
