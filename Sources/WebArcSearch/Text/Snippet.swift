/// A short passage of a page's text that shows why it matched a query.
///
/// ```swift
/// let snippet = Snippet.make(text: page.text, terms: ["json", "dump"])
/// // "…Serialize obj to a JSON formatted str using this conversion table. The arguments…"
/// ```
public enum Snippet {
    /// How much of the text is searched for matches, in UTF-8 bytes: a page whose first match
    /// comes later shows its beginning.
    public static let searchedBytes = 256 * 1024

    /// A window of whole words of `text`, at most `maxLength` scalars (plus `…` at each end that
    /// cuts the text), around the densest cluster of words whose term (``Analyzer``) is in
    /// `terms`: the window with the most distinct matched terms, then the most matches, the first
    /// of equals. With no match, the beginning of the text. Line breaks become spaces; the text is
    /// not escaped.
    public static func make(text: String, terms: Set<String>, maxLength: Int = 200) -> String {
        make(text: text, isCut: false, terms: terms, maxLength: maxLength) ?? ""
    }

    /// The prefixes of a page's text ``make(terms:maxLength:text:)`` reads, in UTF-8 bytes: each
    /// one only when the one before did not settle the snippet.
    static let readLimits = [4 * 1024, 32 * 1024, 256 * 1024, VisibleText.maxTextBytes]

    /// ``make(text:terms:maxLength:)`` of a page's text, which `text(limit)` gives cut to `limit`
    /// UTF-8 bytes (and whether it cut it): read in growing prefixes until one settles the
    /// snippet, so that a page whose matches come early is not read to its end. The snippet is
    /// the one the whole text gives: a prefix settles it only when the scan stopped inside it.
    /// Give `terms` only those the page holds, or every prefix is read to its end.
    static func make(
        terms: Set<String>, maxLength: Int = 200, text: (_ limit: Int) -> (text: String, isCut: Bool)
    ) -> String {
        for limit in readLimits {
            let page = text(limit)
            if let snippet = make(
                text: page.text, isCut: page.isCut && limit < readLimits.last!, terms: terms, maxLength: maxLength)
            {
                return snippet
            }
        }
        return ""
    }

    /// The snippet of `text`; with `isCut` (the text is the start of a longer one), nil unless the
    /// scan settled within it.
    private static func make(text whole: String, isCut: Bool, terms: Set<String>, maxLength: Int) -> String? {
        // A cut text ends inside a word, or just after one that goes on: left out up to the last space.
        let text = isCut ? wholeWords(whole) : whole
        guard maxLength > 0, !text.isEmpty else { return isCut ? nil : "" }
        let scanned = TextBuffer.prefix(text, bytes: searchedBytes)
        var words: [WordSpan] = []
        var window = Window(maxLength: maxLength)
        var stoppedEarly = false
        var firstBytes = [Bool](repeating: false, count: 256)
        for term in terms { if let first = term.utf8.first { firstBytes[Int(first)] = true } }
        Analyzer.analyzeWhile(scanned, firstBytes: firstBytes) { term in
            if words.last?.index != term.word {
                words.append(WordSpan(index: term.word, bytes: term.source, scalars: term.scalars))
            }
            if terms.contains(term.term) { window.add(word: words.count - 1, term: term.term, words: words) }
            // No window can hold more distinct terms than one that holds them all: read on only
            // far enough to widen it.
            if window.best.distinct == terms.count,
                term.scalars.lowerBound > words[window.best.last].scalars.upperBound + maxLength
            {
                stoppedEarly = true
                return false
            }
            return true
        }
        let settled = stoppedEarly || scanned.utf8.count < text.utf8.count
        guard !isCut || settled else { return nil }
        guard !words.isEmpty else {
            return excerpt(text, bytes: 0..<text.utf8.count, isStart: true, isEnd: true, maxLength: maxLength)
        }
        var lower = window.best.first
        var upper = window.best.last
        // Widen the window by whole words, alternately after and before, while it fits.
        var grew = true
        while grew {
            grew = false
            if upper + 1 < words.count,
                words[upper + 1].scalars.upperBound - words[lower].scalars.lowerBound <= maxLength
            {
                upper += 1
                grew = true
            }
            if lower > 0, words[upper].scalars.upperBound - words[lower - 1].scalars.lowerBound <= maxLength {
                lower -= 1
                grew = true
            }
        }
        let isStart = lower == 0 && !hasTextBefore(text, words[0])
        // After the last word only punctuation is left: show it rather than an ellipsis.
        let isEnd = upper == words.count - 1 && scanned.utf8.count == text.utf8.count && !stoppedEarly
        let end = isEnd ? text.utf8.count : words[upper].bytes.upperBound
        return excerpt(
            text, bytes: words[lower].bytes.lowerBound..<end, isStart: isStart, isEnd: isEnd, maxLength: maxLength)
    }

    /// The best window of matches seen so far, found as the text is read: a sliding window over
    /// the matches no wider than `maxLength` scalars.
    private struct Window {
        let maxLength: Int
        var matches: [(word: Int, term: String, start: Int)] = []
        var start = 0
        var counts: [String: Int] = [:]
        var best = (distinct: 0, count: 0, first: 0, last: 0)

        init(maxLength: Int) { self.maxLength = maxLength }

        mutating func add(word: Int, term: String, words: [WordSpan]) {
            let scalarStart = words[word].scalars.lowerBound
            matches.append((word, term, scalarStart))
            counts[term, default: 0] += 1
            let end = words[word].scalars.upperBound
            while end - matches[start].start > maxLength, start < matches.count - 1 {
                let term = matches[start].term
                counts[term]! -= 1
                if counts[term] == 0 { counts[term] = nil }
                start += 1
            }
            let count = matches.count - start
            if counts.count > best.distinct || (counts.count == best.distinct && count > best.count) {
                best = (counts.count, count, matches[start].word, word)
            }
        }
    }

    /// One word of the text: its bytes and scalars.
    private struct WordSpan {
        var index: Int
        var bytes: Range<Int>
        var scalars: Range<Int>
    }

    /// `text` up to its last space or line break.
    private static func wholeWords(_ text: String) -> String {
        let utf8 = text.utf8
        guard let last = utf8.lastIndex(where: { $0 == 0x20 || $0 == 0x0A }) else { return "" }
        return String(text[..<last])
    }

    /// Whether text other than spaces comes before the first word.
    private static func hasTextBefore(_ text: String, _ word: WordSpan) -> Bool {
        text.utf8.prefix(word.bytes.lowerBound).contains { !ASCIIByte.isSpace($0) }
    }

    /// `text[bytes]` with line breaks as spaces, cut to `maxLength` scalars, `…` where text is left out.
    private static func excerpt(_ text: String, bytes: Range<Int>, isStart: Bool, isEnd: Bool, maxLength: Int) -> String
    {
        let utf8 = text.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: bytes.lowerBound)
        let upper = utf8.index(lower, offsetBy: bytes.count)
        var body = TextBuffer.trimmed(String(text[lower..<upper]))
        var cut = false
        if body.unicodeScalars.count > maxLength {
            body = String(String.UnicodeScalarView(body.unicodeScalars.prefix(maxLength)))
            cut = true
        }
        body = String(body.map { $0 == "\n" || $0 == "\r\n" ? " " : $0 })
        return (isStart ? "" : "…") + body + (isEnd && !cut ? "" : "…")
    }
}
