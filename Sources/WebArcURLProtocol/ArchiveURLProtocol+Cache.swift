import Foundation
import WebArc

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ArchiveURLProtocol {
    /// Serves a shipped bundle as a cache under `policy`: what the network answers is stored in a
    /// writable layer file at `layer`, read before the bundle and never written into it.
    ///
    /// ```swift
    /// let bundle = try LayerStack([try ArchiveReader(path: Bundle.main.path(forResource: "site", ofType: "webarc")!)])
    /// let cache = ArchiveURLProtocol.serve(bundle: bundle, layer: cachesFolder + "/site-fresh.webarc", policy: .cacheFirst(maxAge: 2 * 86_400))
    /// ArchiveURLProtocol.install(in: configuration)
    /// ```
    ///
    /// The layer is an update archive over the bundle (spec §13): bodies equal to the bundle's
    /// are not stored again, and it is rewritten atomically (temporary file, sync, rename) after
    /// new responses arrive, one rewrite at a time, so it survives restarts. An existing layer
    /// file that is not an update over this bundle (a new bundle shipped) or cannot be read is
    /// deleted at setup and the reason is in ``ArchiveCache/discardedLayer``; serving goes on
    /// from the bundle. The bundle's bytes are only ever read, so its signature stays valid;
    /// check it first with `bundle.checkTrust(_:)` to refuse a tampered one.
    ///
    /// - Parameters:
    ///   - bundle: the shipped archive (or stack of an update over it), top first.
    ///   - layer: where the writable layer lives (a file the app owns, in a writable folder).
    ///   - policy: how requests choose between the archive and the network.
    ///   - configuration: the settings of the session that goes to the network (timeouts,
    ///     headers); its protocol classes are stripped of webarc handlers.
    /// - Returns: the cache, to wait for background work (``ArchiveCache/settle()``) or read what
    ///   it did; serving replaces what this class served before.
    @discardableResult
    public class func serve(
        bundle: LayerStack, layer: String, policy: CachePolicy, configuration: URLSessionConfiguration = .ephemeral
    ) -> ArchiveCache {
        serve(layers: bundle.layers, layer: layer, policy: policy, configuration: configuration)
    }

    /// Serves one shipped archive as a cache under `policy`; see
    /// ``serve(bundle:layer:policy:configuration:)-(LayerStack,_,_,_)``.
    @discardableResult
    public class func serve(
        bundle: ArchiveReader, layer: String, policy: CachePolicy, configuration: URLSessionConfiguration = .ephemeral
    ) -> ArchiveCache {
        serve(layers: [bundle], layer: layer, policy: policy, configuration: configuration)
    }

    private class func serve(
        layers: [ArchiveReader], layer: String, policy: CachePolicy, configuration: URLSessionConfiguration
    ) -> ArchiveCache {
        let cache = ArchiveCache(
            policy: policy, layer: WritableLayer(path: layer, bundle: layers),
            network: LiveSession(configuration: configuration))
        setups.set(Setup(archives: layers, onMiss: .offline, cache: cache), for: self)
        return cache
    }
}
