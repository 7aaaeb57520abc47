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
        guard maxLength > 0, !text.isEmpty else { return "" }
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
