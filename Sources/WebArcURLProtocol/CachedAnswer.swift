import Dispatch
import Foundation
import WebArc
import WebArcReplay

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers one request under a cache policy (``ArchiveURLProtocol/CachePolicy``): from the
/// archives through ``Replay``, from the network, or both, and stores what the network answered
/// in the writable layer.
///
/// The caller is answered at once; what it was answered waits for the layer's next rewrite,
/// queued before the answer goes out (so ``ArchiveCache/settle()`` after an answer waits for it).
struct CachedAnswer: Sendable {
    /// Answers from the archives (the layer, then the bundle).
    let replay: Replay
    let cache: ArchiveCache

    /// Answers `request` through the replay's load; returns once it is answered.
    func answer(_ request: URLRequest, isDownload: Bool) {
        guard let setup = replay.setup, let url = request.url, let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", !isDownload
        else { return replay.answer(request, isDownload: isDownload) }
        let method = request.httpMethod?.uppercased() ?? "GET"
        let match = try? setup.chain.find(method: method, url: url.absoluteString)
        switch cache.policy {
        case .offline:
            replay.answer(request)
        case .cacheFirst(let maxAge):
            guard let match else { return waiting { await live(request, fallback: false) } }
            // Started before answering (so that settle() after the answer sees it), on its own
            // task: the answer below never waits for it.
            if method == "GET", Self.isExpired(match.entry.record, maxAge: maxAge) {
                let (cache, reader) = (self.cache, setup.archives[match.archive])
                cache.refreshInBackground(key: Self.key(url)) {
                    await Self.refresh(request, stored: match.entry.record, reader: reader, cache: cache)
                }
            }
            replay.answer(request)
        case .networkFirst:
            waiting { await live(request, fallback: match != nil) }
        case .revalidate:
            guard method == "GET", let match, case .response(let stored) = match.entry.record else {
                return waiting { await live(request, fallback: match != nil) }
            }
            let reader = setup.archives[match.archive]
            waiting { await revalidate(request, stored: stored, reader: reader) }
        }
    }

    /// Whether a record captured at its capture date is older than `maxAge` seconds (a record
    /// without one is).
    static func isExpired(_ record: ArchiveRecord, maxAge: TimeInterval, now: Date = Date()) -> Bool {
        guard let captured = record.captureDate else { return true }
        return now.timeIntervalSince(captured) > maxAge
    }

    /// The key refreshes of `url` share: its canonical GET key.
    static func key(_ url: URL) -> String {
        (try? URLKey.key(method: "GET", url: url.absoluteString)) ?? url.absoluteString
    }

    /// Runs `body` in a task; waits for it when the replay answers inline (see ``TaskInternals``).
    private func waiting(_ body: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            await body()
            done.signal()
        }
        replay.load.onStop { task.cancel() }
        if replay.inline { done.wait() }
    }

    /// The live answer, stored; with `fallback`, the archive's answer when the network fails or
    /// the origin answers 5xx.
    private func live(_ request: URLRequest, fallback: Bool) async {
        cache.count { $0.liveRequests += 1 }
        do {
            let answer = try await LiveAnswer.fetch(request, through: cache.network)
            if fallback && answer.head.statusCode >= 500 { return await fallBack(request) }
            // Queued before the caller has its answer, so that a settle() after it waits for the write.
            if request.httpMethod?.uppercased() ?? "GET" == "GET", request.value(forHTTPHeaderField: "Range") == nil {
                cache.layer.enqueue(answer.layerEntries(for: request))
            }
            answer.deliver(through: replay.load, replay.delivery)
        } catch {
            if fallback && !Task.isCancelled { return await fallBack(request) }
            replay.load.fail(error)
        }
    }

    /// Asks the origin with the stored response's validators: 304 answers from the archive (and
    /// moves the entry's capture date forward), anything else live; a failure or 5xx falls back.
    private func revalidate(_ request: URLRequest, stored: ResponseRecord, reader: ArchiveReader) async {
        cache.count { $0.liveRequests += 1 }
        do {
            let answer = try await LiveAnswer.fetch(Self.conditional(request, for: stored), through: cache.network)
            switch answer.head.statusCode {
            case 304 where !answer.hops.isEmpty:
                // A 304 at the end of a new redirect chain confirms another URL's entry, not this one.
                await fallBack(request)
            case 304:
                cache.count { $0.notModified += 1 }
                cache.layer.enqueue([
                    .response(
                        LayerResponse(
                            revalidated: stored, from: reader,
                            notModified: LiveRecords.headers(of: answer.head, bodyLength: nil), date: Date()))
                ])
                await fromArchive(request)
            case 500...:
                await fallBack(request)
            default:
                cache.layer.enqueue(answer.layerEntries(for: request))
                answer.deliver(through: replay.load, replay.delivery)
            }
        } catch {
            if Task.isCancelled { return replay.load.fail(error) }
            await fallBack(request)
        }
    }

    /// The archive's answer because the network failed or answered 5xx.
    private func fallBack(_ request: URLRequest) async {
        cache.count { $0.fallbacks += 1 }
        await fromArchive(request)
    }

    /// The archive's answer, given on a dispatch thread: ``Replay/answer(_:isDownload:)`` blocks
    /// while a delegate decides about a stored redirect, which must not hold a cooperative thread.
    private func fromArchive(_ request: URLRequest) async {
        let replay = self.replay
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            AnswerQueue.run {
                replay.answer(request)
                continuation.resume()
            }
        }
    }

    /// `request` without the caller's conditionals, with the validators the origin gave for `stored`.
    static func conditional(_ request: URLRequest, for stored: ResponseRecord) -> URLRequest {
        var conditional = LiveAnswer.unconditional(request)
        for (name, value) in OriginValidators.headers(for: stored) {
            conditional.setValue(value, forHTTPHeaderField: name)
        }
        return conditional
    }

    /// A background refresh of an expired entry: like ``revalidate(_:stored:reader:)`` but nobody
    /// waits for it; what the origin says goes into the layer only (a failure keeps the entry).
    ///
    /// - Returns: whether the origin answered with something stored (304 included).
    static func refresh(
        _ request: URLRequest, stored: ArchiveRecord, reader: ArchiveReader, cache: ArchiveCache
    ) async -> Bool {
        cache.count { $0.liveRequests += 1 }
        var asked = LiveAnswer.unconditional(request)
        if case .response(let response) = stored { asked = conditional(request, for: response) }
        guard let answer = try? await LiveAnswer.fetch(asked, through: cache.network) else { return false }
        if answer.head.statusCode == 304 {
            guard answer.hops.isEmpty, case .response(let response) = stored else { return false }
            cache.count { $0.notModified += 1 }
            await cache.layer.add([
                .response(
                    LayerResponse(
                        revalidated: response, from: reader,
                        notModified: LiveRecords.headers(of: answer.head, bodyLength: nil), date: Date()))
            ])
            return true
        }
        let entries = answer.layerEntries(for: LiveAnswer.unconditional(request))
        await cache.layer.add(entries)
        return !entries.isEmpty
    }
}
