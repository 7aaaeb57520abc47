/// A tag or attribute name read in place: where its bytes are, and its first eight bytes lower-cased.
struct ScannedName {
    /// The offset of the name's first byte in the page.
    var start = 0
    /// The name's length in bytes.
    var count = 0
    /// The first eight bytes, ASCII letters lower-cased, little-endian, zero-padded.
    var key: UInt64 = 0
    /// Whether every byte is ASCII: then two names are the same exactly when their lower-cased bytes are.
    var isASCII = true

    /// The key of the ASCII name `name` (at most eight bytes, lower case).
    static func key(_ name: StaticString) -> UInt64 {
        var key: UInt64 = 0
        for offset in 0..<name.utf8CodeUnitCount { key |= UInt64(name.utf8Start[offset]) << (offset * 8) }
        return key
    }

    /// Whether this is the ASCII name of key `key` and length `count`.
    @inline(__always)
    func `is`(_ key: UInt64, count: Int) -> Bool {
        self.key == key && self.count == count && isASCII
    }

    /// The name as ``HTMLTokenizer`` gives it: UTF-8 with invalid bytes replaced, ASCII letters lower-cased.
    func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes[start..<start + count].map(ASCIIByte.lowercased), as: UTF8.self)
    }

    /// Whether `other` is the same name as a string (``HTMLTokenizer``'s, compared as `String`s).
    /// ASCII names are compared by their bytes; a name with other bytes goes through `String`,
    /// whose canonical equivalence can make different bytes equal.
    @inline(__always)
    func isSame(as other: ScannedName, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard isASCII, other.isASCII else { return string(bytes) == other.string(bytes) }
        guard key == other.key, count == other.count else { return false }
        var offset = 8
        while offset < count {
            if ASCIIByte.lowercased(bytes[start + offset]) != ASCIIByte.lowercased(bytes[other.start + offset]) {
                return false
            }
            offset += 1
        }
        return true
    }
}

/// One attribute of the start tag just scanned: its name and the bytes of its value.
struct ScannedAttribute {
    /// The name.
    var name: ScannedName
    /// The value inside its quotes, or nil when the attribute has no `=`.
    var value: Range<Int>?
}

/// ``HTMLTokenizer``'s tokens with the same boundaries, read in place over the page's bytes: a
/// tag's name and attributes are offsets and a packed key, not strings and arrays per tag, so
/// the visible-text walk allocates nothing per tag.
///
/// After ``next()`` returns a kind, ``range`` holds the token's bytes; for tags ``name`` holds
/// the tag name, and for start tags ``isSelfClosing`` and ``attributes`` (a buffer reused from
/// tag to tag) what follows it; for raw text ``name`` is the element's.
struct TagScanner {
    /// What kind of token ``next()`` read.
    enum Kind {
        case text, startTag, endTag, comment, rawText
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let limit: Int
    private var index: Int
    /// The bytes of the last token.
    private(set) var range = 0..<0
    /// The name of the last tag, or the raw-text element of the last raw text.
    private(set) var name = ScannedName()
    /// Whether the last start tag ended with `/>`.
    private(set) var isSelfClosing = false
    /// The attributes of the last start tag, in document order.
    private(set) var attributes: [ScannedAttribute] = []
    /// The raw-text element whose contents come next.
    private var rawTextElement: ScannedName?

    /// Makes a scanner over `bytes[range]`, read as a whole document.
    init(_ bytes: UnsafeBufferPointer<UInt8>, in range: Range<Int>) {
        self.bytes = bytes
        index = Swift.max(0, Swift.min(range.lowerBound, bytes.count))
        limit = Swift.max(index, Swift.min(range.upperBound, bytes.count))
        attributes.reserveCapacity(16)
    }

    static let scriptKey = ScannedName.key("script")
    static let styleKey = ScannedName.key("style")
    static let titleKey = ScannedName.key("title")
    static let textareaKey = ScannedName.key("textarea")

    /// Whether `name` is one of ``HTMLTokenizer/rawTextElements``.
    @inline(__always)
    static func isRawText(_ name: ScannedName) -> Bool {
        switch name.count {
        case 5: name.is(styleKey, count: 5) || name.is(titleKey, count: 5)
        case 6: name.is(scriptKey, count: 6)
        case 8: name.is(textareaKey, count: 8)
        default: false
        }
    }

    /// Reads the next token; nil at the end of the document.
    mutating func next() -> Kind? {
        if let element = rawTextElement {
            rawTextElement = nil
            let end = endTag(of: element, from: index) ?? limit
            if end > index {
                range = index..<end
                index = end
                name = element
                return .rawText
            }
        }
        guard index < limit else { return nil }
        let start = index
        if bytes[start] == HTMLByte.lessThan, opensMarkup(at: start) {
            let next = bytes[start + 1]
            if isLetter(next) {
                index = start + 1
                readName()
                isSelfClosing = readAttributes(keeping: true)
                range = start..<index
                if Self.isRawText(name) { rawTextElement = name }
                return .startTag
            }
            if next == HTMLByte.slash, isLetter(bytes[start + 2]) {
                index = start + 2
                readName()
                _ = readAttributes(keeping: false)
                range = start..<index
                return .endTag
            }
            if next == HTMLByte.exclamation, matches(HTMLByte.dash, HTMLByte.dash, at: start + 2) {
                index = commentEnd(from: start + 4)
            } else {
                // `<!doctype …>`, `<?xml …?>`, `</>`, `</ …>`: a bogus comment, up to the first `>`.
                index = start + 2
                while index < limit, bytes[index] != HTMLByte.greaterThan { index += 1 }
                index = Swift.min(index + 1, limit)
            }
            range = start..<index
            return .comment
        }
        var end = start + 1
        while end < limit, !(bytes[end] == HTMLByte.lessThan && opensMarkup(at: end)) { end += 1 }
        index = end
        range = start..<end
        return .text
    }

    /// Whether the `<` at `position` begins a tag, an end tag or a comment rather than text.
    @inline(__always)
    private func opensMarkup(at position: Int) -> Bool {
        guard position + 1 < limit else { return false }
        let next = bytes[position + 1]
        if isLetter(next) || next == HTMLByte.exclamation || next == HTMLByte.question { return true }
        return next == HTMLByte.slash && position + 2 < limit
    }

    @inline(__always)
    private func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- UInt8(ascii: "a") < 26
    }

    @inline(__always)
    private func ends(_ byte: UInt8) -> Bool {
        ASCIIByte.isSpace(byte) || byte == HTMLByte.slash || byte == HTMLByte.greaterThan
    }

    /// Reads the tag name at the index into ``name``: up to a space, `/` or `>`.
    private mutating func readName() {
        name = ScannedName(start: index)
        while index < limit, !ends(bytes[index]) {
            take(bytes[index], into: &name)
            index += 1
        }
    }

    @inline(__always)
    private func take(_ byte: UInt8, into name: inout ScannedName) {
        if name.count < 8 { name.key |= UInt64(ASCIIByte.lowercased(byte)) << (name.count * 8) }
        if byte >= 0x80 { name.isASCII = false }
        name.count += 1
    }

    /// Reads attributes up to the `>` that ends the tag (the index moves past it), keeping them in
    /// ``attributes`` when `keeping`; returns whether the tag ended with `/>`.
    private mutating func readAttributes(keeping: Bool) -> Bool {
        if keeping { attributes.removeAll(keepingCapacity: true) }
        while true {
            skipSpaces()
            guard index < limit else { return false }
            switch bytes[index] {
            case HTMLByte.greaterThan:
                index += 1
                return false
            case HTMLByte.slash:
                index += 1
                if index < limit, bytes[index] == HTMLByte.greaterThan {
                    index += 1
                    return true
                }
            default:
                let attribute = readAttribute()
                if keeping { attributes.append(attribute) }
            }
        }
    }

    /// One attribute at the index: its name (whose first byte may be `=`), then, after an `=`, a
    /// quoted or unquoted value.
    private mutating func readAttribute() -> ScannedAttribute {
        var name = ScannedName(start: index)
        take(bytes[index], into: &name)
        index += 1
        while index < limit, !ends(bytes[index]), bytes[index] != HTMLByte.equals {
            take(bytes[index], into: &name)
            index += 1
        }
        skipSpaces()
        guard index < limit, bytes[index] == HTMLByte.equals else { return ScannedAttribute(name: name, value: nil) }
        index += 1
        skipSpaces()
        if index < limit, bytes[index] == HTMLByte.doubleQuote || bytes[index] == HTMLByte.singleQuote {
            let quote = bytes[index]
            let valueStart = index + 1
            var valueEnd = valueStart
            while valueEnd < limit, bytes[valueEnd] != quote { valueEnd += 1 }
            index = Swift.min(valueEnd + 1, limit)
            return ScannedAttribute(name: name, value: valueStart..<valueEnd)
        }
        let valueStart = index
        while index < limit, !ASCIIByte.isSpace(bytes[index]), bytes[index] != HTMLByte.greaterThan { index += 1 }
        return ScannedAttribute(name: name, value: valueStart..<index)
    }

    @inline(__always)
    private mutating func skipSpaces() {
        while index < limit, ASCIIByte.isSpace(bytes[index]) { index += 1 }
    }

    /// The end of a comment whose text starts at `textStart` (after `<!--`): after `-->` or `--!>`,
    /// right after `<!-->` or `<!--->`, or the end of the document.
    private func commentEnd(from textStart: Int) -> Int {
        if textStart < limit, bytes[textStart] == HTMLByte.greaterThan { return textStart + 1 }
        if matches(HTMLByte.dash, HTMLByte.greaterThan, at: textStart) { return textStart + 2 }
        var position = textStart
        while position < limit {
            if bytes[position] == HTMLByte.dash, matches(HTMLByte.dash, HTMLByte.dash, at: position) {
                if matches(HTMLByte.dash, HTMLByte.greaterThan, at: position + 1) { return position + 3 }
                if matches(HTMLByte.exclamation, HTMLByte.greaterThan, at: position + 2) { return position + 4 }
            }
            position += 1
        }
        return limit
    }

    /// Whether the document holds `first` then `second` at `position`.
    @inline(__always)
    private func matches(_ first: UInt8, _ second: UInt8, at position: Int) -> Bool {
        position + 2 <= limit && bytes[position] == first && bytes[position + 1] == second
    }

    /// The offset of the end tag `</name` (any case, followed by a space, `/`, `>` or the end)
    /// that closes the raw-text element `element` (an ASCII name of at most eight bytes),
    /// searching from `start`.
    private func endTag(of element: ScannedName, from start: Int) -> Int? {
        var position = start
        while position < limit {
            if bytes[position] == HTMLByte.lessThan, position + 1 < limit, bytes[position + 1] == HTMLByte.slash {
                let nameStart = position + 2
                let after = nameStart + element.count
                if after <= limit, isName(element, at: nameStart),
                    after == limit || ends(bytes[after])
                {
                    return position
                }
            }
            position += 1
        }
        return nil
    }

    /// Whether the bytes at `start` are `element`'s name in any ASCII case.
    @inline(__always)
    private func isName(_ element: ScannedName, at start: Int) -> Bool {
        for offset in 0..<element.count
        where ASCIIByte.lowercased(bytes[start + offset]) != UInt8(truncatingIfNeeded: element.key >> (offset * 8)) {
            return false
        }
        return true
    }
}

/// The bytes of HTML syntax the scanner reads.
private enum HTMLByte {
    static let lessThan = UInt8(ascii: "<")
    static let greaterThan = UInt8(ascii: ">")
    static let slash = UInt8(ascii: "/")
    static let exclamation = UInt8(ascii: "!")
    static let question = UInt8(ascii: "?")
    static let dash = UInt8(ascii: "-")
    static let equals = UInt8(ascii: "=")
    static let doubleQuote = UInt8(ascii: "\"")
    static let singleQuote = UInt8(ascii: "'")
}
