import Dispatch
import Foundation
import WebArc
import WebArcReplay

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers URL loading requests from webarc archives: a drop-in offline cache for `URLSession`.
///
/// ```swift
/// ArchiveURLProtocol.serve(try ArchiveReader(path: "site.webarc"), onMiss: .offline)
/// let configuration = URLSessionConfiguration.default
/// ArchiveURLProtocol.install(in: configuration)
/// let (page, _) = try await URLSession(configuration: configuration).data(from: URL(string: "https://example.com/")!)
/// ```
///
/// It handles `http`, `https` and ``WebArcScheme`` (`webarc:`) requests. A request the archives
/// hold is answered with the stored status, headers, MIME type, text
/// encoding and body; HEAD, `Range` and conditional requests are answered as a server would
/// (spec: `Spec/replay.md`). The record is found by the replay engine (WebArcReplay): the
/// canonical key, then the fuzzy rules of `Spec/replay.md`, as `webarc serve` finds it. Stored redirects are followed inside the handler and the final response
/// is delivered with `response.url` set to where the chain ended, because swift-corelibs-foundation
/// stops the process when a URL protocol reports a redirect, and does not follow a 3xx a URL
/// protocol returns; a stored redirect to anything but http(s) or webarc (`javascript:`, `data:`,
/// `file:`, …) is never followed: its 3xx is delivered without `Location`. A request the archives do not hold goes to the network under
/// ``MissPolicy/passThrough``, and fails with `URLError(.resourceUnavailable)` naming the URL
/// under ``MissPolicy/offline``. An archive read over the network that its publisher may replace
/// (`ArchiveReader(url:)` of WebArcRemote) is served with ``serve(opening:trusting:onMiss:recheckingOrigins:retryAfterFailure:)``,
/// which opens it again and answers from the new version. To keep a shipped bundle fresh (cache first with an expiry,
/// network first, revalidation), serve it with ``serve(bundle:layer:policy:configuration:)-(LayerStack,_,_,_)``: live
/// and refreshed responses go into a writable layer file read before the bundle (``CachePolicy``).
///
/// Each subclass is an independent handler with its own archives (`final class Help:
/// ArchiveURLProtocol {}`), since the loading system passes a protocol class nothing but the
/// request. Many tasks may share one handler and one `ArchiveReader` at once.
///
/// What callers on Linux (swift-corelibs-foundation) must know:
/// - Bodies reach a session delegate in pieces of at most 256 KiB, and a completion handler or
///   `data(for:)` whole in one piece, since those keep only the last piece a URL protocol sends.
/// - Download tasks fail with `URLError(.cannotCreateFile)`: swift-corelibs-foundation lets only
///   its own protocols give a download task its file (a third-party protocol's download task
///   completes with a nil file, or stops the process in the delegate path). Use a data task with
///   a delegate to stream a large body to a file.
/// - The task's or session's delegate is asked `willPerformHTTPRedirection` for each stored hop,
///   as for live traffic.
/// - A 401's `WWW-Authenticate` is replayed as `X-Webarc-Original-WWW-Authenticate`, since a
///   replayed challenge over https never completes.
/// - `registerForSharedSession()` reaches `URLSession.shared` only; other sessions need
///   ``WebArcHandler/install(in:)``.
open class ArchiveURLProtocol: URLProtocol {
    private let load = ProtocolLoad()

    /// Whether this handler answers `request`: under ``MissPolicy/offline`` every http, https and
    /// webarc request (misses are answered with an error, since a declined request goes to the
    /// network even when only this class is configured), and likewise when serving with a cache
    /// policy (``CachePolicy``), which decides itself; under ``MissPolicy/passThrough`` the
    /// webarc requests and the http and https requests the archives hold, or whose lookup finds
    /// the archives replaced at their source (``serve(opening:trusting:onMiss:recheckingOrigins:retryAfterFailure:)``: the request
    /// is looked up again in the reopened ones, and goes to the network if they miss it too).
    override open class func canInit(with request: URLRequest) -> Bool {
        guard let url = request.url, let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https" || scheme == WebArcScheme.name,
            let setup = setups.settings(for: self)?.current
        else { return false }
        if setup.onMiss == .offline || setup.cache != nil || scheme == WebArcScheme.name { return true }
        do {
            return try setup.chain.find(method: request.httpMethod?.uppercased() ?? "GET", url: url.absoluteString)
                != nil
        } catch {
            return setup.reloadable?.recognises(error) == true
        }
    }

    /// Returns `request` unchanged: lookups canonicalize URLs themselves (spec §7.1).
    override open class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    /// Starts answering on a worker thread and returns at once, so that `stopLoading` can interrupt.
    override open func startLoading() {
        let queue = TaskInternals.workQueue(of: task)
        guard load.start(self, queue: queue) else { return }
        let request = self.request
        let setup = Self.setups.settings(for: type(of: self))?.current
        let replay = Replay(
            setup: setup, delivery: BodyDelivery.mode(for: task), approval: RedirectApproval(task: task), load: load,
            inline: queue == nil)
        let isDownload = Self.isDownload(task)
        let answer: @Sendable () -> Void =
            if let search = SearchURL(request.url), let url = request.url {
                { replay.answer(search, at: url) }
            } else if let cache = setup?.cache {
                { CachedAnswer(replay: replay, cache: cache).answer(request, isDownload: isDownload) }
            } else {
                { replay.answer(request, isDownload: isDownload) }
            }
        if queue == nil {
            answer()
        } else {
            AnswerQueue.run(answer)
        }
    }

    /// Whether `task` is a download task that swift-corelibs-foundation cannot serve from here.
    static func isDownload(_ task: URLSessionTask?) -> Bool {
        #if canImport(FoundationNetworking)
        task is URLSessionDownloadTask
        #else
        false
        #endif
    }

    /// Stops the load: no callback reaches the task after this returns, and the worker stops
    /// before its next body piece.
    override open func stopLoading() {
        load.stop()
    }
}
