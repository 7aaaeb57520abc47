import Foundation
import WebArc
import WebArcReplay

/// Writes an archive as HAR 1.2: one entry per response and redirect, ordered by capture date,
/// bodies as text when they are textual and decode in their charset, base64 otherwise.
///
/// Spec: HAR 1.2; mapping in `Spec/interop.md` §7.2.
struct HARExporter {
    let reader: ArchiveReader
    let options: ExportOptions

    func write(to file: InteropOutputFile) throws -> ExportSummary {
        var summary = ExportSummary()
        var records: [ArchiveRecord] = []
        // A tombstone (an update deleting a URL) has no HTTP exchange to export.
        try reader.forEachEntry { if case .tombstone = $0.record {} else { records.append($0.record) } }
        let fallback = options.date ?? Date()
        records.sort { ($0.captureDate ?? fallback, $0.request.url) < ($1.captureDate ?? fallback, $1.request.url) }
        var entries: [[String: Any]] = []
        for record in records {
            let started = ISODate.format(record.captureDate ?? fallback, milliseconds: true)
            let request = record.request
            let hasBody = request.method != "GET" && request.method != "HEAD"
            var entry: [String: Any] = [
                "startedDateTime": started, "time": 0, "cache": [String: Any](),
                "timings": ["blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 0, "receive": 0],
                "request": [
                    "method": request.method, "url": request.url, "httpVersion": "HTTP/1.1", "cookies": [Any](),
                    "headers": Self.headers(request.headers), "queryString": Self.query(request.url),
                    "headersSize": -1, "bodySize": hasBody ? -1 : 0,
                ] as [String: Any],
            ]
            switch record {
            case .redirect(let redirect):
                var headers = redirect.headers
                if headers.value(for: "Location") == nil { headers.append(HTTPHeader("Location", redirect.target)) }
                entry["response"] = Self.response(
                    status: redirect.status, reason: HTTPStatus.reason(redirect.status), headers: headers,
                    content: ["size": 0, "mimeType": headers.value(for: "Content-Type") ?? ""],
                    redirectURL: redirect.target, bodySize: 0)
                summary.redirects += 1
            case .response(let response):
                let body = Array(try reader.body(response.body))
                entry["response"] = Self.response(
                    status: response.status, reason: response.reason ?? HTTPStatus.reason(response.status),
                    headers: response.headers,
                    content: Self.content(body, response: response), redirectURL: "", bodySize: body.count)
                summary.responses += 1
            case .tombstone:
                continue
            }
            entries.append(entry)
        }
        let log: [String: Any] = [
            "log": [
                "version": "1.2", "creator": ["name": "webarc", "version": WebArcVersion.release], "entries": entries,
            ] as [String: Any]
        ]
        try file.append(
            try JSONSerialization.data(
                withJSONObject: log, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]))
        return summary
    }

    private static func response(
        status: Int, reason: String, headers: [HTTPHeader], content: [String: Any], redirectURL: String, bodySize: Int
    ) -> [String: Any] {
        [
            "status": status, "statusText": reason, "httpVersion": "HTTP/1.1", "cookies": [Any](),
            "headers": Self.headers(headers),
            "content": content, "redirectURL": redirectURL, "headersSize": -1, "bodySize": bodySize,
        ]
    }

    /// `content`: text when the body is textual and decodes in its charset, else base64; a body
    /// still under a content coding (br kept on import) is base64 with a comment saying so.
    static func content(_ body: [UInt8], response: ResponseRecord) -> [String: Any] {
        let contentType = response.headers.value(for: "Content-Type")
        let media = ContentTypeParts.of(contentType)
        var content: [String: Any] = ["size": body.count, "mimeType": contentType ?? response.mimeType ?? ""]
        let coded = response.headers.tokens(for: "Content-Encoding").filter { $0 != "identity" }
        if coded.isEmpty, isTextual(media.mimeType ?? response.mimeType),
            let text = TextCharset.decode(body, charset: media.textEncoding ?? response.textEncoding)
        {
            content["text"] = text
        } else if !body.isEmpty {
            content["text"] = Data(body).base64EncodedString()
            content["encoding"] = "base64"
            if !coded.isEmpty {
                content["comment"] = "body is still \(coded.joined(separator: ", "))-encoded, as archived"
            }
        }
        return content
    }

    static func isTextual(_ mimeType: String?) -> Bool {
        guard let type = mimeType?.lowercased() else { return false }
        return type.hasPrefix("text/") || type.hasSuffix("+xml") || type.hasSuffix("+json") || type.hasSuffix("/json")
            || type.hasSuffix("/xml") || type.hasSuffix("javascript") || type.hasSuffix("ecmascript")
    }

    static func headers(_ headers: [HTTPHeader]) -> [[String: String]] {
        headers.map { ["name": $0.name, "value": $0.value] }
    }

    /// The query string as HAR name/value pairs, percent-decoded.
    static func query(_ url: String) -> [[String: String]] {
        guard let start = url.firstIndex(of: "?") else { return [] }
        let query = url[url.index(after: start)...].prefix { $0 != "#" }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            return ["name": parts[0], "value": parts.count > 1 ? parts[1] : ""]
        }
    }
}
