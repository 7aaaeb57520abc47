import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport

struct Pack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Pack a folder holding a website into one archive.",
        discussion: """
            Every file becomes a GET response at the base URL plus its path, with Content-Type, \
            Content-Length, Last-Modified and an ETag from its MD5; a folder's index.html also \
            answers at folder/, and folder redirects (301) to folder/. Identical files are stored once.

            Symbolic links that stay inside the folder are followed. Links that leave it are refused \
            unless --follow-outside or --skip-outside says what to do; loops, FIFOs, sockets and \
            unreadable files are refused unless --skip-unreadable.

              webarc pack site/ -o site.webarc
              webarc pack /usr/share/doc/python3.11/html -o pydocs.webarc --follow-outside
              webarc pack site/ -o site.webarc --base-url https://kiosk.example/
              webarc pack site/ -o site.webarc --best
              webarc pack site-v2/ --base site-v1.webarc -o v1-to-v2.webarc
              webarc pack site-v2/ --base site-v1.webarc --compact -o v1-to-v2.webarcu

            Last-Modified is each file's modification time, so a copied or rebuilt folder (cp -r, \
            a fresh Sphinx or Hugo build) would change every record. For reproducible archives, \
            --mtime DATE gives every file that time; otherwise SOURCE_DATE_EPOCH (whole seconds \
            since 1970, as reproducible-builds.org defines it), when set, clamps each file's time \
            to at most it: files written after it (a rebuild) all get it, older ones keep their own. \
            Nothing else in an archive depends on the clock or the machine, so the same files \
            with the same times pack to the same bytes, and `webarc unpack` gives the files their \
            Last-Modified back.

              SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) webarc pack html/ -o docs.webarc
              webarc pack site/ -o site.webarc --mtime 2027-01-01

            With --base, the output is an update archive over the given archive (repeat --base for \
            a stack, top first), as `webarc diff BASE NEW -o UPDATE` makes: the new archive is \
            packed to a temporary file beside the output, diffed, checked and removed. With \
            --compact as well, the output is the compact update `webarc diff --compact` writes.

            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The folder to pack.")
    var folder: String

    @Option(name: .shortAndLong, help: "The archive to write.")
    var output: String

    /// The base URL unless told (`--base-url`).
    static let defaultBaseURL = "http://localhost/"
    /// Where a page's dictionary lies unless told (`--dictionary-placement`).
    static let defaultPlacement = PlacementChoice.prefix

    @Option(help: "The URL the folder's files are served under.")
    var baseURL: String = Pack.defaultBaseURL

    @Flag(help: "Include the targets of symbolic links that leave the folder.")
    var followOutside = false

    @Flag(help: "Leave out symbolic links that leave the folder.")
    var skipOutside = false

    @Flag(help: "Leave out loops, FIFOs, sockets and unreadable files instead of failing.")
    var skipUnreadable = false

    @Option(help: "LZ4 level: 1 fastest (the default), 3–12 LZ4HC (smaller archive, slower to pack, same read speed).")
    var level: Int = SitePacker.defaultLevel

    @Flag(
        help: ArgumentHelp(
            "Smallest archive: files of up to 2 MiB grouped into 2 MiB Zstandard 19 chunks (--groups 2048 --zstd 19), LZ4HC 12 for the rest: about ZIM's size, much slower to pack, slower to read."
        ))
    var best = false

    @Option(
        help: ArgumentHelp(
            "Also code pages as Zstandard at this level (1–22) against an earlier page where that is smaller (smaller archive, slower to pack and read).",
            valueName: "LEVEL"))
    var zstd: Int?

    @Option(
        help: ArgumentHelp(
            "Group files of up to this many KiB (64–2048) into shared chunks of as many: a smaller archive with --zstd; reading a page decodes its group.",
            valueName: "KIB"))
    var groups: Int?

    @Option(help: PlacementChoice.help)
    var dictionaryPlacement: PlacementChoice = Pack.defaultPlacement

    @Option(
        name: .customLong("mtime"),
        help: ArgumentHelp(
            "Give every file this Last-Modified instead of its modification time: 2027-01-01, 2027-01-01T12:00:00Z or @SECONDS since 1970.",
            valueName: "DATE"))
    var mtime: FixedTimeArgument?

    @Option(
        name: .customLong("base"),
        help: ArgumentHelp(
            "Write an update over this archive instead of a whole archive; repeat for a stack, top first.",
            valueName: "OLD.webarc"))
    var bases: [String] = []

    @Flag(help: "With --base: write a compact update (the transport form, .webarcu) instead of an update archive.")
    var compact = false

    @Flag(name: .shortAndLong, help: "Replace the output if it exists.")
    var force = false

    @Flag(name: .shortAndLong, help: "No progress or summary on stderr.")
    var quiet = false

    @Flag(help: "Print the summary as one JSON object on stdout.")
    var json = false

    @OptionGroup var search: SearchIndexing

    func validate() throws {
        guard (1...12).contains(level) else { throw ValidationError("--level must be 1 to 12, got \(level)") }
        if best && level != SitePacker.defaultLevel { throw ValidationError("--best and --level exclude each other") }
        if best && zstd != nil { throw ValidationError("--best and --zstd exclude each other") }
        if let zstd, !(1...22).contains(zstd) { throw ValidationError("--zstd must be 1 to 22, got \(zstd)") }
        if let groups, !(64...2048).contains(groups) {
            throw ValidationError("--groups must be 64 to 2048 (KiB), got \(groups)")
        }
        if compact && bases.isEmpty {
            throw ValidationError("--compact needs --base: a compact update goes over an old archive")
        }
        if followOutside && skipOutside {
            throw ValidationError("--follow-outside and --skip-outside exclude each other")
        }
        guard baseURL.hasPrefix("http://") || baseURL.hasPrefix("https://"), (try? URLKey.canonicalize(baseURL)) != nil
        else {
            throw ValidationError("--base-url must be an absolute http(s) URL, got \(baseURL)")
        }
    }

    /// What this command line asks for, as plain values.
    var job: PackJob {
        PackJob(
            folder: folder, output: output, baseURL: baseURL,
            outsideLinks: followOutside ? .follow : skipOutside ? .skip : .refuse,
            skipUnreadable: skipUnreadable, level: level, best: best, zstd: zstd, groups: groups,
            dictionaryPlacement: dictionaryPlacement,
            mtime: mtime?.seconds, bases: bases, compact: compact, force: force, quiet: quiet, json: json)
    }

    func run() throws {
        search.apply()
        try job.run()
    }
}
