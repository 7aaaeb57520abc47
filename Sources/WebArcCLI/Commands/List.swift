import ArgumentParser

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "In progress.")
    func run() throws { throw CommandFailure("not available yet", code: ExitCodes.failure) }
}
