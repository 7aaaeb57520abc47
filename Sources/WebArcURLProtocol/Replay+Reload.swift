import WebArc

extension Replay {
    /// After `error`, the replay that answers again from the archives reopened because `error`
    /// says they were replaced at their source (archives served with
    /// ``ArchiveURLProtocol/serve(opening:trusting:onMiss:recheckingOrigins:retryAfterFailure:)``); nil when it does not say so, the
    /// reopening failed (or waits after a failure), or this replay is already the second answer.
    ///
    /// The new replay holds the new archives and their generation together, so that it never
    /// reads the old ones. Reopening blocks on the opener: call it from a worker thread.
    func reopened(after error: any Error) -> Replay? {
        guard let setup, let reloadable = setup.reloadable,
            reloadable.reloadAfter(error, seen: setup.generation), !retried
        else { return nil }
        var again = self
        again.setup = setup.current
        again.retried = true
        return again
    }

    /// This replay over archives reopened first, when one of the archives was read from a file
    /// that its path no longer names (an app's update renamed over it, or rewritten in place:
    /// ``WebArc/ArchiveReader/isReplacedAtPath``, a `stat` per file) and reopening worked; nil
    /// otherwise. Only for archives served with ``ArchiveURLProtocol/serve(opening:trusting:onMiss:recheckingOrigins:retryAfterFailure:)``.
    func reopenedForReplacedFiles() -> Replay? {
        guard !refreshed, let setup, let reloadable = setup.reloadable,
            setup.archives.contains(where: \.isReplacedAtPath),
            reloadable.reopenArchives(seen: setup.generation)
        else { return nil }
        var again = self
        again.setup = setup.current
        again.refreshed = true
        return again
    }
}
