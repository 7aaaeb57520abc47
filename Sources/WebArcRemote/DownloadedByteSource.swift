import Foundation
import NIOCore
import NIOHTTP1
import WebArc

/// A remote archive downloaded into an unlinked temporary file, region by region, each region one
/// streaming GET, and read while it arrives: for a reader that touches every byte (`webarc verify
/// URL`), each byte crosses the network once, in long sequential transfers, at the speed of a
/// plain download.
///
/// ```swift
/// let source = try DownloadedByteSource(url: "https://cdn.example.com/site.webarc")
/// let reader = try ArchiveReader(source: source, path: source.url)   // the lead and the tail
/// source.fetchRest(first: reader.trailer.bodyDataEnd..<source.size)  // pages the tail lacks
/// let report = ArchiveVerifier.verify(reader)                        // checks as bytes arrive
/// try source.finish()                                                // the transfers' own error, if any
/// ```
///
/// The first round trip sends two requests at once: the *stream*, `Range: bytes=0-`, which brings
/// the file front to back from the start (the lead, then the body data, as a plain download
/// would), and the *tail*, the last ``RemoteConfiguration/downloadTailLength`` bytes (the trailer
/// and, as a writer places them last, the pages of most archives: opening and the page checks
/// need nothing else, and the body checks start while the stream brings the first bodies). The
/// stream stops where the tail begins. When the pages start before the tail,
/// ``fetchRest(first:)`` stops the stream at them and fetches them in one more request, in the
/// second round trip. A read waits until its bytes have arrived; until `fetchRest`, a read far
/// ahead of the stream (the reader's open, for a root before a short tail) gets its own request
/// instead of waiting for the stream.
///
/// Every request after the first response carries its validator (`If-Match` with a strong `ETag`),
/// and every response head is checked against it and the file's length: a file replaced meanwhile
/// fails with ``RemoteError/changed(url:reason:)``, never mixes. A transfer cut short resumes
/// where it stopped, up to ``RemoteConfiguration/retries`` times. A server that ignores `Range`
/// sends the whole file to the stream, which then is the one region (the tail's request ends at
/// its head, and the reader waits for the end of the file before it opens). Needs temporary disk
/// space for the whole file (`TMPDIR`); memory holds no file bytes but the reader's tail.
/// Transfers use HTTP/1.1 connections (one per region in flight), which TCP alone paces: HTTP/2's
/// flow-control windows hold a long transfer back on a long round trip.
public final class DownloadedByteSource: ByteSource, @unchecked Sendable {
    /// The URL as given.
    public let url: String
    /// The file's length, from the first response's `Content-Range` (or `Content-Length`).
    public var size: UInt64 { withLock { knownSize ?? 0 } }
    /// The bytes at the end of the file asked for beside the stream, which the reader reads at open.
    public let openingTailLength: Int
    /// The body data comes as one stream from the file's start.
    public var arrivesInFileOrder: Bool { true }
    /// How far ahead of the stream a read at open gets its own request rather than waiting.
    static let aheadOfStream: UInt64 = 1 << 20
    let file: ScratchFile
    let client: RemoteClient
    private let retries: Int
    /// Guards everything below and the regions' fields; readers wait on it.
    private let condition = NSCondition()
    private var knownSize: UInt64?
    private var regions: [DownloadRegion] = []
    private var validator: Validator?
    /// The region asked for from byte 0 to the end.
    private let stream: DownloadRegion
    /// Set once a response to a range request was the whole file: no region is cut or added then.
    private var rangesIgnored = false
    /// True until ``fetchRest(first:)``: reads are the reader's open.
    private var opening = true

    /// Starts the stream and the tail and returns once the file's length is known.
    ///
    /// - Throws: ``RemoteError`` (`badURL`, `notFound`, `status`, `badResponse` when the length is
    ///   not given, `timedOut`, `connection`, `tls`); `io` when no temporary file can be made.
    public init(url: String, configuration: RemoteConfiguration = .init()) throws {
        guard HTTPByteSource.isRemote(url) else { throw RemoteError.badURL(url: url) }
        self.url = url
        client = RemoteClient(configuration: configuration, http1Only: true)
        retries = configuration.retries
        openingTailLength = min(max(configuration.downloadTailLength, configuration.tailLength, 272), 4 << 20)
        file = try ScratchFile.forDownload()
        stream = DownloadRegion(from: 0)
        let tail = DownloadRegion(suffix: openingTailLength)
        regions = [stream, tail]
        start(stream)
        start(tail)
        condition.lock()
        defer { condition.unlock() }
        while tail.suffix != nil && tail.finished == nil { condition.wait() }
        if tail.suffix != nil, case .failure(let error)? = tail.finished {
            stream.cut(at: 0)
            throw error
        }
    }

    /// Stops every transfer at the next part it receives: for a reader that failed to open, the
    /// rest of the file is not wanted.
    public func cancel() {
        withLock {
            for region in regions where region.finished == nil { region.cut(at: 0) }
        }
    }

    /// Requests sent and response body bytes received so far (the client's, shared by every
    /// source with the same timeouts).
    public var statistics: (requests: Int, bytes: UInt64) { client.statistics }

    /// Starts downloading every byte no region holds yet: the parts inside `first` first (for a
    /// verifier, the pages, which it reads before any body; the stream stops where they start),
    /// the rest as one region per gap, all at once. Reads after this wait for the stream.
    public func fetchRest(first: Range<UInt64>) {
        let started: [DownloadRegion] = withLock {
            opening = false
            if !rangesIgnored, stream.streams(past: first.lowerBound) { stream.cut(at: first.lowerBound) }
            let size = knownSize ?? 0
            var gaps = gaps(in: 0..<size)
            gaps = gaps.flatMap { gap -> [Range<UInt64>] in
                let cuts = [
                    gap.lowerBound, min(max(first.lowerBound, gap.lowerBound), gap.upperBound),
                    min(max(first.upperBound, gap.lowerBound), gap.upperBound), gap.upperBound,
                ]
                return zip(cuts, cuts.dropFirst()).map { $0..<$1 }.filter { !$0.isEmpty }
            }
            let ordered = gaps.filter { first.contains($0.lowerBound) } + gaps.filter { !first.contains($0.lowerBound) }
            return ordered.map(addRegion)
        }
        started.forEach(start)
    }

    /// Waits for every transfer started so far.
    ///
    /// - Throws: the first error that ended one.
    public func finish() throws {
        condition.lock()
        defer { condition.unlock() }
        while regions.contains(where: { $0.finished == nil }) { condition.wait() }
        for region in regions {
            if case .failure(let error)? = region.finished { throw error }
        }
    }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        let size = self.size
        guard offset <= size, UInt64(count) <= size - offset else {
            throw WebArcError.truncated(
                section: "file", offset: offset, needed: UInt64(count), available: size > offset ? size - offset : 0)
        }
        let wanted = offset..<offset + UInt64(count)
        let started = withLock {
            if opening, !rangesIgnored, stream.streams(past: wanted.lowerBound),
                wanted.lowerBound - stream.received > Self.aheadOfStream
            {
                stream.cut(at: wanted.lowerBound)
            }
            return gaps(in: wanted).map(addRegion)
        }
        started.forEach(start)
        condition.lock()
        while true {
            let covering = regions.filter {
                $0.suffix == nil && $0.start < wanted.upperBound && $0.end > wanted.lowerBound
            }
            let waiting = covering.filter { $0.received < min(wanted.upperBound, $0.end) }
            if waiting.isEmpty { break }
            if let failed = waiting.first(where: { $0.finished != nil }) {
                condition.unlock()
                if case .failure(let error)? = failed.finished { throw error }
                throw RemoteError.connection(url: url, reason: "transfer ended at byte \(failed.received) of \(size)")
            }
            for region in waiting { region.wakeAt = min(region.wakeAt, min(wanted.upperBound, region.end)) }
            condition.wait()
        }
        condition.unlock()
        return try file.read(at: offset, count: count, url: url)
    }

    // MARK: Regions (under the lock unless said otherwise)

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    /// The parts of `range` that no region holds or will hold.
    private func gaps(in range: Range<UInt64>) -> [Range<UInt64>] {
        var gaps: [Range<UInt64>] = []
        var next = range.lowerBound
        let known = regions.filter { $0.suffix == nil && $0.start < $0.end }.sorted { $0.start < $1.start }
        for region in known where region.end > next && region.start < range.upperBound {
            if region.start > next { gaps.append(next..<region.start) }
            next = max(next, region.end)
        }
        if next < range.upperBound { gaps.append(next..<range.upperBound) }
        return gaps
    }

    private func addRegion(_ range: Range<UInt64>) -> DownloadRegion {
        let region = DownloadRegion(range)
        regions.append(region)
        return region
    }

    /// Checks a response head against the file first seen (its validator and length) and returns
    /// where the region's bytes start in the response; a suffix region takes its span here.
    ///
    /// - Throws: ``RemoteError/changed(url:reason:)`` for another version of the file;
    ///   `badResponse` for a length over 2^63 − 1.
    func accept(
        headers: HTTPHeaders, first: UInt64, total: UInt64, wholeFile: Bool = false, for region: DownloadRegion
    ) throws -> UInt64 {
        // Offsets become `off_t` for the temporary file: a length no file can have is refused.
        guard total <= UInt64(Int64.max) else {
            throw RemoteError.badResponse(url: url, reason: "a file length of \(total) bytes")
        }
        return try withLock {
            if let validator {
                if let reason = validator.mismatch(headers) { throw RemoteError.changed(url: url, reason: reason) }
            } else {
                validator = Validator(headers)
            }
            if let knownSize, knownSize != total {
                throw RemoteError.changed(url: url, reason: "length \(total), was \(knownSize)")
            }
            knownSize = total
            if wholeFile { rangesIgnored = true }
            for other in regions where other.suffix == nil && other.end > total {
                other.end = max(other.start, total)
            }
            if region.suffix != nil {
                // From the response's first byte, except what the stream holds: the stream stops
                // there. The whole file (a server that ignores `Range`, or a file shorter than
                // the suffix) is the stream's alone.
                let start = first == 0 ? total : max(first, stream.received)
                stream.cut(at: start)
                region.suffix = nil
                region.start = start
                region.received = start
                region.end = total
            }
            condition.broadcast()
            return region.received
        }
    }

    func advance(_ region: DownloadRegion, to position: UInt64) {
        withLock {
            region.received = position
            if position >= region.wakeAt {
                region.wakeAt = DownloadRegion.unknownEnd
                condition.broadcast()
            }
        }
    }

    private func end(_ region: DownloadRegion, _ result: Result<Void, any Error>) {
        withLock {
            region.finished = result
            condition.broadcast()
        }
    }

    /// Runs a region's transfer (not under the lock): one GET for its rest, resumed after a
    /// failure that left bytes in place.
    private func start(_ region: DownloadRegion) {
        let sink = RegionSink(region: region, file: file, owner: self)
        transfer(sink, attempt: 0)
    }

    private func transfer(_ sink: RegionSink, attempt: Int) {
        let region = sink.region
        let (range, validator) = withLock { (region.request, self.validator) }
        if case .span(_, 0) = range { return end(region, .success(())) }
        sink.prepare()
        let from = withLock { region.received }
        client.get(url, range: range, validator: validator, maxBytes: Int.max, stream: sink).whenComplete { result in
            let (complete, received) = self.withLock { (region.isComplete, region.received) }
            let progressed = received > from
            switch result {
            case .success(let response) where (200..<300).contains(response.status) && complete:
                self.end(region, .success(()))
            case .success(let response) where response.status == 416 && region.suffix != nil:
                // Only an empty file has no last byte; the reader says `empty`.
                guard let total = ContentRange(response.headers.first(name: "content-range"))?.total, total == 0 else {
                    return self.end(
                        region, .failure(RemoteError.status(url: self.url, status: 416, range: range.description)))
                }
                _ = try? self.accept(headers: response.headers, first: 0, total: 0, for: region)
                self.end(region, .success(()))
            case .success where complete:
                // Nothing was left to fetch (the stream of an empty file, which the tail's 416 ended).
                self.end(region, .success(()))
            case .success(let response):
                let error: RemoteError =
                    switch response.status {
                    case 404, 410: .notFound(url: self.url, status: response.status)
                    case 412: .changed(url: self.url, reason: "412 Precondition Failed when reading bytes=\(range)")
                    case 200..<300:
                        .connection(url: self.url, reason: "transfer ended at byte \(received) of \(self.size)")
                    default: .status(url: self.url, status: response.status, range: range.description)
                    }
                if case .connection = error, progressed, attempt < self.retries {
                    return self.transfer(sink, attempt: attempt + 1)
                }
                self.end(region, .failure(error))
            case .failure where complete:
                // A transfer cut once its region was full: the stream where the tail or the pages
                // begin, or a whole-file answer (a server that ignores `Range`).
                self.end(region, .success(()))
            case .failure(let error):
                let resumable = (error as? RemoteError).map(RemoteClient.isRetryable) ?? false
                if resumable, progressed, attempt < self.retries {
                    self.transfer(sink, attempt: attempt + 1)
                } else {
                    self.end(region, .failure(error))
                }
            }
        }
    }
}
