import Foundation
import WebArcTestSupport

/// The routes of the test server that recorder and capture tests record.
enum TestSite {
    static let large = SeededGenerator.packedBytes(3 * 1024 * 1024 + 17, seed: 42)

    static let page = """
        <!doctype html><html><head><base href="/">
        <link rel="stylesheet" href="style.css"><link rel=icon href='/favicon.ico'>
        <script src="/app.js?v=2"></script>
        <style>body { background: url("img/bg.png") }</style></head>
        <body><img src="img/logo.png" srcset="img/logo-2x.png 2x, img/logo-3x.png 3x">
        <picture><source srcset="img/wide.webp 800w"></picture>
        <a href="/about.html">About</a> <a href="https://elsewhere.test/x">Elsewhere</a>
        <a href="#top">Top</a> <a href="mailto:a@b.test">Mail</a>
        <div style="background-image:url(img/inline.png)"></div></body></html>
        """

    static func respond(_ request: TestHTTPServer.Request) -> TestHTTPServer.Response {
        let path = String(request.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        let query = request.target.contains("?") ? String(request.target.split(separator: "?", maxSplits: 1)[1]) : ""
        switch path {
        case "/":
            return .init(headers: [("Content-Type", "text/html; charset=utf-8"), ("X-Site", "test")], text: page)
        case "/about.html":
            return .init(
                headers: [("Content-Type", "text/html")], text: "<link rel=stylesheet href=style.css><a href=/>home</a>"
            )
        case "/style.css":
            return .init(
                headers: [("Content-Type", "text/css")],
                text:
                    "@import 'more.css'; h1 { background: url(img/h1.png) }\n@font-face { src: url(\"fonts/a.woff2\") format('woff2') }"
            )
        case "/more.css":
            return .init(headers: [("Content-Type", "text/css")], text: "p { color: red }")
        case "/app.js":
            return .init(headers: [("Content-Type", "application/javascript")], text: "console.log(1)")
        case "/large":
            return .init(headers: [("Content-Type", "application/octet-stream"), ("ETag", "\"big\"")], body: large)
        case "/echo":
            return .init(headers: [("Content-Type", "text/plain")], text: "query=\(query)")
        case "/same-a", "/same-b":
            return .init(headers: [("Content-Type", "text/plain")], text: "the same body")
        case "/auth":
            return .init(status: 401, headers: [("WWW-Authenticate", "Basic realm=\"test\"")], text: "no")
        case "/see-other":
            return .init(status: 303, headers: [("Location", "/echo?from=303")])
        case "/loop/a":
            return .init(status: 301, headers: [("Location", "/loop/b")])
        case "/loop/b":
            return .init(status: 301, headers: [("Location", "/loop/a")])
        default:
            break
        }
        if path.hasPrefix("/status/"), let status = Int(path.dropFirst(8)) {
            return .init(status: status, headers: [("Content-Type", "text/plain")], text: "status \(status)")
        }
        if path.hasPrefix("/redirect/"), let count = Int(path.dropFirst(10)) {
            return count == 0
                ? .init(headers: [("Content-Type", "text/plain")], text: "arrived")
                : .init(status: count % 2 == 0 ? 302 : 307, headers: [("Location", "/redirect/\(count - 1)")])
        }
        if path.hasPrefix("/img/") || path.hasPrefix("/fonts/") || path == "/favicon.ico" {
            return .init(headers: [("Content-Type", "image/png")], body: Array(path.utf8))
        }
        return .init(status: 404, headers: [("Content-Type", "text/plain")], text: "not found: \(path)")
    }
}
