import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a program printed and how it ended.
public struct ProgramResult: Sendable {
    /// The exit status; -1 when the run outlived its timeout and was killed.
    public var status: Int32
    /// Everything it wrote on stdout (and on stderr too, in order, when the run merged them).
    public var stdout: Data
    /// Everything it wrote on stderr, decoded as UTF-8; empty when the run merged it into stdout.
    public var stderr: String

    /// stdout decoded as UTF-8.
    public var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// The `webarc` binary the tests run: `WEBARC_BIN` when set, else the `webarc` built beside the
/// test bundle (in its folder or up to three above it); nil when there is none.
public let builtWebarc: String? = {
    if let path = ProcessInfo.processInfo.environment["WEBARC_BIN"], !path.isEmpty { return path }
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = folder.appendingPathComponent("webarc").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        folder = folder.deletingLastPathComponent()
    }
    return nil
}()

/// Runs `executable` with `arguments` to its end and returns what it printed; stdout and stderr
/// are read at the same time, so a program that fills one pipe while the other is read cannot
/// stall the test.
///
/// - Parameters:
///   - directory: the working directory; nil keeps the test's.
///   - environment: the program's whole environment; nil inherits the test's.
///   - mergingErrors: stderr goes into the stdout pipe, interleaved as written.
///   - timeout: seconds after which a run still going is killed (`SIGKILL`) and reported with
///     status -1, so that a hang fails the test instead of stalling the suite; nil waits.
/// - Throws: what `Process.run()` throws when the program cannot be started.
public func runProgram(
    _ executable: String, _ arguments: [String], in directory: String? = nil, environment: [String: String]? = nil,
    mergingErrors: Bool = false, timeout: Double? = nil
) throws -> ProgramResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = mergingErrors ? out : err
    try process.run()
    let watchdog = DispatchWorkItem { [process] in
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    if let timeout { DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog) }
    defer { watchdog.cancel() }
    let errors = PipeContents()
    if mergingErrors {
        errors.set(Data())
    } else {
        Thread.detachNewThread { errors.set(err.fileHandleForReading.readDataToEndOfFile()) }
    }
    let output = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let killed = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
    return ProgramResult(
        status: killed && timeout != nil ? -1 : process.terminationStatus, stdout: output,
        stderr: String(decoding: errors.value, as: UTF8.self))
}

/// The bytes another thread reads from a pipe; ``value`` waits for the pipe's end.
private final class PipeContents: @unchecked Sendable {
    private var stored: Data?
    private let condition = NSCondition()

    func set(_ data: Data) {
        condition.lock()
        stored = data
        condition.broadcast()
        condition.unlock()
    }

    var value: Data {
        condition.lock()
        defer { condition.unlock() }
        while stored == nil { condition.wait() }
        return stored!
    }
}
