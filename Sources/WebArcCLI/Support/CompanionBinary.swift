import Foundation
import WebArc
import WebArcCLISupport

#if canImport(Glibc)
import Glibc
#endif

/// Runs a binary built and installed alongside `webarc`: in place of this process (``exec(_:arguments:)``),
/// or as a child whose end this process reports (``run(_:arguments:output:)``).
enum CompanionBinary {
    /// Replaces this process with `name`, found in the folder of the running executable or else on
    /// `PATH`, passing `arguments` unchanged.
    ///
    /// - Throws: ``CommandFailure`` (exit 1) naming where it looked when `name` is in neither
    ///   place, or naming the binary and the reason when it is found but cannot be run.
    static func exec(_ name: String, arguments: [String]) throws -> Never {
        let binary = try locate(name)
        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        execv(binary, argv)
        throw CommandFailure("cannot run \(binary): \(String(cString: strerror(errno)))", code: ExitCodes.failure)
    }

    /// How a child ended.
    enum Termination: Equatable {
        /// It exited with this status.
        case exited(Int32)
        /// This signal stopped it.
        case signaled(Int32)
    }

    /// Runs `name` (found as ``exec(_:arguments:)`` finds it) as a child with `arguments`, sharing
    /// this process's standard input, output and error, and waits for it; SIGINT, SIGTERM and
    /// SIGHUP sent to this process go to the child (``InterruptCleanup/forward(to:)``), which
    /// removes its temporaries itself; what it left beside `output` when a signal stopped it is
    /// removed here (``OutputFile/removeTemporaries(ofProcess:beside:)``), `output` itself never. The child's crash report is off unless `SWIFT_BACKTRACE` says otherwise, so that a
    /// crash reads as the one line the caller makes of ``Termination/signaled(_:)``.
    ///
    /// - Throws: ``CommandFailure`` (exit 1) when `name` is not found or cannot be started.
    static func run(_ name: String, arguments: [String], output: String) throws -> Termination {
        let binary = try locate(name)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // This process ignores the signals InterruptCleanup handles, which a child would inherit.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signalNumber) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var environment = ProcessInfo.processInfo.environment
        if environment["SWIFT_BACKTRACE"] == nil { environment["SWIFT_BACKTRACE"] = "enable=no" }
        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        InterruptCleanup.holdForChild()
        let started = posix_spawn(&pid, binary, nil, &attributes, argv, envp)
        InterruptCleanup.forward(to: started == 0 ? pid : 0)
        guard started == 0 else {
            throw CommandFailure("cannot run \(binary): \(String(cString: strerror(started)))", code: ExitCodes.failure)
        }
        // Wait without reaping first: until it is reaped, no other process can take its PID, by
        // which its temporaries are named.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        // From here a signal waits until the child is reaped, then ends this process as usual.
        InterruptCleanup.holdForChild()
        defer { InterruptCleanup.forward(to: 0) }
        // A child that ended on its own removed its temporaries; one a signal stopped could not.
        OutputFile.removeTemporaries(ofProcess: pid, beside: output)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw CommandFailure(
                    "cannot wait for \(binary): \(String(cString: strerror(errno)))", code: ExitCodes.failure)
            }
        }
        // Bits 0-6: the signal that stopped it, 0 when it exited; bits 8-15: its exit status.
        return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
    }

    /// Whether `signal` is one a process gets from its own fault (a bad access, a trap, an abort)
    /// rather than from another process.
    static func isFault(_ signal: Int32) -> Bool {
        [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS].contains(signal)
    }

    /// `signal 11, SIGSEGV`.
    static func describe(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGFPE: "SIGFPE", SIGABRT: "SIGABRT",
            SIGTRAP: "SIGTRAP", SIGSYS: "SIGSYS", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGINT: "SIGINT",
            SIGHUP: "SIGHUP", SIGPIPE: "SIGPIPE", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ",
        ]
        return "signal \(signal)" + (names[signal].map { ", " + $0 } ?? "")
    }

    /// The path of `name` in the folder of the running executable, else on `PATH`.
    ///
    /// - Throws: ``CommandFailure`` (exit 1) naming where it looked.
    private static func locate(_ name: String) throws -> String {
        let folder = executableFolder()
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders =
            [folder].compactMap { $0 }
            + path.split(separator: ":", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "." : String($0) }
        guard let binary = folders.map({ $0 + "/" + name }).first(where: { access($0, X_OK) == 0 }) else {
            let here = folder.map { "in \($0) (next to webarc) nor " } ?? ""
            throw CommandFailure(
                "\(name) not found \(here)on PATH (\(path)): it is built with webarc (swift build --product \(name)); install it beside webarc",
                code: ExitCodes.failure)
        }
        return binary
    }

    /// The folder of the running executable, symbolic links resolved.
    private static func executableFolder() -> String? {
        #if os(Linux)
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return nil
        }
        #else
        guard let path = Bundle.main.executableURL?.resolvingSymlinksInPath().path else { return nil }
        #endif
        return (path as NSString).deletingLastPathComponent
    }
}
