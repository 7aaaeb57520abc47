import NIOCore
import Synchronization
import WebArc
import WebArcReplay

/// Decides every answer of a ``WebArcServer``: method, target, lookup, conditionals and range are
/// all settled here, before the transport writes a byte. It also replaces the archives while
/// serving, when the server's configuration has a ``Reload``:
///
/// ```swift
/// let server = try await WebArcServer.start(archives: set, configuration: configuration)
/// server.responder.reopenArchives(seen: server.responder.generation, now: true)  // as SIGHUP does
/// ```
///
/// Targets map to archive URLs as ``OriginMap`` describes. Answers: the stored status and headers
/// (only what a server must is recomputed), 3xx with `Location` for redirect records,
/// 304 for a matching `If-None-Match` or `If-Modified-Since`, 206 or 416 for `Range` on a 200,
/// 404 for a miss, 405 for methods other than GET and HEAD, 400 and 414 for targets that are not a
/// path or an absolute URL or are longer than 8192 bytes, 500 when an archive is damaged,
/// 502 or 504 when a remote archive's server does not deliver.
public final class ArchiveResponder: Sendable {
    /// The archives answered from now (another set once a reload replaced them).
    public var archives: ArchiveSet { versions.archives }
    /// How the archives are replaced while serving (see ``reloadAfter(_:seen:)``): which read
    /// errors mean they changed under the server, and how to open them again.
    public struct Reload: Sendable {
        /// Whether a read error means the archives changed (a remote file replaced at its URL).
        public var recognises: @Sendable (any Error) -> Bool
        /// The archives opened again, or nil when the new version does not open or is refused.
        public var reopen: @Sendable () -> ArchiveSet?

        /// Makes a reload from its two parts; by default it recognises a `SourceChanged` error
        /// that says so.
        public init(
            recognises: @escaping @Sendable (any Error) -> Bool = { ($0 as? any SourceChanged)?.sourceChanged == true },
            reopen: @escaping @Sendable () -> ArchiveSet?
        ) {
            self.recognises = recognises
            self.reopen = reopen
        }
    }
    /// The longest request target served.
    package static let maxTargetLength = 8192
    /// The largest HTML or CSS body whose links are rewritten; larger ones go out as stored.
    static let rewriteLimit: UInt64 = 8 << 20

    let bodies: HotBodyCache
    let resources: Mutex<LRUCache<String, Resource>>
    /// The archive set in use, how many times it was replaced, and how it is reopened.
    let versions: ReloadableArchives<ArchiveSet>
    let reload: Reload?
    /// Whether HTML pages get the search form (``WebArcServer/Configuration/searchBox``).
    let searchBox: Bool

    /// Makes a responder keeping up to `cacheBytes` of decoded bodies, resolved targets and the
    /// archives' decoded index pages, body entries and dictionaries, all together.
    ///
    /// - Parameters:
    ///   - archives: the archives to answer from.
    ///   - cacheBytes: the most bytes every cache holds together: decoded bodies, resolved
    ///     targets, and the readers' caches, which are limited to their share (`CacheShares`).
    ///   - bodyFiles: keep large cached bodies in shared-memory files for `sendfile` (Linux); when
    ///     false every cached body is a `ByteBuffer`.
    ///   - eventLoops: the event loops that write answers; a memory file holds one descriptor for
    ///     each.
    ///   - reload: reopens the archives after a read error it recognises (a remote archive
    ///     replaced at its URL); nil keeps answering from `archives` whatever fails.
    ///   - searchBox: put the search form after the `<body>` tag of HTML pages served under a
    ///     mapped path.
    public convenience init(
        archives: ArchiveSet, cacheBytes: Int = 64 << 20, bodyFiles: Bool = true, eventLoops: Int = 1,
        reload: Reload? = nil, searchBox: Bool = false
    ) {
        self.init(
            archives: archives, cacheBytes: cacheBytes, bodyFiles: bodyFiles, eventLoops: eventLoops, reload: reload,
            searchBox: searchBox, clock: { .now })
    }

    /// As the public initializer, reading the time from `clock`: a test seam, so that a test moves
    /// past ``retryAfterRefusal`` without waiting for it.
    init(
        archives: ArchiveSet, cacheBytes: Int, bodyFiles: Bool, eventLoops: Int, reload: Reload?,
        searchBox: Bool = false, clock: @escaping @Sendable () -> ContinuousClock.Instant
    ) {
        let shares = CacheShares(cacheBytes)
        Self.limitReaderCaches(of: archives, to: shares.readers)
        versions = ReloadableArchives(
            archives, recognises: { reload?.recognises($0) == true }, retryAfterFailure: Self.retryAfterRefusal,
            clock: clock,
            reopen: {
                guard let set = reload?.reopen() else { throw NotReopened() }
                Self.limitReaderCaches(of: set, to: shares.readers)
                return set
            })
        self.reload = reload
        self.searchBox = searchBox
        bodies = HotBodyCache(capacity: shares.bodies, usesFiles: bodyFiles, loops: eventLoops)
        resources = Mutex(LRUCache(capacity: shares.resources))
    }

    /// The one memory budget (`--cache-mib`) shared among every cache that grows while serving.
    struct CacheShares: Equatable {
        /// Decoded bodies, written from memory (hot answers): three eighths.
        var bodies: Int
        /// Resolved targets (a hot answer's head, a rewritten page's body): an eighth.
        var resources: Int
        /// The readers' caches, shared among the archives (``ReaderCacheLimits/init(sharing:)``):
        /// the half a cold lookup needs, its record leaf and its body's dictionary above all.
        var readers: Int

        init(_ bytes: Int) {
            let bytes = max(0, bytes)
            bodies = bytes / 8 * 3
            resources = bytes / 8
            readers = bytes - bodies - resources
        }
    }

    /// Shares `bytes` among the caches of the archives of `set`.
    static func limitReaderCaches(of set: ArchiveSet, to bytes: Int) {
        let limits = ReaderCacheLimits(sharing: bytes / max(1, set.readers.count))
        for reader in set.readers { reader.limitCaches(limits) }
    }

    /// The answer to `request`. A read error that ``reload`` cures is answered from the reopened
    /// archives, once.
    package func decide(_ request: ArchiveRequest) -> ResponseDecision {
        guard request.method == "GET" || request.method == "HEAD" else {
            return ServerPages.methodNotAllowed(request.method)
        }
        guard request.target.utf8.count <= Self.maxTargetLength else {
            return ServerPages.uriTooLong(isHead: request.isHead)
        }
        if let search = searchDecision(request) { return search }
        var generation = self.generation
        for attempt in 0..<2 {
            do {
                guard let resource = try resource(for: request.target) else {
                    return ServerPages.notFound(request.target, isHead: request.isHead)
                }
                return answer(resource, to: request)
            } catch is TargetError {
                return ServerPages.badRequest(isHead: request.isHead)
            } catch {
                guard attempt == 0, reloadAfter(error, seen: generation) else {
                    return ServerPages.archiveError(error, isHead: request.isHead)
                }
                generation = self.generation
            }
        }
        preconditionFailure("the second attempt returns")
    }

    /// The answer to `request` when it needs no archive read: a refused method or target, or a
    /// target whose resource is cached; nil when ``decide(_:)`` would look up or decode.
    ///
    /// The transport answers these on its event loop and hands the others to a thread pool.
    package func decideWithoutReading(_ request: ArchiveRequest) -> ResponseDecision? {
        guard request.method == "GET" || request.method == "HEAD", request.target.utf8.count <= Self.maxTargetLength
        else {
            return decide(request)
        }
        guard let resource = resources.withLock({ $0.value(for: request.target) }) else { return nil }
        return answer(resource, to: request)
    }

    /// Applies the request's conditionals and range to a resolved resource.
    ///
    /// A plain GET of a 200 (the common case) shares the resource's encoded header block and adds
    /// only its length: no header list is built per request.
    func answer(_ resource: Resource, to request: ArchiveRequest) -> ResponseDecision {
        guard let content = resource.content else {
            return ResponseDecision(
                status: resource.status, reason: resource.reason, block: resource.headers, contentLength: 0,
                encodedHead: resource.plainHead)
        }
        if !Resource.sendsLength(status: resource.status, content: content) {
            return ResponseDecision(
                status: resource.status, reason: resource.reason, block: resource.headers,
                encodedHead: resource.plainHead)
        }
        var status = resource.status
        var reason = resource.reason
        var contentRange: String?
        var range = 0..<resource.length
        if let etag = resource.etag,
            request.range != nil || request.ifNoneMatch != nil || request.ifModifiedSince != nil
        {
            let conditions = ReplayConditions(
                range: request.range, ifRange: request.ifRange, ifNoneMatch: request.ifNoneMatch,
                ifModifiedSince: request.ifModifiedSince)
            let decision = BodyDecision(
                status: resource.status, length: resource.length, entityTags: CollectionOfOne(etag),
                lastModified: resource.lastModified,
                conditions: conditions)
            switch decision {
            case .whole:
                break
            case .notModified:
                let kept = resource.headers.fields.filter { Self.keptOnNotModified.contains($0.name.lowercased()) }
                return ResponseDecision(status: 304, reason: "Not Modified", headers: kept)
            case .partial(let partial):
                range = partial
                (status, reason) = (206, "Partial Content")
                contentRange = decision.contentRange(length: resource.length)
            case .unsatisfiable:
                return ServerPages.decision(
                    status: 416, reason: "Range Not Satisfiable", detail: "The range lies outside the body.",
                    extra: [HTTPHeader("Content-Range", decision.contentRange(length: resource.length)!)],
                    isHead: request.isHead)
            }
        }
        let length = range.upperBound - range.lowerBound
        let encodedHead = contentRange == nil ? resource.plainHead : nil
        guard !request.isHead else {
            return ResponseDecision(
                status: status, reason: reason, block: resource.headers, contentRange: contentRange,
                contentLength: length,
                encodedHead: encodedHead)
        }
        let body: ResponseDecision.Body
        switch content {
        case .stored(let stored):
            body = .stored(stored, range: range)
        case .memory(let buffer):
            let slice = buffer.getSlice(at: buffer.readerIndex + Int(range.lowerBound), length: Int(length))
            body = .bytes(slice ?? buffer)
        }
        return ResponseDecision(
            status: status, reason: reason, block: resource.headers, contentRange: contentRange, contentLength: length,
            encodedHead: encodedHead, body: body)
    }

    /// Lower-case names of the headers a 304 repeats from the full answer.
    static let keptOnNotModified: Set<String> = [
        "etag", "last-modified", "cache-control", "content-location", "date", "expires", "vary",
    ]
}

/// A request target that is neither a path nor an absolute http(s) URL.
struct TargetError: Error {}

/// A ``ArchiveResponder/Reload/reopen`` that gave no archives (it said why itself).
struct NotReopened: Error {}
