import ArgumentParser
import Dispatch
import Synchronization
import WebArc
import WebArcCLISupport
import WebArcSearch

/// How `webarc`'s arguments become a run: the one place that decides what reads them.
///
/// swift-argument-parser, from the root command, is the reference for every command line: help,
/// usage lines, error messages and exit codes are its. Its first run in a fresh process is not
/// free, though: the Swift runtime's first protocol-conformance lookups (reflection over each
/// command's properties, and the root's completion-script check, which builds the argument sets
/// of every subcommand) scan every conformance record of this large binary before any work
/// starts. For the one-shot commands whose whole run is short that start-up is a large share, so
/// two shorter readings come first, each taken only when it reads the line as the parser would:
///
/// 1. The plain forms of `cat` and `pack`, read by hand without the parser:
///    `cat ARCHIVE URL [-i] [-L]` (one URL from a fresh process should cost what `unzip -p`
///    costs) and `pack FOLDER -o OUTPUT [-q] [-f] [--json]` (into the ``PackJob`` that ``Pack``
///    itself runs, every other setting at ``Pack``'s defaults). Any other form of them (`--help`,
///    other options, `--output=…`) goes on to the parser.
/// 2. The named subcommand, parsed alone as the root: it builds its own argument set only. A line
///    it does not take cleanly (`--help`, `--version`, a completion request, `help`, a typo, a
///    failed validation) is parsed again from the root, so every message stays the root's.
///
/// A first word that names no command gets its own error, with the command probably meant
/// (``unknownCommand(_:among:)``). Measurements: Tools/bench/NOTES.md.
enum CommandLineEntry {
    /// Reads `arguments` (the program's name first) and runs the command they name.
    ///
    /// - Throws: what the command throws; ``CommandFailure`` with ``ExitCodes/usage`` for a first
    ///   word that is not a command; the argument parser's error for a line it refuses.
    static func run(_ arguments: [String]) throws {
        // Pack, import, diff write a full-text index unless `--no-search` is given; apply and
        // refresh write one again when the archive's recipe names one.
        SearchIndexBuilder.register(writingByDefault: true)
        if let cat = plainCat(arguments) {
            try Cat.write(
                archive: cat.archive, url: cat.url, method: "GET", includeHeaders: cat.headers,
                followRedirects: cat.follow)
            return
        }
        if let pack = plainPack(arguments) {
            InterruptCleanup.install()
            try pack.run()
            return
        }
        if let unknown = unknownCommand(arguments, among: WebArcCommand.configuration.subcommands) {
            throw CommandFailure(unknown, code: ExitCodes.usage)
        }
        var command = try parse(arguments)
        // `serve` handles its own signals; `capture` execs webarc-capture, which would inherit
        // the ignored signals.
        if !(command is Serve || command is Capture) { InterruptCleanup.install() }
        if let asyncCommand = command as? AsyncParsableCommand {
            try runBlocking(asyncCommand)
        } else {
            try command.run()
        }
    }

    /// Runs an async command (`serve`, `refresh`) on the cooperative pool while the main thread
    /// waits for it. An async `main` would instead end the main thread (`dispatch_main`), and
    /// that thread's exit unwinds its stack: in this static binary the first unwind sorts every
    /// frame description of the executable, tens of milliseconds of CPU before `serve` answers.
    private static func runBlocking(_ command: sending any AsyncParsableCommand) throws {
        let outcome = Mutex<Result<Void, any Error>>(.success(()))
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            var command = command
            do { try await command.run() } catch { outcome.withLock { $0 = .failure(error) } }
            finished.signal()
        }
        finished.wait()
        try outcome.withLock { $0 }.get()
    }

    /// The parsed and validated command: by the subcommand `arguments[1]` names, alone, when its
    /// parse is clean; else from the root.
    private static func parse(_ arguments: [String]) throws -> sending any ParsableCommand {
        if arguments.count >= 2,
            let type = WebArcCommand.configuration.subcommands.first(where: {
                $0.configuration.commandName == arguments[1]
            }),
            let command = try? parse(type, Array(arguments.dropFirst(2)))
        {
            return command
        }
        return try WebArcCommand.parseAsRoot(Array(arguments.dropFirst()))
    }

    private static func parse<Command: ParsableCommand>(
        _ type: Command.Type, _ arguments: [String]
    ) throws -> sending any ParsableCommand {
        try type.parse(arguments)
    }

    /// `cat ARCHIVE URL [-i] [-L]`, or nil when the arguments need the parser.
    private static func plainCat(_ arguments: [String]) -> (archive: String, url: String, headers: Bool, follow: Bool)?
    {
        guard arguments.count >= 4, arguments[1] == "cat" else { return nil }
        var positional: [String] = []
        var headers = false
        var follow = false
        for argument in arguments.dropFirst(2) {
            switch argument {
            case "-i": headers = true
            case "-L": follow = true
            case "-iL", "-Li":
                headers = true
                follow = true
            default:
                if argument.hasPrefix("-") { return nil }
                positional.append(argument)
            }
        }
        guard positional.count == 2 else { return nil }
        return (positional[0], positional[1], headers, follow)
    }

    /// `pack FOLDER -o OUTPUT [-q] [-f] [--json]` as the ``PackJob`` ``Pack`` would run, or nil
    /// when the arguments need the parser. ``PackJob`` reads `SOURCE_DATE_EPOCH` on either path.
    private static func plainPack(_ arguments: [String]) -> PackJob? {
        guard arguments.count >= 5, arguments[1] == "pack" else { return nil }
        var positional: [String] = []
        var output: String?
        var quiet = false
        var force = false
        var json = false
        var index = 2
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-o", "--output":
                guard output == nil, index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") else {
                    return nil
                }
                output = arguments[index + 1]
                index += 1
            case "-q", "--quiet": quiet = true
            case "-f", "--force": force = true
            case "--json": json = true
            default:
                if argument.hasPrefix("-") { return nil }
                positional.append(argument)
            }
            index += 1
        }
        guard positional.count == 1, let output else { return nil }
        return PackJob(
            folder: positional[0], output: output, baseURL: Pack.defaultBaseURL, outsideLinks: .refuse,
            skipUnreadable: false,
            level: SitePacker.defaultLevel, best: false, zstd: nil, dictionaryPlacement: Pack.defaultPlacement,
            mtime: nil, bases: [],
            compact: false, force: force, quiet: quiet, json: json)
    }
}

extension CommandLineEntry {
    /// The error for `webarc WORD …` when WORD is not a command: the argument parser's own
    /// ("unexpected argument") does not say so, nor which command was probably meant.
    ///
    /// The commands WORD starts are suggested, else the closest of those within two edits of it
    /// (one for a word of one or two letters, so that `x` suggests nothing); nil when WORD is a
    /// command, an option or `help`, or when a subcommand does not name itself (`commandName:`),
    /// which leaves the word to the parser.
    static func unknownCommand(_ arguments: [String], among subcommands: [any ParsableCommand.Type]) -> String? {
        guard arguments.count >= 2 else { return nil }
        let word = arguments[1]
        let names = subcommands.compactMap { $0.configuration.commandName }
        guard names.count == subcommands.count, !word.isEmpty, !word.hasPrefix("-"), word != "help",
            !names.contains(word)
        else { return nil }
        var suggested = names.filter { $0.hasPrefix(word) }
        if suggested.isEmpty {
            let allowed = word.count >= 3 ? 2 : 1
            let close = names.map { (name: $0, distance: editDistance(word, $0)) }.filter { $0.distance <= allowed }
            suggested = close.filter { $0.distance == close.map(\.distance).min() }.map(\.name)
        }
        guard !suggested.isEmpty else { return "unknown command '\(word)': see 'webarc --help' for the commands" }
        let quoted = suggested.map { "'\($0)'" }
        let choices =
            quoted.count > 1 ? quoted.dropLast().joined(separator: ", ") + " or " + quoted.last! : quoted.joined()
        return "unknown command '\(word)'. Did you mean \(choices)?"
    }

    /// The Levenshtein distance between two words: insertions, deletions and substitutions.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var previous = Array(0...b.count)
        for i in a.indices {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for j in b.indices {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a[i] == b[j] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
