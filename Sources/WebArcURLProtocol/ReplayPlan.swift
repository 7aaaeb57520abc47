import WebArc
import WebArcReplay

/// What the handler sends for a stored response: status, headers and which body bytes, decided
/// before any body byte is read.
///
/// Conditionals and `Range` are the replay engine's (``BodyDecision``): a stored 2xx honours
/// `If-None-Match` / `If-Modified-Since` (304, no body), a stored 200 one `Range` (206 with
/// `Content-Range`, or 416 when no byte is in range) unless `If-Range` names another body.
/// Validators are the body's MD5 entity tag (``BodyReference/etag``), any stored `ETag`, and the
/// stored `Last-Modified` (else the capture date). A 200 or 206 to GET or HEAD carries the stored
/// `ETag`, else the body's, and `Accept-Ranges: bytes`, so a client can ask again conditionally or
/// by range. HEAD gets the GET headers, with the length GET would get, and no body.
struct ReplayPlan: Equatable, Sendable {
    var status: Int
    var headers: [HTTPHeader]
    /// The bytes of the stored body to send; nil sends none.
    var bodyRange: Range<UInt64>?

    /// Decides the answer to `method` with `requestHeaders` from `response`.
    init(response: ResponseRecord, method: String, requestHeaders: [String: String]) {
        let length = response.bodyLength
        var headers = ReplayedHeaders.replayed(
            response.headers, status: response.status, mimeType: response.mimeType, textEncoding: response.textEncoding)
        status = response.status
        let isRead = method == "GET" || method == "HEAD"
        let entityTags = [response.body.etag] + response.headers.filter { $0.name.lowercased() == "etag" }.map(\.value)
        let lastModified =
            response.headers.value(for: "Last-Modified").flatMap(HTTPDate.parse)
            ?? response.captureDate.map { Int64($0.timeIntervalSince1970.rounded(.down)) }
        let decision =
            isRead
            ? BodyDecision(
                status: response.status, length: length, entityTags: entityTags, lastModified: lastModified,
                conditions: ReplayConditions(headers: requestHeaders))
            : .whole
        var sent = 0..<length
        switch decision {
        case .whole:
            break
        case .notModified:
            status = 304
            bodyRange = nil
            headers.removeAll { Self.contentHeaders.contains($0.name.lowercased()) }
            if headers.value(for: "ETag") == nil { headers.append(HTTPHeader("ETag", response.body.etag)) }
            self.headers = headers
            return
        case .partial(let range):
            status = 206
            sent = range
            headers.append(HTTPHeader("Content-Range", decision.contentRange(length: length)!))
        case .unsatisfiable:
            status = 416
            sent = 0..<0
            headers.append(HTTPHeader("Content-Range", decision.contentRange(length: length)!))
        }
        bodyRange = method == "HEAD" || status == 416 ? nil : sent
        if isRead && (status == 200 || status == 206) {
            // Without a stored tag, a client could not learn one to send back in If-None-Match.
            if headers.value(for: "ETag") == nil { headers.append(HTTPHeader("ETag", response.body.etag)) }
            if headers.value(for: "Accept-Ranges") == nil { headers.append(HTTPHeader("Accept-Ranges", "bytes")) }
        }
        headers.append(HTTPHeader("Content-Length", String(sent.upperBound - sent.lowerBound)))
        self.headers = headers
    }

    /// Headers that describe a body, left out of a 304.
    static let contentHeaders: Set<String> = ["content-type", "content-encoding", "content-range", "content-language"]
}
