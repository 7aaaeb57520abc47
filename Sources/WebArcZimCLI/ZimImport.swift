import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport
import WebArcZim

/// `webarc import FILE.zim -o OUT.webarc`: the options of `webarc import`, with those that only
/// ZIM input reads.
struct ZimImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a ZIM file into one archive.",
        discussion: """
            Every entry becomes a GET response at the base URL plus its path, with its ZIM mime type \
            as Content-Type; redirect entries become redirects (302, as Kiwix readers answer them); \
            the main page also answers at the base URL, which is the start URL; the ZIM's metadata \
            (Title, Language, Creator, Date, Illustration_48x48@1…) become archive metadata entries \
            zim:NAME. A ZIM made by warc2zim 1.x goes back to its crawled URLs, statuses and headers. \
            Entries are read in cluster order; one entry at a time is in memory (at most \
            --max-entry-size).

              webarc import python.zim -o python.webarc
              webarc import python.zim -o python.webarc --base-url https://docs.example/ --best

            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The ZIM file to import (one, on its own).")
    var files: [String]

    @Option(name: .shortAndLong, help: "The archive to write.")
    var output: String

    @Option(help: "Accepted as webarc import takes it; a ZIM holds one entry per path, so nothing is a duplicate.")
    var keep: String = "latest"

    @Flag(help: "Skip entries libzim cannot read (listed on stderr) instead of failing.")
    var skipBad = false

    @Option(help: PlacementChoice.help)
    var dictionaryPlacement: PlacementChoice = .prefix

    @OptionGroup var writing: WritingOptions

    @OptionGroup var search: SearchIndexing

    @OptionGroup(title: "ZIM input") var zim: ZimImportArguments

    func validate() throws {
        guard files.count == 1 else {
            throw ValidationError(
                "a ZIM file is imported on its own: import \(files.joined(separator: ", ")) into one archive each "
                    + "(webarc serve serves several at once)")
        }
    }

    func run() throws {
        search.apply()
        let started = Date()
        var options = ZimImportOptions(baseURL: zim.baseURL, overwrite: writing.force)
        options.skipBad = skipBad
        options.maxEntrySize = zim.maxEntrySize
        options.dictionaryPlacement = dictionaryPlacement.placement
        if zim.best { options.useBest() }
        // As pack: the pipeline's workers allocate and free bodies and libzim's clusters.
        MallocTuning.useOneArena()
        MallocTuning.reuseLargeBlocks()
        MallocTuning.backHeapWithHugePages()
        let summary = try ZimJob.run(label: "importing", unit: "entries", quiet: writing.quiet) { progress in
            try ZimImporter(options: options).run(input: files[0], output: output, progress: progress)
        }
        let seconds = Date().timeIntervalSince(started)
        if writing.json {
            Output.json(
                [
                    "archive": output,
                    "inputs": [
                        [
                            "path": files[0], "format": "zim", "records": summary.entries,
                            "captures": summary.responses + summary.redirects,
                        ]
                    ],
                    "responses": summary.responses, "redirects": summary.redirects, "capturesDropped": 0,
                    "bodiesReferenced": summary.responses, "bodiesStored": summary.bodiesStored,
                    "rawBodyBytes": summary.rawBodyBytes,
                    "storedBodyBytes": summary.storedBodyBytes, "seconds": seconds,
                    "startURL": summary.startURL ?? NSNull(),
                    "baseURL": summary.baseURL, "fromWarc2zim": summary.fromWarc2zim,
                    "skipped": summary.skipped.map { ["code": $0.code, "message": $0.description] },
                    "notes": summary.leftOut,
                ] as [String: Any])
        }
        guard !writing.quiet else { return }
        for skipped in summary.skipped { Output.error("webarc: skipped: \(skipped)") }
        for note in summary.leftOut.prefix(20) { Output.error("webarc: note: left out \(note)") }
        if summary.leftOut.count > 20 {
            Output.error("webarc: note: and \(summary.leftOut.count - 20) more left out (--json lists them)")
        }
        Output.error(
            "imported \(Plural.count(summary.responses, "response")) and \(Plural.count(summary.redirects, "redirect")) from "
                + "\(Plural.count(summary.entries, "entry", plural: "entries")) of \(files[0])"
                + (summary.fromWarc2zim ? " (warc2zim: at their crawled URLs)" : " at \(summary.baseURL)")
                + " into \(output): "
                + "\(Plural.count(summary.bodiesStored, "distinct body", plural: "distinct bodies")), "
                + "\(ProgressReporter.size(summary.rawBodyBytes)) → \(ProgressReporter.size(summary.storedBodyBytes))"
                + " in " + String(format: "%.2fs", seconds))
    }
}
