/// Splits an HTML document into text, tags, comments and raw text, naming the bytes of each.
///
/// ```swift
/// for case .startTag(let tag) in HTMLTokenizer(Array(page.utf8)) where tag.name == "img" {
///     print(tag.value("src") ?? "")
/// }
/// ```
///
/// It follows the tokenizer of the HTML standard where links are concerned (tag and attribute
/// names, double-, single- and unquoted values, comments, raw-text elements) and is tolerant like
/// it: no input is an error, an unterminated tag, comment, quote or raw-text element runs to the
/// end of the document. It does not build a tree, decode text, or know about `<template>`,
/// foreign content or the escaped states inside `<script>`. Each byte is looked at a bounded
/// number of times, so the time is linear in the document's size whatever it holds (NUL bytes,
/// invalid UTF-8, megabyte attributes); names and values are decoded as UTF-8 with replacement
/// characters.
public struct HTMLTokenizer: Sequence, IteratorProtocol {
    /// Elements whose contents are not markup: ``HTMLToken/rawText(element:range:)`` holds them,
    /// up to the element's end tag.
    public static let rawTextElements: Set<String> = ["script", "style", "textarea", "title"]

    /// Whether `name` (lower case) is one of ``rawTextElements``: told by its length first, without
    /// hashing it, as every start tag asks.
    @inline(__always)
    public static func isRawTextElement(_ name: String) -> Bool {
        switch name.utf8.count {
        case 5: name == "style" || name == "title"
        case 6: name == "script"
        case 8: name == "textarea"
        default: false
        }
    }

    let bytes: [UInt8]
    /// Where the tokens end: the end of the document, or of the part of it asked for.
    let limit: Int
    var index: Int
    /// The raw-text element whose contents come next.
    private var rawTextElement: String?

    /// Makes a tokenizer over `bytes`, a whole document.
    public init(_ bytes: [UInt8]) {
        self.init(bytes, in: bytes.indices)
    }

    /// Makes a tokenizer over the part `range` of `bytes`, read as if it were a whole document
    /// (the contents of a comment, say); token ranges are offsets in `bytes`.
    public init(_ bytes: [UInt8], in range: Range<Int>) {
        self.bytes = bytes
        index = Swift.max(0, Swift.min(range.lowerBound, bytes.count))
        limit = Swift.max(index, Swift.min(range.upperBound, bytes.count))
    }

    /// The next token, or nil at the end of the document.
    public mutating func next() -> HTMLToken? {
        if let element = rawTextElement {
            rawTextElement = nil
            let end = endTag(of: element, from: index) ?? limit
            if end > index {
                defer { index = end }
                return .rawText(element: element, range: index..<end)
            }
        }
        guard index < limit else { return nil }
        let start = index
        if let token = markup(at: start) {
            if case .startTag(let tag) = token, Self.isRawTextElement(tag.name) { rawTextElement = tag.name }
            return token
        }
        var end = start + 1
        while end < limit, !(bytes[end] == ASCII.lessThan && opensMarkup(at: end)) { end += 1 }
        index = end
        return .text(start..<end)
    }

    /// Whether the `<` at `position` begins a tag, an end tag or a comment rather than text.
    func opensMarkup(at position: Int) -> Bool {
        guard position + 1 < limit else { return false }
        let next = bytes[position + 1]
        if ASCII.isLetter(next) || next == ASCII.exclamation || next == ASCII.question { return true }
        return next == ASCII.slash && position + 2 < limit
    }

    /// The token that starts at `start` when it is markup (and the index moved past it), or nil
    /// for a `<` that is text.
    private mutating func markup(at start: Int) -> HTMLToken? {
        guard bytes[start] == ASCII.lessThan, opensMarkup(at: start) else { return nil }
        let next = bytes[start + 1]
        if ASCII.isLetter(next) {
            return .startTag(startTag(at: start))
        }
        if next == ASCII.slash, ASCII.isLetter(bytes[start + 2]) {
            return endTagToken(at: start)
        }
        if next == ASCII.exclamation, matches("--", at: start + 2) {
            index = commentEnd(from: start + 4)
            return .comment(start..<index)
        }
        // `<!doctype …>`, `<?xml …?>`, `</>`, `</ …>`: a bogus comment, up to the first `>`.
        index = bytes[(start + 2)..<limit].firstIndex(of: ASCII.greaterThan).map { $0 + 1 } ?? limit
        return .comment(start..<index)
    }

    /// The end of a comment whose text starts at `textStart` (after `<!--`): after `-->` or `--!>`,
    /// right after `<!-->` or `<!--->`, or the end of the document.
    private func commentEnd(from textStart: Int) -> Int {
        if matches(">", at: textStart) { return textStart + 1 }
        if matches("->", at: textStart) { return textStart + 2 }
        var position = textStart
        while let dash = bytes[position..<limit].firstIndex(of: ASCII.dash) {
            if matches("-->", at: dash) { return dash + 3 }
            if matches("--!>", at: dash) { return dash + 4 }
            position = dash + 1
        }
        return limit
    }

    /// The offset of the end tag `</name` (any case, followed by a space, `/`, `>` or the end) that
    /// closes a raw-text element, searching from `start`.
    private func endTag(of name: String, from start: Int) -> Int? {
        let needle = Array(name.utf8)
        var position = start
        while position < limit, let open = bytes[position..<limit].firstIndex(of: ASCII.lessThan) {
            let nameStart = open + 2
            let after = nameStart + needle.count
            if matches("</", at: open), after <= limit,
                zip(bytes[nameStart..<after], needle).allSatisfy({ ASCII.lowercased($0) == $1 }),
                after == limit || ASCII.isSpace(bytes[after]) || bytes[after] == ASCII.slash
                    || bytes[after] == ASCII.greaterThan
            {
                return open
            }
            position = open + 1
        }
        return nil
    }

    /// Whether the document holds `text` (ASCII, exact case) at `position`.
    func matches(_ text: StaticString, at position: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position >= 0, position + count <= limit else { return false }
        let pattern = text.utf8Start
        for offset in 0..<count where bytes[position + offset] != pattern[offset] { return false }
        return true
    }
}
