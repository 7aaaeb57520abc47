import Foundation
import WebArc
import WebArcReplay

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ArchiveURLProtocol {
    /// What happens to a request the archives do not hold.
    public enum MissPolicy: Equatable, Sendable {
        /// The request goes to the network as if the handler were not there.
        case passThrough
        /// The request fails with `URLError(.resourceUnavailable)` naming the URL, the way an
        /// offline cache answers; nothing reaches the network.
        case offline
    }

    /// The archives and miss policy of one handler class.
    struct Setup: Sendable {
        var archives: [ArchiveReader]
        var onMiss: MissPolicy
        /// The cache of a handler serving a bundle with a writable layer; its layer's current
        /// file goes before the bundle in ``archives`` (see ``current``).
        var cache: ArchiveCache? = nil
        /// Where the archives come from when served with ``serve(opening:trusting:onMiss:recheckingOrigins:retryAfterFailure:)``:
        /// opened again when a read finds them replaced at their source; nil for fixed archives.
        var reloadable: ReloadableArchives<[ArchiveReader]>? = nil
        /// The generation of ``reloadable`` that ``archives`` are (see ``current``).
        var generation = 0
        /// How often a request has the origins of ``reloadable``'s remote archives asked whether
        /// they changed (``WebArcReplay/ReloadableArchives/recheckOrigins(every:seen:)``); nil: never.
        var originRecheck: Duration? = nil

        /// These settings with the archives in use now: the reopened ones when ``reloadable``
        /// replaced them, or the cache's current layer file in front.
        var current: Setup {
            var setup = self
            if let reloadable { (setup.archives, setup.generation) = reloadable.current }
            if let cache { setup.archives = cache.archives }
            return setup
        }

        /// The replay engine's walker over the archives; `webarc:` URLs are looked up as webarc,
        /// https, then http (``WebArcScheme``).
        var chain: RedirectChain {
            var chain = RedirectChain(archives: ReplayArchives(readers: archives))
            chain.candidates = { WebArcScheme.candidates(for: $0) }
            return chain
        }
    }

    static let setups = ProtocolRegistry<Setup>()

    /// Serves `archives` through this class, replacing what it served before.
    ///
    /// - Parameters:
    ///   - archives: looked up in order; the first that holds a URL answers it.
    ///   - onMiss: what happens to requests none of them holds.
    public class func serve(_ archives: [ArchiveReader], onMiss: MissPolicy = .offline) {
        setups.set(Setup(archives: archives, onMiss: onMiss), for: self)
    }

    /// Serves a layer stack through this class: an update over the archives it was made over
    /// (spec §13), so URLs it deletes are not found and its bodies are read across layers.
    /// ```swift
    /// let stack = try LayerStack([try ArchiveReader(path: "update.webarc"), try ArchiveReader(path: "site.webarc")])
    /// ArchiveURLProtocol.serve(stack)
    /// ```
    public class func serve(_ stack: LayerStack, onMiss: MissPolicy = .offline) {
        serve(stack.layers, onMiss: onMiss)
    }

    /// Serves one archive through this class, replacing what it served before.
    public class func serve(_ archive: ArchiveReader, onMiss: MissPolicy = .offline) {
        serve([archive], onMiss: onMiss)
    }

    /// Serves `archives` through this class once `policy` trusts each of them; nothing is served
    /// from an archive the policy refuses.
    ///
    /// The check runs here, before the handler answers anything: every archive must carry a
    /// valid, unexpired signature by a trusted key (spec §12.4). The policy's rollback state
    /// applies to the first archive, the newest release (the others may be older bases).
    /// ```swift
    /// let policy = TrustPolicy(trusting: [try PublicKey(contentsOf: "publisher.pub")])
    /// try ArchiveURLProtocol.serve([try ArchiveReader(path: "site.webarc")], trusting: policy)
    /// ```
    /// - Throws: the first refusal as a `WebArcError` (`unsigned`, `untrustedKey`,
    ///   `badSignature`, `expired`, `rolledBack`, `badAppendix`, `badRollbackState`, `io`); what
    ///   this class served before then stays as it was.
    public class func serve(
        _ archives: [ArchiveReader], trusting policy: TrustPolicy, onMiss: MissPolicy = .offline, now: Date = Date()
    ) throws {
        try check(archives, trusting: policy, now: now)
        serve(archives, onMiss: onMiss)
    }

    /// Checks that `policy` trusts each of `archives`, the first with its rollback state.
    static func check(_ archives: [ArchiveReader], trusting policy: TrustPolicy, now: Date = Date()) throws {
        for (index, archive) in archives.enumerated() {
            _ = try archive.checkTrust(index == 0 ? policy : policy.withoutRollbackState, now: now)
        }
    }

    /// Stops serving: this class then declines every request (they go to the network).
    public class func stopServing() {
        setups.set(nil, for: self)
    }
}
