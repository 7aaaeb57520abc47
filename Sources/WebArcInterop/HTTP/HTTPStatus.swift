/// Standard reason phrases (RFC 9110 §15), for status lines and HAR `statusText` when the
/// archive stored none.
enum HTTPStatus {
    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 206: "Partial Content"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 410: "Gone"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}

/// URL text made safe for a WARC header or a request line: bytes RFC 3986 does not allow
/// anywhere in a URI (space, `"`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`, controls, non-ASCII)
/// are percent-encoded; everything else, existing escapes included, is kept.
enum URIText {
    static func escaped(_ url: String) -> String {
        var output = ""
        for byte in url.utf8 {
            if byte > 0x20 && byte < 0x7F && !"\"<>\\^`{|}".utf8.contains(byte) {
                output.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                output += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return output
    }

    /// The request target of an absolute URL: path and query (`/` when empty), fragment dropped.
    static func requestTarget(_ url: String) -> String {
        let text = escaped(url).prefix { $0 != "#" }
        guard let schemeEnd = text.range(of: "://") else { return String(text) }
        let rest = text[schemeEnd.upperBound...]
        guard let pathStart = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let target = String(rest[pathStart...])
        return target.hasPrefix("?") ? "/" + target : target
    }
}
