import Foundation

@testable import WebArc

/// Builds the vectors' readable dump from a reader, and archives from their recipes
/// (schemas in `Spec/vectors/README.md`).
enum VectorDump {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func dump(_ reader: ArchiveReader) throws -> [String: Any] {
        let trailer = reader.trailer
        let trailerBytes = try reader.read(at: reader.trailerOffset, count: Trailer.size)
        func reference(_ reference: PageReference) -> [String: Any] {
            [
                "offset": reference.offset, "storedLength": reference.storedLength, "rawLength": reference.rawLength,
                "codec": reference.codecValue, "height": reference.height, "digest": reference.digest.hex,
            ]
        }
        let trailerDump: [String: Any] = [
            "majorVersion": trailer.majorVersion, "minorVersion": trailer.minorVersion, "flags": trailer.flags,
            "requiredFeatures": trailer.requiredFeatures.rawValue, "optionalFeatures": trailer.optionalFeatures,
            "archiveLength": trailer.archiveLength, "bodyDataEnd": trailer.bodyDataEnd,
            "recordCount": trailer.recordCount,
            "bodyCount": trailer.bodyCount, "metadata": reference(trailer.metadata),
            "recordRoot": reference(trailer.recordRoot),
            "bodyRoot": reference(trailer.bodyRoot), "trailerCheck": hex(Array(trailerBytes[240..<248])),
            "archiveDigest": hex(reader.archiveDigest),
        ]
        let metadata = try reader.metadata
        let archive = Self.archive(metadata)
        var records: [[String: Any]] = []
        try reader.forEachEntry { entry in
            let request = entry.record.request
            var record: [String: Any] = [
                "key": entry.key, "method": request.method, "url": request.url,
                "requestHeaders": request.headers.map { [$0.name, $0.value] },
            ]
            record["captureDate"] = entry.record.captureDate.map { $0.webarcMilliseconds }
            switch entry.record {
            case .response(let response):
                record["kind"] = "response"
                record["status"] = response.status
                record["headers"] = response.headers.map { [$0.name, $0.value] }
                record["reason"] = response.reason
                record["mimeType"] = response.mimeType
                record["textEncoding"] = response.textEncoding
                record["bodyMD5"] = response.body.digest.hex
                record["bodyVariant"] = response.body.variant
                record["bodyLength"] = response.bodyLength
                record["body"] = try reader.body(response.body).base64EncodedString()
            case .redirect(let redirect):
                record["kind"] = "redirect"
                record["status"] = redirect.status
                record["headers"] = redirect.headers.map { [$0.name, $0.value] }
                record["target"] = redirect.target
            case .tombstone:
                record["kind"] = "tombstone"
            }
            records.append(record)
        }
        var bodies: [[String: Any]] = []
        try reader.forEachBody { body in
            var entry: [String: Any] = [
                "md5": body.reference.digest.hex, "variant": body.reference.variant, "length": body.length,
                "sha256": body.sha256.hex, "chunks": body.chunks.map { chunk($0) },
            ]
            entry["sliceStart"] = body.sliceStart
            bodies.append(entry)
        }
        let appendixBytes = try reader.appendixBytes()
        let blocks =
            appendixBytes.isEmpty ? [] : try ArchiveAppendix(parsing: appendixBytes, at: reader.archiveLength).blocks
        let appendix = blocks.map { block -> [String: Any] in
            guard block.type == ArchiveAppendix.signatureBlockType else {
                return ["type": block.type, "data": Data(block.bytes).base64EncodedString()]
            }
            var fields = ByteReader(
                block.bytes, region: .file(section: "appendix", offset: block.offset), range: 8..<32)
            return [
                "type": block.type, "keyID": hex(Array(block.bytes[0..<8])),
                "sequence": (try? fields.readUInt64()) ?? 0,
                "created": (try? fields.readInt64()) ?? 0, "expires": (try? fields.readInt64()) ?? 0,
                "signature": hex(Array(block.bytes[56..<120])),
            ]
        }
        return [
            "formatVersion": "\(trailer.majorVersion).\(trailer.minorVersion)", "trailer": trailerDump,
            "archive": archive,
            "records": records, "bodies": bodies, "appendix": appendix,
        ]
    }

    /// The `Archive` object as the dump shows it (and, nested, a target's).
    static func archive(_ metadata: ArchiveMetadata) -> [String: Any] {
        var archive: [String: Any] = [:]
        archive["created"] = metadata.created.map { $0.webarcMilliseconds }
        archive["creator"] = metadata.creator
        archive["startURL"] = metadata.startURL
        archive["baseURL"] = metadata.baseURL
        if !metadata.entries.isEmpty { archive["metadata"] = metadata.entries.map { [$0.key, $0.value] } }
        if !metadata.bases.isEmpty {
            archive["bases"] = metadata.bases.map { base -> [String: Any] in
                var entry: [String: Any] = ["digest": hex(base.digest), "archiveLength": base.archiveLength]
                entry["name"] = base.name
                return entry
            }
        }
        if let writer = metadata.writer {
            var entry: [String: Any] = ["level": writer.level, "dictionaryInterval": writer.dictionaryInterval]
            entry["zstdLevel"] = writer.zstdLevel
            if let code = writer.anchors.code { entry["anchors"] = code }
            if let code = writer.placement.code { entry["dictionaryPlacement"] = code }
            entry["search"] = writer.search
            entry["groups"] = writer.groups
            if !writer.order.isTreeOrder { entry["order"] = writer.order.runs.map { [$0.start, $0.length] } }
            archive["writer"] = entry
        }
        for (key, root) in [
            ("search", metadata.searchIndex), ("searchIndex", metadata.searchIndexV2),
            ("searchIndex3", metadata.searchIndexV3), ("searchIndex4", metadata.searchIndexV4),
        ] {
            guard let root else { continue }
            // The full-text index's root (spec §17), as the trailer's references are shown.
            archive[key] = [
                "offset": root.offset, "storedLength": root.storedLength, "rawLength": root.rawLength,
                "codec": root.codecValue, "height": root.height, "digest": root.digest.hex,
            ]
        }
        if let target = metadata.target {
            var entry: [String: Any] = [
                "digest": hex(target.digest), "archiveLength": target.archiveLength,
                "archive": Self.archive(target.archive),
            ]
            if !target.appendix.isEmpty { entry["appendix"] = Data(target.appendix).base64EncodedString() }
            if let bodyData = target.bodyData { entry["bodyData"] = bodyData.hex }
            archive["target"] = entry
        }
        if let totals = metadata.totals {
            var entry: [String: Any] = [
                "responses": totals.responses, "redirects": totals.redirects, "tombstones": totals.tombstones,
                "responseBytes": totals.responseBytes, "bodyBytes": totals.bodyBytes, "chunks": totals.chunks,
                "originCount": totals.originCount, "origins": totals.origins,
            ]
            entry["baseBodyResponses"] = totals.baseBodyResponses
            archive["totals"] = entry
        }
        return archive
    }

    /// The recipe's `Archive` object as metadata.
    static func metadata(_ archive: [String: Any]) -> ArchiveMetadata {
        var metadata = ArchiveMetadata(
            created: (archive["created"] as? NSNumber).map { Date(webarcMilliseconds: $0.int64Value) },
            creator: archive["creator"] as? String, startURL: archive["startURL"] as? String,
            baseURL: archive["baseURL"] as? String,
            entries: (archive["metadata"] as? [[String]] ?? []).map { ArchiveMetadata.Entry($0[0], $0[1]) },
            bases: (archive["bases"] as? [[String: Any]] ?? []).map { base in
                BaseArchive(
                    digest: bytes(hex: base["digest"] as! String),
                    archiveLength: (base["archiveLength"] as! NSNumber).uint64Value,
                    name: base["name"] as? String)
            })
        if let writer = archive["writer"] as? [String: Any] {
            let runs = (writer["order"] as? [[NSNumber]] ?? []).flatMap { run in
                (0..<run[1].intValue).map { run[0].intValue + $0 }
            }
            metadata.writer = WriterRecipe(
                level: (writer["level"] as! NSNumber).intValue,
                dictionaryInterval: (writer["dictionaryInterval"] as! NSNumber).intValue,
                zstdLevel: (writer["zstdLevel"] as? NSNumber)?.intValue, order: InsertionOrder(positions: runs),
                anchors: WriterRecipe.AnchorRule(code: (writer["anchors"] as? NSNumber)?.uint64Value ?? 0),
                placement: DictionaryPlacement(code: (writer["dictionaryPlacement"] as? NSNumber)?.uint64Value ?? 0),
                groups: (writer["groups"] as? NSNumber)?.intValue)
        }
        if let target = archive["target"] as? [String: Any] {
            metadata.target = UpdateTarget(
                digest: bytes(hex: target["digest"] as! String),
                archiveLength: (target["archiveLength"] as! NSNumber).uint64Value,
                archive: Self.metadata(target["archive"] as! [String: Any]),
                appendix: (target["appendix"] as? String).map { [UInt8](Data(base64Encoded: $0)!) } ?? [],
                bodyData: (target["bodyData"] as? String).map { SHA256Hash(bytes: bytes(hex: $0))! })
        }
        // A target's totals (2.2.2); an archive's own are the writer's.
        if let totals = archive["totals"] as? [String: Any] {
            func count(_ key: String) -> UInt64 { (totals[key] as! NSNumber).uint64Value }
            metadata.totals = ArchiveTotals(
                responses: count("responses"), redirects: count("redirects"), tombstones: count("tombstones"),
                responseBytes: count("responseBytes"), bodyBytes: count("bodyBytes"), chunks: count("chunks"),
                originCount: count("originCount"), origins: totals["origins"] as? [String] ?? [],
                baseBodyResponses: (totals["baseBodyResponses"] as? NSNumber)?.uint64Value)
        }
        return metadata
    }

    static func chunk(_ chunk: ChunkEntry) -> [String: Any] {
        var out: [String: Any] = [
            "offset": chunk.offset, "storedLength": chunk.storedLength, "rawLength": chunk.rawLength,
            "codec": chunk.codecValue, "layer": chunk.layer, "digest": chunk.digest.hex,
        ]
        out["dictionary"] = chunk.dictionary.map { self.chunk($0) }
        out["reference"] = chunk.reference.map { self.chunk($0) }
        return out
    }

    /// Writes the archive a 2.0 writer makes of `recipe` (its appendix, if any, is the signing code's).
    static func build(recipe: [String: Any], at path: String, bases: [ArchiveReader] = []) throws {
        let settings = recipe["writer"] as? [String: Any]
        let interval = (settings?["dictionaryInterval"] as? NSNumber)?.intValue ?? 0
        let level = (settings?["level"] as? NSNumber)?.intValue ?? 1
        let zstdLevel = (settings?["zstdLevel"] as? NSNumber)?.intValue
        var options = ArchiveWriter.Options(compressionLevel: level, dictionaryInterval: interval, zstdLevel: zstdLevel)
        // `"totals": false`: a writer before 2.2.2, which stores none.
        options.writesTotals = recipe["totals"] as? Bool ?? true
        // Absent: apart, as every writer before 2.1.8.
        options.groups = (settings?["groups"] as? NSNumber)?.intValue
        options.dictionaryPlacement = DictionaryPlacement(
            code: (settings?["dictionaryPlacement"] as? NSNumber)?.uint64Value ?? 0)
        if let code = (settings?["anchors"] as? NSNumber)?.intValue, code == 1 || code == 2 {
            // The keyed rules need every response's key and body length up front.
            var bodies: [(key: [UInt8], length: UInt64)] = []
            for case let record as [String: Any] in recipe["records"] as? [Any] ?? []
            where (record["kind"] as? String ?? "response") == "response" {
                let key = try RequestRecord(method: record["method"] as! String, url: record["url"] as! String)
                    .canonicalKey()
                bodies.append((Array(key.utf8), UInt64(Data(base64Encoded: record["body"] as! String)!.count)))
            }
            options.anchorPlan = AnchorPlan(
                interval: interval, bodies: bodies, rule: code == 1 ? .keyed : .localMinimum)
        }
        let writer = try ArchiveWriter(path: path, options: options, bases: bases)
        writer.metadata = metadata(recipe["archive"] as? [String: Any] ?? [:])
        func headers(_ value: Any?) -> [HTTPHeader] { (value as? [[String]] ?? []).map { HTTPHeader($0[0], $0[1]) } }
        for case let record as [String: Any] in recipe["records"] as? [Any] ?? [] {
            let request = RequestRecord(
                method: record["method"] as! String, url: record["url"] as! String,
                headers: headers(record["requestHeaders"]))
            let date = (record["captureDate"] as? NSNumber).map { Date(webarcMilliseconds: $0.int64Value) }
            switch record["kind"] as? String {
            case "redirect":
                try writer.add(
                    RedirectRecord(
                        request: request, status: (record["status"] as! NSNumber).intValue,
                        target: record["target"] as! String,
                        headers: headers(record["headers"]), captureDate: date))
            case "tombstone":
                try writer.add(TombstoneRecord(request: request, captureDate: date))
            default:
                let content = Data(base64Encoded: record["body"] as! String)!
                var previous: ArchiveWriter.PreviousVersion?
                if let version = record["previousVersion"] as? [String: Any] {
                    let base = (version["layer"] as! NSNumber).intValue - 1
                    let reference = BodyReference(
                        digest: BodyDigest(sixteen: bytes(hex: version["bodyMD5"] as! String)),
                        variant: (version["bodyVariant"] as! NSNumber).uint32Value)
                    previous = ArchiveWriter.PreviousVersion(base: base, body: try bases[base].bodyEntry(reference))
                }
                let body =
                    previous == nil
                    ? try writer.addBody(content) : try writer.addBody(content, previousVersion: previous)
                try writer.add(
                    ResponseRecord(
                        request: request, status: (record["status"] as! NSNumber).intValue,
                        reason: record["reason"] as? String,
                        headers: headers(record["headers"]), mimeType: record["mimeType"] as? String,
                        textEncoding: record["textEncoding"] as? String, body: body, captureDate: date))
            }
        }
        try writer.finish()
    }

    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }
}
