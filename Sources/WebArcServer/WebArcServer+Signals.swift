import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension WebArcServer {
    /// Stops the server cleanly when the process receives one of `signals` (SIGINT and SIGTERM by
    /// default), and returns once the handlers are in place, so that a signal sent after it
    /// returns is never lost.
    ///
    /// - Returns: the signal sources; keep them alive for as long as the server runs.
    public func stopOnSignals(_ signals: [Int32] = [SIGINT, SIGTERM]) async -> [any DispatchSourceSignal] {
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            #if canImport(Darwin)
            // Darwin delivers signal sources through kqueue, below signal(3): the default action
            // must be switched off. Linux's libdispatch takes the signal over itself.
            signal(number, SIG_IGN)
            #endif
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { Task { await self.stop() } }
            await withCheckedContinuation { (registered: CheckedContinuation<Void, Never>) in
                source.setRegistrationHandler { registered.resume() }
                source.resume()
            }
            sources.append(source)
        }
        return sources
    }
}
