import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport
import WebArcRefresh

struct Refresh: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Ask the live site about an archive's responses and write what changed as an update.",
        discussion: """
              webarc refresh site.webarc -o site-refresh.webarc --older-than 2d
              webarc refresh pydocs.webarc -o update.webarc --origin https://docs.example.org/3.11/
              webarc refresh site.webarc -o update.webarc --origin http://localhost/docs/=https://example.org/docs/
              webarc serve site-refresh.webarc site.webarc        # or: webarc apply site.webarc site-refresh.webarc -o site-new.webarc

            Every stored GET response (captured longer ago than --older-than) is asked again with \
            the validators its origin gave: If-None-Match with the origin's ETag (a packed \
            archive's ETag is webarc's own MD5, which no origin knows, so it is not sent), else \
            If-Modified-Since with its Last-Modified. 304, or 200 with the same bytes, keeps the \
            record (the update's metadata says when it was confirmed, `refreshed`; with --redate \
            each such record gets a new capture date instead, and goes into the update); other bytes make a changed record (stored as a delta \
            against the old body); 404 and 410 delete the URL; a redirect becomes a redirect \
            record; anything else (5xx, no connection, a timeout) keeps the record as it was and \
            is counted as failed. The output is an update archive over ARCHIVE, as `webarc diff` \
            makes: serve it layered or apply it.

            Polite by default: one origin at a time, one request at a time (raise --concurrency to \
            ask several origins at once), --rate requests per second per origin. Redirects are recorded, not followed.
            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archive to refresh (a plain archive written by webarc 2.1 or later).")
    var archive: String

    @Option(name: .shortAndLong, help: "The update archive to write.")
    var output: String

    @Option(name: .customLong("older-than"), help: ArgumentHelp("Only responses captured longer ago: 90s, 30m, 12h, 2d, 1w.", valueName: "DURATION"))
    var olderThan: DurationArgument?

    @Option(help: ArgumentHelp(
        "Where the site now lives: LIVE replaces the archive's base URL (a packed archive's http://localhost/), "
            + "or ARCHIVED=LIVE names the part replaced.", valueName: "[ARCHIVED=]LIVE"))
    var origin: String?

    @Flag(help: "Only URLs of the start page's origin.")
    var sameOrigin = false

    @Option(help: "Origins asked at once (each one request at a time); polite default: one.")
    var concurrency = 1

    @Option(help: "Requests per second to one origin (default: no limit beyond one at a time).")
    var rate: Double?

    @Option(help: "Seconds before one request fails.")
    var timeout: Double = 30

    @Flag(help: "Give confirmed responses a new capture date (each then goes into the update).")
    var redate = false

    @Flag(name: .shortAndLong, help: "Replace the output if it exists.")
    var force = false

    @Flag(name: .shortAndLong, help: "No progress or summary on stderr.")
    var quiet = false

    @Flag(help: "Print a JSON summary on stdout.")
    var json = false

    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        if let rate, rate <= 0 { throw ValidationError("--rate must be positive") }
        if let origin {
            let parts = Self.originParts(origin)
            guard parts.allSatisfy({ $0.hasPrefix("http://") || $0.hasPrefix("https://") }) else {
                throw ValidationError("--origin must be LIVE or ARCHIVED=LIVE, http(s) URLs, got \(origin)")
            }
        }
    }

    func run() async throws {
        if !force && FileManager.default.fileExists(atPath: output) {
            throw CommandFailure("\(output) exists: use --force to replace it", code: ExitCodes.cannotCreate)
        }
        let reader = try ArchiveOpening.open(archive)
        var options = RefreshOptions(olderThan: olderThan?.seconds, sameOrigin: sameOrigin, concurrency: concurrency, rate: rate, timeout: timeout, redate: redate)
        if let origin {
            let parts = Self.originParts(origin)
            let archived: String? = parts.count == 2 ? parts[0] : try withFile(archive) { try reader.metadata.baseURL }
            guard let archived else {
                throw ValidationError("\(archive) names no base URL: give --origin ARCHIVED=LIVE")
            }
            options.origin = (Self.folder(archived), Self.folder(parts.last!))
        }
        let started = Date()
        let progress = ProgressReporter(label: "refreshing", quiet: quiet || json, unit: "URLs")
        let summary: RefreshSummary
        do {
            summary = try await ArchiveRefresher(archive: archive, options: options).write(to: output, overwrite: force) { done, total in
                progress.update(items: done, totalItems: total, bytes: 0, totalBytes: 0)
            }
        } catch let error as WebArcError {
            progress.finish()
            throw CommandFailure(error, file: archive)
        }
        progress.finish()
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? UInt64) ?? 0
        let seconds = Date().timeIntervalSince(started)
        if json {
            Output.json([
                "update": output, "asked": summary.asked, "notModified": summary.notModified, "unchanged": summary.unchanged,
                "changed": summary.changed, "gone": summary.gone, "redirected": summary.redirected, "failed": summary.failed,
                "skipped": summary.skipped, "bytesFetched": summary.bytesFetched, "updateBytes": size, "failures": summary.failures,
                "seconds": seconds,
            ] as [String: Any])
        } else if !quiet {
            for failure in summary.failures.prefix(20) { Output.error("webarc: kept as it was: \(failure)") }
            Output.error(String(
                format: "%@: asked %d (%d answered 304), %d unchanged, %d changed, %d gone, %d redirected, %d failed; fetched %@; update %@ in %.1f s",
                output, summary.asked, summary.notModified, summary.unchanged, summary.changed, summary.gone, summary.redirected,
                summary.failed, ProgressReporter.size(summary.bytesFetched), ProgressReporter.size(size), seconds))
        }
    }

    /// `[ARCHIVED, LIVE]` or `[LIVE]`: split at the `=` that starts the second URL.
    static func originParts(_ value: String) -> [String] {
        for marker in ["=http://", "=https://"] {
            if let range = value.range(of: marker) {
                return [String(value[..<range.lowerBound]), String(value[value.index(after: range.lowerBound)...])]
            }
        }
        return [value]
    }

    /// A URL prefix that ends with `/`.
    static func folder(_ url: String) -> String { url.hasSuffix("/") ? url : url + "/" }
}
