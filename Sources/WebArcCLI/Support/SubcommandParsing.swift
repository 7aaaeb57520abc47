import ArgumentParser

/// `webarc SUBCOMMAND ARGS…` parsed by the subcommand alone.
///
/// The root's `parseAsRoot()` first checks every argument for a completion-script request, which
/// builds the argument sets of all fifteen subcommands; with the Swift runtime's first
/// protocol-conformance lookups that is about 2 ms of a fresh process, more than the whole of a
/// small `apply` or `info`. Parsing with the named subcommand as the root builds its own set only.
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
