import Foundation
import WebArc
import WebArcReplay

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which stored headers a replayed response carries, and how they become an `HTTPURLResponse`.
///
/// Stored headers are replayed as stored, in their stored case, except what every replay drops
/// (``StoredHeaders``: hop-by-hop headers, `Content-Length`, recomputed for the bytes actually
/// sent, and a `Location` or `Refresh` leading outside http(s) and webarc), and:
/// - 206 and 416 add `Content-Range`;
/// - on a 401, `WWW-Authenticate` is renamed ``renamedChallenge``: swift-corelibs-foundation
///   answers such a response with an authentication challenge that, with no credential to offer,
///   never completes (and crashes on a challenge without `realm=`);
/// - when no `Content-Type` is stored, one is made from the record's MIME type and text encoding,
///   so that `mimeType` and `textEncodingName` come out as recorded.
///
/// Repeated header names are joined with ", " since `HTTPURLResponse` holds one value per name.
enum ReplayedHeaders {
    /// The name a 401's `WWW-Authenticate` is replayed under.
    static let renamedChallenge = "X-Webarc-Original-WWW-Authenticate"

    /// The stored headers as replayed, without `Content-Length` (the caller adds the sent length).
    static func replayed(_ stored: [HTTPHeader], status: Int, mimeType: String?, textEncoding: String?) -> [HTTPHeader]
    {
        var headers = StoredHeaders.replayable(stored).map { header -> HTTPHeader in
            guard status == 401, header.name.lowercased() == "www-authenticate" else { return header }
            return HTTPHeader(renamedChallenge, header.value)
        }
        if headers.value(for: "Content-Type") == nil, let mimeType, !mimeType.isEmpty {
            headers.append(HTTPHeader("Content-Type", textEncoding.map { "\(mimeType); charset=\($0)" } ?? mimeType))
        }
        return headers
    }

    /// Header fields for `HTTPURLResponse`: one entry per name (first spelling), values joined.
    static func fields(_ headers: [HTTPHeader]) -> [String: String] {
        var fields: [String: String] = [:]
        var spelling: [String: String] = [:]
        for header in headers {
            let key = header.name.lowercased()
            if let name = spelling[key] {
                fields[name] = fields[name].map { "\($0), \(header.value)" } ?? header.value
            } else {
                spelling[key] = header.name
                fields[header.name] = header.value
            }
        }
        return fields
    }
}

extension HTTPURLResponse {
    /// A response with `status` and `headers` as a URL loading caller receives it, at `url`.
    static func replaying(status: Int, headers: [HTTPHeader], url: URL) -> HTTPURLResponse {
        // The initializer fails only for a status outside what HTTPURLResponse accepts; the
        // writer already keeps statuses within 100–599.
        HTTPURLResponse(
            url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ReplayedHeaders.fields(headers))
            ?? HTTPURLResponse(url: url, statusCode: 500, httpVersion: "HTTP/1.1", headerFields: [:])!
    }
}
