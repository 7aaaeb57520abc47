/// What an HTML element is to visible text (see ``VisibleText``).
struct ElementTraits: OptionSet {
    let rawValue: UInt16

    /// Separates the words before and after it (and its start and end).
    static let block = ElementTraits(rawValue: 1 << 0)
    /// Its contents are never visible text.
    static let skipped = ElementTraits(rawValue: 1 << 1)
    /// Has no contents and no end tag.
    static let void = ElementTraits(rawValue: 1 << 2)
    /// `article`, `main`, `section`: a `header` or `footer` inside belongs to the content.
    static let sectioning = ElementTraits(rawValue: 1 << 3)
    /// `header`, `footer`: page chrome outside sectioning elements.
    static let chrome = ElementTraits(rawValue: 1 << 4)
    /// `h1`–`h3`: collected as headings.
    static let heading = ElementTraits(rawValue: 1 << 5)

    /// The traits of each element that has any; other elements are inline.
    static let byName: [String: ElementTraits] = {
        var table: [String: ElementTraits] = [:]
        let blocks = [
            "address", "blockquote", "body", "caption", "center", "dd", "details", "dir", "div", "dl", "dt", "fieldset",
            "figcaption", "figure", "form", "frameset", "h4", "h5", "h6", "hgroup", "html", "legend", "li", "menu",
            "ol",
            "optgroup", "option", "p", "pre", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
            "button", "label", "object", "map", "math", "dialog", "search",
        ]
        for name in blocks { table[name] = .block }
        for name in ["h1", "h2", "h3"] { table[name] = [.block, .heading] }
        for name in ["article", "main", "section"] { table[name] = [.block, .sectioning] }
        for name in ["header", "footer"] { table[name] = [.block, .chrome] }
        let skipped = [
            "script", "style", "template", "noscript", "svg", "textarea", "select", "datalist", "iframe", "canvas",
            "audio", "video", "nav", "aside", "head", "title", "noembed", "noframes", "frame",
        ]
        for name in skipped { table[name] = [.block, .skipped] }
        for name in ["br", "hr", "img", "input", "embed", "area", "wbr", "keygen"] { table[name] = [.block, .void] }
        for name in ["base", "col", "link", "meta", "param", "source", "track"] { table[name] = .void }
        // `wbr` marks where a line may break inside a word: it does not separate words.
        table["wbr"] = .void
        return table
    }()

    /// Roles that mark page chrome.
    static let chromeRoles: Set<String> = ["navigation", "search", "banner", "contentinfo"]
    /// Sphinx's chrome, by element and class.
    static let sphinxChrome: [String: Set<String>] = [
        "div": ["sphinxsidebar", "related", "footer"], "a": ["headerlink"],
    ]
}
