import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `webarc serve` running in the background, its URL read from the first stdout line (empty
/// when it ended without one: it never listened).
public final class ServeProcess: @unchecked Sendable {
    /// The process, running until ``stop(with:)``.
    public let process = Process()
    /// The URL the server printed first, e.g. `http://127.0.0.1:54321/`.
    public private(set) var url = ""
    private let output = Pipe()
    private let errors = Pipe()

    /// Starts `binary serve arguments…` and waits for its first stdout line.
    public init(binary: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve"] + arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            line += data
        }
        url = String(decoding: line, as: UTF8.self).components(separatedBy: "\n")[0]
    }

    /// The port of ``url``; 0 when there is none.
    public var port: Int { Int(url.split(separator: ":").last?.dropLast() ?? "") ?? 0 }

    /// Sends `signal`, waits, and returns the exit status and everything written to stderr.
    public func stop(with signal: Int32) -> (status: Int32, stderr: String) {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}
