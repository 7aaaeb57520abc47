import Dispatch
import Foundation
import Synchronization
import WebArc

/// Removes the temporary files of an interrupted command: on SIGINT, SIGTERM or SIGHUP every file
/// in ``PendingOutputs`` is unlinked and the process exits 128 + the signal number, as a shell
/// reports a process killed by that signal. `serve` handles its own signals and does not use this.
/// While a child process does the work (``forward(to:)``), a signal goes to the child instead,
/// which removes its own temporaries and exits; the parent then exits as the child did.
package enum InterruptCleanup {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    /// The child signals go to (0: none, this process handles them; -1: one is starting) and
    /// the signal that came while it started.
    private static let child = Mutex<(pid: pid_t, held: Int32)>((0, 0))

    /// Installs the handlers once, before any output is created.
    package static func install() {
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                let forwarded = child.withLock { child in
                    if child.pid > 0 {
                        kill(child.pid, signalNumber)
                    } else if child.pid < 0 {
                        child.held = signalNumber
                    }
                    return child.pid != 0
                }
                if forwarded { return }
                PendingOutputs.removeAll()
                Output.error("webarc: interrupted; temporary files removed")
                Foundation.exit(128 + signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Holds the signals that come from now on for the child about to start (``forward(to:)``
    /// then delivers one), so that none ends this process while the child runs on alone.
    package static func holdForChild() {
        child.withLock { $0 = (-1, 0) }
    }

    /// Sends every signal from now on to `pid`, and the one held since ``holdForChild()`` if any;
    /// a `pid` of 0 (the child did not start) gives them back to this process, which then
    /// handles the held one as usual.
    package static func forward(to pid: pid_t) {
        let held = child.withLock { child in
            defer { child = (pid, 0) }
            return child.held
        }
        guard held != 0 else { return }
        if pid > 0 { kill(pid, held) } else { kill(getpid(), held) }
    }
}
