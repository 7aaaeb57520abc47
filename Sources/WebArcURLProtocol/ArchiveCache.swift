import Foundation
import Synchronization
import WebArc

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A handler's cache: its policy, its writable layer over the shipped bundle, and the background
/// refreshes in flight.
/// ``ArchiveURLProtocol/serve(bundle:layer:policy:configuration:)-(LayerStack,_,_,_)`` returns it.
///
/// ```swift
/// let cache = ArchiveURLProtocol.serve(bundle: try LayerStack([try ArchiveReader(path: bundlePath)]), layer: layerPath, policy: .cacheFirst(maxAge: 2 * 86_400))
/// if let discarded = cache.discardedLayer { log(discarded.description) }
/// await cache.settle()   // before suspending the app: refreshes done, layer written
/// ```
public final class ArchiveCache: Sendable {
    /// Counts of what the cache did with the network and its layer since it was set up.
    public struct Statistics: Equatable, Sendable {
        /// Requests sent to the network (live answers, revalidations, background refreshes).
        public var liveRequests = 0
        /// Of those, how many the origin answered 304.
        public var notModified = 0
        /// Answers given from the archive because the network failed or answered 5xx.
        public var fallbacks = 0
        /// Background refreshes started (at most one per URL at a time).
        public var backgroundRefreshes = 0
    }

    /// The policy requests are answered under.
    public let policy: ArchiveURLProtocol.CachePolicy
    let layer: WritableLayer
    let network: LiveSession
    private let counts = Mutex(Statistics())
    private let refreshes = Mutex(Refreshes())

    /// The background refreshes in flight, and when each URL's last one failed.
    private struct Refreshes {
        var running: [String: Task<Void, Never>] = [:]
        var failed: [String: Date] = [:]
    }

    init(policy: ArchiveURLProtocol.CachePolicy, layer: WritableLayer, network: LiveSession) {
        self.policy = policy
        self.layer = layer
        self.network = network
    }

    /// The path of the writable layer.
    public var layerPath: String { layer.path }

    /// Why an existing layer file was discarded at setup (not an update over this bundle, or
    /// unreadable: ``WebArcURLProtocolError/staleLayer(path:error:)``); nil when none was.
    public var discardedLayer: WebArcURLProtocolError? { layer.discarded }

    /// The last layer rewrite's failure (``WebArcURLProtocolError/layerWrite(path:error:)``),
    /// while the last rewrite failed; the previous layer file then stays as it was.
    public var lastWriteError: WebArcURLProtocolError? { layer.lastError }

    /// How many times the layer file was rewritten since setup.
    public var layerWrites: Int { layer.writes }

    /// What the cache did so far.
    public var statistics: Statistics { counts.withLock { $0 } }

    /// Returns once no background refresh is in flight and every response received so far is in
    /// the layer file: call it before the app is suspended, or in tests.
    public func settle() async {
        while let running = refreshes.withLock({ $0.running.values.first }) { await running.value }
        await layer.flush()
    }

    /// The archives to answer from, top first: the layer, then the bundle.
    var archives: [ArchiveReader] { layer.layers }

    func count(_ change: (inout Statistics) -> Void) { counts.withLock { change(&$0) } }

    /// How long a URL whose background refresh failed (no answer, or a status not stored) is
    /// left alone before the next request may refresh it again: offline, every page view would
    /// otherwise start a refresh doomed to fail.
    static let retryDelay: TimeInterval = 60

    /// Runs `refresh` in the background for `key` unless a refresh of `key` is in flight, or
    /// failed less than ``retryDelay`` ago. The key stays taken until `refresh` returns (after
    /// its entries are in the layer file), so requests that arrive meanwhile never start a
    /// second one. `refresh` returns whether it succeeded.
    func refreshInBackground(key: String, now: Date = Date(), _ refresh: @escaping @Sendable () async -> Bool) {
        refreshes.withLock { state in
            guard state.running[key] == nil else { return }
            if let failed = state.failed[key], now.timeIntervalSince(failed) < Self.retryDelay { return }
            count { $0.backgroundRefreshes += 1 }
            state.running[key] = Task {
                let succeeded = await refresh()
                refreshes.withLock { state in
                    state.running[key] = nil
                    state.failed[key] = succeeded ? nil : Date()
                }
            }
        }
    }
}
