import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport
import WebArcSearch
import WebArcURLProtocol

/// `webarc capture`, as its own binary, `webarc-capture`: the one command that needs the networking
/// stack (FoundationNetworking, libcurl), kept out of `webarc` so that the other commands start
/// without loading it. `webarc capture …` execs this binary with its arguments unchanged.
@main
struct CaptureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webarc capture",
        abstract: "Record pages from a running site into one archive.",
        discussion: """
            Each URL is fetched as a page with its requisites (stylesheets, scripts, images, fonts, \
            srcset candidates, frames, CSS url() and @import), and every request, response, body and \
            redirect hop is stored; identical bodies are stored once. --depth N also follows links to \
            other pages, N levels deep, with their requisites. Error statuses (404, 500…) are \
            recorded as served; URLs that cannot be fetched at all are listed and left out. The \
            archive appears only when the capture ends; nothing is written when nothing could be \
            recorded (exit 66).

              webarc capture http://localhost:8080/ -o kiosk.webarc --depth 3 --same-origin
              webarc capture https://example.com/a https://example.com/b -o pages.webarc
              webarc capture http://127.0.0.1:8000/ -o site.webarc --depth 2 --json --quiet

            \(ExitCodes.helpText)
            """,
        version: "\(WebArcVersion.release) (archive format \(WebArcVersion.format))"
    )

    /// Runs the capture, mapping failures to one stderr line and a distinct exit code.
    static func main() async {
        do {
            // Every archive written gets a full-text index unless `--no-search` is given.
            SearchIndexBuilder.register(writingByDefault: true)
            let command = try parse()
            InterruptCleanup.install()
            try await command.run()
        } catch {
            ExitCodes.exit(for: error, command: self)
        }
    }

    @Argument(help: "The pages to record (absolute http or https URLs).")
    var urls: [String]

    @Option(name: .shortAndLong, help: "The archive to write.")
    var output: String

    @Option(help: "Levels of links to other pages to follow (0: the given pages only).")
    var depth: Int = 0

    @Flag(
        help:
            "Record only URLs on the origin (scheme, host, port) of a given page; a redirect elsewhere is stored, not followed."
    )
    var sameOrigin = false

    @Flag(help: "Leave out page requisites (stylesheets, scripts, images, fonts).")
    var noRequisites = false

    @Option(help: "Requests at once.")
    var jobs: Int = 4

    @Option(help: "Seconds a request may wait for data before it fails.")
    var timeout: Double = 30

    @Option(help: PlacementChoice.help)
    var dictionaryPlacement: PlacementChoice = .prefix

    @Flag(name: .shortAndLong, help: "Replace the output if it exists.")
    var force = false

    @Flag(name: .shortAndLong, help: "No progress, failures or summary on stderr.")
    var quiet = false

    @Flag(help: "Print the summary as one JSON object on stdout.")
    var json = false

    @OptionGroup var search: SearchIndexing

    func validate() throws {
        guard depth >= 0 else { throw ValidationError("--depth must be 0 or more, got \(depth)") }
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be 1 to 64, got \(jobs)") }
        guard timeout > 0 else { throw ValidationError("--timeout must be more than 0 seconds, got \(timeout)") }
        for url in urls where Self.pageURL(url) == nil {
            throw ValidationError("not an absolute http or https URL: \(url)")
        }
    }

    func run() async throws {
        search.apply()
        let started = Date()
        let start = urls.compactMap(Self.pageURL)
        let recorder: ArchiveRecorder
        // Every 32nd response's body a dictionary for the next ones, as pack's interval; the
        // writer knows these anchors as bodies come (pack's local minima need every body's length
        // first).
        var writerOptions = ArchiveWriter.Options(
            overwrite: force, dictionaryInterval: SitePacker.defaultDictionaryInterval)
        writerOptions.dictionaryPlacement = dictionaryPlacement.placement
        do {
            recorder = try ArchiveRecorder(
                path: output, options: writerOptions,
                metadata: ArchiveMetadata(
                    created: started, creator: WebArcVersion.creator("capture"), startURL: start.first?.absoluteString))
        } catch let error as WebArcError {
            throw CommandFailure(error, file: output)
        }
        let progress = ProgressReporter(label: "capturing", quiet: quiet)
        let crawl = CaptureCrawl(
            recorder: recorder,
            options: CaptureCrawl.Options(
                depth: depth, sameOrigin: sameOrigin, requisites: !noRequisites, jobs: jobs, timeout: timeout))
        let summary = await crawl.run(start) { finished, known in
            progress.status("\(finished)/\(known) URLs  \(ProgressReporter.size(recorder.statistics.bodyBytes))")
        }
        progress.finish()
        let statistics = recorder.statistics
        guard summary.responses > 0 else {
            recorder.cancel()
            if !quiet {
                for failure in summary.failures { Output.error("webarc: failed: \(failure.url): \(failure.reason)") }
            }
            let first = summary.failures.first.map { ": \($0.url): \($0.reason)" } ?? ""
            throw CommandFailure("nothing recorded, \(output) not written\(first)", code: ExitCodes.noInput)
        }
        do {
            try recorder.finish()
        } catch let error as WebArcError {
            throw CommandFailure(error, file: output)
        }
        let seconds = Date().timeIntervalSince(started)
        if json {
            Output.json(
                [
                    "archive": output, "pages": summary.pages, "responses": summary.responses,
                    "redirects": statistics.redirects,
                    "bodiesStored": statistics.bodiesStored, "bodiesDeduplicated": statistics.bodiesDeduplicated,
                    "bodyBytes": statistics.bodyBytes, "seconds": seconds,
                    "errorStatuses": summary.errorStatuses.map {
                        ["url": $0.url, "status": $0.status] as [String: Any]
                    },
                    "failures": summary.failures.map { ["url": $0.url, "reason": $0.reason] },
                    "redirectsNotFollowed": summary.redirectsNotFollowed,
                ] as [String: Any])
        }
        guard !quiet else { return }
        for failure in summary.failures { Output.error("webarc: failed: \(failure.url): \(failure.reason)") }
        Output.error(
            String(
                format:
                    "captured %d pages, %d responses (%d with an error status) and %d redirects into %@: %d distinct bodies (%d duplicates), %@, %d failures in %.2fs",
                summary.pages, summary.responses, summary.errorStatuses.count, statistics.redirects, output,
                statistics.bodiesStored,
                statistics.bodiesDeduplicated, ProgressReporter.size(statistics.bodyBytes), summary.failures.count,
                seconds))
    }

    /// `text` as a page URL: absolute, http or https, with a host.
    static func pageURL(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil, (try? URLKey.canonicalize(text)) != nil
        else { return nil }
        return url
    }
}
