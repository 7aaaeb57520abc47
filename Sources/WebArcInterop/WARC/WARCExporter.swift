import Foundation
import WebArc

/// Writes an archive as WARC 1.1: a `warcinfo` record, then, oldest capture first, for every
/// response a `response` record (a `revisit` when its body was written before) and its `request`, and
/// for every redirect a 3xx `response` and its `request`. Responses for URLs that are not
/// http(s) (from WARC `resource` records) are written back as `resource` records.
///
/// Spec: ISO 28500 WARC 1.1; mapping in `Spec/interop.md` §7.1.
struct WARCExporter {
    /// The revisit profile written.
    static let revisitProfile = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"

    let reader: ArchiveReader
    let options: ExportOptions

    /// Where a body was first written, for the revisits that repeat it.
    private struct Original {
        let recordID: String
        let uri: String
        let date: String
        let payloadDigest: String
    }

    /// Writes the WARC at the end of `file`, telling `onRecord` of every record written.
    func write(
        to file: InteropOutputFile, onRecord: ((WARCRecordWriter.Written) -> Void)? = nil
    ) throws -> ExportSummary {
        let writer = WARCRecordWriter(file: file, reader: reader)
        writer.onRecord = onRecord
        let exportDate = ISODate.format(options.date ?? Date())
        let metadata = try reader.metadata
        var summary = ExportSummary()
        var info =
            "software: webarc 1.0\r\nformat: WARC File Format 1.1\r\n"
            + "conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n"
        if let creator = metadata.creator {
            info += "description: archive made by \(WARCRecordWriter.oneLine(creator))\r\n"
        }
        if let start = metadata.startURL { info += "startURL: \(URIText.escaped(start))\r\n" }
        let infoBlocks = [info] + metadata.entries.filter { $0.key == "warcinfo" }.map { $0.value + "\r\n" }
        for (index, block) in infoBlocks.enumerated() {
            let bytes = Array(block.utf8)
            let digests = try writer.digests(head: bytes, body: nil)
            try writer.write(
                fields: [
                    HTTPHeader("WARC-Type", "warcinfo"),
                    HTTPHeader("WARC-Record-ID", WARCRecordWriter.recordID("warcinfo \(index) \(block)")),
                    HTTPHeader("WARC-Date", exportDate), HTTPHeader("WARC-Block-Digest", digests.block),
                    HTTPHeader("Content-Type", "application/warc-fields"),
                ], head: bytes, body: nil, bodyLength: 0)
        }
        // Oldest first, so that a body is written in full at its first capture and revisited after.
        var entries: [ArchiveEntry] = []
        try reader.forEachEntry { entries.append($0) }
        let undated = options.date ?? Date()
        entries.sort {
            ($0.record.captureDate ?? undated, $0.key, $0.location) < (
                $1.record.captureDate ?? undated, $1.key, $1.location
            )
        }
        var originals: [BodyReference: Original] = [:]
        for entry in entries {
            let record = entry.record
            let uri = URIText.escaped(record.request.url)
            let date = record.captureDate.map { ISODate.format($0, milliseconds: true) } ?? exportDate
            let id = WARCRecordWriter.recordID("\(entry.key) \(entry.location.page) \(entry.location.entry) \(date)")
            var fields = [
                HTTPHeader("WARC-Type", "response"), HTTPHeader("WARC-Record-ID", id), HTTPHeader("WARC-Date", date),
                HTTPHeader("WARC-Target-URI", uri),
            ]
            switch record {
            case .tombstone:
                // An update's deletion of a URL has no WARC form.
                continue
            case .redirect(let redirect):
                var headers = Self.exported(redirect.headers, length: 0)
                if headers.value(for: "Location") == nil { headers.append(HTTPHeader("Location", redirect.target)) }
                let head = WARCRecordWriter.httpHead(
                    startLine: "HTTP/1.1 \(redirect.status) \(HTTPStatus.reason(redirect.status))", headers: headers)
                let digests = try writer.digests(head: head, body: nil)
                fields += [
                    HTTPHeader("WARC-Payload-Digest", digests.payload), HTTPHeader("WARC-Block-Digest", digests.block),
                    HTTPHeader("Content-Type", "application/http; msgtype=response"),
                ]
                try writer.write(fields: fields, head: head, body: nil, bodyLength: 0)
                summary.redirects += 1
            case .response(let response) where !Self.isHTTP(response.request.url):
                let type =
                    response.headers.value(for: "Content-Type") ?? response.mimeType ?? "application/octet-stream"
                let digests = try writer.digests(head: [], body: response.body)
                fields[0] = HTTPHeader("WARC-Type", "resource")
                fields += [
                    HTTPHeader("WARC-Payload-Digest", digests.payload), HTTPHeader("WARC-Block-Digest", digests.block),
                    HTTPHeader("Content-Type", type),
                ]
                try writer.write(fields: fields, head: [], body: response.body, bodyLength: response.bodyLength)
                summary.responses += 1
                continue
            case .response(let response):
                let reason = response.reason ?? HTTPStatus.reason(response.status)
                let head = WARCRecordWriter.httpHead(
                    startLine: "HTTP/1.1 \(response.status) \(reason)",
                    headers: Self.exported(response.headers, length: response.bodyLength))
                if response.bodyLength > 0, let original = originals[response.body] {
                    let digests = try writer.digests(head: head, body: nil)
                    fields[0] = HTTPHeader("WARC-Type", "revisit")
                    fields += [
                        HTTPHeader("WARC-Profile", Self.revisitProfile),
                        HTTPHeader("WARC-Refers-To", original.recordID),
                        HTTPHeader("WARC-Refers-To-Target-URI", original.uri),
                        HTTPHeader("WARC-Refers-To-Date", original.date),
                        HTTPHeader("WARC-Payload-Digest", original.payloadDigest),
                        HTTPHeader("WARC-Block-Digest", digests.block),
                        HTTPHeader("Content-Type", "application/http; msgtype=response"),
                    ]
                    try writer.write(fields: fields, head: head, body: nil, bodyLength: 0)
                    summary.revisits += 1
                } else {
                    let digests = try writer.digests(head: head, body: response.body)
                    fields += [
                        HTTPHeader("WARC-Payload-Digest", digests.payload),
                        HTTPHeader("WARC-Block-Digest", digests.block),
                        HTTPHeader("Content-Type", "application/http; msgtype=response"),
                    ]
                    try writer.write(fields: fields, head: head, body: response.body, bodyLength: response.bodyLength)
                    if response.bodyLength > 0 {
                        originals[response.body] = Original(
                            recordID: id, uri: uri, date: date, payloadDigest: digests.payload)
                    }
                    summary.responses += 1
                }
            }
            try writeRequest(record.request, concurrentTo: id, uri: uri, date: date, writer: writer)
            summary.requests += 1
        }
        return summary
    }

    private func writeRequest(
        _ request: RequestRecord, concurrentTo id: String, uri: String, date: String, writer: WARCRecordWriter
    ) throws {
        // The stored request headers as they are (no Host is invented, so a round trip keeps them),
        // except the body's framing: the format keeps no request body, so none is written.
        let head = WARCRecordWriter.httpHead(
            startLine: "\(request.method) \(URIText.requestTarget(request.url)) HTTP/1.1",
            headers: request.headers.removing("Content-Length").removing("Transfer-Encoding"))
        let digests = try writer.digests(head: head, body: nil)
        try writer.write(
            fields: [
                HTTPHeader("WARC-Type", "request"),
                HTTPHeader("WARC-Record-ID", WARCRecordWriter.recordID("request \(id)")),
                HTTPHeader("WARC-Date", date), HTTPHeader("WARC-Target-URI", uri), HTTPHeader("WARC-Concurrent-To", id),
                HTTPHeader("WARC-Block-Digest", digests.block),
                HTTPHeader("Content-Type", "application/http; msgtype=request"),
            ], head: head, body: nil, bodyLength: 0)
    }

    /// Stored headers as written: no `Transfer-Encoding`, `Content-Length` equal to the body.
    static func exported(_ headers: [HTTPHeader], length: UInt64) -> [HTTPHeader] {
        headers.compactMap { header in
            switch header.name.lowercased() {
            case "transfer-encoding": nil
            case "content-length": HTTPHeader(header.name, String(length))
            default: header
            }
        }
    }

    static func isHTTP(_ url: String) -> Bool {
        let scheme = url.prefix { $0 != ":" }.lowercased()
        return scheme == "http" || scheme == "https"
    }
}
