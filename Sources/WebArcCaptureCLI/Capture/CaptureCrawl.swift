import Foundation
import WebArc
import WebArcHTML
import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records pages and their requisites through an ``ArchiveRecorder``, following links to a depth.
///
/// The given URLs are pages at depth 0. Each recorded HTML page's requisites (see ``PageLinks``)
/// are recorded at the page's depth, and a stylesheet's `url()` and `@import` targets with it; a
/// page's links to other pages are recorded at depth + 1 while that is at most the depth asked
/// for. Every URL is recorded once (compared by canonical URL), at most `jobs` at a time.
struct CaptureCrawl {
    /// What to record beyond the given pages.
    struct Options {
        /// Levels of page links to follow (0: the given pages only, with their requisites).
        var depth = 0
        /// Record only URLs on the origin (scheme, host, port) of one of the given pages: a
        /// redirect to another origin is stored as a redirect record and not followed.
        var sameOrigin = false
        /// Record the requisites of each page.
        var requisites = true
        /// Exchanges at once.
        var jobs = 4
        /// Seconds a request may wait for data.
        var timeout: TimeInterval = 30
    }

    /// What a crawl did.
    struct Summary {
        /// HTML pages recorded (each final URL once).
        var pages = 0
        /// Responses recorded, pages included.
        var responses = 0
        /// Responses recorded with a status of 400 or more, by URL.
        var errorStatuses: [(url: String, status: Int)] = []
        /// URLs that could not be recorded, with the reason.
        var failures: [(url: String, reason: String)] = []
        /// Redirects stored but not followed because they leave the given origins, as `from -> to`.
        var redirectsNotFollowed: [String] = []
    }

    /// Progress so far: exchanges finished, exchanges known (finished, running and waiting).
    typealias Progress = (_ finished: Int, _ known: Int) -> Void

    private enum Kind: Sendable { case page, requisite }

    private struct Item: Sendable {
        var url: URL
        var depth: Int
        var kind: Kind
    }

    /// The largest HTML or CSS body read for links (16 MiB); larger ones are recorded, not read.
    static let linkBodyLimit = 16 << 20

    let recorder: ArchiveRecorder
    let options: Options

    /// Records `start` and what they lead to.
    func run(_ start: [URL], progress: Progress) async -> Summary {
        let origins = Set(start.compactMap(Self.origin))
        var summary = Summary()
        var seen = Set<String>()
        var pagesSeen = Set<String>()
        var queue: [Item] = []
        func enqueue(_ url: URL, depth: Int, kind: Kind) {
            if options.sameOrigin, let origin = Self.origin(url), !origins.contains(origin) { return }
            guard seen.insert(Self.key(url)).inserted else { return }
            queue.append(Item(url: url, depth: depth, kind: kind))
        }
        for url in start { enqueue(url, depth: 0, kind: .page) }

        let recorder = self.recorder
        let timeout = options.timeout
        let sameOrigin = options.sameOrigin
        let follows: @Sendable (URL) -> Bool = { url in !sameOrigin || Self.origin(url).map(origins.contains) == true }
        await withTaskGroup(of: (Item, Result<ArchiveRecorder.Exchange, any Error>).self) { group in
            var next = 0
            var running = 0
            var finished = 0
            func launch() {
                while running < max(options.jobs, 1) && next < queue.count {
                    let item = queue[next]
                    next += 1
                    running += 1
                    group.addTask {
                        do {
                            let request = URLRequest(
                                url: item.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
                            let exchange = try await recorder.record(
                                request, keepingBodyUpTo: Self.linkBodyLimit, following: follows)
                            return (item, .success(exchange))
                        } catch {
                            return (item, .failure(error))
                        }
                    }
                }
            }
            launch()
            while let (item, result) = await group.next() {
                running -= 1
                finished += 1
                switch result {
                case .failure(WebArcURLProtocolError.redirectNotFollowed(let from, let target)):
                    summary.redirectsNotFollowed.append("\(from) -> \(target)")
                case .failure(let error):
                    summary.failures.append((item.url.absoluteString, Self.reason(error)))
                case .success(let exchange):
                    summary.responses += 1
                    let response = exchange.response
                    if response.status >= 400 {
                        summary.errorStatuses.append((item.url.absoluteString, response.status))
                    }
                    let finalURL = URL(string: response.request.url) ?? item.url
                    seen.insert(Self.key(finalURL))
                    let mimeType = response.mimeType ?? ""
                    let isHTML = mimeType == "text/html" || mimeType == "application/xhtml+xml"
                    // A redirect can lead to a page recorded under its own URL too: count and read it once.
                    guard !isHTML || pagesSeen.insert(Self.key(finalURL)).inserted else { break }
                    if isHTML && response.status < 400 { summary.pages += 1 }
                    guard response.status < 300, let body = exchange.body else { break }
                    if isHTML {
                        let links = PageLinks.html(body, baseURL: finalURL)
                        if options.requisites {
                            for url in links.requisites { enqueue(url, depth: item.depth, kind: .requisite) }
                        }
                        if item.depth < options.depth {
                            for url in links.pages { enqueue(url, depth: item.depth + 1, kind: .page) }
                        }
                    } else if mimeType == "text/css" && options.requisites {
                        for url in PageLinks.css(body, baseURL: finalURL).requisites {
                            enqueue(url, depth: item.depth, kind: .requisite)
                        }
                    }
                }
                progress(finished, queue.count)
                launch()
            }
        }
        return summary
    }

    /// The lookup key of `url`, so that spellings of one URL are recorded once.
    static func key(_ url: URL) -> String {
        (try? URLKey.canonicalize(url.absoluteString)) ?? url.absoluteString
    }

    /// `scheme://host:port` of `url`, with the scheme's default port when none is written.
    static func origin(_ url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        return "\(scheme)://\(host):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// One line saying why an exchange failed.
    static func reason(_ error: any Error) -> String {
        if let error = error as? WebArcURLProtocolError { return error.description }
        if let error = error as? URLError {
            return "\(error.localizedDescription) (URLError \(error.code.rawValue))"
        }
        return String(describing: error)
    }
}
