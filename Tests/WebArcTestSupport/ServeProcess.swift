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
    /// What the server wrote on stderr so far, and whether it closed stderr (it ended); read by a
    /// thread of its own as it comes, so that a test can wait for a line.
    private let log = NSCondition()
    private var logged = Data()
    private var logClosed = false

    /// Starts `binary serve arguments…` and waits for its first stdout line.
    ///
    /// - Parameters:
    ///   - environment: the server's environment; nil inherits the test's.
    ///   - directory: its working directory, for relative paths in `arguments`; nil keeps the test's.
    public init(
        binary: String, arguments: [String], environment: [String: String]? = nil, directory: String? = nil
    ) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve"] + arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        Thread.detachNewThread { [self] in
            let handle = errors.fileHandleForReading
            var open = true
            while open {
                let data = handle.availableData
                open = !data.isEmpty
                log.lock()
                if open { logged += data } else { logClosed = true }
                log.broadcast()
                log.unlock()
            }
        }
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

    /// The URL the server printed without its final slash, to put a path after.
    public var base: String { url.hasSuffix("/") ? String(url.dropLast()) : url }

    /// Whether the server writes `text` on stderr within `seconds` (an event it logs, such as a
    /// reload); checked as each write arrives, the deadline only ends a wait that failed.
    public func waitForStderr(containing text: String, upTo seconds: Double = 60) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        log.lock()
        defer { log.unlock() }
        while !String(decoding: logged, as: UTF8.self).contains(text) {
            if logClosed || !log.wait(until: deadline) { return String(decoding: logged, as: UTF8.self).contains(text) }
        }
        return true
    }

    /// Sends `signal` (unless the server ended already), waits, and returns the exit status and
    /// everything written to stderr.
    @discardableResult
    public func stop(with signal: Int32) -> (status: Int32, stderr: String) {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        log.lock()
        defer { log.unlock() }
        while !logClosed { log.wait() }
        return (process.terminationStatus, String(decoding: logged, as: UTF8.self))
    }
}
