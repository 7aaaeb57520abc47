import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport
import WebArcRemote
import WebArcServer

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve archives over HTTP for a browser with no network.",
        discussion: """
              webarc serve site.webarc &  chromium --kiosk http://127.0.0.1:8080/
              webarc serve update.webarc base.webarc --port 0 --quiet > url.txt &
              webarc serve crawl.webarc --host 0.0.0.0 --port 8000
              webarc serve --trust publisher.pub --state /var/lib/kiosk/webarc site.webarc
              webarc serve --trust publisher.pub --verify site.webarc
              webarc serve https://cdn.example.com/update.webarc base.webarc

            The first line on stdout is the URL to open. The first archive holding a URL answers \
            it: list an update before its base (an update made by `webarc diff` is read over the \
            archives listed right after it, checked by digest; URLs it deletes answer 404). The start page's origin is served at /; every \
            other archived origin at /_/<scheme>/<host>/ (links in HTML and CSS are rewritten to \
            match); proxy-form requests (a browser using the server as its HTTP proxy) get each \
            URL exactly as stored. One line per request goes to stderr unless --quiet: client, \
            request, the status and body bytes actually sent (a body that failed is logged as \
            sent, with an error line after). Stop with Ctrl-C or SIGTERM: serve then exits 0, \
            as a service manager expects, not 130 or 143.

            With --trust, every archive must carry a valid, unexpired signature by one of the keys, \
            checked before the server listens: one that does not is refused with the reason and exit \
            65, and nothing is served. --state applies to the first archive (the newest release): an \
            older release than one accepted before is refused as rolled back. --trust checks the \
            signature only, which takes a moment whatever the size; each page is still checked \
            against its SHA-256 when it is read, so a damaged page answers 500 (a large one damaged \
            past its first chunk is cut short instead), never with wrong bytes. --verify \
            checks every archive in full before listening, as `webarc verify` does (reading every \
            byte once): any problem is printed and serve exits 65 without listening.

            An archive replaced while it is served is never mixed with the old one: the server \
            reopens the archives, checks them as at the start (--trust, --state, --verify), and serves the \
            new version. It notices a file replaced at its path (`webarc apply … -o site.webarc`, \
            or `cp` over it) within 2 s, a file replaced at its URL (a publisher's new release on \
            the CDN) when a read finds the old one gone or within 60 s (--recheck), and reopens \
            at once on SIGHUP (`kill -HUP PID`). A new version that does not open or is not \
            trusted is not served, and the reason goes to stderr; a file renamed over goes on \
            being served as it was.

            Search: /_webarc/search?q=WORDS answers a results page (plain HTML in the browser's \
            language, no script) and /_webarc/suggest?q=PREFIX a JSON array of {title, url} for \
            archives with a search index (`webarc pack` writes one; `webarc index` adds one); \
            --search-box puts a small search form at the top of every HTML page served. The box \
            goes in after the <body> tag, so the page's length and ETag include it; pages stored \
            compressed (a Content-Encoding) or larger than 8 MiB are served without it.

            Exit codes of serve: 0 when stopped by SIGINT or SIGTERM; 65 also for an archive not \
            trusted or failing --verify, and for layers that do not fit (an update listed after its \
            base); 69 cannot listen (the port is in use, a port below 1024 without root, an \
            unknown host).
            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archives to serve (paths or http(s) URLs), searched in order.")
    var archives: [String]

    @Option(help: "The address to listen on; with 0.0.0.0 the printed URL names 127.0.0.1.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 8080

    @Option(
        name: .customLong("cache-mib"),
        help: "Memory for every cache (hot bodies, resolved URLs, index pages, dictionaries), in MiB.")
    var cacheMiB = 64

    @Flag(help: "Do not log requests.")
    var quiet = false

    @Option(
        help: ArgumentHelp(
            "Seconds between checks that each archive is still the file at its path or URL (0: never; default: 2 for files, 60 for URLs); a replaced one is reopened and served.",
            valueName: "seconds"))
    var recheck: Double?

    /// How often local files are checked by default: a `stat` each, nothing crosses a network.
    static let defaultFileRecheck = 2.0
    /// How often remote archives are checked by default: one request each.
    static let defaultRemoteRecheck = 60.0

    @Flag(
        help:
            "Check every archive in full (each page and body, as `webarc verify` does) before listening; exit 65 on any problem."
    )
    var verify = false

    @Flag(help: "Put a small search form (no script) at the top of every HTML page served.")
    var searchBox = false

    @OptionGroup var trust: TrustOptions

    func validate() throws {
        guard !archives.isEmpty else { throw ValidationError("name at least one archive to serve") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        guard cacheMiB >= 1 else { throw ValidationError("--cache-mib must be at least 1") }
        if let recheck, !(recheck >= 0 && recheck.isFinite) {
            throw ValidationError("--recheck must be 0 or more seconds")
        }
    }

    func run() async throws {
        let policy = try trust.policy()
        let set = try openArchives(policy: policy, showingProgress: true)
        let remote = archives.contains(where: HTTPByteSource.isRemote)
        let server: WebArcServer
        do {
            server = try await WebArcServer.start(
                archives: set,
                configuration: {
                    var configuration = WebArcServer.Configuration(
                        host: host, port: port, cacheBytes: cacheMiB << 20, accessLog: quiet ? nil : .standardError())
                    // A reader thread waits for the network while a remote archive is read: as
                    // many as a browser's parallel requests.
                    if remote { configuration.readerThreads = max(16, configuration.threads) }
                    configuration.reload = reload(policy: policy)
                    configuration.searchBox = searchBox
                    return configuration
                }())
        } catch let error as WebArcServerError {
            throw CommandFailure(Self.message(for: error), code: ExitCodes.unavailable)
        }
        let signals = await server.stopOnSignals() + [server.reopenOnSignal()]
        Output.line(server.url)
        let fileInterval = recheck ?? Self.defaultFileRecheck
        let remoteInterval = recheck ?? Self.defaultRemoteRecheck
        let watches = [
            archives.contains { !HTTPByteSource.isRemote($0) } && fileInterval > 0
                ? Self.watchFiles(of: server.responder, every: fileInterval) : nil,
            remote && remoteInterval > 0 ? Self.watchOrigins(of: server.responder, every: remoteInterval) : nil,
        ].compactMap { $0 }
        defer { watches.forEach { $0.cancel() } }
        await server.waitUntilStopped()
        await server.stop()
        signals.forEach { $0.cancel() }
    }
}

extension Serve {
    /// Opens the archives as a layer stack and, with a trust policy, checks every one of them,
    /// and with --verify verifies each in full (the readers that will serve are the ones checked:
    /// a file swapped after the check is not served).
    func openArchives(policy: TrustPolicy?, showingProgress: Bool = false) throws -> ArchiveSet {
        // An update is read over the archives listed right after it (spec §13), checked by digest.
        // Read with pread, not mapped: a file rewritten in place under a mapping ends the process
        // with SIGBUS, where pread gives an error the reload cures.
        let readers = try ArchiveOpening.stack(archives, cacheMiB: cacheMiB) {
            "webarc serve " + $0.joined(separator: " ")
        }.layers
        if let policy {
            for (index, reader) in readers.enumerated() {
                do {
                    _ = try reader.checkTrust(index == 0 ? policy : policy.withoutRollbackState)
                } catch let error as WebArcError {
                    if case .io = error { throw CommandFailure(error, file: reader.path) }
                    throw CommandFailure(
                        "\(reader.path): refused, not trusted (\(error.code)): \(error.description)",
                        code: ExitCodes.dataError)
                }
            }
        }
        if verify { try verifyInFull(readers, showingProgress: showingProgress) }
        return try archives.count == 1
            ? withFile(archives[0]) { try ArchiveSet(readers: readers) } : ArchiveSet(readers: readers)
    }

    /// Runs every check of `webarc verify` over each archive (an update over its bases, as
    /// served), printing the problems of any that fails; progress on stderr at the start.
    ///
    /// - Throws: ``CommandFailure`` (65) naming the archives that failed.
    func verifyInFull(_ readers: [ArchiveReader], showingProgress: Bool) throws {
        var failed: [String] = []
        for reader in readers {
            let progress = ProgressReporter(
                label: "verifying \(reader.path)", quiet: quiet || !showingProgress, unit: "bodies")
            let report = ArchiveVerifier.verify(reader) { bodies, totalBodies, done, total in
                progress.update(items: bodies, totalItems: totalBodies, bytes: done, totalBytes: total)
            }
            progress.finish()
            guard !report.passed else { continue }
            for problem in report.problems { Output.error("webarc: \(reader.path): \(problem)") }
            failed.append(reader.path)
        }
        guard !failed.isEmpty else { return }
        throw CommandFailure(
            "\(failed.joined(separator: ", ")) failed --verify (the problems are listed above)",
            code: ExitCodes.dataError)
    }

    /// The message for a server that cannot listen, with the option that fixes it.
    static func message(for error: WebArcServerError) -> String {
        switch error {
        case .portInUse: "\(error) (try --port 0 for any free port, or another --port)"
        case .permissionDenied: "\(error) (try --port 0 for any free port, or one of 1024 or above)"
        case .unknownHost, .addressNotAvailable:
            "\(error) (try --host 127.0.0.1 for this machine only, or 0.0.0.0 for every interface)"
        case .cannotListen: "\(error) (try another --port or --host)"
        case .noArchives: error.description
        }
    }

    /// Every `seconds`, asks each remote archive's server whether its file is still the one
    /// served (one request for its last byte, with `If-Match`), and reloads on a change: a kiosk
    /// whose pages are all cached still moves to the publisher's new release. A check that fails
    /// (the network is down) is skipped: the archives keep serving what they hold. The checks wait
    /// for the network on a queue of their own, never on Swift's concurrency threads.
    static func watchOrigins(of responder: ArchiveResponder, every seconds: Double) -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "webarc.serve.recheck", qos: .utility))
        timer.schedule(deadline: .now() + seconds, repeating: seconds)
        timer.setEventHandler {
            let generation = responder.generation
            guard let change = ArchiveReader.firstOriginChange(among: responder.archives.readers) else { return }
            responder.reloadAfter(change, seen: generation)
        }
        timer.resume()
        return timer
    }

    /// Every `seconds`, looks whether each local archive's path still names the file opened, and
    /// reopens the archives when one was replaced (renamed over, or rewritten in place): a
    /// `stat` per file.
    static func watchFiles(of responder: ArchiveResponder, every seconds: Double) -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "webarc.serve.files", qos: .utility))
        timer.schedule(deadline: .now() + seconds, repeating: seconds)
        timer.setEventHandler {
            let generation = responder.generation
            guard responder.archives.replacedFile != nil else { return }
            responder.reopenArchives(seen: generation)
        }
        timer.resume()
        return timer
    }

    /// What the server does when an archive changed at its path or URL (a kiosk applied an
    /// update over it, a publisher replaced it on the CDN) or on SIGHUP: opens the archives
    /// again, checked as at the start (--trust, --state), and serves the new version; one that
    /// does not open or is not trusted is not served, with the reason on stderr, until the next
    /// change.
    func reload(policy: TrustPolicy?) -> ArchiveResponder.Reload {
        // The default recognises RemoteError.changed (a SourceChanged error).
        ArchiveResponder.Reload(
            reopen: {
                do {
                    let set = try openArchives(policy: policy)
                    Output.error("webarc: reopened \(archives.joined(separator: ", ")): serving the new version")
                    return set
                } catch let failure as CommandFailure {
                    Output.error(
                        "webarc: reopening the archives failed, so the new version is not served: \(failure.message)")
                } catch {
                    Output.error("webarc: reopening the archives failed, so the new version is not served: \(error)")
                }
                return nil
            })
    }
}
