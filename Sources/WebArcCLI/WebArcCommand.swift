import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport
import WebArcRemote

/// The `webarc` command: pack, read, verify and serve single-file web archives.
@main
struct WebArcCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webarc",
        abstract: "Pack, verify, read and serve single-file web archives.",
        discussion: """
            A .webarc file holds a website — requests, responses, redirects and their bodies, each \
            distinct body stored once and LZ4-compressed — for replay with no network. Every read \
            is verified against SHA-256 digests: a damaged byte is an error (exit 65), never data.

              webarc pack site/ -o site.webarc
              webarc verify site.webarc
              webarc cat site.webarc http://localhost/index.html
              webarc sign site.webarc --key publisher.key
              webarc serve site.webarc --trust publisher.pub
              webarc serve https://cdn.example.com/site.webarc

            Wherever an archive is named, an http:// or https:// URL reads it in place from any \
            server that answers Range requests (a CDN, an object store, nginx).

            capture runs the companion webarc-capture binary, built with webarc, so that the other \
            commands start without the networking stack.

            \(ExitCodes.helpText)
            """,
        version: "\(WebArcVersion.release) (archive format \(WebArcVersion.format))",
        subcommands: [
            Pack.self, Unpack.self, Verify.self, List.self, Cat.self, Info.self, Serve.self, Import.self, Export.self, Capture.self,
            Keygen.self, Sign.self, Diff.self, Apply.self, Refresh.self,
        ]
    )

    /// Runs the command, mapping failures to one stderr line and a distinct exit code.
    static func main() async {
        do {
            if let plain = FastCat.parse(CommandLine.arguments) {
                try Cat.write(archive: plain.archive, url: plain.url, method: "GET", includeHeaders: plain.headers, followRedirects: plain.follow)
                return
            }
            if let pack = FastPack.parse(CommandLine.arguments) {
                InterruptCleanup.install()
                try pack.run()
                return
            }
            if let unknown = SubcommandParsing.unknownCommand(CommandLine.arguments, among: configuration.subcommands) {
                throw CommandFailure(unknown, code: ExitCodes.usage)
            }
            var command = try parseCommand()
            // `serve` handles its own signals; `capture` execs webarc-capture, which would inherit
            // the ignored signals.
            if !(command is Serve || command is Capture) { InterruptCleanup.install() }
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as RemoteError {
            ExitCodes.exit(for: CommandFailure(error), command: self)
        } catch {
            ExitCodes.exit(for: error, command: self)
        }
    }

    /// The command line parsed by its subcommand alone when that parse is clean
    /// (``SubcommandParsing``), else from the root.
    private nonisolated static func parseCommand() throws -> sending any ParsableCommand {
        try SubcommandParsing.parse(CommandLine.arguments, among: configuration.subcommands) ?? parseAsRoot()
    }
}
