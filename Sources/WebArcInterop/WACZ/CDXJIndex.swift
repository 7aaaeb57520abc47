/// The CDXJ index of a WACZ's WARC: one line per `response`, `revisit` or `resource` record,
/// `SURT TIMESTAMP {JSON}`, sorted bytewise, as pywb and ReplayWeb.page look URLs up in it.
///
/// Spec: pywb CDXJ (WACZ 1.1.1 "indexes"); SURT as the `surt` package writes it for the cases a
/// WARC export holds.
enum CDXJIndex {
    /// The index line of a record written at `record.offset - base` in the WARC named `filename`,
    /// or nil for a record type that is not indexed (warcinfo, request).
    static func line(for record: WARCRecordWriter.Written, base: UInt64, filename: String) -> [UInt8]? {
        let type = record.fields.value(for: "WARC-Type") ?? ""
        guard type == "response" || type == "revisit" || type == "resource",
            let uri = record.fields.value(for: "WARC-Target-URI")
        else {
            return nil
        }
        var object: [String: Any] = [
            "url": uri, "offset": String(record.offset - base), "length": String(record.length), "filename": filename,
        ]
        if let digest = record.fields.value(for: "WARC-Payload-Digest") { object["digest"] = digest }
        if type == "resource" {
            if let mime = record.fields.value(for: "Content-Type") { object["mime"] = mediaType(mime) }
        } else {
            let (status, contentType) = statusAndType(record.head)
            if let status { object["status"] = status }
            if type == "revisit" {
                object["mime"] = "warc/revisit"
            } else if let contentType {
                object["mime"] = mediaType(contentType)
            }
        }
        let date = record.fields.value(for: "WARC-Date") ?? ""
        let timestamp = String(date.filter(\.isASCIIDigit).prefix(14))
        return Array("\(surt(uri)) \(timestamp) ".utf8) + WACZPackage.serialized(object) + [0x0A]
    }

    /// The sort-friendly form of a URL (SURT): scheme dropped, host labels reversed with commas and
    /// a leading `www` dropped, a default port dropped, `)` then the path and the query with its
    /// parameters sorted, the fragment dropped, all lower case. A URL without `//` is only lower-cased.
    ///
    /// `https://www.Example.com:443/a/B?z=1&a=2#top` → `com,example)/a/b?a=2&z=1`.
    static func surt(_ url: String) -> String {
        let lower = url.lowercased()
        guard let schemeEnd = lower.range(of: "://") else { return lower }
        let scheme = lower[..<schemeEnd.lowerBound]
        var rest = lower[schemeEnd.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var pathAndQuery = String(rest[authorityEnd...])
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = String(authority)
        var port = ""
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            host = String(authority[..<colon])
            port = String(authority[authority.index(after: colon)...])
        }
        if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") { port = "" }
        while host.hasSuffix(".") { host.removeLast() }
        var surtHost = host
        let isAddress = host.hasPrefix("[") || host.split(separator: ".").allSatisfy { $0.allSatisfy(\.isASCIIDigit) }
        if !isAddress {
            var labels = host.split(separator: ".", omittingEmptySubsequences: false)
            if labels.count > 2, let first = labels.first, first.hasPrefix("www"),
                first.dropFirst(3).allSatisfy(\.isASCIIDigit)
            {
                labels.removeFirst()
            }
            surtHost = labels.reversed().joined(separator: ",")
        }
        if pathAndQuery.isEmpty || pathAndQuery.first == "?" { pathAndQuery = "/" + pathAndQuery }
        if let question = pathAndQuery.firstIndex(of: "?") {
            let query = pathAndQuery[pathAndQuery.index(after: question)...]
            let sorted = query.split(separator: "&").sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.joined(
                separator: "&")
            pathAndQuery = String(pathAndQuery[..<question]) + (sorted.isEmpty ? "" : "?" + sorted)
        }
        return surtHost + (port.isEmpty ? "" : ":" + port) + ")" + pathAndQuery
    }

    /// The lines sorted bytewise and joined.
    static func sorted(_ lines: [[UInt8]]) -> [UInt8] {
        lines.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { $0 }
    }

    /// The media type of a `Content-Type` value: before any `;`, trimmed, lower case.
    private static func mediaType(_ value: String) -> String {
        String(value.prefix { $0 != ";" }).trimmingHTTPWhitespace().lowercased()
    }

    /// The status and `Content-Type` of an HTTP response head.
    private static func statusAndType(_ head: [UInt8]) -> (status: String?, contentType: String?) {
        let lines = head.split(separator: 0x0A).map { HTTPHead.text($0).trimmingHTTPWhitespace() }
        guard let first = lines.first, first.hasPrefix("HTTP/") else { return (nil, nil) }
        let parts = first.split(separator: " ")
        let status = parts.count > 1 ? String(parts[1]) : nil
        var contentType: String?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == "content-type" {
                contentType = String(line[line.index(after: colon)...]).trimmingHTTPWhitespace()
                break
            }
        }
        return (status, contentType)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
