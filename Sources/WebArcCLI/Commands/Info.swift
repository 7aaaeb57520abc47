import ArgumentParser

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "In progress.")
    func run() throws { throw CommandFailure("not available yet", code: ExitCodes.failure) }
}
