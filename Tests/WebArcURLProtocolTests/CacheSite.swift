import Dispatch
import Foundation
import Synchronization
import WebArc
import WebArcTestSupport

/// A live site for the cache policy tests: pages that change between requests, validators the
/// way an origin sends them (304 for a matching `If-None-Match`, else `If-Modified-Since`), and
/// a gate that holds every answer until the test opens it.
final class CacheSite: Sendable {
    struct Page: Sendable {
        var status = 200
        var body: String
        var etag: String?
        var lastModified: String?
        /// For a 3xx: where it points.
        var location: String?
    }

    private let pages: Mutex<[String: Page]>
    private let gate = DispatchSemaphore(value: 0)
    private let gateState = Mutex<(closed: Bool, timedOut: Bool)>((false, false))

    init(_ pages: [String: Page]) { self.pages = Mutex(pages) }

    /// Replaces (or, with nil, deletes: 404) the page at `path`.
    func set(_ path: String, _ page: Page?) { pages.withLock { $0[path] = page } }

    /// Holds every answer until ``open()``.
    func close() { gateState.withLock { $0.closed = true } }

    /// Lets held answers (and later ones) go.
    func open() {
        let wasClosed = gateState.withLock { state in
            defer { state.closed = false }
            return state.closed
        }
        if wasClosed { for _ in 0..<64 { gate.signal() } }
    }

    /// Whether a held answer gave up waiting for ``open()`` (the test then failed to open it in time).
    var gateTimedOut: Bool { gateState.withLock { $0.timedOut } }

    func respond(_ request: TestHTTPServer.Request) -> TestHTTPServer.Response {
        if gateState.withLock({ $0.closed }), gate.wait(timeout: .now() + 600) == .timedOut {
            gateState.withLock { $0.timedOut = true }
        }
        guard let page = pages.withLock({ $0[request.target] }) else {
            return .init(
                status: 404, headers: [("Content-Type", "text/plain")], text: "no such page: \(request.target)")
        }
        var headers = [("Content-Type", "text/html")]
        if let etag = page.etag { headers.append(("ETag", etag)) }
        if let modified = page.lastModified { headers.append(("Last-Modified", modified)) }
        if let location = page.location { headers.append(("Location", location)) }
        if let asked = request.headers["if-none-match"], let etag = page.etag, asked == etag {
            return .init(status: 304, headers: headers.filter { $0.0 != "Content-Type" })
        }
        if request.headers["if-none-match"] == nil, let asked = request.headers["if-modified-since"],
            asked == page.lastModified
        {
            return .init(status: 304, headers: headers.filter { $0.0 != "Content-Type" })
        }
        return .init(status: page.status, headers: headers, text: page.body)
    }
}
