import WebArcHTML

/// The small search form `webarc serve --search-box` puts at the top of every HTML page it serves:
/// a `<form action="/_webarc/search">` with a field and a button, inline styles, no script.
package enum SearchBox {
    /// The attribute that marks the injected form (and lets a test find it).
    package static let marker = "data-webarc-search-box"

    /// The form's HTML, labelled in `labels`' language.
    package static func form(labels: SearchLabels) -> String {
        let field = HTMLText.escape(labels.field)
        return """
            <form \(marker) action="/_webarc/search" method="get" role="search" lang="\(HTMLText.escape(labels.language))" \
            style="display:block;margin:0;padding:6px 8px;background:#f4f4f4;border-bottom:1px solid #ccc;\
            font:16px/1.4 sans-serif;color:#111;text-align:right"><input type="search" name="q" \
            aria-label="\(field)" placeholder="\(field)" style="font:inherit;padding:2px 6px;width:16em;\
            max-width:60%;border:1px solid #888;background:#fff;color:#111"> <button type="submit" \
            style="font:inherit;padding:2px 10px">\(HTMLText.escape(labels.search))</button></form>
            """
    }

    /// `html` with the form right after its `<body>` start tag, labelled in the language of its
    /// `<html lang>` (English when it has none with labels); nil when the document has no
    /// `<body>` tag (a frameset, a fragment, a page that leaves the tag out), which is served
    /// as it is.
    package static func inject(into html: [UInt8]) -> [UInt8]? {
        var language: String?
        for token in HTMLTokenizer(html) {
            guard case .startTag(let tag) = token else { continue }
            switch tag.name {
            case "html":
                language = tag.value("lang")
            case "frameset":
                return nil
            case "body":
                let form = Array(self.form(labels: .forLanguage(language)).utf8)
                var output = [UInt8]()
                output.reserveCapacity(html.count + form.count)
                output += html[..<tag.range.upperBound]
                output += form
                output += html[tag.range.upperBound...]
                return output
            default:
                continue
            }
        }
        return nil
    }
}
