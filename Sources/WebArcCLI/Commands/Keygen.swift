import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport

struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make an Ed25519 key pair for signing archives.",
        discussion: """
            Writes NAME.key, the private key (mode 0600: keep it secret, it signs releases), and \
            NAME.pub, the public key to hand to whoever verifies or serves the archives. Each is one \
            line: webarc-ed25519-private|public, the base64 key, and the 16-digit key ID.

              webarc keygen -o publisher
              webarc sign site.webarc --key publisher.key
              webarc verify site.webarc --trust publisher.pub

            \(ExitCodes.helpText)
            """
    )

    @Option(name: .shortAndLong, help: ArgumentHelp("The files' path without extension.", valueName: "NAME"))
    var output: String

    @Flag(name: .shortAndLong, help: "Replace existing NAME.key and NAME.pub.")
    var force = false

    func run() throws {
        var name = output
        for suffix in [".key", ".pub"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
        let key = SigningKey()
        do {
            try key.write(to: name, overwrite: force)
        } catch let error as WebArcError {
            throw CommandFailure(error)
        }
        Output.line("key \(key.keyID): wrote \(name).key (private, keep it secret) and \(name).pub")
    }
}
