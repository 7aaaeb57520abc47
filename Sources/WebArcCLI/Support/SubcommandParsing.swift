import ArgumentParser

/// `webarc SUBCOMMAND ARGS…` parsed by the subcommand alone.
///
/// The root's `parseAsRoot()` first checks every argument for a completion-script request, which
/// builds the argument sets of all fifteen subcommands; with the Swift runtime's first
/// protocol-conformance lookups that costs a fresh process more than the whole of a small `apply`
/// or `info`. Parsing with the named subcommand as the root builds its own set only.
///
/// Only a clean parse is taken: `--help`, `--version`, a completion request, `help`, a typo or a
/// failed validation makes the subcommand's parse throw, and the caller then parses again from the
/// root, so every message, usage line and exit code stays the root's.
enum SubcommandParsing {
    /// The parsed (and validated) subcommand named by `arguments[1]`, or nil when the arguments
    /// need the root's parse.
    static func parse(_ arguments: [String], among subcommands: [any ParsableCommand.Type]) -> sending (any ParsableCommand)? {
        guard arguments.count >= 2, let type = subcommands.first(where: { $0._commandName == arguments[1] }) else { return nil }
        return try? parse(type, Array(arguments.dropFirst(2)))
    }

    private static func parse<Command: ParsableCommand>(_ type: Command.Type, _ arguments: [String]) throws -> sending any ParsableCommand {
        try type.parse(arguments)
    }
}

extension SubcommandParsing {
    /// The error for `webarc WORD …` when WORD is not a command: the argument parser's own
    /// ("unexpected argument") does not say so, nor which command was probably meant.
    ///
    /// The commands WORD starts are suggested, else the closest of those within two edits of it
    /// (one for a word of one or two letters, so that `x` suggests nothing); nil when WORD is a
    /// command, an option or `help`.
    static func unknownCommand(_ arguments: [String], among subcommands: [any ParsableCommand.Type]) -> String? {
        guard arguments.count >= 2 else { return nil }
        let word = arguments[1]
        let names = subcommands.map { $0._commandName }
        guard !word.isEmpty, !word.hasPrefix("-"), word != "help", !names.contains(word) else { return nil }
        var suggested = names.filter { $0.hasPrefix(word) }
        if suggested.isEmpty {
            let allowed = word.count >= 3 ? 2 : 1
            let close = names.map { (name: $0, distance: editDistance(word, $0)) }.filter { $0.distance <= allowed }
            suggested = close.filter { $0.distance == close.map(\.distance).min() }.map(\.name)
        }
        guard !suggested.isEmpty else { return "unknown command '\(word)': see 'webarc --help' for the commands" }
        return "unknown command '\(word)'. Did you mean \(suggested.map { "'\($0)'" }.joined(separator: " or "))?"
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
