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
    /// May stay in `head` (`meta`, `link`, `title`, `script`, `style`, `base`, `noscript`, `template`).
    static let headContent = ElementTraits(rawValue: 1 << 6)

    /// Elements whose end tag a sibling start tag implies, by kind (bits 8–11).
    enum ImpliedEnd: UInt16 {
        case none, paragraph, listItem, definition, option, cell, row, head
    }

    /// The element's ``ImpliedEnd`` kind.
    var impliedEnd: ImpliedEnd { ImpliedEnd(rawValue: rawValue >> 8 & 0xF) ?? .none }

    /// These traits with an ``ImpliedEnd`` kind.
    func with(_ kind: ImpliedEnd) -> ElementTraits { ElementTraits(rawValue: rawValue & ~0xF00 | kind.rawValue << 8) }

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
        for name in ["meta", "link", "title", "script", "style", "base", "noscript", "template"] {
            table[name, default: []].insert(.headContent)
        }
        let implied: [(String, ImpliedEnd)] = [
            ("p", .paragraph), ("li", .listItem), ("dt", .definition), ("dd", .definition), ("option", .option),
            ("td", .cell), ("th", .cell), ("tr", .row), ("head", .head),
        ]
        for (name, kind) in implied { table[name] = table[name, default: []].with(kind) }
        return table
    }()

    /// The traits of the element `name` (lower case): ``byName``'s, found without hashing the
    /// name, by its length and first letter (each such group holds a few names).
    @inline(__always)
    static func of(_ name: String) -> ElementTraits {
        let utf8 = name.utf8
        let count = utf8.count
        guard count <= maxNameLength, let first = utf8.first else { return [] }
        for (candidate, traits) in groups[count &* 32 &+ Int(first & 0x1F)] where candidate == name {
            return traits
        }
        return []
    }

    /// The traits of the element `name`, read in place in `bytes`: what ``of(_:)`` gives for its string.
    @inline(__always)
    static func of(_ name: ScannedName, _ bytes: UnsafeBufferPointer<UInt8>) -> ElementTraits {
        // Every name with traits is ASCII; a name with other bytes is none of them.
        guard name.count <= maxNameLength, name.count > 0, name.isASCII else { return [] }
        let first = UInt8(truncatingIfNeeded: name.key)
        for candidate in byteGroups[name.count &* 32 &+ Int(first & 0x1F)] where candidate.key == name.key {
            if name.count <= 8
                || candidate.name.utf8.elementsEqual(
                    bytes[name.start..<name.start + name.count].lazy.map(ASCIIByte.lowercased))
            {
                return candidate.traits
            }
        }
        return []
    }

    private static let maxNameLength = byName.keys.map(\.utf8.count).max()!

    /// ``groups`` with each name's ``ScannedName/key``.
    private static let byteGroups: [[(key: UInt64, name: String, traits: ElementTraits)]] = groups.map { group in
        group.map { name, traits in
            var key: UInt64 = 0
            for (offset, byte) in name.utf8.prefix(8).enumerated() { key |= UInt64(byte) << (offset * 8) }
            return (key, name, traits)
        }
    }

    /// ``byName``'s entries grouped by name length × 32 + first letter's low five bits.
    private static let groups: [[(String, ElementTraits)]] = {
        var groups = [[(String, ElementTraits)]](repeating: [], count: (maxNameLength + 1) * 32)
        for (name, traits) in byName {
            groups[name.utf8.count * 32 + Int(name.utf8.first! & 0x1F)].append((name, traits))
        }
        return groups
    }()

    /// Roles that mark page chrome.
    static let chromeRoles: [StaticString] = ["navigation", "search", "banner", "contentinfo"]
    /// The classes of Sphinx's chrome on `div`.
    static let sphinxDivClasses: [StaticString] = ["sphinxsidebar", "related", "footer"]
    /// The class of Sphinx's chrome on `a`.
    static let sphinxLinkClasses: [StaticString] = ["headerlink"]

    /// Whether `value` (an attribute value) holds one of `words` between ASCII whitespace, ASCII
    /// case ignored.
    static func value(_ value: String, holdsOneOf words: [StaticString]) -> Bool {
        self.value(value.utf8[...], holdsOneOf: words)
    }

    /// Whether the UTF-8 bytes `value` hold one of `words` between ASCII whitespace, ASCII case ignored.
    static func value<Bytes: Collection<UInt8>>(_ value: Bytes, holdsOneOf words: [StaticString]) -> Bool
    where Bytes.SubSequence == Bytes {
        var utf8 = value
        while true {
            utf8 = utf8.drop(while: ASCIIByte.isSpace)
            guard !utf8.isEmpty else { return false }
            let word = utf8.prefix { !ASCIIByte.isSpace($0) }
            for candidate in words where candidate.utf8CodeUnitCount == word.count {
                let bytes = UnsafeBufferPointer(start: candidate.utf8Start, count: candidate.utf8CodeUnitCount)
                if zip(word, bytes).allSatisfy({ ASCIIByte.lowercased($0) == $1 }) { return true }
            }
            utf8 = utf8[word.endIndex...]
        }
    }
}
