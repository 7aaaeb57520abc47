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
            Pack.self, Unpack.self, Verify.self, List.self, Cat.self, Search.self, Info.self, Serve.self, Import.self,
            Export.self,
            Capture.self,
            Keygen.self, Sign.self, Diff.self, Apply.self, Refresh.self, Index.self,
        ]
    )

    /// Runs the command (``CommandLineEntry``), mapping failures to one stderr line and a
    /// distinct exit code.
    static func main() {
        do {
            try CommandLineEntry.run(CommandLine.arguments)
        } catch let error as RemoteError {
            ExitCodes.exit(for: CommandFailure(error), command: self)
        } catch {
            ExitCodes.exit(for: error, command: self)
        }
    }
}
