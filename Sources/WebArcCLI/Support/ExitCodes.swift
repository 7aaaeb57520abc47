import ArgumentParser
import WebArc

/// The exit codes of `webarc`, in one place (sysexits values).
///
/// | code | meaning |
/// |---|---|
/// | 0 | success |
/// | 1 | unexpected failure |
/// | 64 | bad command line |
/// | 65 | archive or input malformed, including `verify` finding a problem |
/// | 66 | input missing or unreadable |
/// | 73 | output cannot be created or exists |
/// | 74 | I/O error while reading or writing |
enum ExitCodes {
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74

    /// The help text block every command shows.
    static let helpText = """
        Exit codes: 0 success, 1 unexpected failure, 64 bad command line, 65 archive or input \
        malformed (or verify found a problem), 66 input missing or unreadable, 73 output exists or \
        cannot be created, 74 I/O error.
        """

    /// The exit code for a library error.
    static func code(for error: WebArcError) -> Int32 {
        switch error {
        case .outputExists: cannotCreate
        case .io(_, let operation, let errno):
            if operation.hasPrefix("open") || operation.contains("not a regular file") || operation == "stat" || errno == 2 || errno == 13 || errno == 21 {
                operation.contains("temporary") || operation.contains("create") ? cannotCreate : noInput
            } else if operation.contains("temporary") || operation.contains("create") || operation.contains("rename") {
                cannotCreate
            } else {
                ioError
            }
        case .badURL, .invalidRecord: usage
        case .writerClosed, .bodyNotFound, .rangeOutOfBounds: failure
        default: dataError
        }
    }
}

/// Ends a command with a one-line `webarc: error: …` message on stderr and the matching exit code.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    let code: Int32

    var description: String { message }

    /// Wraps a library error, naming the file it concerns when the message does not already.
    init(_ error: WebArcError, file: String? = nil) {
        let text = error.description
        message = file.map { text.contains($0) ? text : "\($0): \(text)" } ?? text
        code = ExitCodes.code(for: error)
    }

    init(_ message: String, code: Int32) {
        self.message = message
        self.code = code
    }
}
