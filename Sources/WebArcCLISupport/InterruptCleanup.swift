import Dispatch
import Foundation
import WebArc

/// Removes the temporary files of an interrupted command: on SIGINT, SIGTERM or SIGHUP every file
/// in ``PendingOutputs`` is unlinked and the process exits 128 + the signal number, as a shell
/// reports a process killed by that signal. `serve` handles its own signals and does not use this.
package enum InterruptCleanup {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Installs the handlers once, before any output is created.
    package static func install() {
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                PendingOutputs.removeAll()
                Output.error("webarc: interrupted; temporary files removed")
                Foundation.exit(128 + signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }
}
