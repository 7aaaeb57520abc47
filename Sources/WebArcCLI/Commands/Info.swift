import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport
import WebArcSearch

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe an archive: version, features, records, bodies, sizes and ratios.",
        discussion: """
              webarc info site.webarc
              webarc info site.webarc --json
              webarc info v1-to-v2.webarcu      # a compact update: its base and what it gives

            Dedup ratio: bytes of every response body ÷ bytes of distinct bodies. Compression \
            ratio: stored body bytes ÷ distinct body bytes. For an update archive, "responses" \
            tells the responses whose body the bases already hold (a header-only change such as a \
            new Last-Modified, or a copy; baseBodyResponses in --json) from those that bring a new \
            or changed body (newBodyResponses). The counts are the totals the writer stored \
            (webarc 2.2.2 and later: nothing else is read); an older archive's trees are walked. \
            The first 32 origins are listed, with their count when there are more.
            \(ExitCodes.helpText)
            """
    )

    @Argument(help: "The archive to describe: a path or an http(s) URL.")
    var archive: String

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        let reader: ArchiveReader
        switch try ArchiveOpening.archiveOrCompactUpdate(archive) {
        case .archive(let opened): reader = opened
        case .compactUpdate(let source): return try describeCompact(source)
        }
        let metadata = try withFile(archive) { try reader.metadata }
        let totals = try withFile(archive) { try metadata.totals ?? Self.walkedTotals(reader, metadata: metadata) }
        let responses = Int(clamping: totals.responses)
        let responseBytes = totals.responseBytes
        let distinctBytes = totals.bodyBytes
        let chunks = totals.chunks
        // In an update, a response whose body lies wholly in the bases brings no body bytes: a
        // header-only change (or a copy of a body the bases hold under another URL).
        let baseBodyResponses = metadata.bases.isEmpty ? nil : totals.baseBodyResponses.map { Int(clamping: $0) }
        let originsText =
            totals.origins.joined(separator: ", ")
            + (totals.originCount > UInt64(totals.origins.count) ? ", … (\(totals.originCount) in all)" : "")
        let trailer = reader.trailer
        let version = "\(trailer.majorVersion).\(trailer.minorVersion)"
        let features = Self.featureNames(trailer.requiredFeatures)
        let formatLine =
            "webarc \(version)" + (features.isEmpty ? "" : ", requires " + features.joined(separator: ", "))
        let tombstoneText =
            totals.tombstones > 0 ? ", " + Plural.count(Int(clamping: totals.tombstones), "tombstone") : ""
        let recordLine =
            "\(reader.recordCount): \(Plural.count(responses, "response")), "
            + Plural.count(Int(clamping: totals.redirects), "redirect") + tombstoneText
        let signatures = try withFile(archive) { try reader.signatureBlocks() }
        let searchDocuments = try withFile(archive) { try reader.searchDocumentCount }
        let searchRules = metadata.writer?.search.map { " (rules \($0))" } ?? ""
        let searchLine =
            searchDocuments.map { Plural.count(Int(clamping: $0), "page") + " indexed\(searchRules)" }
            ?? "no index (webarc index adds one)"
        let dedup = DedupRatio.value(rawBytes: responseBytes, distinctBytes: distinctBytes)
        let compression = distinctBytes > 0 ? Double(reader.storedBodyBytes) / Double(distinctBytes) : 1
        if json {
            Output.json(
                [
                    "archive": archive, "formatVersion": version, "requiredFeatures": features,
                    "fileBytes": reader.fileSize,
                    "archiveLength": trailer.archiveLength, "records": reader.recordCount,
                    "responses": responses, "redirects": totals.redirects, "tombstones": totals.tombstones,
                    "distinctBodies": reader.bodyCount,
                    "chunks": chunks, "rawBytes": responseBytes, "distinctBodyBytes": distinctBytes,
                    "storedBodyBytes": reader.storedBodyBytes,
                    "indexBytes": reader.indexBytes, "dedupRatio": dedup, "compressionRatio": compression,
                    "searchDocuments": searchDocuments.map { $0 as Any } ?? NSNull(),
                    "archiveDigest": SignatureText.hex(reader.archiveDigest),
                    "origins": totals.origins, "originCount": totals.originCount,
                    "startURL": metadata.startURL ?? NSNull(),
                    "baseURL": metadata.baseURL ?? NSNull(),
                    "creator": metadata.creator ?? NSNull(), "signatures": signatures.map(SignatureText.json),
                    "metadata": Dictionary(
                        metadata.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }),
                    "bases": metadata.bases.map {
                        [
                            "digest": SignatureText.hex($0.digest), "archiveLength": $0.archiveLength,
                            "name": $0.name ?? NSNull(),
                        ] as [String: Any]
                    },
                    "baseBodyResponses": baseBodyResponses.map { $0 as Any } ?? NSNull(),
                    "newBodyResponses": baseBodyResponses.map { (responses - $0) as Any } ?? NSNull(),
                    "target": metadata.target.map {
                        ["digest": SignatureText.hex($0.digest), "archiveLength": $0.archiveLength] as [String: Any]
                    } ?? NSNull(),
                    "writer": metadata.writer.map {
                        [
                            "level": $0.level, "dictionaryInterval": $0.dictionaryInterval,
                            "zstdLevel": $0.zstdLevel.map { $0 as Any } ?? NSNull(),
                            "anchors": Self.anchorRuleName($0.anchors),
                            "dictionaryPlacement": Self.placementName($0.placement), "runs": $0.order.runs.count,
                        ] as [String: Any]
                    } ?? NSNull(),
                ] as [String: Any])
            return
        }
        var lines: [(String, String)] = [
            ("archive", archive),
            ("format", formatLine),
            ("file size", ProgressReporter.size(reader.fileSize)),
            ("records", recordLine),
        ]
        if let baseBodyResponses {
            lines.append(("responses", Self.updateResponsesLine(responses: responses, baseBodies: baseBodyResponses)))
        }
        lines +=
            [
                ("bodies", "\(reader.bodyCount) distinct in " + Plural.count(Int(clamping: chunks), "chunk")),
                (
                    "raw bytes",
                    "\(ProgressReporter.size(responseBytes)) in responses, \(ProgressReporter.size(distinctBytes)) distinct"
                ),
                (
                    "stored bytes",
                    "\(ProgressReporter.size(reader.storedBodyBytes)) of bodies, \(ProgressReporter.size(reader.indexBytes)) of index"
                ),
                ("dedup ratio", String(format: "%.2f×", dedup)),
                ("compression", String(format: "%.3f (stored ÷ distinct)", compression)),
                ("origins", originsText),
                ("start URL", metadata.startURL ?? "none"),
                ("search", searchLine),
            ] + (metadata.creator.map { [("creator", $0)] } ?? []) + metadata.entries.map { ($0.key, $0.value) }
            + Self.layerLines(metadata)
        let signatureLines: [(String, String)] = signatures.map { ("signature", SignatureText.line($0)) }
        for (name, value) in lines + signatureLines {
            Output.line(name.padding(toLength: 13, withPad: " ", startingAt: 0) + value)
        }
    }

    /// An update's responses: how many reuse a body its bases hold (headers only, or a copy) and
    /// how many bring a new or changed body.
    static func updateResponsesLine(responses: Int, baseBodies: Int) -> String {
        "\(baseBodies) with a body the bases hold (headers only, or a copy), \(responses - baseBodies) with a new or changed body"
    }

    /// The name `info` gives an anchor rule (spec Appendix C step 13).
    static func anchorRuleName(_ rule: WriterRecipe.AnchorRule) -> String {
        switch rule {
        case .everyNth: "every-nth"
        case .keyed: "keyed"
        case .localMinimum: "local-minimum"
        case .unknown(let code): "unknown (\(code))"
        }
    }

    /// `Writer.dictionaryPlacement` (spec Appendix C step 13): where a chunk's dictionary lay when
    /// it was compressed.
    static func placementName(_ placement: DictionaryPlacement) -> String {
        switch placement {
        case .apart: "apart"
        case .prefix: "prefix"
        case .unknown(let code): "unknown (\(code))"
        }
    }

    /// How the archive was written and, for an update, what it goes over and gives (spec §13).
    static func layerLines(_ metadata: ArchiveMetadata) -> [(String, String)] {
        var lines: [(String, String)] = []
        if let writer = metadata.writer {
            let dictionaries =
                writer.groups.map { "bodies grouped in chunks of up to \(ProgressReporter.size(UInt64($0)))" }
                ?? (writer.dictionaryInterval == 0
                    ? "no dictionaries"
                    : writer.anchors == .everyNth
                        ? "dictionaries every \(writer.dictionaryInterval) bodies"
                        : "dictionaries about every \(writer.dictionaryInterval) bodies (anchors \(anchorRuleName(writer.anchors)), "
                            + "dictionary placement \(placementName(writer.placement)))")
            let zstd = writer.zstdLevel.map { ", Zstandard \($0)" } ?? ""
            lines.append(
                (
                    "writer",
                    "level \(writer.level)\(zstd), \(dictionaries)"
                        + (writer.order.isTreeOrder ? "" : ", \(writer.order.runs.count) order runs")
                ))
        }
        for (index, base) in metadata.bases.enumerated() {
            lines.append(
                (
                    "base \(index + 1)",
                    "\(base.name ?? "?") (archive digest \(SignatureText.hex(base.digest)), \(ProgressReporter.size(base.archiveLength)))"
                ))
        }
        if let target = metadata.target {
            lines.append(
                (
                    "applies to",
                    "archive digest \(SignatureText.hex(target.digest)), \(ProgressReporter.size(target.archiveLength))"
                ))
        }
        return lines
    }

    /// The totals of an archive written before 2.2.2, which has none stored: counted by walking
    /// both trees.
    static func walkedTotals(_ reader: ArchiveReader, metadata: ArchiveMetadata) throws -> ArchiveTotals {
        var counter = ArchiveTotals.Counter()
        try reader.forEachEntry { entry in
            var inBases = false
            if case .response(let response) = entry.record, !metadata.bases.isEmpty {
                inBases = try reader.bodyEntry(response.body).chunks.allSatisfy { $0.layer > 0 }
            }
            counter.add(entry.record, key: entry.key, bodyInBases: inBases)
        }
        try reader.forEachBody { counter.add(body: $0) }
        return counter.totals(layered: !metadata.bases.isEmpty)
    }

    /// The names of the required feature bits (spec §4.4); unknown bits by number.
    static func featureNames(_ features: Trailer.Features) -> [String] {
        (0..<64).compactMap { bit -> String? in
            guard features.rawValue & (1 << UInt64(bit)) != 0 else { return nil }
            switch bit {
            case 0: return "layer"
            case 1: return "dictionary-codec"
            case 2: return "delta-codec"
            case 3: return "grouped-bodies"
            default: return "bit \(bit)"
            }
        }
    }
}
