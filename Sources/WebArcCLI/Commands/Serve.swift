import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport
import WebArcServer

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve archives over HTTP for a browser with no network.",
        discussion: """
              webarc serve site.webarc &  chromium --kiosk http://127.0.0.1:8080/
              webarc serve update.webarc base.webarc --port 0 --quiet > url.txt &
              webarc serve crawl.webarc --host 0.0.0.0 --port 8000

            The first line on stdout is the URL to open. The first archive holding a URL answers \
            it: list an update before its base. The start page's origin is served at /; every \
            other archived origin at /_/<scheme>/<host>/ (links in HTML and CSS are rewritten to \
            match); proxy-form requests (a browser using the server as its HTTP proxy) get each \
            URL exactly as stored. One line per request goes to stderr unless --quiet. Stop with \
            Ctrl-C or SIGTERM.
            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archives to serve, searched in order.")
    var archives: [String]

    @Option(help: "The address to listen on; with 0.0.0.0 the printed URL names 127.0.0.1.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 8080

    @Option(name: .customLong("cache-mib"), help: "Memory for hot bodies and resolved URLs, in MiB.")
    var cacheMiB = 64

    @Flag(help: "Do not log requests.")
    var quiet = false

    func validate() throws {
        guard !archives.isEmpty else { throw ValidationError("name at least one archive to serve") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        guard cacheMiB >= 1 else { throw ValidationError("--cache-mib must be at least 1") }
    }

    func run() async throws {
        let readers = try archives.map { path in try withFile(path) { try ArchiveReader(path: path, mapped: true) } }
        let set = try archives.count == 1 ? withFile(archives[0]) { try ArchiveSet(readers: readers) } : ArchiveSet(readers: readers)
        let server: WebArcServer
        do {
            server = try await WebArcServer.start(
                archives: set,
                configuration: .init(host: host, port: port, cacheBytes: cacheMiB << 20, accessLog: quiet ? nil : .standardError()))
        } catch let error as WebArcServerError {
            throw CommandFailure(error.description, code: ExitCodes.failure)
        }
        let signals = await server.stopOnSignals()
        Output.line(server.url)
        await server.waitUntilStopped()
        await server.stop()
        signals.forEach { $0.cancel() }
    }
}
