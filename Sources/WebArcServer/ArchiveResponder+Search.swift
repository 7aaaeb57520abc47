import NIOCore
import WebArc
import WebArcSearch

/// The server's own search pages: `/_webarc/search?q=` (an HTML results page in the language the
/// browser asks for) and `/_webarc/suggest?q=` (JSON suggestions while typing). They answer
/// before any archive lookup, so an archived page at either path is not served.
extension ArchiveResponder {
    /// The path of the results page.
    package static let searchPath = "/_webarc/search"
    /// The path of the suggestions.
    package static let suggestPath = "/_webarc/suggest"
    /// The most results the page shows.
    static let searchPageLimit = 20
    /// The most suggestions answered.
    static let suggestionLimit = 8

    /// The answer to a search or suggest request, or nil when `request` is for neither path.
    func searchDecision(_ request: ArchiveRequest) -> ResponseDecision? {
        let path = request.target.prefix { $0 != "?" && $0 != "#" }
        switch path {
        case Self.searchPath: return searchPage(request)
        case Self.suggestPath: return suggestions(request)
        default: return nil
        }
    }

    /// The results page: 200 with the form alone for an empty query, with results (or "no pages
    /// match") otherwise; 400 for a query that cannot be searched, 404 when the archives hold no
    /// index, 500 when an index page is damaged.
    private func searchPage(_ request: ArchiveRequest) -> ResponseDecision {
        let labels = SearchLabels.forAcceptLanguage(request.acceptLanguage)
        let text = QueryString.value(of: "q", in: request.target) ?? ""
        func page(_ status: Int, _ reason: String, _ content: SearchResultsPage.Content) -> ResponseDecision {
            let html = SearchResultsPage.html(query: text, content: content, labels: labels)
            return Self.searchAnswer(
                status: status, reason: reason, type: "text/html; charset=utf-8", body: html, language: labels.language,
                isHead: request.isHead)
        }
        guard text.contains(where: { !$0.isWhitespace }) else { return page(200, "OK", .form) }
        let query: SearchQuery
        do {
            query = try SearchQuery.parse(text)
        } catch {
            return page(400, "Bad Request", .message("\(labels.badQuery) \(error)"))
        }
        let archives = self.archives
        do {
            guard let stack = try Self.searchStack(archives), stack.hasSearchIndex else {
                return page(404, "Not Found", .message(labels.noIndex))
            }
            let items = try stack.search(text, limit: Self.searchPageLimit).map { hit in
                SearchResultsPage.Item(
                    title: hit.title, href: archives.originMap.servedPath(forArchiveURL: hit.url) ?? hit.url,
                    shownURL: hit.url, snippetHTML: SnippetMarks.html(hit.snippet, query: query))
            }
            return page(200, "OK", .results(items))
        } catch {
            return ServerPages.archiveError(error, isHead: request.isHead)
        }
    }

    /// `[{"title","url"}]` of the pages whose title or URL starts with `q`, each URL the path it
    /// is served at; `[]` for an empty `q`, 404 with `{"error"}` when there is no index.
    private func suggestions(_ request: ArchiveRequest) -> ResponseDecision {
        let text = QueryString.value(of: "q", in: request.target) ?? ""
        func answer(_ status: Int, _ reason: String, _ json: String) -> ResponseDecision {
            Self.searchAnswer(
                status: status, reason: reason, type: "application/json", body: json, language: nil,
                isHead: request.isHead)
        }
        guard text.contains(where: { !$0.isWhitespace }) else { return answer(200, "OK", "[]") }
        let archives = self.archives
        do {
            guard let stack = try Self.searchStack(archives), stack.hasSearchIndex else {
                return answer(404, "Not Found", SearchJSON.error("the archives hold no search index"))
            }
            let found = try stack.suggest(text, limit: Self.suggestionLimit).map {
                Suggestion(title: $0.title, url: archives.originMap.servedPath(forArchiveURL: $0.url) ?? $0.url)
            }
            return answer(200, "OK", SearchJSON.suggestions(found))
        } catch {
            return answer(
                500, "Internal Server Error", SearchJSON.error("the search index could not be read: \(error)"))
        }
    }

    /// The archives as one layer stack, each update's index over its bases' (spec §13); nil when
    /// they do not stack. Made per request from the set in use, so that a reload is searched at
    /// once; stacking readers already opened over their bases reads only their metadata again.
    private static func searchStack(_ archives: ArchiveSet) throws -> LayerStack? {
        do {
            return try LayerStack(archives.readers)
        } catch WebArcError.badBase {
            return nil
        }
    }

    /// A search answer: never cached (it changes with the archives and the language), never sniffed.
    private static func searchAnswer(
        status: Int, reason: String, type: String, body: String, language: String?, isHead: Bool
    ) -> ResponseDecision {
        let buffer = ByteBuffer(string: body)
        var headers = [
            HTTPHeader("Content-Type", type),
            HTTPHeader("Cache-Control", "no-store"),
            HTTPHeader("X-Content-Type-Options", "nosniff"),
        ]
        if let language {
            headers += [HTTPHeader("Content-Language", language), HTTPHeader("Vary", "Accept-Language")]
        }
        headers.append(HTTPHeader("Content-Length", String(buffer.readableBytes)))
        return ResponseDecision(status: status, reason: reason, headers: headers, body: isHead ? .none : .bytes(buffer))
    }
}
