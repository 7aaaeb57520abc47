import WebArc

/// What the handler sends for a stored response: status, headers and which body bytes, decided
/// before any body byte is read.
///
/// A GET or HEAD of a stored 200 honours `If-None-Match` / `If-Modified-Since` (304, no body)
/// and, for GET, one `Range` (206 with `Content-Range`, or 416 when no byte is in range), with
/// `If-Range`. Validators are the body's MD5 entity tag (``BodyReference/etag``), any stored
/// `ETag`, and the stored `Last-Modified` (else the capture date). A 200 or 206 to GET or HEAD
/// carries the stored `ETag`, else the body's, and `Accept-Ranges: bytes`, so a client can ask
/// again conditionally or by range. HEAD gets the GET headers, with the full `Content-Length`,
/// and no body.
struct ReplayPlan: Equatable, Sendable {
    var status: Int
    var headers: [HTTPHeader]
    /// The bytes of the stored body to send; nil sends none.
    var bodyRange: Range<UInt64>?

    /// Decides the answer to `method` with `requestHeaders` from `response`.
    init(response: ResponseRecord, method: String, requestHeaders: [String: String]) {
        func header(_ name: String) -> String? {
            requestHeaders.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
        let length = response.bodyLength
        var headers = ReplayedHeaders.replayed(
            response.headers, status: response.status, mimeType: response.mimeType, textEncoding: response.textEncoding)
        status = response.status
        bodyRange = method == "HEAD" ? nil : 0..<length
        var sentLength = length

        let conditions = RequestConditions(
            entityTags: [response.body.etag] + response.headers.filter { $0.name.lowercased() == "etag" }.map(\.value),
            lastModified: response.headers.value(for: "Last-Modified").flatMap(HTTPDate.parse)
                ?? response.captureDate.map { Int64($0.timeIntervalSince1970.rounded(.down)) })
        let isRead = method == "GET" || method == "HEAD"
        if isRead && status == 200
            && conditions.isNotModified(ifNoneMatch: header("If-None-Match"), ifModifiedSince: header("If-Modified-Since"))
        {
            status = 304
            bodyRange = nil
            headers.removeAll { Self.contentHeaders.contains($0.name.lowercased()) }
            if headers.value(for: "ETag") == nil { headers.append(HTTPHeader("ETag", response.body.etag)) }
            self.headers = headers
            return
        }
        if method == "GET" && status == 200 {
            switch conditions.range(header("Range"), ifRange: header("If-Range"), length: length) {
            case .whole:
                break
            case .partial(let range):
                status = 206
                bodyRange = range
                sentLength = UInt64(range.count)
                headers.append(HTTPHeader("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)"))
            case .unsatisfiable:
                status = 416
                bodyRange = nil
                sentLength = 0
                headers.append(HTTPHeader("Content-Range", "bytes */\(length)"))
            }
        }
        if isRead && (status == 200 || status == 206) {
            // Without a stored tag, a client could not learn one to send back in If-None-Match.
            if headers.value(for: "ETag") == nil { headers.append(HTTPHeader("ETag", response.body.etag)) }
            if headers.value(for: "Accept-Ranges") == nil { headers.append(HTTPHeader("Accept-Ranges", "bytes")) }
        }
        headers.append(HTTPHeader("Content-Length", String(sentLength)))
        self.headers = headers
    }

    /// Headers that describe a body, left out of a 304.
    static let contentHeaders: Set<String> = ["content-type", "content-encoding", "content-range", "content-language"]
}
