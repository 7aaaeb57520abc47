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
            sources.append(await Self.handle(number, on: .global()) { Task { await self.stop() } })
        }
        return sources
    }

    /// Reopens the archives when the process receives `signal` (SIGHUP by default), as
    /// `nginx -s reload` does: a kiosk that applied an update over the archive it serves says so
    /// at once instead of waiting for the next check. Does nothing without a
    /// ``Configuration/reload``. Returns once the handler is in place.
    ///
    /// - Returns: the signal source; keep it alive for as long as the server runs.
    public func reopenOnSignal(_ signal: Int32 = SIGHUP) async -> any DispatchSourceSignal {
        let queue = DispatchQueue(label: "webarc.serve.reopen", qos: .userInitiated)
        return await Self.handle(signal, on: queue) { [responder] in
            responder.reopenArchives(seen: responder.generation, now: true)
        }
    }

    /// A running source calling `handler` on `queue` for each `number` received, in place (its
    /// registration done) when this returns.
    private static func handle(
        _ number: Int32, on queue: DispatchQueue, _ handler: @escaping @Sendable () -> Void
    ) async
        -> any DispatchSourceSignal
    {
        #if canImport(Darwin)
        // Darwin delivers signal sources through kqueue, below signal(3): the default action
        // must be switched off. Linux's libdispatch takes the signal over itself.
        signal(number, SIG_IGN)
        #endif
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler(handler: handler)
        await withCheckedContinuation { (registered: CheckedContinuation<Void, Never>) in
            source.setRegistrationHandler { registered.resume() }
            source.resume()
        }
        return source
    }
}
