import WebArcHTML

/// The text a reader sees on a page: what search indexes and snippets quote.
public struct PageText: Sendable, Equatable {
    /// The page's title (`<title>`, whitespace collapsed; for plain text its first line), or empty.
    public var title: String
    /// The visible text: words separated by one space, blocks by one line break, at most
    /// ``VisibleText/maxTextBytes`` bytes.
    public var text: String
    /// The text of the page's `h1`, `h2` and `h3` headings, in document order (at most
    /// ``VisibleText/maxHeadings``, each at most ``VisibleText/maxHeadingBytes`` bytes).
    public var headings: [String]

    /// Makes a page text from its parts.
    public init(title: String, text: String, headings: [String] = []) {
        self.title = title
        self.text = text
        self.headings = headings
    }
}

/// Extracts the visible text of HTML pages and plain-text files.
///
/// ```swift
/// let page = VisibleText.of(html: body, charset: "utf-8")
/// print(page.title, page.text.prefix(80))
/// ```
///
/// Left out of an HTML page: `script`, `style`, `template`, `noscript`, `svg`, `textarea`,
/// `select`, `iframe`, `canvas`, `audio`, `video`, `head` (but its `title` is the title), `nav`,
/// `aside`, `header` and `footer` (unless inside an `article`, `main` or `section`, where they
/// belong to the content), a `dialog` that is not `open`, any element with `hidden` (but not
/// `hidden=until-found`), `aria-hidden=true`, a `role` of `navigation`, `search`, `banner` or
/// `contentinfo`, or a `style` with `display:none` or `visibility:hidden`; and the chrome Sphinx
/// adds to every page: `div.sphinxsidebar`, `div.related`, `div.footer` and the `a.headerlink`
/// pilcrows. Block elements (paragraphs, list items, table cells, headings, `br`, images…)
/// separate words; inline ones (`b`, `code`, `span`…) do not. Character references are decoded
/// (numeric ones and HTML 4's named ones).
///
/// The page is not parsed into a tree: a stack of open elements follows start and end tags, with
/// the end tags that HTML implies for `p`, `li`, `dt`, `dd`, `option`, `tr`, `td` and `th`; a
/// self-closing tag (`<div/>`) opens nothing; an end tag closes the nearest of the 64 innermost
/// open elements of its name. Encodings: UTF-8 (and a UTF-16 byte-order mark), Windows-1252 for
/// the Latin-1 labels; `charset` nil means a `<meta charset>` before any text decides; any other
/// label is read as UTF-8 with invalid bytes replaced. The text stops at ``maxTextBytes``, so a huge page
/// costs time in proportion to its size but memory only to the limit.
public enum VisibleText {
    /// The most text kept per page, in UTF-8 bytes (1 MiB); the rest of a larger page is left out.
    public static let maxTextBytes = 1 << 20
    /// The most headings kept per page.
    public static let maxHeadings = 64
    /// The longest heading kept, in UTF-8 bytes (longer ones are cut at a scalar boundary).
    public static let maxHeadingBytes = 256
    /// The longest title kept, in UTF-8 bytes.
    public static let maxTitleBytes = 1024

    /// The title, visible text and headings of the HTML page `html`, whose bytes are in the
    /// encoding `charset` names (from its Content-Type; nil: UTF-8 unless the page says otherwise).
    public static func of(html: [UInt8], charset: String?) -> PageText {
        if let utf16 = transcodedUTF16(html) { return of(html: utf16, charset: "utf-8") }
        var reader = VisibleTextReader(
            html, encoding: TextBuffer.Encoding(label: charset), charsetKnown: charset != nil)
        return reader.read()
    }

    /// The visible text of `html` cut to `limit` UTF-8 bytes, and whether text was left out for
    /// the limit: the start of what ``of(html:charset:)`` gives, read no further.
    static func of(html: [UInt8], charset: String?, limit: Int) -> (text: String, isCut: Bool) {
        if let utf16 = transcodedUTF16(html) { return of(html: utf16, charset: "utf-8", limit: limit) }
        var reader = VisibleTextReader(
            html, encoding: TextBuffer.Encoding(label: charset), charsetKnown: charset != nil, limit: limit)
        return (reader.read().text, reader.isCut)
    }

    /// A reader of the HTML page `html` (``of(html:charset:)``) that can stop part way.
    static func reader(html: [UInt8], charset: String?) -> VisibleTextReader {
        if let utf16 = transcodedUTF16(html) { return reader(html: utf16, charset: "utf-8") }
        return VisibleTextReader(html, encoding: TextBuffer.Encoding(label: charset), charsetKnown: charset != nil)
    }

    /// The title (its first non-blank line, at most 200 bytes) and text of the plain-text file
    /// `plain`, in the encoding `charset` names (nil: UTF-8). Blank lines separate blocks.
    public static func of(plain: [UInt8], charset: String?) -> PageText {
        if let utf16 = transcodedUTF16(plain) { return of(plain: utf16, charset: "utf-8") }
        let encoding = TextBuffer.Encoding(label: charset)
        let start = hasUTF8Mark(plain) ? 3 : 0
        return plain.withUnsafeBufferPointer { bytes in
            let text = plainText(bytes, from: start, encoding: encoding, limit: maxTextBytes)
            var title = TextBuffer(limit: 200, encoding: encoding, reserve: 200)
            var lineStart = start
            while lineStart < bytes.count, title.bytes.isEmpty, lineStart - start < 4096 {
                let lineEnd = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.count
                title.append(bytes, lineStart..<lineEnd, references: false)
                lineStart = lineEnd + 1
            }
            return PageText(title: title.text, text: text.text)
        }
    }

    /// The text of `plain` cut to `limit` UTF-8 bytes, and whether text was left out for the limit.
    static func of(plain: [UInt8], charset: String?, limit: Int) -> (text: String, isCut: Bool) {
        if let utf16 = transcodedUTF16(plain) { return of(plain: utf16, charset: "utf-8", limit: limit) }
        let text = plain.withUnsafeBufferPointer { bytes in
            plainText(
                bytes, from: hasUTF8Mark(plain) ? 3 : 0, encoding: TextBuffer.Encoding(label: charset), limit: limit)
        }
        return (text.text, text.isFull)
    }

    private static func plainText(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, encoding: TextBuffer.Encoding, limit: Int
    ) -> TextBuffer {
        var text = TextBuffer(limit: limit, encoding: encoding, reserve: bytes.count, blankLinesSeparate: true)
        text.append(bytes, start..<bytes.count, references: false)
        return text
    }

    static func hasUTF8Mark(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
    }

    /// `bytes` as UTF-8 when they start with a UTF-16 byte-order mark, else nil.
    static func transcodedUTF16(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 2 else { return nil }
        let littleEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0xFF, 0xFE): littleEndian = true
        case (0xFE, 0xFF): littleEndian = false
        default: return nil
        }
        let units = stride(from: 2, to: bytes.count - 1, by: 2).map { offset in
            littleEndian
                ? UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
                : UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }
}
