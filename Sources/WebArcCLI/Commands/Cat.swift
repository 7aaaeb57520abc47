import ArgumentParser
import WebArc
import WebArcCLISupport
import WebArcReplay

struct Cat: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cat",
        abstract: "Write the body stored for a URL to stdout.",
        discussion: """
            The URL is matched by its canonical form (case of scheme and host, default port, \
            percent-encoding and dot segments do not matter; the fragment is ignored). A path \
            without a scheme is resolved against the archive's base URL (or start URL), as \
            `unzip -p` names a member.

              webarc cat site.webarc http://localhost/index.html
              webarc cat site.webarc library/functions.html
              webarc cat site.webarc http://localhost/about -L -i

            A stored redirect is not followed unless -L is given: cat then prints nothing on \
            stdout (with -i, the redirect's status line and headers), names the redirect's target \
            on stderr and exits 3, so that a script never takes a redirect for an empty page.

            Exit 0 when found, 3 when the URL holds a redirect and -L is not given, 66 when the \
            archive holds no record for the URL.
            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archive to read: a path or an http(s) URL.")
    var archive: String

    @Argument(help: "The absolute URL to look up, or a path resolved against the archive's base URL.")
    var url: String

    @Option(name: [.customShort("X"), .long], help: "The request method.")
    var method: String = "GET"

    @Flag(name: .customShort("i"), help: "Print the status line and headers first.")
    var includeHeaders = false

    @Flag(
        name: .customShort("L"),
        help: "Follow redirects stored in the archive (up to 20); without it a redirect exits 3.")
    var followRedirects = false

    func run() throws {
        try Self.write(
            archive: archive, url: url, method: method, includeHeaders: includeHeaders, followRedirects: followRedirects
        )
    }

    /// Looks up `url` and writes its body (and headers) to stdout; shared with ``CommandLineEntry``'s plain form.
    ///
    /// The lookup is the replay engine's with the exact canonical key only (no fuzzy rule: `cat`
    /// shows what is stored under the URL given); `-L` walks stored redirects with the engine's
    /// ``RedirectChain``, which refuses a target outside http(s) and webarc.
    static func write(archive: String, url: String, method: String, includeHeaders: Bool, followRedirects: Bool) throws
    {
        let reader = try ArchiveOpening.open(archive)
        var url = url
        if let resolved = try withFile(archive, { try reader.url(forPath: url) }) { url = resolved }
        let chain = RedirectChain(archives: ReplayArchives(readers: [reader], rules: []))
        func head(_ record: ArchiveRecord) throws {
            guard includeHeaders else { return }
            let reason: String = if case .response(let response) = record { response.reason ?? "" } else { "" }
            var head = "HTTP/1.1 \(record.status) \(reason)\r\n"
            for header in record.headers { head += "\(header.name): \(header.value)\r\n" }
            try Output.bytes(Array((head + "\r\n").utf8))
        }
        let resolution: RedirectChain.Resolution
        do {
            resolution = try withFile(archive) {
                try chain.resolve(method: method, url: url) { redirect, _, hop in
                    try head(.redirect(redirect))
                    return followRedirects ? .follow(hop) : .stop
                }
            }
        } catch ReplayError.badURL(let url, let reason) {
            throw CommandFailure(WebArcError.badURL(url: url, reason: reason), file: archive)
        } catch ReplayError.archive(_, let error) {
            throw CommandFailure(error, file: archive)
        } catch ReplayError.redirectLoop(let chain) {
            throw CommandFailure("\(archive): redirect loop at \(chain.last ?? url)", code: ExitCodes.dataError)
        } catch ReplayError.tooManyRedirects {
            throw CommandFailure("\(archive): more than 20 redirects from \(url)", code: ExitCodes.dataError)
        }
        switch resolution {
        case .response(let match, _, _):
            guard case .response(let response) = match.entry.record else { return }
            try head(match.entry.record)
            try withFile(archive) { try reader.forEachChunk(of: response.body) { try Output.bytes($0) } }
        case .redirect(let redirect, let at, _):
            throw CommandFailure(
                "\(archive): \(at) is a redirect (\(redirect.status)) to \(redirect.target): use -L to follow it",
                code: ExitCodes.redirectNotFollowed)
        case .refused(let redirect, let at, _):
            try head(.redirect(redirect))
            let scheme = redirect.target.prefix { $0 != ":" }
            guard followRedirects else {
                throw CommandFailure(
                    "\(archive): \(at) is a redirect (\(redirect.status)) to a \(scheme): URL, which is never followed",
                    code: ExitCodes.redirectNotFollowed)
            }
            throw CommandFailure(
                "\(archive): the redirect at \(at) leads to a \(scheme): URL, which is never followed",
                code: ExitCodes.dataError)
        case .miss(let method, let missed, _):
            throw CommandFailure("\(archive): no record for \(method.uppercased()) \(missed)", code: ExitCodes.noInput)
        }
    }
}
