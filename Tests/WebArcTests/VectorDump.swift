import Foundation

@testable import WebArc

/// Builds the vectors' readable dump from a reader, and archives from their recipes
/// (schemas in `Spec/vectors/README.md`).
enum VectorDump {
    static func dump(_ reader: ArchiveReader) throws -> [String: Any] {
        let metadata = try reader.metadata
        var archive: [String: Any] = [:]
        archive["created"] = metadata.created.map { $0.webarcMilliseconds }
        archive["creator"] = metadata.creator
        archive["startURL"] = metadata.startURL
        archive["baseURL"] = metadata.baseURL
        if !metadata.entries.isEmpty { archive["metadata"] = metadata.entries.map { [$0.key, $0.value] } }
        var records: [[String: Any]] = []
        try reader.forEachEntry { entry in
            let request = entry.record.request
            var record: [String: Any] = [
                "key": entry.key, "method": request.method, "url": request.url,
                "requestHeaders": request.headers.map { [$0.name, $0.value] },
                "headers": entry.record.headers.map { [$0.name, $0.value] }, "status": entry.record.status,
            ]
            record["captureDate"] = entry.record.captureDate.map { $0.webarcMilliseconds }
            switch entry.record {
            case .response(let response):
                record["kind"] = "response"
                record["reason"] = response.reason
                record["mimeType"] = response.mimeType
                record["textEncoding"] = response.textEncoding
                record["bodyMD5"] = response.body.digest.hex
                record["bodyVariant"] = response.body.variant
                record["bodyLength"] = response.bodyLength
                record["body"] = try reader.body(response.body).base64EncodedString()
            case .redirect(let redirect):
                record["kind"] = "redirect"
                record["target"] = redirect.target
            }
            records.append(record)
        }
        var bodies: [[String: Any]] = []
        for index in 0..<reader.bodyCount {
            let body = try reader.bodyEntry(at: index)
            bodies.append([
                "md5": body.reference.digest.hex, "variant": body.reference.variant, "length": body.length,
                "chunks": try reader.chunkEntries(of: body).map {
                    ["codec": $0.entry.codecValue, "storedLength": $0.entry.storedLength, "rawLength": $0.entry.rawLength]
                },
            ])
        }
        return ["formatVersion": "\(reader.header.majorVersion).\(reader.header.minorVersion)", "archive": archive, "records": records, "bodies": bodies]
    }

    static func build(recipe: [String: Any], at path: String) throws {
        let writer = try ArchiveWriter(path: path)
        let archive = recipe["archive"] as? [String: Any] ?? [:]
        writer.metadata = ArchiveMetadata(
            created: (archive["created"] as? NSNumber).map { Date(webarcMilliseconds: $0.int64Value) },
            creator: archive["creator"] as? String, startURL: archive["startURL"] as? String,
            baseURL: archive["baseURL"] as? String,
            entries: (archive["metadata"] as? [[String]] ?? []).map { ArchiveMetadata.Entry($0[0], $0[1]) })
        func headers(_ value: Any?) -> [HTTPHeader] { (value as? [[String]] ?? []).map { HTTPHeader($0[0], $0[1]) } }
        for case let record as [String: Any] in recipe["records"] as? [Any] ?? [] {
            let request = RequestRecord(method: record["method"] as! String, url: record["url"] as! String, headers: headers(record["requestHeaders"]))
            let date = (record["captureDate"] as? NSNumber).map { Date(webarcMilliseconds: $0.int64Value) }
            if record["kind"] as? String == "redirect" {
                try writer.add(RedirectRecord(
                    request: request, status: (record["status"] as! NSNumber).intValue, target: record["target"] as! String,
                    headers: headers(record["headers"]), captureDate: date))
            } else {
                let body = try writer.addBody(Data(base64Encoded: record["body"] as! String)!)
                try writer.add(ResponseRecord(
                    request: request, status: (record["status"] as! NSNumber).intValue, reason: record["reason"] as? String,
                    headers: headers(record["headers"]), mimeType: record["mimeType"] as? String,
                    textEncoding: record["textEncoding"] as? String, body: body, captureDate: date))
            }
        }
        try writer.finish()
    }
}
