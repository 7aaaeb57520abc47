import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import WebArc
import WebArcReplay

/// Revalidates an archive against the live site and writes what changed as an update archive
/// (a layer over the archive, spec §13), as `webarc diff` would between the archive and its
/// refreshed copy.
///
/// ```swift
/// let refresher = ArchiveRefresher(archive: "site.webarc", options: RefreshOptions(olderThan: 2 * 86_400))
/// let summary = try await refresher.write(to: "site-refresh.webarc")
/// print(summary.asked, summary.notModified, summary.changed, summary.gone)
/// ```
///
/// Every stored GET response old enough is asked again with the validators its origin gave
/// (``OriginValidators``): 304 or the same bytes keep the record (with a new capture date when
/// ``RefreshOptions/redate`` is set; otherwise the metadata's `refreshed` entry says when), other
/// bytes make a changed record, 404/410 a tombstone, a redirect a redirect record. An error status
/// (401, 403, 407, 408, 429, 451, 5xx, …), a timeout, a reset or a TLS failure keeps the record as
/// it was and is reported in ``RefreshSummary/kept``: a refresh never turns a stored page into an
/// error page. 429 and 503 are asked again after the wait their `Retry-After` gives.
///
/// Nothing is written when every URL asked was kept after an error, or when the answers would
/// change more than ``RefreshOptions/maxChangeShare`` of the archive (``RefreshError``). Otherwise
/// the refreshed archive is written to a temporary file beside the output (the archive's own
/// writer recipe, records in its order), diffed against the archive, and removed; nothing is
/// written at the output unless the whole refresh succeeds.
public struct ArchiveRefresher: Sendable {
    /// The archive to refresh (a plain archive written by webarc 2.1 or later).
    public let archive: String
    /// What to ask, how politely, and how much of the archive an update may change.
    public let options: RefreshOptions

    /// Makes a refresher of `archive`.
    public init(archive: String, options: RefreshOptions = RefreshOptions()) {
        self.archive = archive
        self.options = options
    }

    /// One response to ask: its tree position and what is stored.
    struct Question: Sendable {
        var position: Int
        var response: ResponseRecord
        var live: String
    }

    /// Refreshes and writes the update to `path` atomically.
    ///
    /// - Parameter progress: called after each answer with (answered, asked).
    /// - Throws: ``RefreshError/noAnswers(summary:)`` when every URL asked was kept after an error,
    ///   ``RefreshError/massChange(limit:summary:)`` when the update would change too much of the
    ///   archive (nothing is written for either); ``WebArcError`` for a damaged archive or I/O
    ///   (`badTarget` for an archive without a writer recipe).
    public func write(
        to path: String, overwrite: Bool = false, progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws -> RefreshSummary {
        let reader = try ArchiveReader(path: archive)
        let metadata = try reader.metadata
        guard let recipe = metadata.writer, metadata.bases.isEmpty else {
            throw WebArcError.badTarget(
                reason: "\(archive) is an update or was written before format 2.1: apply it or pack it again first")
        }
        var entries: [ArchiveEntry] = []
        try reader.forEachEntry { entries.append($0) }
        var summary = RefreshSummary()
        let questions = plan(entries, startURL: metadata.startURL, summary: &summary)
        let answers = try await ask(questions, reader: reader, summary: &summary, progress: progress)
        if summary.asked > 0 && summary.keptAfterError == summary.asked {
            throw RefreshError.noAnswers(summary: summary)
        }
        if let limit = options.maxChangeShare, summary.changeShare > limit {
            throw RefreshError.massChange(limit: limit, summary: summary)
        }

        let refreshed = OutputFile.intermediatePath(beside: path, purpose: "refreshed")
        defer { try? FileManager.default.removeItem(atPath: refreshed) }
        try writeRefreshed(entries, answers: answers, recipe: recipe, metadata: metadata, reader: reader, to: refreshed)
        summary.update = try UpdateBuilder(old: try LayerStack([reader]), new: try ArchiveReader(path: refreshed))
            .write(to: path, overwrite: overwrite)
        return summary
    }

    /// The responses to ask: GET, old enough, inside the origin when asked to stay there.
    func plan(_ entries: [ArchiveEntry], startURL: String?, summary: inout RefreshSummary) -> [Question] {
        let startOrigin = startURL.flatMap { Self.origin(of: options.liveURL(for: $0)) }
        var questions: [Question] = []
        for (position, entry) in entries.enumerated() {
            guard case .response(let response) = entry.record, response.request.method == "GET" else { continue }
            summary.stored += 1
            let live = options.liveURL(for: response.request.url)
            let old =
                options.olderThan.map { age in
                    response.captureDate.map { options.now.timeIntervalSince($0) >= age } ?? true
                } ?? true
            let inside = !options.sameOrigin || startOrigin == nil || Self.origin(of: live) == startOrigin
            guard old, inside, live.hasPrefix("http://") || live.hasPrefix("https://") else {
                summary.skipped += 1
                continue
            }
            questions.append(Question(position: position, response: response, live: live))
        }
        return questions
    }

    /// Asks every question: one origin one request at a time (at `rate` at most), up to
    /// `concurrency` origins at once.
    func ask(
        _ questions: [Question], reader: ArchiveReader, summary: inout RefreshSummary,
        progress: (@Sendable (Int, Int) -> Void)?
    ) async throws -> [Int: RefreshOutcome] {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.decompression = .disabled
        // The request's deadline ends with the answer's head; the read timeout also bounds each
        // wait for more of its body, so that an origin that stalls mid-body cannot hang the refresh.
        let timeout = TimeAmount.milliseconds(Int64(options.timeout * 1000))
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: timeout, read: timeout)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let fetcher = OriginFetcher(client: client, options: options)
        let byOrigin = Dictionary(grouping: questions) { Self.origin(of: $0.live) ?? $0.live }.values.map { $0 }
        let live = Dictionary(questions.map { ($0.position, $0.live) }, uniquingKeysWith: { first, _ in first })
        let counter = ProgressCounter(total: questions.count, progress: progress)
        var answers: [Int: RefreshOutcome] = [:]
        do {
            try await withThrowingTaskGroup(of: [(Int, OriginFetcher.Answer)].self) { group in
                var next = 0
                func start() {
                    guard next < byOrigin.count else { return }
                    let batch = byOrigin[next]
                    next += 1
                    group.addTask { try await askOrigin(batch, fetcher: fetcher, reader: reader, counter: counter) }
                }
                for _ in 0..<max(1, options.concurrency) { start() }
                while let results = try await group.next() {
                    for (position, answer) in results {
                        answers[position] = answer.outcome
                        Self.tally(answer, url: live[position] ?? "", in: &summary)
                    }
                    start()
                }
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        return answers
    }

    /// Asks one origin's questions one at a time, at `rate` at most.
    func askOrigin(
        _ batch: [Question], fetcher: OriginFetcher, reader: ArchiveReader, counter: ProgressCounter
    ) async throws -> [(Int, OriginFetcher.Answer)] {
        var results: [(Int, OriginFetcher.Answer)] = []
        var unreachable = 0
        var mayRetry = true
        for question in batch {
            // An origin that twice in a row gave no HTTP answer at all is down: its other URLs are
            // kept at once instead of each waiting for the timeout.
            if unreachable >= Self.unreachableLimit {
                results.append(
                    (
                        question.position,
                        OriginFetcher.Answer(outcome: .keptAfterError(.originUnreachable(failures: unreachable)))
                    ))
                counter.step()
                continue
            }
            let started = Date()
            let response = question.response
            let answer = await fetcher.ask(
                response, live: question.live, mayRetry: mayRetry, previous: { [UInt8](try reader.body(response.body)) }
            )
            unreachable = answer.unreachable ? unreachable + 1 : 0
            // An origin that still refuses after its retries is overloaded: its other URLs are asked
            // once each, without waiting again.
            if answer.refusedAfterRetries { mayRetry = false }
            results.append((question.position, answer))
            counter.step()
            if let rate = options.rate, rate > 0 {
                let wait = 1 / rate - Date().timeIntervalSince(started)
                if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
            }
        }
        return results
    }

    /// Adds one answer about `url` to the counts.
    static func tally(_ answer: OriginFetcher.Answer, url: String, in summary: inout RefreshSummary) {
        summary.asked += 1
        summary.bytesFetched += UInt64(answer.bytes)
        summary.retried += answer.retries
        if answer.notModified { summary.notModified += 1 }
        switch answer.outcome {
        case .unchanged: summary.unchanged += 1
        case .changed: summary.changed += 1
        case .gone: summary.gone += 1
        case .redirected: summary.redirected += 1
        case .keptAfterError(let reason):
            summary.keptAfterError += 1
            summary.kept.append(KeptRecord(url: url, reason: reason))
        }
    }

    /// What the refreshed archive holds at one position of the insertion order.
    enum Step {
        /// The record as stored (its date changed when re-dated).
        case copy(ArchiveRecord)
        /// A response the origin answered with another body: its record, whose body reference
        /// is set when the body is added (its length is already the body's), and the body.
        case changed(ResponseRecord, body: [UInt8])
        case redirect(RedirectRecord)

        /// The response whose body this step adds (spec Appendix C step 13 gives it a position).
        var response: ResponseRecord? {
            switch self {
            case .copy(.response(let response)): response
            case .changed(let response, _): response
            default: nil
            }
        }
    }

    /// Writes the archive as the live site now answers: each record in the archive's insertion
    /// order, replaced, re-dated, or left out as its answer says, by the archive's writer recipe
    /// (its anchor rule included, so that an update between the two codes again only the bodies
    /// near a change).
    func writeRefreshed(
        _ entries: [ArchiveEntry], answers: [Int: RefreshOutcome], recipe: WriterRecipe, metadata: ArchiveMetadata,
        reader: ArchiveReader,
        to path: String
    ) throws {
        let order = (try? recipe.order.positions(count: entries.count)) ?? Array(entries.indices)
        let steps = order.compactMap { step(entries[$0].record, answer: answers[$0]) }
        var writerOptions = ArchiveWriter.Options(overwrite: true, recipe: recipe)
        writerOptions.anchorPlan = try AnchorPlan.following(recipe, responses: steps.compactMap(\.response))
        let writer = try ArchiveWriter(path: path, options: writerOptions)
        writer.metadata = metadata
        if !options.redate {
            // When the records the origin confirmed were last checked, without re-dating each one.
            writer.metadata.entries.removeAll { $0.key == "refreshed" }
            writer.metadata.entries.append(
                ArchiveMetadata.Entry("refreshed", ISO8601DateFormatter().string(from: options.now)))
        }
        try writer.failing {
            for step in steps {
                switch step {
                case .copy(let record):
                    try writer.copy(record, from: reader)
                case .changed(var response, let body):
                    let stored = try writer.addBody(body)
                    response.body = stored.reference
                    response.bodyLength = stored.length
                    try writer.add(response)
                case .redirect(let redirect):
                    try writer.add(redirect)
                }
            }
        }
        try writer.finish()
    }

    /// What the refreshed archive holds in place of `record`, given the origin's answer; nil when
    /// the origin no longer has it.
    func step(_ record: ArchiveRecord, answer: RefreshOutcome?) -> Step? {
        switch (record, answer) {
        case (.response(var response), .unchanged?) where options.redate:
            response.captureDate = options.now
            return .copy(.response(response))
        case (.response(let old), .changed(let status, let reason, let headers, let body)?):
            let media = ContentTypeParts.of(headers.first { $0.name.lowercased() == "content-type" }?.value)
            let response = ResponseRecord(
                request: old.request, status: status, reason: reason, headers: headers,
                mimeType: media.mimeType ?? old.mimeType,
                textEncoding: media.textEncoding, body: BodyReference(digest: BodyDigest.ofEmpty),
                bodyLength: UInt64(body.count),
                captureDate: options.now)
            return .changed(response, body: body)
        case (_, .gone?):
            return nil
        case (.response(let old), .redirected(let status, let target, let headers)?):
            return .redirect(
                RedirectRecord(
                    request: old.request, status: status, target: target, headers: headers, captureDate: options.now))
        default:
            return .copy(record)
        }
    }

    /// Consecutive requests without any HTTP answer after which an origin counts as down.
    static let unreachableLimit = 2

    /// `scheme://host[:port]` of a URL.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
        else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }
}

/// Counts answers across tasks and reports them.
final class ProgressCounter: Sendable {
    let total: Int
    let progress: (@Sendable (Int, Int) -> Void)?
    private let done = Mutex(0)

    init(total: Int, progress: (@Sendable (Int, Int) -> Void)?) {
        self.total = total
        self.progress = progress
    }

    func step() {
        let count = done.withLock { value -> Int in
            value += 1
            return value
        }
        progress?(count, total)
    }
}
