import Foundation

/// Runs the real `webarc` binary and captures what it prints.
struct CLIRunner {
    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// The built binary: `WEBARC_BIN`, or `webarc` next to the test bundle.
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["WEBARC_BIN"] { return path }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("webarc").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return repo.appendingPathComponent(".build/debug/webarc").path
    }()

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs the binary (or `executable`) with `arguments`; a run still going after `timeout` seconds
    /// is killed and reported with status -1, so a hang fails the test instead of stalling the suite.
    static func run(
        _ arguments: [String], in directory: String? = nil, timeout: Double = 120, executable: String = binary,
        environment: [String: String]? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        let errorReader = Thread.detachNewThreadWithResult { err.fileHandleForReading.readDataToEndOfFile() }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let killed = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
        return Result(
            status: killed ? -1 : process.terminationStatus, stdout: output,
            stderr: String(decoding: errorReader.value, as: UTF8.self))
    }
}

extension Thread {
    /// Runs `body` on a new thread; `value` waits for it.
    static func detachNewThreadWithResult<T>(_ body: @escaping @Sendable () -> T) -> ThreadResult<T> {
        let result = ThreadResult<T>()
        Thread.detachNewThread { result.set(body()) }
        return result
    }
}

/// A value produced on another thread.
final class ThreadResult<T>: @unchecked Sendable {
    private var stored: T?
    private let condition = NSCondition()

    func set(_ value: T) {
        condition.lock()
        stored = value
        condition.broadcast()
        condition.unlock()
    }

    var value: T {
        condition.lock()
        defer { condition.unlock() }
        while stored == nil { condition.wait() }
        return stored!
    }
}
