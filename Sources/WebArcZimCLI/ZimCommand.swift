import ArgumentParser
import WebArc
import WebArcCLISupport
import WebArcSearch

/// `webarc-zim`: ZIM import and export through libzim, in a binary of its own because Debian ships
/// libzim only as a shared library and the release `webarc` is a static executable. `webarc import
/// FILE.zim …` and `webarc export … --format zim …` run it with their arguments unchanged, as a
/// child process, so that libzim crashing on a hostile file ends as an error line of theirs.
@main
struct ZimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webarc-zim",
        abstract: "Import ZIM files into archives and export archives as ZIM files.",
        discussion: """
            The ZIM half of webarc import and webarc export, which run this binary (built with \
            webarc, found next to it or on PATH) for ZIM files: it links libzim (Debian libzim-dev).

              webarc import wikipedia_en_100.zim -o wikipedia.webarc
              webarc export site.webarc --format zim -o site.zim

            \(ExitCodes.helpText)
            """,
        version: "\(WebArcVersion.release) (archive format \(WebArcVersion.format))",
        subcommands: [ZimImport.self, ZimExport.self]
    )

    /// Runs the command, mapping failures to one stderr line and a distinct exit code.
    static func main() {
        do {
            // Every archive written gets a full-text index unless `--no-search` is given.
            SearchIndexBuilder.register(writingByDefault: true)
            var command = try parseAsRoot()
            InterruptCleanup.install()
            try command.run()
        } catch {
            ExitCodes.exit(for: error, command: self)
        }
    }
}
