import ArgumentParser
import WebArc
import WebArcCLISupport

struct Cat: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the body stored for a URL to stdout.",
        discussion: """
            The URL is matched by its canonical form (case of scheme and host, default port, \
            percent-encoding and dot segments do not matter; the fragment is ignored).

              webarc cat site.webarc http://localhost/index.html
              webarc cat site.webarc http://localhost/about -L -i

            Exit 0 when found, 66 when the archive holds no record for the URL.
            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archive to read: a path or an http(s) URL.")
    var archive: String

    @Argument(help: "The absolute URL to look up.")
    var url: String

    @Option(name: [.customShort("X"), .long], help: "The request method.")
    var method: String = "GET"

    @Flag(name: .customShort("i"), help: "Print the status line and headers first.")
    var includeHeaders = false

    @Flag(name: .customShort("L"), help: "Follow redirects stored in the archive (up to 20).")
    var followRedirects = false

    func run() throws {
        try Self.write(archive: archive, url: url, method: method, includeHeaders: includeHeaders, followRedirects: followRedirects)
    }

    /// Looks up `url` and writes its body (and headers) to stdout; shared with ``FastCat``.
    static func write(archive: String, url: String, method: String, includeHeaders: Bool, followRedirects: Bool) throws {
        let reader = try ArchiveOpening.open(archive)
        var current = url
        var visited = Set<String>()
        for _ in 0...20 {
            let found = try withFile(archive, { try reader.lookup(method: method, url: current) })
            // A tombstone (an update archive deleting the URL) answers "not found".
            guard let entry = found, !entry.record.isTombstone else {
                throw CommandFailure("\(archive): no record for \(method.uppercased()) \(current)", code: ExitCodes.noInput)
            }
            if includeHeaders {
                let reason: String = if case .response(let response) = entry.record { response.reason ?? "" } else { "" }
                var head = "HTTP/1.1 \(entry.record.status) \(reason)\r\n"
                for header in entry.record.headers { head += "\(header.name): \(header.value)\r\n" }
                try Output.bytes(Array((head + "\r\n").utf8))
            }
            switch entry.record {
            case .response(let response):
                try withFile(archive) { try reader.forEachChunk(of: response.body) { try Output.bytes($0) } }
                return
            case .redirect(let redirect):
                guard followRedirects else { return }
                guard visited.insert(entry.key).inserted else {
                    throw CommandFailure("\(archive): redirect loop at \(current)", code: ExitCodes.dataError)
                }
                current = redirect.target
            case .tombstone:
                return
            }
        }
        throw CommandFailure("\(archive): more than 20 redirects from \(url)", code: ExitCodes.dataError)
    }
}
