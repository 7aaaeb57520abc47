import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List an archive's records, one line each.",
        discussion: """
            Each line: kind, method, status, URL, then body size and MD5 for a response, or the \
            target for a redirect. Records come in canonical-key order.

              webarc ls site.webarc
              webarc ls site.webarc --json | jq -r 'select(.status == 404) | .url'

            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archive to list: a path or an http(s) URL.")
    var archive: String

    @Flag(help: "Print one JSON object per record.")
    var json = false

    func run() throws {
        let reader = try ArchiveOpening.open(archive)
        try withFile(archive) {
            try reader.forEachEntry { entry in
                let request = entry.record.request
                switch entry.record {
                case .response(let response):
                    if json {
                        Output.json([
                            "kind": "response", "method": request.method, "status": response.status, "url": request.url,
                            "key": entry.key, "size": response.bodyLength, "md5": response.body.digest.hex,
                            "variant": response.body.variant, "mimeType": response.mimeType ?? NSNull(),
                        ] as [String: Any])
                    } else {
                        Output.line("response \(request.method) \(response.status) \(request.url) \(response.bodyLength) \(response.body)")
                    }
                case .redirect(let redirect):
                    if json {
                        Output.json([
                            "kind": "redirect", "method": request.method, "status": redirect.status, "url": request.url,
                            "key": entry.key, "target": redirect.target,
                        ] as [String: Any])
                    } else {
                        Output.line("redirect \(request.method) \(redirect.status) \(request.url) -> \(redirect.target)")
                    }
                case .tombstone:
                    if json {
                        Output.json(["kind": "tombstone", "method": request.method, "url": request.url, "key": entry.key] as [String: Any])
                    } else {
                        Output.line("tombstone \(request.method) \(request.url)")
                    }
                }
            }
        }
    }
}
