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
            If-Modified-Since with its Last-Modified. The output is an update archive over \
            ARCHIVE, as `webarc diff` makes: serve it layered or apply it.

            What each answer does:
              304, same bytes      kept (the update's metadata says when: `refreshed`;
                                   --redate re-dates each, which then goes into the update)
              2xx, other bytes     changed (stored as a delta against the old body)
              301 302 303 307 308  a redirect record (not followed)
              404 410              deleted
              any other status     kept as stored and reported "kept after error" with
              (401 403 407 408     the reason: a refresh never turns a stored page into
              429 451 5xx ...),    an error page (a page archived with that same error
              timeout, reset, TLS  status may be updated by it)

            429 and 503 with a Retry-After of at most --max-retry-after seconds are waited \
            for and asked again, twice at most; an origin that still refuses gets no more \
            waits in this refresh.

            Safeguards: when changed, redirected and deleted responses would exceed \
            --max-change-share of the archive's GET responses (default 0.2), or when every URL \
            asked was kept after an error, nothing is written (exits 65 and 69). Some URLs kept \
            after errors is no failure: the update is written, they are listed on stderr (the \
            first 20) and in --json ("kept"), and the exit is 0.

            Polite by default: one origin at a time, one request at a time (raise --concurrency to \
            ask several origins at once), --rate requests per second per origin.
            \(ExitCodes.helpText) For refresh: 65 when the update would change more than \
            --max-change-share of the archive (allow it with --allow-mass-change); 69 when every \
            URL asked was kept after an error (the origin is down or refusing). Nothing is written \
            for either.
            """
    )

    @Argument(help: "The archive to refresh (a plain archive written by webarc 2.1 or later).")
    var archive: String

    @Option(name: .shortAndLong, help: "The update archive to write.")
    var output: String

    @Option(
        name: .customLong("older-than"),
        help: ArgumentHelp("Only responses captured longer ago: 90s, 30m, 12h, 2d, 1w.", valueName: "DURATION"))
    var olderThan: DurationArgument?

    @Option(
        help: ArgumentHelp(
            "Where the site now lives: LIVE replaces the archive's base URL (a packed archive's http://localhost/), "
                + "or ARCHIVED=LIVE names the part replaced.", valueName: "[ARCHIVED=]LIVE"))
    var origin: String?

    @Flag(help: "Only URLs of the start page's origin.")
    var sameOrigin = false

    @Option(help: "Origins asked at once (each one request at a time); polite default: one.")
    var concurrency = 1

    @Option(help: "Requests per second to one origin (default: no limit beyond one at a time).")
    var rate: Double?

    @Option(help: "Seconds before one request fails (connecting, waiting, or stalled mid-body); the record is kept.")
    var timeout: Double = 30

    @Option(
        help: ArgumentHelp(
            "The longest Retry-After (seconds) a 429 or 503 is waited for; longer, the record is kept.",
            valueName: "SECONDS"))
    var maxRetryAfter: Double = 60

    @Option(
        help: ArgumentHelp(
            "Stop, writing nothing (exit 65), when changed, redirected and deleted responses would exceed this share (0 to 1) of the archive.",
            valueName: "SHARE"))
    var maxChangeShare: Double = RefreshOptions.defaultMaxChangeShare

    @Flag(help: "Write the update however much of the archive it changes.")
    var allowMassChange = false

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
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        guard maxRetryAfter >= 0 else { throw ValidationError("--max-retry-after must be 0 or more") }
        guard (0...1).contains(maxChangeShare) else {
            throw ValidationError("--max-change-share must be between 0 and 1, got \(maxChangeShare)")
        }
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
        var options = RefreshOptions(
            olderThan: olderThan?.seconds, sameOrigin: sameOrigin, concurrency: concurrency, rate: rate,
            timeout: timeout, redate: redate,
            maxChangeShare: allowMassChange ? nil : maxChangeShare, maxRetryAfter: maxRetryAfter)
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
            summary = try await ArchiveRefresher(archive: archive, options: options).write(to: output, overwrite: force)
            { done, total in
                progress.update(items: done, totalItems: total, bytes: 0, totalBytes: 0)
            }
        } catch let error as RefreshError {
            progress.finish()
            report(error.summary, written: false, seconds: Date().timeIntervalSince(started))
            throw failure(for: error)
        } catch let error as WebArcError {
            progress.finish()
            throw CommandFailure(error, file: archive)
        }
        progress.finish()
        report(summary, written: true, seconds: Date().timeIntervalSince(started))
    }

    /// The summary on stdout (--json) or stderr: records kept after errors, then the counts.
    func report(_ summary: RefreshSummary, written: Bool, seconds: Double) {
        let size = written ? (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? UInt64) ?? 0 : 0
        if json {
            Output.json(
                [
                    "update": output, "written": written, "stored": summary.stored, "asked": summary.asked,
                    "notModified": summary.notModified,
                    "unchanged": summary.unchanged, "changed": summary.changed, "gone": summary.gone,
                    "redirected": summary.redirected,
                    "keptAfterError": summary.keptAfterError, "retried": summary.retried,
                    "changeShare": summary.changeShare,
                    "skipped": summary.skipped, "bytesFetched": summary.bytesFetched, "updateBytes": size,
                    "kept": summary.kept.map { ["url": $0.url, "reason": $0.reason.description] }, "seconds": seconds,
                ] as [String: Any])
            return
        }
        if !quiet {
            for kept in summary.kept.prefix(20) { Output.error("webarc: warning: kept after error: \(kept)") }
            if summary.kept.count > 20 {
                Output.error(
                    "webarc: warning: … and \(summary.kept.count - 20) more kept after errors (--json lists all)")
            }
        }
        if written && summary.keptAfterError > 0 {
            Output.error(
                "webarc: warning: \(summary.keptAfterError) of \(summary.asked) URLs kept as stored after errors; the rest is in the update"
            )
        }
        guard !quiet else { return }
        Output.error(
            String(
                format:
                    "%@: asked %d (%d answered 304), %d unchanged, %d changed, %d gone, %d redirected, %d kept after errors; fetched %@; %@ in %.1f s",
                output, summary.asked, summary.notModified, summary.unchanged, summary.changed, summary.gone,
                summary.redirected,
                summary.keptAfterError, ProgressReporter.size(summary.bytesFetched),
                written ? "update " + ProgressReporter.size(size) : "nothing written",
                seconds))
    }

    /// The error line and exit code for a refresh that wrote nothing.
    func failure(for error: RefreshError) -> CommandFailure {
        switch error {
        case .massChange:
            CommandFailure(
                "\(error.description); check the origin, and if the site really changed this much rerun with --allow-mass-change "
                    + "(or a larger --max-change-share)", code: ExitCodes.dataError)
        case .noAnswers:
            CommandFailure(error.description, code: ExitCodes.unavailable)
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
