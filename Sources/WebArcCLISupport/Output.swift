import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes to stdout and stderr without buffering surprises, and knows whether stderr is a terminal.
package enum Output {
    /// Whether stderr is a terminal (progress is shown only then).
    package static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Writes a line to stdout.
    package static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes raw bytes to stdout.
    package static func bytes(_ data: [UInt8]) throws {
        var done = 0
        while done < data.count {
            let wrote = data.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress! + done, data.count - done) }
            if wrote < 0 {
                if errno == EINTR { continue }
                throw CommandFailure("writing to stdout: \(String(cString: strerror(errno)))", code: ExitCodes.ioError)
            }
            done += wrote
        }
    }

    /// Writes a line to stderr.
    package static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// One JSON object on one line.
    package static func json(_ object: Any) {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}
