import NIOCore
import Synchronization

/// The open connections of a server, so that a stop can ask each to finish and wait for them.
///
/// A stop sends every connection NIO's `ChannelShouldQuiesceEvent`: ``ArchiveHTTPHandler``
/// closes an idle connection at once and a busy one after the response it is writing.
final class ConnectionTracker: Sendable {
    private struct State {
        var open: [ObjectIdentifier: any Channel] = [:]
        var stopping = false
    }

    private let state = Mutex(State())

    /// Starts tracking `channel` until it closes; a connection accepted during a stop is closed.
    func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let accepted = state.withLock { state in
            if !state.stopping { state.open[id] = channel }
            return !state.stopping
        }
        guard accepted else {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { [self] _ in _ = state.withLock { $0.open.removeValue(forKey: id) } }
    }

    /// Asks every open connection to finish; returns a future that completes when all have closed.
    func quiesce(on loop: any EventLoop) -> EventLoopFuture<Void> {
        let channels = state.withLock { state in
            state.stopping = true
            return Array(state.open.values)
        }
        for channel in channels {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        return EventLoopFuture.andAllComplete(channels.map(\.closeFuture), on: loop)
    }

    /// Closes every connection still open (after the grace period); completes when all have closed.
    func closeAll(on loop: any EventLoop) -> EventLoopFuture<Void> {
        let channels = state.withLock { Array($0.open.values) }
        for channel in channels { channel.close(promise: nil) }
        return EventLoopFuture.andAllComplete(channels.map(\.closeFuture), on: loop)
    }
}
