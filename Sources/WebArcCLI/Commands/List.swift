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
              webarc ls update.webarc site.webarc

            Given an update and the archives below it (top first), ls lists the layered view: \
            each URL from the topmost archive holding it, URLs the update deletes left out, with \
            the layer it comes from ([1] the update, [2] the next, …; "layer" in JSON).

            \(ExitCodes.helpText)
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The archive to list (a path or an http(s) URL), or an update then the archives below it.",
            valueName: "archive"))
    var archives: [String]

    @Flag(help: "Print one JSON object per record.")
    var json = false

    func validate() throws {
        guard !archives.isEmpty else { throw ValidationError("name the archive to list") }
    }

    func run() throws {
        if archives.count == 1 {
            let reader = try ArchiveOpening.open(archives[0])
            try withFile(archives[0]) { try reader.forEachEntry { print($0, layer: nil) } }
            return
        }
        let stack = try ArchiveOpening.stack(archives) { "webarc ls " + $0.joined(separator: " ") }
        try withFile(archives[0]) {
            try stack.forEachKey { _, records in
                for entry in records.entries { print(entry, layer: records.layer + 1) }
            }
        }
    }

    /// Prints one record; `layer` (1 for the top) when listing a stack.
    private func print(_ entry: ArchiveEntry, layer: Int?) {
        let request = entry.record.request
        let suffix = layer.map { " [\($0)]" } ?? ""
        let layerField: [String: Any] = layer.map { ["layer": $0] } ?? [:]
        switch entry.record {
        case .response(let response):
            if json {
                Output.json(
                    [
                        "kind": "response", "method": request.method, "status": response.status, "url": request.url,
                        "key": entry.key, "size": response.bodyLength, "md5": response.body.digest.hex,
                        "variant": response.body.variant, "mimeType": response.mimeType ?? NSNull(),
                    ].merging(layerField) { first, _ in first } as [String: Any])
            } else {
                Output.line(
                    "response \(request.method) \(response.status) \(request.url) \(response.bodyLength) \(response.body)"
                        + suffix)
            }
        case .redirect(let redirect):
            if json {
                Output.json(
                    [
                        "kind": "redirect", "method": request.method, "status": redirect.status, "url": request.url,
                        "key": entry.key, "target": redirect.target,
                    ].merging(layerField) { first, _ in first } as [String: Any])
            } else {
                Output.line(
                    "redirect \(request.method) \(redirect.status) \(request.url) -> \(redirect.target)" + suffix)
            }
        case .tombstone:
            if json {
                Output.json(
                    ["kind": "tombstone", "method": request.method, "url": request.url, "key": entry.key]
                        as [String: Any])
            } else {
                Output.line("tombstone \(request.method) \(request.url)")
            }
        }
    }
}
