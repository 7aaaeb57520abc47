import Foundation
import WebArc
import WebArcSearch

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A search of the archives a handler serves, asked with a `webarc:` URL: `webarc://search?q=…`
/// answers the hits as `webarc search --json` prints them (`[{"url","title","snippet","score"}]`),
/// `webarc://suggest?q=…` the pages whose title or URL starts with `q` (`[{"title","url"}]`),
/// both `application/json`; `limit=N` (1 to 1000) caps the count. URLs are the archive URLs as
/// captured. The hosts `search` and `suggest` are taken for this, so an archived origin by either
/// name is not reachable as `webarc://search/…`.
struct SearchURL: Equatable, Sendable {
    /// Which answer is asked for.
    enum Kind: Equatable, Sendable {
        case search
        case suggest
    }

    var kind: Kind
    /// The `q` parameter, decoded (empty when absent).
    var query: String
    /// The `limit` parameter, clamped to 1…1000; the default when absent or not a number.
    var limit: Int

    /// The search `url` asks for, or nil when it is not a `webarc://search` or `webarc://suggest` URL.
    init?(_ url: URL?) {
        guard let url, url.scheme?.lowercased() == WebArcScheme.name, url.path.isEmpty || url.path == "/",
            let host = url.host?.lowercased()
        else { return nil }
        switch host {
        case "search": (kind, limit) = (.search, 10)
        case "suggest": (kind, limit) = (.suggest, 8)
        default: return nil
        }
        let text = url.absoluteString
        query = QueryString.value(of: "q", in: text) ?? ""
        if let given = QueryString.value(of: "limit", in: text).flatMap(Int.init) { limit = min(max(given, 1), 1000) }
    }
}

extension Replay {
    /// Answers a ``SearchURL`` from the archives of the handler: 200 with the JSON array, 400 with
    /// `{"error"}` for a query that cannot be searched, 404 with `{"error"}` when the archives hold no
    /// index; a damaged index page fails the load, as a damaged page does.
    func answer(_ search: SearchURL, at url: URL) {
        guard let setup else {
            return load.fail(WebArcURLProtocolError.notInArchive(method: "GET", url: url.absoluteString).urlError)
        }
        let json: String
        var status = 200
        do {
            let stack = try LayerStack(setup.archives)
            if search.query.allSatisfy(\.isWhitespace) {
                json = "[]"
            } else if !stack.hasSearchIndex {
                (status, json) = (404, SearchJSON.error("the archives hold no search index"))
            } else if search.kind == .suggest {
                json = SearchJSON.suggestions(try stack.suggest(search.query, limit: search.limit))
            } else {
                do {
                    _ = try SearchQuery.parse(search.query)
                    json = SearchJSON.hits(try stack.search(search.query, limit: search.limit))
                } catch let error as SearchQueryError {
                    (status, json) = (400, SearchJSON.error("\(error)"))
                }
            }
        } catch {
            return load.fail(Self.urlError(error, url: url.absoluteString))
        }
        let body = Data(json.utf8)
        let response = HTTPURLResponse(
            url: url, statusCode: status, httpVersion: "HTTP/1.1",
            headerFields: ["Content-Type": "application/json", "Content-Length": String(body.count)])!
        guard load.receive(response), load.load(body) else { return }
        load.finish()
    }
}
