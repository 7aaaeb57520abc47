import Foundation
import WebArc
import WebArcReplay

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How live requests and responses become records (spec §6.3).
///
/// Foundation removes transfer and content codings before a delegate sees the body, so the
/// stored headers drop `Transfer-Encoding`, `Content-Encoding` and the other hop-by-hop headers,
/// and carry a `Content-Length` equal to the stored body. `HTTPURLResponse` keeps one value per
/// name and no order, so headers are stored sorted by name. The reason phrase is not available
/// from Foundation and is not stored.
enum LiveRecords {
    static let notStored: Set<String> = StoredHeaders.dropped.union(["content-encoding"])

    /// The request record for `request` at `url` with `method`.
    static func request(_ request: URLRequest, url: URL, method: String) -> RequestRecord {
        let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map {
            HTTPHeader($0.key, $0.value)
        }
        return RequestRecord(method: method, url: url.absoluteString, headers: headers)
    }

    /// The headers of `response` as stored; with `bodyLength`, a matching `Content-Length`.
    static func headers(of response: HTTPURLResponse, bodyLength: Int?) -> [HTTPHeader] {
        var headers = response.allHeaderFields.compactMap { name, value -> HTTPHeader? in
            guard let name = name as? String, !notStored.contains(name.lowercased()) else { return nil }
            return HTTPHeader(name, "\(value)")
        }
        headers.sort { $0.name.lowercased() < $1.name.lowercased() }
        if let bodyLength { headers.append(HTTPHeader("Content-Length", String(bodyLength))) }
        return headers
    }

    /// The redirect record of one followed hop, or nil for a status a redirect record cannot hold.
    static func redirect(
        _ response: HTTPURLResponse, to next: URLRequest, from request: RequestRecord, date: Date
    ) -> RedirectRecord? {
        guard RedirectRecord.allowedStatuses.contains(response.statusCode), let target = next.url?.absoluteString else {
            return nil
        }
        return RedirectRecord(
            request: request, status: response.statusCode, target: target,
            headers: headers(of: response, bodyLength: nil), captureDate: date)
    }
}
