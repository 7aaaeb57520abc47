import Foundation
import WebArcCLISupport

#if canImport(Glibc)
import Glibc
#endif

/// Runs a binary built and installed alongside `webarc` in place of this process.
enum CompanionBinary {
    /// Replaces this process with `name`, found in the folder of the running executable or else on
    /// `PATH`, passing `arguments` unchanged.
    ///
    /// - Throws: ``CommandFailure`` (exit 1) naming where it looked when `name` is in neither
    ///   place, or naming the binary and the reason when it is found but cannot be run.
    static func exec(_ name: String, arguments: [String]) throws -> Never {
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
        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        execv(binary, argv)
        throw CommandFailure("cannot run \(binary): \(String(cString: strerror(errno)))", code: ExitCodes.failure)
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
