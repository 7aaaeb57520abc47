import Foundation
import WebArc
import WebArcReplay

extension ArchiveURLProtocol {
    /// Serves the archives `open` returns through this class, and opens them again when a read
    /// finds them replaced at their source (a publisher's new release at a remote archive's URL).
    ///
    /// ```swift
    /// let url = "https://cdn.example.com/site.webarc"
    /// try ArchiveURLProtocol.serve(opening: { [try ArchiveReader(url: url)] }, trusting: policy)
    /// ```
    ///
    /// `open` runs once now. When a read fails with a `SourceChanged` error saying so (a
    /// remote archive's `RemoteError.changed`: its file is another version than the one opened),
    /// `open` runs again on that request's worker thread, its archives are checked against
    /// `policy` as the first ones were, and they replace the old ones for every request. The
    /// request is then answered again from them, once, when nothing of its answer was sent; other
    /// requests failing meanwhile wait for the same reopening. A request reads one set of
    /// archives only: a body whose first bytes came from the old version fails rather than go on
    /// from the new one. A reopening that throws (the new version does not open, or is not
    /// trusted) keeps the old archives, the request fails with the read's error as before (the
    /// reason is in ``reopenFailure``), and none is tried again for `retryAfterFailure`.
    ///
    /// An archive read from a file is reopened before a request when its path names another file
    /// than the one opened (an app's update renamed over it, or a copy over it in place; a `stat`
    /// per file and request). Over the network, a read that fails sees a change at once; and at
    /// most once per `recheck`, a request has each remote archive's origin asked in the background
    /// (one request for its last byte, with `If-Match`) whether it still holds the version opened,
    /// so that an app whose pages are all cached still moves to a new release: the requests after
    /// the reopening are answered from it.
    ///
    /// - Parameters:
    ///   - open: opens the archives, top first (an update before the base it updates).
    ///   - policy: when given, each archive must carry a valid signature by one of its keys (see
    ///     ``serve(_:trusting:onMiss:now:)``), at first and after each reopening.
    ///   - onMiss: what happens to requests none of them holds.
    ///   - recheck: how often remote archives' origins are asked whether they changed (nil: only
    ///     when a read fails); `webarc serve`'s default for URLs.
    ///   - retryAfterFailure: how long after a failed reopening no request tries another (each
    ///     would otherwise wait for the network again).
    /// - Throws: what `open` throws, and a refusal of `policy` as a `WebArcError`; what this
    ///   class served before then stays as it was.
    public class func serve(
        opening open: @escaping @Sendable () throws -> [ArchiveReader], trusting policy: TrustPolicy? = nil,
        onMiss: MissPolicy = .offline, recheckingOrigins recheck: Duration? = .seconds(60),
        retryAfterFailure: Duration = .seconds(5)
    ) throws {
        let opening: @Sendable () throws -> [ArchiveReader] = {
            let archives = try open()
            if let policy { try check(archives, trusting: policy) }
            return archives
        }
        let archives = try opening()
        let reloadable = ReloadableArchives(archives, retryAfterFailure: retryAfterFailure, reopen: opening)
        setups.set(Setup(archives: archives, onMiss: onMiss, reloadable: reloadable, originRecheck: recheck), for: self)
    }

    /// Why the last reopening of the archives served with ``serve(opening:trusting:onMiss:recheckingOrigins:retryAfterFailure:)``
    /// failed (what the opener threw, or the trust policy's refusal), until one succeeds; nil when
    /// none failed.
    public class var reopenFailure: (any Error)? {
        setups.settings(for: self)?.reloadable?.lastFailure
    }
}
