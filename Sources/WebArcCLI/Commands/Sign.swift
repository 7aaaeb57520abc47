import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport

struct Sign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign an archive with a private key.",
        discussion: """
            Adds an Ed25519 signature block after the archive, or replaces the one by the same key; \
            the archive's bytes and digest do not change. The file is rewritten through a temporary \
            file and renamed into place.

              webarc sign site.webarc --key publisher.key
              webarc sign site.webarc --key publisher.key --sequence 42 --expires +90d
              webarc sign site.webarc --key publisher.key --expires 2027-06-30

            The sequence numbers releases: a reader that keeps state (verify or serve with --state) \
            refuses an archive whose sequence is lower than one it accepted from the same key. It \
            defaults to the current Unix time in seconds, so each later signing is higher; give it \
            explicitly to number releases yourself.

            An --expires date that has already passed is refused (exit 64, the archive untouched): \
            readers would refuse such a signature, and it would replace a valid one by the same key. \
            --force signs anyway, with a warning.
            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archive to sign (rewritten in place).")
    var archive: String

    @Option(help: ArgumentHelp("The private key file.", valueName: "NAME.key"))
    var key: String

    @Option(help: "The release number (default: the current Unix time in seconds).")
    var sequence: UInt64?

    @Option(
        help: ArgumentHelp(
            "When the signature stops being accepted: 2027-06-30, 2027-06-30T12:00:00Z, or +30d / +12h / +2w from now "
                + "(default: never).", valueName: "DATE"))
    var expires: DateArgument?

    @Flag(name: .shortAndLong, help: "Sign even when --expires has already passed.")
    var force = false

    func run() throws {
        let now = Date()
        if let expires, expires.date <= now {
            guard force else {
                let shown = SignatureText.date(Int64(expires.date.timeIntervalSince1970 * 1000))
                throw CommandFailure(
                    "--expires \(shown) has already passed: readers would refuse the signature, and it would replace "
                        + "any signature by this key: give a later date, or --force to sign anyway",
                    code: ExitCodes.usage)
            }
            Output.error("webarc: warning: the signature expires in the past; readers will refuse it as expired")
        }
        let signingKey: SigningKey
        do { signingKey = try SigningKey(contentsOf: key) } catch let error as WebArcError {
            throw CommandFailure(error, file: key)
        }
        var info = stat()
        if stat(key, &info) == 0 && info.st_mode & 0o077 != 0 {
            Output.error("webarc: warning: \(key) can be read by others: chmod 600 it")
        }
        let block = try withFile(archive) {
            try ArchiveSigner.sign(
                path: archive, with: signingKey, sequence: sequence ?? UInt64(now.timeIntervalSince1970), created: now,
                expires: expires?.date)
        }
        let digest = try withFile(archive) { try ArchiveReader(path: archive).archiveDigest }
        Output.line("\(archive): signed by \(SignatureText.line(block))")
        Output.line("archive digest \(SignatureText.hex(digest))")
    }
}
