import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport
import WebArcRemote

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check an archive's structure and every body.",
        discussion: """
            Runs the spec's checks in order: open (lead and trailer), pages (every page's SHA-256 \
            and structure), trees (key order, heights, counts, body entry copies), objects, chunks \
            (every chunk decoded and checked against its SHA-256), body digests (MD5 and SHA-256 of \
            every body), layout (extents tile the archive), references, redirects and the appendix. \
            Reports every problem (check, record, URL, byte offset), not only the first.

              webarc verify site.webarc
              webarc verify site.webarc --json | jq .problems
              webarc verify site.webarc --trust publisher.pub --state /var/lib/kiosk/webarc
              webarc verify https://cdn.example.com/site.webarc
              webarc verify v1-to-v2.webarc --base site-v1.webarc

            An update made by `webarc diff` alone is checked except for the chunks its bases hold \
            (a warning says so); with --base (repeat for a stack, top first) those are checked too.

            A URL is downloaded once, front to back (temporary disk space for the whole file), \
            and checked while it arrives.

            With --trust the archive must also carry a valid, unexpired signature by one of the \
            keys; it is refused as unsigned, untrusted-key, bad-signature (changed since signing) or \
            expired, and with --state as rolled-back when an older release than one accepted before.

            Exit 0 when the archive is sound (warnings allowed) and, with --trust, trusted; 65 when a \
            check failed or the archive is not trusted.
            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archive to check: a path or an http(s) URL.")
    var archive: String

    @Option(
        name: .customLong("base"),
        help: ArgumentHelp(
            "For an update: an archive it goes over; repeat for a stack, top first.", valueName: "BASE.webarc"))
    var bases: [String] = []

    @Flag(help: "Print the report as one JSON object on stdout.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress or summary line.")
    var quiet = false

    @OptionGroup var trust: TrustOptions

    func run() throws {
        // A file that cannot be opened as an archive at all (missing, a folder, a FIFO, no permission)
        // is missing input (66), like every other command says; only what opens gets the checks.
        let remote = HTTPByteSource.isRemote(archive)
        if !remote {
            do { _ = try FileByteSource(path: archive) } catch let error as WebArcError {
                throw CommandFailure(error, file: archive)
            }
            if ArchiveOpening.compactUpdate(archive) != nil {
                throw ArchiveOpening.compactUpdateGiven(archive, code: ExitCodes.dataError)
            }
        }
        let policy = try trust.policy()
        MallocTuning.mapLargeBlocks()
        let progress = ProgressReporter(label: "verifying", quiet: quiet || json, unit: "bodies")
        let started = Date()
        let update: ArchiveVerifier.Progress = { bodies, totalBodies, done, total in
            progress.update(items: bodies, totalItems: totalBodies, bytes: done, totalBytes: total)
        }
        let (report, trusted): (VerificationReport, TrustDecision?)
        if !bases.isEmpty {
            // Every chunk of the top is read (a URL is downloaded once); of the bases, only the
            // chunks the top refers to (read by ranges).
            let layers =
                try [ArchiveOpening.open(archive, readingAll: true)] + bases.map { try ArchiveOpening.open($0) }
            try LayerOrder.check(layers, locations: [archive] + bases) { order in
                "webarc verify " + order[0] + order.dropFirst().map { " --base " + $0 }.joined()
            }
            let top = try withFile(archive) { try LayerStack(layers) }.top
            (report, trusted) =
                policy.map { ArchiveVerifier.verify(top, trusting: $0, progress: update) }
                ?? (ArchiveVerifier.verify(top, progress: update), nil)
        } else if remote {
            // Each byte of a URL is downloaded once (its end, then its pages and body data at
            // once) and checked as it arrives; a transfer that fails is an I/O error (74), not a
            // verdict on the archive.
            do {
                (report, trusted) = try withFile(archive) {
                    try RemoteVerifier.verify(
                        url: archive, configuration: ArchiveOpening.remoteConfiguration, trusting: policy,
                        progress: update)
                }
            } catch let failure as CommandFailure
                where failure.code == ExitCodes.dataError && ArchiveOpening.compactUpdate(archive) != nil
            {
                throw ArchiveOpening.compactUpdateGiven(archive, code: failure.code)
            }
        } else {
            (report, trusted) =
                policy.map { ArchiveVerifier.verify(path: archive, trusting: $0, progress: update) }
                ?? (ArchiveVerifier.verify(path: archive, progress: update), nil)
        }
        progress.finish()
        let seconds = Date().timeIntervalSince(started)
        let signature = SignatureVerdict(archive: archive, report: report, policyGiven: policy != nil, trust: trusted)
        if json {
            Output.json(
                [
                    "archive": archive, "passed": report.passed, "records": report.records, "bodies": report.bodies,
                    "bodyBytes": report.bodyBytes, "checks": report.checks, "seconds": seconds,
                    "signature": signature.json,
                    "problems": report.problems.map { problem in
                        [
                            "check": problem.check, "code": problem.code, "severity": problem.severity.rawValue,
                            "message": problem.message, "offset": problem.offset.map { $0 as Any } ?? NSNull(),
                            "position": problem.position.map { $0 as Any } ?? NSNull(),
                            "record": problem.record.map { $0 as Any } ?? NSNull(), "url": problem.url ?? NSNull(),
                        ] as [String: Any]
                    },
                ] as [String: Any])
        } else {
            for problem in report.problems { Output.error("webarc: \(archive): \(problem)") }
            if !quiet || !report.passed {
                let errors = report.problems.filter { $0.severity == .error }.count
                let warnings = report.problems.count - errors
                let verdict = report.passed ? "ok" : "FAILED"
                Output.line(
                    "\(archive): \(verdict): \(report.records) records, \(report.bodies) bodies, "
                        + "\(ProgressReporter.size(report.bodyBytes)) re-hashed, \(errors) errors, \(warnings) warnings "
                        + String(format: "(%.2fs)", seconds))
            }
            if !quiet { signature.print() }
        }
        if !report.passed { throw ExitCode(ExitCodes.dataError) }
    }
}
