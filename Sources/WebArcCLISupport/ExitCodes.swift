import ArgumentParser
import Foundation
import WebArc

/// The exit codes of `webarc`, in one place (sysexits values).
///
/// | code | meaning |
/// |---|---|
/// | 0 | success |
/// | 1 | unexpected failure |
/// | 3 | `cat` without `-L`: the URL holds a redirect, not a body |
/// | 4 | `search`: an archive holds no search index |
/// | 64 | bad command line |
/// | 65 | archive or input malformed, including `verify` finding a problem |
/// | 66 | input missing or unreadable |
/// | 69 | `serve` cannot listen: port in use, not permitted, or an unknown host |
/// | 73 | output cannot be created or exists |
/// | 74 | I/O error while reading or writing |
package enum ExitCodes {
    package static let failure: Int32 = 1
    /// `cat` found a stored redirect and was not asked to follow it (`-L`): no body was printed.
    package static let redirectNotFollowed: Int32 = 3
    /// `search` was given an archive with no search index: nothing was searched.
    package static let noSearchIndex: Int32 = 4
    package static let usage: Int32 = 64
    package static let dataError: Int32 = 65
    package static let noInput: Int32 = 66
    /// A service is unavailable (sysexits `EX_UNAVAILABLE`): `serve` cannot listen, or no origin answered `refresh`.
    package static let unavailable: Int32 = 69
    package static let cannotCreate: Int32 = 73
    package static let ioError: Int32 = 74

    /// The help text block every command shows.
    package static let helpText = """
        Exit codes: 0 success, 1 unexpected failure, 64 bad command line, 65 archive or input \
        malformed (or verify found a problem), 66 input missing or unreadable, 69 unavailable (serve \
        cannot listen, refresh got no answer), 73 output exists or cannot be created, 74 I/O error, \
        130 interrupted (temporary files removed).
        """

    /// The exit code for a kind of failure: one code per ``ErrorCategory``, whatever the message.
    package static func code(for category: ErrorCategory) -> Int32 {
        switch category {
        case .malformedData: dataError
        case .missingInput: noInput
        case .cannotCreateOutput: cannotCreate
        case .ioFailure: ioError
        case .badArgument: usage
        case .internalFailure: failure
        }
    }

    /// The exit code for a library error, by its ``WebArcError/category``.
    package static func code(for error: WebArcError) -> Int32 { code(for: error.category) }

    /// Ends the process for an error a command threw: a ``CommandFailure`` or a library error
    /// becomes one `webarc: error: …` line on stderr and its exit code; anything else (a usage
    /// error, `--help`, `--version`) goes to `command`'s argument parser.
    package static func exit(for error: any Error, command: any ParsableCommand.Type) -> Never {
        switch error {
        case let failure as CommandFailure:
            Output.error("webarc: error: \(failure.message)")
            Foundation.exit(failure.code)
        case let error as WebArcError:
            Output.error("webarc: error: \(error.description)")
            Foundation.exit(code(for: error))
        default:
            command.exit(withError: error)
        }
    }
}

/// Ends a command with a one-line `webarc: error: …` message on stderr and the matching exit code.
package struct CommandFailure: Error, CustomStringConvertible {
    package let message: String
    package let code: Int32

    package var description: String { message }

    /// Wraps a library error, naming the file it concerns when the message does not already.
    package init(_ error: WebArcError, file: String? = nil) {
        let text = error.description
        message = file.map { text.contains($0) ? text : "\($0): \(text)" } ?? text
        code = ExitCodes.code(for: error)
    }

    package init(_ message: String, code: Int32) {
        self.message = message
        self.code = code
    }
}
