import Foundation
import WebArc
import WebArcReplay

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers one request for ``ArchiveURLProtocol``: resolve, decide, then stream.
struct Replay: Sendable {
    /// What the handler class serves; nil when it stopped serving after `canInit` said yes.
    var setup: ArchiveURLProtocol.Setup?
    let delivery: BodyDelivery
    /// Who decides about each stored redirect hop.
    let approval: RedirectApproval
    let load: ProtocolLoad
    /// Answer before returning (see ``TaskInternals``): a network continuation is waited for.
    var inline = false
    /// This is the second answer, from archives reopened after the first failed (see ``reopened(after:)``).
    var retried = false
    /// The archives were looked at for files replaced at their paths (``reopenedForReplacedFiles()``).
    var refreshed = false

    /// The session that carries on a redirect chain whose target the archives lack, under
    /// ``ArchiveURLProtocol/MissPolicy/passThrough``.
    static let network = LiveSession()

    /// Answers in progress on worker threads (a test seam: a stopped load must leave none behind).
    static let workers = WorkerCount()

    /// Answers `request` through the load: a stored response, an error, or the network.
    ///
    /// - Parameter isDownload: the request comes from a download task, which fails on Linux.
    func answer(_ request: URLRequest, isDownload: Bool = false) {
        Self.workers.begin()
        defer { Self.workers.end() }
        let method = request.httpMethod?.uppercased() ?? "GET"
        guard let requestURL = request.url, let scheme = requestURL.scheme?.lowercased() else {
            return load.fail(WebArcURLProtocolError.badURL(url: request.url?.absoluteString ?? "").urlError)
        }
        let url = requestURL.absoluteString
        guard !isDownload else { return load.fail(WebArcURLProtocolError.downloadTaskUnsupported(url: url).urlError) }
        guard let setup else {
            return load.fail(WebArcURLProtocolError.notInArchive(method: method, url: url).urlError)
        }
        if let fresh = reopenedForReplacedFiles() { return fresh.answer(request, isDownload: isDownload) }
        if !retried, let reloadable = setup.reloadable, let interval = setup.originRecheck {
            reloadable.recheckOrigins(every: interval, seen: setup.generation)
        }
        do {
            try reply(to: request, method: method, url: requestURL, scheme: scheme, from: setup)
        } catch {
            // A remote archive replaced at its URL: answered again from the new version when
            // nothing of this answer went out; otherwise it fails, never continued from the new.
            let responded = load.hasResponded
            if !responded, let again = reopened(after: error) { return again.answer(request) }
            load.fail(Self.urlError(error, url: url))
            if responded { _ = reopened(after: error) }
        }
    }

    /// Answers `request` (for `requestURL`, whose scheme is `scheme`) from `setup`'s archives
    /// through the load.
    ///
    /// - Throws: what the archives throw while the request is looked up or its body read, and
    ///   what ``approval`` throws.
    private func reply(
        to request: URLRequest, method: String, url requestURL: URL, scheme: String,
        from setup: ArchiveURLProtocol.Setup
    ) throws {
        let resolution = try setup.chain.resolve(method: method, url: requestURL.absoluteString) { redirect, at, hop in
            try approve(
                redirect, at: URL(string: WebArcScheme.presented(at, requestScheme: scheme)) ?? requestURL, hop: hop,
                request)
        }
        switch resolution {
        case .response(let match, let finalMethod, _):
            guard case .response(let response) = match.entry.record else { return }
            let plan = ReplayPlan(
                response: response, method: finalMethod, requestHeaders: request.allHTTPHeaderFields ?? [:])
            let shown = URL(string: WebArcScheme.presented(match.url, requestScheme: scheme)) ?? requestURL
            try send(plan, body: response.body, from: setup.archives[match.archive], at: shown)
        case .redirect(let redirect, let at, _), .refused(let redirect, let at, _):
            let shown = URL(string: WebArcScheme.presented(at, requestScheme: scheme)) ?? requestURL
            if load.receive(Self.response(for: redirect, at: shown)) { load.finish() }
        case .miss(let missedMethod, let missedURL, _):
            if setup.onMiss == .passThrough && !WebArcScheme.isWebArc(missedURL) {
                var live = request
                live.url = URL(string: missedURL)
                live.httpMethod = missedMethod
                let done = DispatchSemaphore(value: 0)
                Task {
                    await forward(live)
                    done.signal()
                }
                if inline { done.wait() }
            } else {
                load.fail(WebArcURLProtocolError.notInArchive(method: missedMethod, url: missedURL).urlError)
            }
        }
    }

    /// What the caller sees for `error`, raised while answering `url`.
    static func urlError(_ error: any Error, url: String) -> URLError {
        switch error {
        case let error as WebArcURLProtocolError: error.urlError
        case let error as ReplayError: WebArcURLProtocolError(error).urlError
        default: WebArcURLProtocolError.archive(url: url, error).urlError
        }
    }

    /// Asks ``approval`` about one stored redirect found at `url`.
    private func approve(
        _ redirect: RedirectRecord, at url: URL, hop: RedirectChain.Hop, _ original: URLRequest
    )
        throws(WebArcURLProtocolError) -> RedirectChain.HopDecision
    {
        guard approval.asksDelegate, let target = URL(string: hop.url) else { return .follow(hop) }
        var proposed = original
        proposed.url =
            URL(string: WebArcScheme.presented(hop.url, requestScheme: original.url?.scheme?.lowercased() ?? ""))
            ?? target
        if hop.method != (original.httpMethod?.uppercased() ?? "GET") {
            proposed.httpMethod = hop.method
            proposed.httpBody = nil
        }
        let timeout = original.timeoutInterval > 0 ? original.timeoutInterval : 60
        guard
            let chosen = try approval.decide(
                Self.response(for: redirect, at: url), proposing: proposed, load: load, timeout: timeout),
            let chosenURL = chosen.url
        else { return .stop }
        return .follow(
            RedirectChain.Hop(method: chosen.httpMethod?.uppercased() ?? "GET", url: chosenURL.absoluteString))
    }

    /// A stored redirect as the caller receives it when the chain stops there: its status and
    /// headers (with `Location`, unless the target is not http(s) or webarc: ``ReplaySafety``), no body.
    static func response(for redirect: RedirectRecord, at url: URL) -> HTTPURLResponse {
        var headers = ReplayedHeaders.replayed(
            redirect.headers, status: redirect.status, mimeType: nil, textEncoding: nil)
        if headers.value(for: "Location") == nil, ReplaySafety.isReplayable(redirect.target) {
            headers.append(HTTPHeader("Location", redirect.target))
        }
        headers.append(HTTPHeader("Content-Length", "0"))
        return HTTPURLResponse.replaying(status: redirect.status, headers: headers, url: url)
    }

    /// Sends the head, then the body: the head goes out only once the body's first piece is read
    /// (its whole when it goes whole), so that a read failing there has sent nothing and the
    /// request can be answered again (``reopened(after:)``).
    private func send(_ plan: ReplayPlan, body: BodyReference, from reader: ArchiveReader, at url: URL) throws {
        let head = HTTPURLResponse.replaying(status: plan.status, headers: plan.headers, url: url)
        guard let range = plan.bodyRange, !range.isEmpty else {
            if load.receive(head) { load.finish() }
            return
        }
        var pieces = try reader.makeChunkIterator(for: body, range: range)
        guard try delivery.send(through: load, head: head, length: Int(range.count), { try pieces.next() }) else {
            return
        }
        load.finish()
    }

    /// Fetches `request` from the network and relays it, for a chain that left the archives.
    ///
    /// The head is relayed when it arrives. The body goes on piece by piece as it arrives when
    /// ``delivery`` is ``BodyDelivery/pieces``; otherwise it waits in a ``BodySpool`` (memory up
    /// to 1 MiB, then a temporary file) and goes whole once complete, the one copy a completion
    /// handler needs. Stopping the load cancels the fetch.
    private func forward(_ request: URLRequest) async {
        Self.workers.begin()
        defer { Self.workers.end() }
        let events = Self.network.events(for: request)
        let (delivery, load) = (self.delivery, self.load)
        let fetch = Task {
            let spool = delivery == .whole ? BodySpool() : nil
            var answered = false
            for try await event in events {
                switch event {
                case .redirect: break
                case .response(let head):
                    guard load.receive(head) else { return }
                    answered = true
                case .data(let data):
                    if let spool { try spool.append(data) } else if !data.isEmpty && !load.load(data) { return }
                }
            }
            guard answered else {
                throw URLError(.badServerResponse, userInfo: [NSURLErrorFailingURLErrorKey: request.url as Any])
            }
            if let spool, !(try delivery.send(through: load, length: spool.length, try spool.pieces())) { return }
            load.finish()
        }
        load.onStop { fetch.cancel() }
        do {
            try await fetch.value
        } catch let error as WebArcURLProtocolError {
            load.fail(error.urlError)
        } catch {
            load.fail(error)
        }
    }
}
