import NIOCore
import WebArc
import WebArcSearch

/// The small HTML pages the server answers with itself: 400, 404, 405, 414, 416 and 500.
enum ServerPages {
    /// A page for `status` with a one-line explanation; `extra` headers go out before the length.
    static func decision(
        status: Int, reason: String, detail: String, extra: [HTTPHeader] = [], isHead: Bool
    ) -> ResponseDecision {
        let html = """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>\(status) \(reason)</title></head>
            <body><h1>\(status) \(reason)</h1><p>\(escape(detail))</p><p><a href="/">Start page</a></p></body></html>

            """
        let buffer = ByteBuffer(string: html)
        let headers =
            [
                HTTPHeader("Content-Type", "text/html; charset=utf-8"),
                HTTPHeader("Cache-Control", "no-store"),
            ] + extra + [HTTPHeader("Content-Length", String(buffer.readableBytes))]
        return ResponseDecision(status: status, reason: reason, headers: headers, body: isHead ? .none : .bytes(buffer))
    }

    /// 404 for a URL the archives do not hold.
    static func notFound(_ target: String, isHead: Bool) -> ResponseDecision {
        decision(status: 404, reason: "Not Found", detail: "The archive holds no page at \(target).", isHead: isHead)
    }

    /// 405 for a method other than GET and HEAD.
    static func methodNotAllowed(_ method: String) -> ResponseDecision {
        decision(
            status: 405, reason: "Method Not Allowed", detail: "An archive answers GET and HEAD only, not \(method).",
            extra: [HTTPHeader("Allow", "GET, HEAD")], isHead: false)
    }

    /// 400 for a request target the server cannot map.
    static func badRequest(isHead: Bool) -> ResponseDecision {
        decision(
            status: 400, reason: "Bad Request", detail: "The request target is not a path or an absolute URL.",
            isHead: isHead)
    }

    /// 414 for a request target longer than the server reads.
    static func uriTooLong(isHead: Bool) -> ResponseDecision {
        decision(status: 414, reason: "URI Too Long", detail: "The request target is too long.", isHead: isHead)
    }

    /// 500 when an archive cannot be read (the detail names the error); 502 or 504 when a remote
    /// archive's server did not deliver the bytes (``WebArc/SourceUnreachable``).
    static func archiveError(_ error: any Error, isHead: Bool) -> ResponseDecision {
        if let unreachable = error as? SourceUnreachable {
            // The archive is read over the network and its server did not deliver: a gateway's error.
            return unreachable.timedOut
                ? decision(
                    status: 504, reason: "Gateway Timeout",
                    detail: "The archive's server did not answer in time: \(error)", isHead: isHead)
                : decision(
                    status: 502, reason: "Bad Gateway", detail: "The archive could not be fetched: \(error)",
                    isHead: isHead)
        }
        return decision(
            status: 500, reason: "Internal Server Error", detail: "The archive could not be read: \(error)",
            isHead: isHead)
    }

    /// The body of a stored redirect whose target is not replayed (``ReplaySafety``), and the
    /// headers that describe it: the stored status goes out with this page and no `Location`.
    static func refusedRedirect(_ target: String) -> (headers: [HTTPHeader], body: ByteBuffer) {
        let scheme = target.prefix { $0 != ":" }.prefix(32)
        let html = """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>Redirect not replayed</title></head>
            <body><h1>Redirect not replayed</h1><p>The archived page redirects to a \(escape(String(scheme))): URL, \
            which an archive replay never follows.</p><p><a href="/">Start page</a></p></body></html>

            """
        return (
            [HTTPHeader("Content-Type", "text/html; charset=utf-8"), HTTPHeader("Cache-Control", "no-store")],
            ByteBuffer(string: html)
        )
    }

    /// `text` with HTML's special characters escaped.
    static func escape(_ text: String) -> String { HTMLText.escape(text) }
}
