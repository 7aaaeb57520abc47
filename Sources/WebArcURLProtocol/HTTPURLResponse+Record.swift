import Foundation
import WebArc

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which stored headers a replayed response carries, and how they become an `HTTPURLResponse`.
///
/// Stored headers are replayed as stored, in their stored case, except:
/// - hop-by-hop headers (`Connection` and those it names, `Keep-Alive`, `Proxy-Connection`, `TE`,
///   `Trailer`, `Transfer-Encoding`, `Upgrade`) describe the captured connection and are dropped;
/// - `Content-Length` is recomputed for the bytes actually sent (206 and 416 add `Content-Range`);
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

    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
    ]

    /// The stored headers as replayed, without `Content-Length` (the caller adds the sent length).
    static func replayed(_ stored: [HTTPHeader], status: Int, mimeType: String?, textEncoding: String?) -> [HTTPHeader] {
        let named = stored.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.split(separator: ",").map { trimmed($0).lowercased() } }
        var headers = stored.compactMap { header -> HTTPHeader? in
            let name = header.name.lowercased()
            if hopByHop.contains(name) || named.contains(name) || name == "content-length" { return nil }
            if status == 401 && name == "www-authenticate" { return HTTPHeader(renamedChallenge, header.value) }
            return header
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
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ReplayedHeaders.fields(headers))
            ?? HTTPURLResponse(url: url, statusCode: 500, httpVersion: "HTTP/1.1", headerFields: [:])!
    }
}
