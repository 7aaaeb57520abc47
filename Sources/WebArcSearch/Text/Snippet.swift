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

    /// ``make(text:terms:maxLength:)`` of the visible text of the HTML page `html` (in the encoding
    /// `charset` names), with the page walked once and only as far as the snippet needs: the text
    /// is scanned for matches as it is gathered, and the walk stops once the scan is settled.
    /// Give `terms` only those the page holds, or the page is read to its end.
    static func make(html: [UInt8], charset: String?, terms: Set<String>, maxLength: Int = 200) -> String {
        var reader = VisibleText.reader(html: html, charset: charset)
        return make(terms: terms, maxLength: maxLength) { reader.read(every: 2048, progress: $0) }
    }

    /// ``make(html:charset:terms:maxLength:)`` of a page that comes in parts (its body's chunks),
    /// which `next` gives in order, nil at the end: a part is asked for only when the walk has
    /// used the ones before, so a page whose snippet settles early is not read to its end.
    ///
    /// - Throws: what `next` throws.
    static func make(
        htmlParts next: () throws -> [UInt8]?, charset: String?, terms: Set<String>, maxLength: Int = 200
    ) rethrows -> String {
        var first = try next() ?? []
        // A UTF-16 page is turned into UTF-8 whole.
        if first.count >= 2, (first[0], first[1]) == (0xFF, 0xFE) || (first[0], first[1]) == (0xFE, 0xFF) {
            while let part = try next() { first += part }
            return make(html: first, charset: charset, terms: terms, maxLength: maxLength)
        }
        var reader = VisibleTextReader(
            first, encoding: TextBuffer.Encoding(label: charset), charsetKnown: charset != nil)
        first = []
        return try make(terms: terms, maxLength: maxLength) { try reader.read(every: 2048, more: next, progress: $0) }
    }

    /// The snippet of the text `read` gathers, scanned as it grows: `read` calls its argument with
    /// the text so far, and stops when told.
    private static func make(
        terms: Set<String>, maxLength: Int, read: (_ progress: ([UInt8]) -> Bool) throws -> PageText
    ) rethrows -> String {
        guard maxLength > 0 else { return "" }
        var scan = Scan(terms: terms, maxLength: maxLength)
        var isWalkStopped = false
        var text = try read { bytes in
            bytes.withUnsafeBufferPointer { text in
                if text.count > searchedBytes {
                    scan.finish(text)
                    isWalkStopped = !scan.words.isEmpty
                    return !isWalkStopped
                }
                // Only whole words: up to the last space or line break.
                var end = text.count
                while end > scan.scannedBytes, text[end - 1] != 0x20, text[end - 1] != 0x0A { end -= 1 }
                scan.scan(text, to: end)
                isWalkStopped = scan.stoppedEarly
                return !isWalkStopped
            }
        }.text
        guard !text.isEmpty else { return "" }
        if !isWalkStopped { text.withUTF8 { scan.finish($0) } }
        return scan.snippet(of: text)
    }

    /// The state of the scan for matches over a text read in parts, each ending at a word boundary
    /// (a space or a line break) but the last: what ``make(text:isCut:terms:maxLength:)`` finds in
    /// one pass over the whole text.
    private struct Scan {
        let terms: Set<String>
        let maxLength: Int
        var firstBytes = [Bool](repeating: false, count: 256)
        var words: [WordSpan] = []
        var window: Window
        var stoppedEarly = false
        /// The text scanned so far: its bytes, scalars and words.
        private(set) var scannedBytes = 0
        private var scannedScalars = 0
        private var scannedWords = 0
        /// Whether the text's end, or the end of what is searched, was scanned.
        private(set) var isFinished = false

        init(terms: Set<String>, maxLength: Int) {
            self.terms = terms
            self.maxLength = maxLength
            window = Window(maxLength: maxLength)
            for term in terms { if let first = term.utf8.first { firstBytes[Int(first)] = true } }
        }

        /// Scans `text` from where the last scan ended to `end`, a word boundary or the end of
        /// what is searched.
        mutating func scan(_ text: UnsafeBufferPointer<UInt8>, to end: Int) {
            guard !stoppedEarly, !isFinished, end > scannedBytes else { return }
            let segment = UnsafeBufferPointer(rebasing: text[scannedBytes..<end])
            let (byteBase, scalarBase, wordBase) = (scannedBytes, scannedScalars, scannedWords)
            var wordsInSegment = 0
            Analyzer.analyzeWhile(bytes: segment, firstBytes: firstBytes) { term in
                let number = wordBase + term.word
                wordsInSegment = term.word + 1
                let scalars = scalarBase + term.scalars.lowerBound..<scalarBase + term.scalars.upperBound
                if words.last?.index != number {
                    let source = byteBase + term.source.lowerBound..<byteBase + term.source.upperBound
                    words.append(WordSpan(index: number, bytes: source, scalars: scalars))
                }
                if !term.term.isEmpty, terms.contains(term.term) {
                    window.add(word: words.count - 1, term: term.term, words: words)
                }
                // No window can hold more distinct terms than one that holds them all: read on only
                // far enough to widen it.
                if window.best.distinct == terms.count,
                    scalars.lowerBound > words[window.best.last].scalars.upperBound + maxLength
                {
                    stoppedEarly = true
                    return false
                }
                return true
            }
            scannedWords += wordsInSegment
            scannedScalars += segment.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
            scannedBytes = end
        }

        /// Scans the rest of `text`, the whole text (or more than is searched of it).
        mutating func finish(_ text: UnsafeBufferPointer<UInt8>) {
            var end = Swift.min(text.count, searchedBytes)
            if end < text.count { while end > 0, text[end] & 0xC0 == 0x80 { end -= 1 } }
            scan(text, to: end)
            isFinished = true
        }

        /// The snippet of `text`, of which this scan has read all that it needs.
        func snippet(of text: String) -> String {
            guard !words.isEmpty else {
                return excerpt(text, bytes: 0..<text.utf8.count, isStart: true, isEnd: true, maxLength: maxLength)
            }
            let isWhole = !stoppedEarly && scannedBytes == text.utf8.count
            return Snippet.snippet(
                text, words: words, best: window.best, isWhole: isWhole, maxLength: maxLength)
        }
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
        return snippet(
            text, words: words, best: window.best,
            isWhole: scanned.utf8.count == text.utf8.count && !stoppedEarly, maxLength: maxLength)
    }

    /// The window of whole words around `best` in `text`, widened while it fits; `isWhole` when
    /// the scan read the text to its end.
    private static func snippet(
        _ text: String, words: [WordSpan], best: (distinct: Int, count: Int, first: Int, last: Int), isWhole: Bool,
        maxLength: Int
    ) -> String {
        var lower = best.first
        var upper = best.last
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
        let isEnd = upper == words.count - 1 && isWhole
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
