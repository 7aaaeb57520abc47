/// The value of an attribute the visible-text walk looks at, read in place: the tests
/// ``VisibleTextReader`` makes of `role`, `class`, `style`, `hidden` and `aria-hidden`.
///
/// Each answers as the same test on the value as a `String` would (what ``TokenVisibleTextReader``
/// does): on the bytes when they are all ASCII, through a `String` otherwise, where Unicode
/// folding and grapheme clusters can tell a different story than the bytes.
struct AttributeValue {
    private let bytes: UnsafeBufferPointer<UInt8>
    /// Where the value is in `bytes`; empty for an attribute without one.
    private let range: Range<Int>

    init(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>?) {
        self.bytes = bytes
        self.range = range ?? 0..<0
    }

    /// The value as a string (UTF-8, invalid sequences replaced).
    var string: String { String(decoding: bytes[range], as: UTF8.self) }

    private var isASCII: Bool { !bytes[range].contains { $0 >= 0x80 } }

    /// Whether the value holds one of `words` between ASCII whitespace, ASCII case ignored.
    func holdsOneOf(_ words: [StaticString]) -> Bool {
        // Invalid UTF-8 decodes to U+FFFD, never whitespace nor part of an ASCII word: the bytes
        // give the string's answer.
        ElementTraits.value(bytes[range], holdsOneOf: words)
    }

    /// Whether the value, folded and without spaces, tabs and line feeds, holds `display:none` or
    /// `visibility:hidden`.
    func hidesByStyle() -> Bool {
        guard isASCII else {
            let style = CaseFolding.fold(string).filter { $0 != " " && $0 != "\t" && $0 != "\n" }
            return style.contains("display:none") || style.contains("visibility:hidden")
        }
        var style: [UInt8] = []
        style.reserveCapacity(range.count)
        for byte in bytes[range] where byte != 0x20 && byte != 0x09 && byte != 0x0A {
            style.append(ASCIIByte.lowercased(byte))
        }
        return Self.contains(style, "display:none") || Self.contains(style, "visibility:hidden")
    }

    /// Whether the folded value is `word` (ASCII, lower case).
    func equalsFolded(_ word: StaticString) -> Bool {
        guard isASCII else { return CaseFolding.fold(string) == String(describing: word) }
        return Self.equal(bytes[range], word)
    }

    /// Whether the folded value, ASCII whitespace trimmed, is `true`.
    func isTrueWhenTrimmed() -> Bool {
        guard isASCII else { return TextBuffer.trimmed(CaseFolding.fold(string)) == "true" }
        var value = bytes[range]
        while let first = value.first, ASCIIByte.isSpace(first) { value = value.dropFirst() }
        while let last = value.last, ASCIIByte.isSpace(last) { value = value.dropLast() }
        return Self.equal(value, "true")
    }

    /// Whether `value`, ASCII letters lower-cased, is `word`.
    private static func equal(_ value: Slice<UnsafeBufferPointer<UInt8>>, _ word: StaticString) -> Bool {
        guard value.count == word.utf8CodeUnitCount else { return false }
        return zip(value, UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)).allSatisfy {
            ASCIIByte.lowercased($0) == $1
        }
    }

    private static func contains(_ haystack: [UInt8], _ needle: StaticString) -> Bool {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard haystack.count >= pattern.count else { return false }
        for start in 0...(haystack.count - pattern.count)
        where haystack[start] == pattern[0] && haystack[start..<start + pattern.count].elementsEqual(pattern) {
            return true
        }
        return false
    }
}
