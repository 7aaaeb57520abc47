/// One piece of an HTML document, as ``HTMLTokenizer`` yields it.
///
/// Every token names the bytes it covers; the tokens of a document cover all of its bytes, in
/// order, each byte once, so a rewriter can splice any of them.
public enum HTMLToken: Equatable, Sendable {
    /// Character data between markup.
    case text(Range<Int>)
    /// A start tag (`<img src=a.png>`), with its attributes.
    case startTag(HTMLTag)
    /// An end tag (`</a>`); `name` is lower case.
    case endTag(name: String, range: Range<Int>)
    /// A comment (`<!-- … -->`), or other markup that holds no element: a doctype, `<!…>`, `<?…>`,
    /// `</ …>`.
    case comment(Range<Int>)
    /// The contents of a raw-text element (``HTMLTokenizer/rawTextElements``), up to its end tag;
    /// `element` is the element's name, lower case.
    case rawText(element: String, range: Range<Int>)

    /// The bytes of the document this token covers.
    public var range: Range<Int> {
        switch self {
        case .text(let range), .comment(let range): range
        case .startTag(let tag): tag.range
        case .endTag(_, let range), .rawText(_, let range): range
        }
    }
}

/// A start tag: its name, its attributes in document order, and where it is.
public struct HTMLTag: Equatable, Sendable {
    /// The tag name, ASCII letters lower-cased (`img`, `svg:image`).
    public var name: String
    /// From the `<` to the `>` that closes the tag, or to the end of the document when none does.
    public var range: Range<Int>
    /// Every attribute as written, duplicates included, in document order.
    public var attributes: [HTMLAttribute]
    /// Whether the tag ends with `/>`.
    public var isSelfClosing: Bool

    /// Makes a tag from its parts.
    init(name: String, range: Range<Int>, attributes: [HTMLAttribute], isSelfClosing: Bool) {
        self.name = name
        self.range = range
        self.attributes = attributes
        self.isSelfClosing = isSelfClosing
    }

    /// The first attribute called `name` (lower case), which is the one a browser keeps.
    public func attribute(_ name: String) -> HTMLAttribute? {
        attributes.first { $0.name == name }
    }

    /// The value of the first attribute called `name` (lower case), as written; nil when the tag
    /// has no such attribute, and empty for an attribute without a value.
    public func value(_ name: String) -> String? {
        attribute(name)?.value
    }
}

/// One attribute of a start tag.
public struct HTMLAttribute: Equatable, Sendable {
    /// The name, ASCII letters lower-cased (`href`, `xlink:href`, `data-x`).
    public var name: String
    /// The document, shared (not copied) by every attribute read from it.
    let source: [UInt8]
    /// The bytes of the name.
    public var nameRange: Range<Int>
    /// The bytes of the value, inside its quotes; nil when the attribute has no `=`.
    public var valueRange: Range<Int>?
    /// From the first byte of the name to the last of the value, closing quote included.
    public var range: Range<Int>
    /// The quote around the value (`"` or `'`), or nil when it is unquoted or absent.
    public var quote: UInt8?

    /// Makes an attribute of `source` from its parts.
    init(
        name: String, source: [UInt8], nameRange: Range<Int>, valueRange: Range<Int>?, range: Range<Int>, quote: UInt8?
    ) {
        self.name = name
        self.source = source
        self.nameRange = nameRange
        self.valueRange = valueRange
        self.range = range
        self.quote = quote
    }

    /// The value as written, without its quotes and with character references not decoded (UTF-8,
    /// invalid sequences replaced); empty when the attribute has no value. Decoded on each use:
    /// a rewriter that only needs ``valueRange`` pays nothing for it.
    public var value: String {
        valueRange.map { String(decoding: source[$0], as: UTF8.self) } ?? ""
    }

    /// The value with the character references links commonly hold decoded (see ``HTMLEntities``).
    public var decodedValue: String { HTMLEntities.decode(value) }
}
