import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import WebArc

/// An archive file on any HTTP server that answers `Range` (a CDN, an object store, nginx), read
/// in place with range requests.
///
/// ```swift
/// let source = try HTTPByteSource(url: "https://cdn.example.com/site.webarc")
/// let reader = try ArchiveReader(source: source, path: source.url)
/// print(source.statistics.requests)            // 2: the tail (with the size) and the lead, together
/// ```
///
/// Opening sends two requests at once: `Range: bytes=-16384` (``RemoteConfiguration/tailLength``;
/// its `Content-Range` gives the size; the bytes hold the trailer and, as the writer places them
/// last, the metadata and the record root) and the 16-byte lead. Every later request carries `If-Match` with the first
/// response's strong `ETag` (else `If-Unmodified-Since`) and every response is checked against it
/// and the size, so a file replaced while it is read fails with ``RemoteError/changed(url:reason:)``
/// instead of mixing two versions. Fetched ranges stay in a bounded cache; the chunks of a body the
/// reader announces (``willRead(_:)``) are fetched in one request per window, the next window while
/// the current one is read. Reads block the calling thread, never an event loop of the client:
/// call them from a thread of your own or a thread pool, not from a NIO event loop.
///
/// Nothing here is trusted: the reader verifies every page and chunk by SHA-256 (spec §11.2).
public final class HTTPByteSource: ByteSource {
    /// The URL as given.
    public let url: String
    /// The file's length, from the first response's `Content-Range`.
    public let size: UInt64
    /// The URL requests go to: where the first request ended after redirects.
    public let resolvedURL: String
    /// The bytes at the end of the file that opening fetched; the reader's first read there is
    /// served from them.
    public let openingTailLength: Int
    /// Reads a search makes at once: each waits a round trip, and HTTP/2 carries them together.
    public var concurrentReads: Int { 16 }
    let validator: Validator
    let client: RemoteClient
    let configuration: RemoteConfiguration
    private let state: Mutex<State>

    private struct State {
        var cache: RangeCache
        var inflight: [Inflight] = []
        var plans: [Plan] = []
    }

    /// A request on its way; readers of any range inside it wait for it.
    private struct Inflight {
        let range: Range<UInt64>
        let future: EventLoopFuture<[UInt8]>
    }

    /// The windows of one announced body, fetched in order, each as the previous one is read.
    private struct Plan {
        var windows: [Range<UInt64>]
        var started: Set<Int> = []
        /// Windows kept in flight ahead of the reads (1 for a body's chunks).
        var ahead = 1
    }

    /// Opens `url`: one round trip, two requests (the last `tailLength` bytes and the lead).
    ///
    /// - Throws: ``RemoteError`` (`badURL`, `notFound`, `status`, `rangesNotSupported`, `timedOut`,
    ///   `connection`, `tls`, `badResponse`).
    public init(url: String, configuration: RemoteConfiguration = .init()) throws {
        guard Self.isRemote(url) else { throw RemoteError.badURL(url: url) }
        self.url = url
        self.configuration = configuration
        client = RemoteClient(configuration: configuration)
        let tailLength = min(max(configuration.tailLength, 272), 4 << 20)
        openingTailLength = tailLength
        let leadRequest = client.get(url, range: .span(0, Lead.size), validator: nil, maxBytes: Lead.size)
        let tail = try Self.wait(client.get(url, range: .suffix(tailLength), validator: nil, maxBytes: tailLength))
        let tailStart: UInt64
        switch tail.status {
        case 206:
            guard let range = ContentRange(tail.headers.first(name: "content-range")), let total = range.total,
                range.count == tail.bytes.count, range.end == total
            else {
                throw RemoteError.badResponse(
                    url: url,
                    reason:
                        "Content-Range \(tail.headers.first(name: "content-range") ?? "missing") for bytes=-\(tailLength)"
                )
            }
            size = total
            tailStart = range.start
        case 200:
            // The whole file, and small enough: the collecting delegate refused a longer one.
            size = UInt64(tail.bytes.count)
            tailStart = 0
        case 416:
            // Only an empty file has no last byte; the reader says `empty`.
            guard let range = ContentRange(tail.headers.first(name: "content-range")), range.total == 0 else {
                throw RemoteError.status(url: url, status: 416, range: "-\(tailLength)")
            }
            size = 0
            tailStart = 0
        case 404, 410:
            throw RemoteError.notFound(url: url, status: tail.status)
        default:
            throw RemoteError.status(url: url, status: tail.status, range: "-\(tailLength)")
        }
        validator = Validator(tail.headers)
        resolvedURL = tail.finalURL
        var cache = RangeCache(maxCost: max(configuration.cacheBytes, tailLength))
        cache.insert(tail.bytes, at: tailStart)
        var state = State(cache: cache)
        if tailStart > 0 {
            // The lead is not inside the tail: keep its request as the pending read of [0, 16).
            let (validator, size, url) = (validator, size, url)
            let lead = leadRequest.flatMapThrowing { response in
                try Self.check(response, offset: 0, count: Lead.size, size: size, validator: validator, url: url)
            }
            state.inflight.append(Inflight(range: 0..<UInt64(Lead.size), future: lead))
        }
        let lead = state.inflight.first
        self.state = Mutex(state)
        if let lead { watch(lead) }
    }

    /// Asks the server whether the file at the URL is still the one opened: one request for its
    /// last byte with the validator (`If-Match`), bypassing the cache.
    ///
    /// - Returns: nil when it is; the ``RemoteError/changed(url:reason:)`` error when it was
    ///   replaced (another `ETag` or length, or 412).
    /// - Throws: the other ``RemoteError``s, when the server cannot say (timeout, 5xx, …).
    public func changeAtOrigin() throws -> RemoteError? {
        let last = size > 0 ? size - 1 : 0
        do {
            let response = try Self.wait(client.get(url, range: .span(last, 1), validator: validator, maxBytes: 1))
            _ = try Self.check(response, offset: last, count: 1, size: size, validator: validator, url: url)
            return nil
        } catch let error as RemoteError {
            if case .changed = error { return error }
            throw error
        }
    }

    /// True for an absolute `http://` or `https://` URL (any case), the form commands take instead of a path.
    public static func isRemote(_ location: String) -> Bool {
        let lower = location.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// Requests sent and response body bytes received so far (the client's, shared by every
    /// source with the same timeouts).
    public var statistics: (requests: Int, bytes: UInt64) { client.statistics }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        guard offset <= size, UInt64(count) <= size - offset else {
            throw WebArcError.truncated(
                section: "file", offset: offset, needed: UInt64(count), available: size > offset ? size - offset : 0)
        }
        let range = offset..<offset + UInt64(count)
        enum Step {
            case done([UInt8])
            case wait(Inflight)
        }
        var started: [Inflight] = []
        let step: Step = state.withLock { state in
            readAhead(past: range, &state, started: &started)
            if let bytes = state.cache.read(at: offset, count: count) { return .done(bytes) }
            if let pending = state.inflight.first(where: { $0.range.contains(range) }) { return .wait(pending) }
            let inflight = start(plannedWindow(holding: range, &state) ?? range, &state)
            started.append(inflight)
            return .wait(inflight)
        }
        started.forEach(watch)
        switch step {
        case .done(let bytes):
            return bytes
        case .wait(let inflight):
            let bytes = try Self.wait(inflight.future)
            let start = Int(offset - inflight.range.lowerBound)
            return Array(bytes[start..<start + count])
        }
    }

    /// Fetches the announced extents together: neighbours (at most 16 KiB apart) share a request,
    /// requests are at most ``RemoteConfiguration/prefetchWindow`` bytes, the first one starts now
    /// and each read in a window starts the next.
    public func willRead(_ extents: [Range<UInt64>]) {
        willRead(extents, ahead: 1)
    }

    /// As ``willRead(_:)``, with up to `ahead` windows in flight ahead of the reads (the first
    /// `ahead` start now), as long as they fit in half the cache.
    public func willRead(_ extents: [Range<UInt64>], ahead: Int) {
        let window = UInt64(max(64 << 10, min(configuration.prefetchWindow, configuration.cacheBytes / 4)))
        let ahead = max(1, min(ahead, Int(UInt64(max(configuration.cacheBytes, 1)) / 2 / window)))
        var windows: [Range<UInt64>] = []
        for extent in extents where !extent.isEmpty && extent.upperBound <= size {
            if let last = windows.last, extent.lowerBound >= last.upperBound,
                extent.lowerBound - last.upperBound <= 16 << 10,
                extent.upperBound - last.lowerBound <= window
            {
                windows[windows.count - 1] = last.lowerBound..<extent.upperBound
            } else {
                windows.append(extent)
            }
        }
        guard !windows.isEmpty else { return }
        var started: [Inflight] = []
        state.withLock { state in
            windows.removeAll { state.cache.contains($0) }
            guard !windows.isEmpty else { return }
            var plan = Plan(windows: windows, ahead: ahead)
            for k in 0..<min(ahead, windows.count) {
                if !state.inflight.contains(where: { $0.range.contains(windows[k]) }) {
                    started.append(start(windows[k], &state))
                }
                plan.started.insert(k)
            }
            if windows.count > plan.started.count {
                state.plans.append(plan)
                if state.plans.count > 32 { state.plans.removeFirst() }
            }
        }
        started.forEach(watch)
    }

    /// The window of an announced body that holds `range`, marked as fetched (the caller fetches it).
    private func plannedWindow(holding range: Range<UInt64>, _ state: inout State) -> Range<UInt64>? {
        for index in state.plans.indices {
            guard let k = state.plans[index].windows.firstIndex(where: { $0.contains(range) }) else { continue }
            state.plans[index].started.insert(k)
            return state.plans[index].windows[k]
        }
        return nil
    }

    /// For a read of `range` inside an announced body: starts the body's next windows (up to the
    /// plan's ``Plan/ahead``), so that they arrive while this one is read; forgets the body once
    /// every window is started.
    private func readAhead(past range: Range<UInt64>, _ state: inout State, started: inout [Inflight]) {
        for index in state.plans.indices {
            guard let k = state.plans[index].windows.firstIndex(where: { $0.contains(range) }) else { continue }
            let count = state.plans[index].windows.count
            for next in k + 1..<min(k + 1 + state.plans[index].ahead, count)
            where !state.plans[index].started.contains(next) {
                state.plans[index].started.insert(next)
                let window = state.plans[index].windows[next]
                if !state.cache.contains(window), !state.inflight.contains(where: { $0.range.contains(window) }) {
                    started.append(start(window, &state))
                }
            }
            if state.plans[index].started.count == state.plans[index].windows.count { state.plans.remove(at: index) }
            return
        }
    }

    /// Starts fetching `range` and registers it as in flight (the caller then ``watch``es it,
    /// outside the lock).
    private func start(_ range: Range<UInt64>, _ state: inout State) -> Inflight {
        let count = Int(range.upperBound - range.lowerBound)
        let (size, validator, url) = (size, validator, url)
        let future = client.get(
            resolvedURL, range: .span(range.lowerBound, count), validator: validator, maxBytes: count
        )
        .flatMapThrowing { response in
            try Self.check(response, offset: range.lowerBound, count: count, size: size, validator: validator, url: url)
        }
        let inflight = Inflight(range: range, future: future)
        state.inflight.append(inflight)
        return inflight
    }

    /// Once `inflight` completes: into the cache when it succeeded, out of the in-flight list either way.
    private func watch(_ inflight: Inflight) {
        inflight.future.whenComplete { [weak self] result in
            self?.state.withLock { state in
                state.inflight.removeAll { $0.future === inflight.future }
                if case .success(let bytes) = result { state.cache.insert(bytes, at: inflight.range.lowerBound) }
            }
        }
    }

    /// The bytes of a ranged response after checking that it is the range asked for, of the file
    /// first opened.
    static func check(
        _ response: FetchedResponse, offset: UInt64, count: Int, size: UInt64, validator: Validator, url: String
    ) throws -> [UInt8] {
        let asked = ByteRange.span(offset, count).description
        switch response.status {
        case 206:
            if let reason = validator.mismatch(response.headers) { throw RemoteError.changed(url: url, reason: reason) }
            let header = response.headers.first(name: "content-range")
            guard let range = ContentRange(header) else {
                throw RemoteError.badResponse(
                    url: url, reason: "Content-Range \(header ?? "missing") for bytes=\(asked)")
            }
            if let total = range.total, total != size {
                throw RemoteError.changed(url: url, reason: "length \(total), was \(size)")
            }
            guard range.start == offset, range.count == count, response.bytes.count == count else {
                throw RemoteError.badResponse(
                    url: url, reason: "Content-Range \(header!) with \(response.bytes.count) bytes for bytes=\(asked)")
            }
            return response.bytes
        case 200:
            // The whole file (the delegate let it through because it is no longer than the range).
            if let reason = validator.mismatch(response.headers) { throw RemoteError.changed(url: url, reason: reason) }
            guard UInt64(response.bytes.count) == size, offset == 0, count == response.bytes.count else {
                throw RemoteError.rangesNotSupported(url: url)
            }
            return response.bytes
        case 412:
            throw RemoteError.changed(
                url: url,
                reason:
                    "412 Precondition Failed for \(validator.precondition.map { "\($0.name) \($0.value)" } ?? "the request")"
            )
        case 416:
            throw RemoteError.changed(url: url, reason: "416 for bytes=\(asked): the file is shorter now")
        case 404, 410:
            throw RemoteError.notFound(url: url, status: response.status)
        default:
            throw RemoteError.status(url: url, status: response.status, range: asked)
        }
    }

    /// Blocks the calling thread until `future` completes.
    static func wait<Value: Sendable>(_ future: EventLoopFuture<Value>) throws -> Value {
        do {
            return try future.wait()
        } catch let error as RemoteError {
            throw error
        } catch let error as WebArcError {
            throw error
        }
    }
}

extension HTTPByteSource: OriginChecking {
    /// ``changeAtOrigin()`` as the reader's origin checks ask it.
    public func originChange() throws -> (any Error)? {
        try changeAtOrigin()
    }
}
