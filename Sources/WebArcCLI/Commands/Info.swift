import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe an archive: version, records, bodies, sizes and ratios.",
        discussion: """
              webarc info site.webarc
              webarc info site.webarc --json

            Dedup ratio: bytes of every response body ÷ bytes of distinct bodies. Compression \
            ratio: stored body bytes ÷ distinct body bytes.
            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archive to describe.")
    var archive: String

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        let reader = try ArchiveOpening.open(archive)
        var responses = 0
        var redirects = 0
        var responseBytes: UInt64 = 0
        var origins = Set<String>()
        try withFile(archive) {
            try reader.forEachEntry { entry in
                switch entry.record {
                case .response(let response):
                    responses += 1
                    responseBytes += response.bodyLength
                case .redirect: redirects += 1
                }
                let canonical = entry.key.split(separator: " ", maxSplits: 1).last.map(String.init) ?? ""
                if let range = canonical.range(of: "://") {
                    origins.insert(String(canonical[..<(canonical[range.upperBound...].firstIndex(of: "/") ?? canonical.endIndex)]))
                }
            }
        }
        var distinctBytes: UInt64 = 0
        for index in 0..<reader.bodyCount { distinctBytes += try withFile(archive) { try reader.bodyEntry(atPosition: index).length } }
        let metadata = try withFile(archive) { try reader.metadata }
        let header = reader.header
        let dedup = distinctBytes > 0 ? Double(responseBytes) / Double(distinctBytes) : 1
        let compression = distinctBytes > 0 ? Double(reader.storedBodyBytes) / Double(distinctBytes) : 1
        if json {
            Output.json([
                "archive": archive, "formatVersion": "\(header.majorVersion).\(header.minorVersion)", "fileBytes": reader.fileSize,
                "responses": responses, "redirects": redirects, "distinctBodies": reader.bodyCount, "chunks": reader.chunkCount,
                "rawBytes": responseBytes, "distinctBodyBytes": distinctBytes, "storedBodyBytes": reader.storedBodyBytes,
                "indexBytes": header.archiveLength - header.indexOffset, "dedupRatio": dedup, "compressionRatio": compression,
                "origins": origins.sorted(), "startURL": metadata.startURL ?? NSNull(), "baseURL": metadata.baseURL ?? NSNull(),
                "creator": metadata.creator ?? NSNull(),
                "metadata": Dictionary(metadata.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }),
            ] as [String: Any])
            return
        }
        let lines: [(String, String)] = [
            ("archive", archive),
            ("format", "webarc \(header.majorVersion).\(header.minorVersion)"),
            ("file size", ProgressReporter.size(reader.fileSize)),
            ("records", "\(responses) responses, \(redirects) redirects"),
            ("bodies", "\(reader.bodyCount) distinct in \(reader.chunkCount) chunks"),
            ("raw bytes", "\(ProgressReporter.size(responseBytes)) in responses, \(ProgressReporter.size(distinctBytes)) distinct"),
            ("stored bytes", "\(ProgressReporter.size(reader.storedBodyBytes)) of bodies, \(ProgressReporter.size(header.archiveLength - header.indexOffset)) of index"),
            ("dedup ratio", String(format: "%.2f×", dedup)),
            ("compression", String(format: "%.3f (stored ÷ distinct)", compression)),
            ("origins", origins.sorted().joined(separator: ", ")),
            ("start URL", metadata.startURL ?? "none"),
        ] + (metadata.creator.map { [("creator", $0)] } ?? []) + metadata.entries.map { ($0.key, $0.value) }
        for (name, value) in lines { Output.line(name.padding(toLength: 13, withPad: " ", startingAt: 0) + value) }
    }
}
