import WebArc

/// What can go wrong reading an archive over HTTP, with the URL and what the server said.
///
/// Everything the archive itself gets wrong is still a `WebArcError` from the reader
/// (pages and chunks are verified whatever their source); these are the transport's failures.
public enum RemoteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The URL is not an absolute `http://` or `https://` URL.
    case badURL(url: String)
    /// 404 or 410: nothing at the URL.
    case notFound(url: String, status: Int)
    /// Another status than the one asked for (after retries, for a 5xx).
    case status(url: String, status: Int, range: String?)
    /// The file changed since it was opened: another `ETag`, `Last-Modified` or length, or a 412
    /// answer to `If-Match`. Its bytes are not mixed with the ones already read.
    case changed(url: String, reason: String)
    /// The server sent the whole file (200) to a `Range` request; an archive is read in place only
    /// from a server that answers ranges.
    case rangesNotSupported(url: String)
    /// A response that does not say what it holds (a `Content-Range` missing or not the one asked for).
    case badResponse(url: String, reason: String)
    /// No answer in time: connecting, or waiting for the next bytes.
    case timedOut(url: String, range: String?)
    /// The connection failed or closed early, after every retry (`reason` from the client).
    case connection(url: String, reason: String)
    /// No connection could be made at all, after every retry: refused, no route to the host, a
    /// name that does not resolve (`reason` from the system).
    case unreachable(url: String, reason: String)
    /// The TLS handshake failed (an untrusted or mismatched certificate).
    case tls(url: String, reason: String)

    /// The URL the error concerns.
    public var url: String {
        switch self {
        case .badURL(let url), .notFound(let url, _), .status(let url, _, _), .changed(let url, _),
            .rangesNotSupported(let url), .badResponse(let url, _), .timedOut(let url, _),
            .connection(let url, _), .unreachable(let url, _), .tls(let url, _):
            url
        }
    }

    public var description: String {
        switch self {
        case .badURL(let url):
            "not an http:// or https:// URL: \(url)"
        case .notFound(let url, let status):
            "\(url): not found (HTTP \(status))"
        case .status(let url, let status, let range):
            "\(url): HTTP \(status)\(range.map { " for bytes=\($0)" } ?? "")"
        case .changed(let url, let reason):
            "\(url): the file changed while it was read (\(reason)): open it again"
        case .rangesNotSupported(let url):
            "\(url): the server ignores Range requests (answered 200 with the whole file): download the file, or serve it from a server that answers ranges"
        case .badResponse(let url, let reason):
            "\(url): unexpected response: \(reason)"
        case .timedOut(let url, let range):
            "\(url): timed out\(range.map { " reading bytes=\($0)" } ?? "")"
        case .connection(let url, let reason):
            "\(url): connection failed: \(reason)"
        case .unreachable(let url, let reason):
            "\(url): cannot connect: \(reason)"
        case .tls(let url, let reason):
            // Only a certificate that does not verify is fixed by naming the CA; a plain http://
            // URL reaches TLS only through a redirect, which the message then names.
            "\(url): TLS failed" + (url.lowercased().hasPrefix("https://") ? "" : " after a redirect to https")
                + ": \(reason)"
                + (reason.contains("CERTIFICATE_VERIFY_FAILED")
                    ? " (a private CA: set SSL_CERT_FILE to its PEM file)" : "")
        }
    }

    /// True when the input is missing or cannot be reached at all (the CLI's exit 66), false for a
    /// failure while reading (74).
    public var isMissingInput: Bool {
        switch self {
        case .badURL, .notFound, .tls, .unreachable: true
        case .status(_, let status, _): status == 401 || status == 403
        default: false
        }
    }
}

extension RemoteError: SourceUnreachable {
    /// True for ``timedOut(url:range:)``.
    public var timedOut: Bool {
        if case .timedOut = self { return true }
        return false
    }
}

extension RemoteError: SourceChanged {
    /// True for ``changed(url:reason:)``.
    public var sourceChanged: Bool {
        if case .changed = self { return true }
        return false
    }
}
