import ArgumentParser
import WebArcCLISupport

/// `webarc capture`: execs the companion `webarc-capture` binary with the arguments unchanged.
///
/// Capturing needs FoundationNetworking, which links libcurl and about 30 shared libraries; loading
/// them doubled the start-up of every other command, so they live in their own binary.
struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Record pages from a running site into one archive.",
        discussion: """
            Runs the companion webarc-capture binary, built with webarc and found next to it or on \
            PATH, with the same arguments, so that the other commands start without the networking \
            stack. Its options: webarc capture --help.
            """,
        // `--help` goes through to webarc-capture, which knows the options.
        helpNames: []
    )

    @Argument(parsing: .captureForPassthrough, help: "The arguments of webarc-capture: URLs, -o OUT.webarc, options.")
    var arguments: [String] = []

    func run() throws {
        try CompanionBinary.exec("webarc-capture", arguments: arguments)
    }
}
