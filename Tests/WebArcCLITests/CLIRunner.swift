import Foundation
import WebArcTestSupport

/// Runs the real `webarc` binary and captures what it prints.
struct CLIRunner {
    typealias Result = ProgramResult

    /// The built binary: ``builtWebarc`` (`WEBARC_BIN`, or `webarc` next to the test bundle), else
    /// the debug build in the repository's `.build`.
    static let binary: String = builtWebarc ?? repository.appendingPathComponent(".build/debug/webarc").path

    /// The repository's root folder.
    static let repository = repositoryRoot

    /// Runs the binary (or `executable`) with `arguments`; a run still going after `timeout` seconds
    /// is killed and reported with status -1, so a hang fails the test instead of stalling the suite.
    static func run(
        _ arguments: [String], in directory: String? = nil, timeout: Double = 120, executable: String = binary,
        environment: [String: String]? = nil
    ) throws -> Result {
        try runProgram(executable, arguments, in: directory, environment: environment, timeout: timeout)
    }

    /// ``run(_:in:timeout:executable:environment:)`` on a thread of its own: for a run that takes
    /// long, so that the awaiting test holds no cooperative thread meanwhile.
    static func runDetached(
        _ arguments: [String], in directory: String? = nil, timeout: Double = 120, executable: String = binary,
        environment: [String: String]? = nil
    ) async throws -> Result {
        try await onOwnThread {
            try run(arguments, in: directory, timeout: timeout, executable: executable, environment: environment)
        }
    }
}
