import Dispatch
import WebArc

/// Replacing the archives while serving: a remote archive replaced at its URL (a publisher's new
/// release on the CDN) fails every read of the old version, which must never be mixed with the
/// new, and so does a local file rewritten in place; the server reopens the archives and answers
/// from the new version instead of failing until it is restarted. A file renamed over (a kiosk's
/// `webarc apply -o site.webarc`) is reopened when a check or SIGHUP asks
/// (``reopenArchives(seen:now:)``).
extension ArchiveResponder {
    /// How long a reload that failed keeps the next ones from trying.
    static let retryAfterRefusal: Duration = .seconds(5)

    /// How many times the archives were replaced; a request notes it before it reads.
    public var generation: Int { versions.generation }

    /// Reopens the archives after `error` when the reload recognises it, or when an archive read
    /// from a file is no longer the file at its path (``ArchiveSet/replacedFile``: rewritten in
    /// place, its reads fail), and nothing replaced them since generation `seen`; drops every
    /// cached target and body of the old set. After a reopening that failed, not again for
    /// 5 seconds.
    ///
    /// Requests that fail together wait for one reload. Call it off the event loops: reopening
    /// reads the network.
    ///
    /// - Returns: whether the archives in use are newer than `seen` now (the request may be tried again).
    @discardableResult
    public func reloadAfter(_ error: any Error, seen: Int) -> Bool {
        if reload != nil, archives.replacedFile != nil { return reopenArchives(seen: seen) }
        return versions.reloadAfter(error, seen: seen, replacing: dropCaches)
    }

    /// Reopens the archives with the reload unless something replaced them since generation
    /// `seen`: a check found one replaced at its origin, or an operator asked (SIGHUP). After a
    /// reopening that failed, not again for 5 seconds unless `now` (an operator's
    /// request is always tried).
    ///
    /// - Returns: whether the archives in use are newer than `seen` now; false without a reload.
    @discardableResult
    public func reopenArchives(seen: Int, now: Bool = false) -> Bool {
        guard reload != nil else { return false }
        return versions.reopenArchives(seen: seen, now: now, replacing: dropCaches)
    }

    /// Forgets every resolved target and body of the archives being replaced.
    private func dropCaches() {
        resources.withLock { $0 = LRUCache(capacity: $0.capacity) }
        bodies.removeAll()
    }

    /// ``reloadAfter(_:seen:)`` on another thread, for a failure seen on an event loop (a body that
    /// failed to stream), so that the next request is answered from the reopened archives.
    func reloadLater(after error: any Error) {
        guard reload != nil else { return }
        let seen = generation
        DispatchQueue.global(qos: .userInitiated).async { self.reloadAfter(error, seen: seen) }
    }

    /// The reader of archive `index` in the set in use: a body found before a reload may be read
    /// after it (same content, by digest) or fail, never come from another position.
    ///
    /// - Throws: ``WebArcError/bodyNotFound(body:page:)`` when the set in use has no such archive.
    func reader(_ index: Int, for reference: BodyReference) throws -> ArchiveReader {
        let readers = archives.readers
        guard readers.indices.contains(index) else { throw WebArcError.bodyNotFound(body: reference, page: nil) }
        return readers[index]
    }
}
