/// The search page a server answers at `/_webarc/search`: a form, then the results (title link,
/// URL, snippet with the matched words marked) or a one-line message. Plain HTML with inline
/// styles, no script and no external asset; every text from the query or the archive is escaped.
package enum SearchResultsPage {
    /// One result as the page shows it.
    package struct Item: Sendable, Equatable {
        /// The page's title.
        package var title: String
        /// Where the title links to (a path on the server).
        package var href: String
        /// The page's URL as shown under the title.
        package var shownURL: String
        /// The snippet, already HTML (``SnippetMarks``).
        package var snippetHTML: String

        /// Makes an item.
        package init(title: String, href: String, shownURL: String, snippetHTML: String) {
            self.title = title
            self.href = href
            self.shownURL = shownURL
            self.snippetHTML = snippetHTML
        }
    }

    /// What the page shows under the form.
    package enum Content: Sendable, Equatable {
        /// Only the form (an empty query).
        case form
        /// The results of a query (none: "no pages match").
        case results([Item])
        /// A message instead of results: no index, or a refused query (already in the page's language).
        case message(String)
    }

    /// The whole page, UTF-8 HTML.
    package static func html(query: String, content: Content, labels: SearchLabels) -> String {
        let shownQuery = HTMLText.escape(query)
        let title = query.isEmpty ? labels.search : "\(labels.search): \(query)"
        var body = ""
        switch content {
        case .form:
            break
        case .message(let text):
            body = "<p role=\"status\">\(HTMLText.escape(text))</p>"
        case .results(let items) where items.isEmpty:
            body = "<p role=\"status\">\(HTMLText.escape(labels.noMatch))</p>"
        case .results(let items):
            body =
                "<h1 id=\"results\">\(HTMLText.escape(labels.results)) (\(items.count))</h1>\n<ol aria-labelledby=\"results\">\n"
            for item in items {
                body += """
                    <li><a href="\(HTMLText.escape(item.href))">\(HTMLText.escape(item.title))</a>\
                    <div class="u">\(HTMLText.escape(item.shownURL))</div><p>\(item.snippetHTML)</p></li>

                    """
            }
            body += "</ol>"
        }
        return """
            <!DOCTYPE html>
            <html lang="\(HTMLText.escape(labels.language))"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTMLText.escape(title))</title>
            <style>
            body{font:18px/1.5 system-ui,sans-serif;max-width:48rem;margin:1rem auto;padding:0 1rem;color:#111;background:#fff}
            form{display:flex;gap:.5rem;margin:0 0 1rem}input{flex:1;font:inherit;padding:.4rem;border:1px solid #555}
            button{font:inherit;padding:.4rem 1rem}h1{font-size:1.1rem}ol{padding-left:1.5rem}li{margin:0 0 1rem}
            a{font-size:1.15rem;color:#0645ad}.u{color:#256029;font-size:.9rem;word-break:break-all}p{margin:.25rem 0}
            mark{background:#ffe066;color:#000}.v{position:absolute;left:-9999px}
            </style></head>
            <body><main>
            <form action="/_webarc/search" method="get" role="search"><label class="v" for="q">\(HTMLText.escape(labels.field))</label>\
            <input id="q" type="search" name="q" value="\(shownQuery)"\(query.isEmpty ? " autofocus" : "")>\
            <button type="submit">\(HTMLText.escape(labels.search))</button></form>
            \(body)
            </main></body></html>

            """
    }
}
