import Dispatch
import Synchronization
import WebArc

/// The archives a front end answers from, opened again when a read finds them replaced at their
/// source (a publisher's new release at a remote archive's URL); `webarc serve` and the URL
/// protocol share it.
///
/// ```swift
/// let archives = ReloadableArchives([try ArchiveReader(url: url)], reopen: { [try ArchiveReader(url: url)] })
/// let (readers, generation) = archives.current
/// do { try answer(from: readers) } catch where archives.reloadAfter(error, seen: generation) { try answer(from: archives.current.archives) }
/// ```
///
/// A request takes the archives and their generation together and reads only those, so the old
/// version is never mixed with the new: a read of a replaced archive fails, and the request may
/// start again from the reopened archives. Requests that fail together reopen them once. A
/// reopening that fails (the new version does not open, or is not trusted) keeps the archives in
/// use and is not tried again for ``retryAfterFailure``: every request would otherwise wait for it.
public final class ReloadableArchives<Archives: Sendable>: Sendable {
    /// Whether a read error means the archives changed at their source.
    public let recognises: @Sendable (any Error) -> Bool
    /// How long a failed reopening keeps the next ones from trying.
    public let retryAfterFailure: Duration
    private let reopen: @Sendable () throws -> Archives
    /// The time now (a test's clock moves only when told).
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let state: Mutex<(archives: Archives, generation: Int)>
    /// Held while reopening, so that requests failing together reopen once; holds when the last
    /// reopening failed, and why.
    private let reloading = Mutex<(at: ContinuousClock.Instant, error: any Error)?>(nil)
    /// When the sources were last asked whether they changed (``recheckOrigins(every:seen:)``).
    private let lastOriginCheck: Mutex<ContinuousClock.Instant>

    /// Answers from `archives` until a read error that `recognises` accepts; then from what
    /// `reopen` returns.
    ///
    /// - Parameters:
    ///   - recognises: whether a read error means the archives changed; by default a
    ///     ``WebArc/SourceChanged`` error saying so.
    ///   - retryAfterFailure: how long a failed reopening keeps the next ones from trying.
    ///   - reopen: opens the archives again (and checks them, as they were checked at first);
    ///     throws when the new version is not to be served.
    public convenience init(
        _ archives: Archives,
        recognises: @escaping @Sendable (any Error) -> Bool = { ($0 as? any SourceChanged)?.sourceChanged == true },
        retryAfterFailure: Duration = .seconds(5), reopen: @escaping @Sendable () throws -> Archives
    ) {
        self.init(
            archives, recognises: recognises, retryAfterFailure: retryAfterFailure, clock: { ContinuousClock.now },
            reopen: reopen)
    }

    /// As the public initializer, reading the time from `clock`: a test seam, so that a test moves
    /// past ``retryAfterFailure`` without waiting for it.
    package init(
        _ archives: Archives, recognises: @escaping @Sendable (any Error) -> Bool, retryAfterFailure: Duration,
        clock: @escaping @Sendable () -> ContinuousClock.Instant, reopen: @escaping @Sendable () throws -> Archives
    ) {
        state = Mutex((archives, 0))
        self.recognises = recognises
        self.retryAfterFailure = retryAfterFailure
        self.reopen = reopen
        self.clock = clock
        lastOriginCheck = Mutex(clock())
    }

    /// The archives in use and how many times they were replaced, read together: a request reads
    /// only these archives and passes the generation to ``reloadAfter(_:seen:replacing:)``.
    public var current: (archives: Archives, generation: Int) { state.withLock { $0 } }

    /// The archives in use.
    public var archives: Archives { current.archives }

    /// How many times the archives were replaced.
    public var generation: Int { current.generation }

    /// Why the last reopening failed, until one succeeds; nil when none failed.
    public var lastFailure: (any Error)? { reloading.withLock { $0?.error } }

    /// Reopens the archives after `error` when ``recognises`` accepts it and nothing replaced them
    /// since generation `seen`; after a reopening that failed, not again for ``retryAfterFailure``.
    ///
    /// Blocks while the archives reopen (which may read the network): call it off event loops.
    ///
    /// - Parameters:
    ///   - replacing: called with the lock held just before the new archives are put in use (a
    ///     front end drops what it cached of the old ones).
    /// - Returns: whether the archives in use are newer than `seen` now: the request may start again.
    @discardableResult
    public func reloadAfter(_ error: any Error, seen: Int, replacing: () -> Void = {}) -> Bool {
        guard recognises(error) else { return false }
        return reopenArchives(seen: seen, replacing: replacing)
    }

    /// Reopens the archives without a read error to go by, unless something replaced them since
    /// generation `seen`: a check found one replaced at its source, or an operator asked (SIGHUP).
    /// After a reopening that failed, not again for ``retryAfterFailure`` unless `now` (an
    /// operator's request is always tried).
    ///
    /// - Parameters:
    ///   - replacing: as for ``reloadAfter(_:seen:replacing:)``.
    /// - Returns: whether the archives in use are newer than `seen` now.
    @discardableResult
    public func reopenArchives(seen: Int, now: Bool = false, replacing: () -> Void = {}) -> Bool {
        reloading.withLock { failure in
            if generation != seen { return true }
            if !now, let failure, clock() - failure.at < retryAfterFailure { return false }
            do {
                let replacement = try reopen()
                failure = nil
                replacing()
                state.withLock { $0 = (replacement, $0.generation + 1) }
                return true
            } catch {
                failure = (clock(), error)
                return false
            }
        }
    }
}

extension ReloadableArchives where Archives == [ArchiveReader] {
    /// At most once per `interval`, asks the origin of each remote archive in use (an
    /// ``WebArc/OriginChecking`` source: one small request) whether it still holds the version
    /// read, on a background queue, and reopens the archives when one changed. A client whose
    /// pages are all cached never reads the origin otherwise, so it would answer from the old
    /// release until a miss. The request that triggers it is not held up; a check that fails (the
    /// network is down) changes nothing.
    ///
    /// - Parameter seen: the generation of the archives the caller reads.
    public func recheckOrigins(every interval: Duration, seen: Int) {
        let due = lastOriginCheck.withLock { last in
            guard clock() - last >= interval else { return false }
            last = clock()
            return true
        }
        guard due else { return }
        let readers = archives
        guard readers.contains(where: { $0.byteSource is any OriginChecking }) else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            guard let change = ArchiveReader.firstOriginChange(among: readers) else { return }
            reloadAfter(change, seen: seen)
        }
    }
}
