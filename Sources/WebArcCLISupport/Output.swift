import Foundation
import WebArc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to stdout and stderr without buffering surprises, and knows whether stderr is a terminal.
package enum Output {
    /// Whether stderr is a terminal (progress is shown only then).
    package static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Writes a line to stdout.
    package static func line(_ text: String) {
        _ = write(Array((text + "\n").utf8), to: STDOUT_FILENO)
    }

    /// Writes raw bytes to stdout.
    package static func bytes(_ data: [UInt8]) throws {
        if let code = write(data, to: STDOUT_FILENO) {
            throw CommandFailure("writing to stdout: \(String(cString: strerror(code)))", code: ExitCodes.ioError)
        }
    }

    /// Writes a line to stderr.
    package static func error(_ text: String) {
        _ = write(Array((text + "\n").utf8), to: STDERR_FILENO)
    }

    /// One JSON object on one line.
    package static func json(_ object: Any) {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        _ = write(Array(data) + [0x0A], to: STDOUT_FILENO)
    }

    /// Writes all of `bytes` to `descriptor`; returns the errno of a failed write, or nil.
    ///
    /// A reader that went away (`webarc ls URL | head`) ends the process by SIGPIPE, as it would
    /// have without SwiftNIO: NIO ignores SIGPIPE process-wide once it opens a socket (an archive
    /// read over HTTP), and Foundation's `FileHandle.write` then stops the process on EPIPE.
    private static func write(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        let code = FileWriting.writeAll(bytes, to: descriptor)
        if code == EPIPE {
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
        }
        return code
    }
}
