/// One term of a text: its folded and stemmed form, its position, and the text it came from.
public struct Token: Sendable, Equatable {
    /// The term as the index stores it (``Analyzer``).
    public var term: String
    /// The word's position in the text, from 0: consecutive words have consecutive positions; a
    /// compound word (`os.path`, `sort_keys`) shares the position of its first part.
    public var position: Int
    /// The characters of the text the term comes from.
    public var range: Range<String.Index>

    /// Makes a token.
    public init(term: String, position: Int, range: Range<String.Index>) {
        self.term = term
        self.position = position
        self.range = range
    }
}

/// Turns text into search terms: word segmentation, case and diacritic folding, stemming.
///
/// ```swift
/// Analyzer.tokens("Don't use os.path; it's Über-slow").map(\.term)
/// // ["don't", "use", "os.path", "os", "path", "it", "uber", "slow"]
/// ```
///
/// **Words** follow the word boundaries of Unicode's UAX #29, simplified: a word is a run of
/// letters, digits, combining marks and `_`; an apostrophe (`'`, `’`), a full stop or `·` joins
/// two letters (`don't`, `e.g`, `os.path`), a full stop, comma or apostrophe joins two digits
/// (`3.11`, `1,000`). Han ideographs, Hiragana and Katakana are a word each (no dictionary).
/// Simplifications: `:` does not join letters, `;` does not join digits, marks and format
/// characters are not skipped when looking past a joiner, scripts written without spaces other
/// than Chinese and Japanese (Thai, Khmer…) give one word per run of letters, and emoji are not words.
///
/// **Compounds**: a word whose parts are joined by `_`, or by a full stop between letters, is a
/// term as written (`os.path.join`, `__init__`) and each of its parts is a term too (`os`, `path`,
/// `join`; `init`), at consecutive positions starting at the compound's, so that both `os.path`
/// and `path` find it and a phrase "json dumps" matches `json.dumps`.
///
/// **Folding**: every scalar through one table (Tools/make-search-tables.py): compatibility
/// decomposition, combining diacritics removed, full case folding (`É` → `e`, `ß` → `ss`, `ﬁ` → `fi`,
/// `Ａ` → `a`, `ø` → `o`), and a space a decomposition holds dropped (U+037A, Arabic's isolated
/// marks); format characters (soft hyphen, joiners) dropped; `’` becomes `'`.
///
/// **Stemming**: a word or part of three or more letters, all `a`–`z` or `'` once folded, is
/// reduced by ``Porter2`` (`running` → `run`); numbers, words with digits, compounds and other
/// scripts are left as they are. A term longer than ``maxTermBytes`` is cut at a scalar boundary.
public enum Analyzer {
    /// The longest term in UTF-8 bytes; longer words are cut to it (whole scalars).
    public static let maxTermBytes = 64

    /// The tokens of `text`, in order.
    public static func tokens(_ text: String) -> [Token] {
        var tokens: [Token] = []
        let utf8 = text.utf8
        forEachToken(in: text) { term, position, range in
            let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
            let upper = utf8.index(lower, offsetBy: range.count)
            tokens.append(Token(term: term, position: position, range: lower..<upper))
        }
        return tokens
    }

    /// Calls `body` with each term of `text`, its position and the offsets of its UTF-8 bytes in
    /// `text`, in order: what ``tokens(_:)`` returns, without building an array or string indices.
    public static func forEachToken(
        in text: String, _ body: (_ term: String, _ position: Int, _ utf8Range: Range<Int>) -> Void
    ) {
        analyze(text) { body($0.term, $0.position, $0.source) }
    }

    /// The term of `word` taken as one word: folded, then stemmed when it is a word of letters
    /// `a`–`z` (no segmentation: `os.path` stays one term).
    public static func normalize(_ word: String) -> String {
        var folded = Array(CaseFolding.fold(word).utf8)
        stemIfEnglish(&folded)
        return term(folded)
    }

    /// `text` case- and diacritic-folded, scalar by scalar, without segmentation or stemming (what
    /// a prefix query compares with).
    public static func fold(_ text: String) -> String {
        CaseFolding.fold(text)
    }

    /// What a term is in its word.
    enum Kind {
        /// A word that is not split: its only term.
        case word
        /// A word of several parts, as written (not stemmed).
        case compound
        /// One part of a compound.
        case part
        /// One ideograph or kana.
        case ideograph
    }

    /// One term with everything the query parser and snippets want to know about it.
    struct Term {
        var term: String
        var position: Int
        var kind: Kind
        /// The UTF-8 bytes of the text it came from.
        var source: Range<Int>
        /// The scalars of the text it came from (offsets from the text's first scalar).
        var scalars: Range<Int>
        /// Counts the words of the text: the same for a compound and its parts.
        var word: Int
    }

    /// Calls `body` with every term of `text`; `body` returns false to stop.
    static func analyze(_ text: String, _ body: (Term) -> Void) {
        analyzeWhile(text) {
            body($0)
            return true
        }
    }

    /// Calls `body` with every term of `text` until it returns false. With `firstBytes`, a term
    /// (a word, a compound or one of its parts) whose first byte is not in it comes as an empty
    /// string, not stemmed (snippets look for a few terms and skip the cost of the others).
    static func analyzeWhile(_ text: String, firstBytes: [Bool]? = nil, _ body: (Term) -> Bool) {
        var text = text
        text.withUTF8 { analyzeWhile(bytes: $0, firstBytes: firstBytes, body) }
    }

    /// ``analyzeWhile(_:firstBytes:_:)`` of the UTF-8 text `bytes`.
    static func analyzeWhile(bytes: UnsafeBufferPointer<UInt8>, firstBytes: [Bool]? = nil, _ body: (Term) -> Bool) {
        var scanner = WordScanner(bytes)
        var scratch: [UInt8] = []
        scratch.reserveCapacity(maxTermBytes)
        var position = 0
        var wordNumber = 0
        while scanner.next() {
            defer { wordNumber += 1 }
            if let firstBytes, scanner.splits.isEmpty, !firstBytes[Int(scanner.folded[0])] {
                // Not wanted: counted, not built.
                guard
                    body(
                        Term(
                            term: "", position: position, kind: scanner.isIdeograph ? .ideograph : .word,
                            source: scanner.source, scalars: scanner.scalars, word: wordNumber))
                else { return }
                position += 1
                continue
            }
            if scanner.isIdeograph {
                guard
                    body(
                        Term(
                            term: term(scanner.folded[...]), position: position, kind: .ideograph,
                            source: scanner.source, scalars: scanner.scalars, word: wordNumber))
                else { return }
                position += 1
                continue
            }
            if scanner.splits.isEmpty {
                scratch.removeAll(keepingCapacity: true)
                scratch.append(contentsOf: scanner.folded)
                stemIfEnglish(&scratch)
                guard
                    body(
                        Term(
                            term: term(scratch[...]), position: position, kind: .word, source: scanner.source,
                            scalars: scanner.scalars, word: wordNumber))
                else { return }
                position += 1
                continue
            }
            let isWanted = firstBytes?[Int(scanner.folded[0])] ?? true
            guard
                body(
                    Term(
                        term: isWanted ? term(scanner.folded[...]) : "", position: position, kind: .compound,
                        source: scanner.source, scalars: scanner.scalars, word: wordNumber))
            else { return }
            guard
                emitParts(
                    of: scanner, position: &position, word: wordNumber, scratch: &scratch, firstBytes: firstBytes,
                    body)
            else { return }
        }
    }

    /// Calls `body` with each term of the UTF-8 text `bytes` as a folded form, before stemming and
    /// cutting, with its position: the term is ``termBytes(ofForm:stems:into:)`` of it. What
    /// ``forEachToken(in:_:)`` gives, with no string made per word, so that an indexer can look
    /// up a form it has seen before without stemming it again.
    static func forEachForm(
        in bytes: UnsafeBufferPointer<UInt8>,
        _ body: (_ form: UnsafeBufferPointer<UInt8>, _ stems: Bool, _ position: Int) -> Void
    ) {
        var scanner = WordScanner(bytes)
        var position = 0
        while scanner.next() {
            let folded = scanner.folded
            if scanner.isIdeograph || scanner.splits.isEmpty {
                body(folded, !scanner.isIdeograph, position)
                position += 1
                continue
            }
            // A compound as written, then its parts from the compound's position on.
            body(folded, false, position)
            var start = 0
            for index in 0...scanner.splits.count {
                let end = index < scanner.splits.count ? scanner.splits[index].folded.lowerBound : folded.count
                if end > start {
                    body(UnsafeBufferPointer(rebasing: folded[start..<end]), true, position)
                    position += 1
                }
                if index < scanner.splits.count { start = scanner.splits[index].folded.upperBound }
            }
        }
    }

    /// The term of a form that ``forEachForm(in:_:)`` gives, written to `term`: stemmed when
    /// `stems` and it is a word of letters `a`–`z`, then cut to ``maxTermBytes``.
    static func termBytes(ofForm form: UnsafeBufferPointer<UInt8>, stems: Bool, into term: inout [UInt8]) {
        term.removeAll(keepingCapacity: true)
        term.append(contentsOf: form)
        if stems { stemIfEnglish(&term) }
        guard term.count > maxTermBytes else { return }
        var end = maxTermBytes
        while end > 0, term[end] & 0xC0 == 0x80 { end -= 1 }
        term.removeSubrange(end...)
    }

    /// Calls `body` with each part of the compound word `scanner` holds; false when `body` asked to stop.
    private static func emitParts(
        of scanner: borrowing WordScanner, position: inout Int, word: Int, scratch: inout [UInt8], firstBytes: [Bool]?,
        _ body: (Term) -> Bool
    ) -> Bool {
        var foldedStart = 0
        var sourceStart = scanner.source.lowerBound
        let splits = scanner.splits
        for index in 0...splits.count {
            let foldedEnd = index < splits.count ? splits[index].folded.lowerBound : scanner.folded.count
            let sourceEnd = index < splits.count ? splits[index].source.lowerBound : scanner.source.upperBound
            defer {
                if index < splits.count {
                    foldedStart = splits[index].folded.upperBound
                    sourceStart = splits[index].source.upperBound
                }
            }
            guard foldedEnd > foldedStart else { continue }
            var text = ""
            if firstBytes?[Int(scanner.folded[foldedStart])] ?? true {
                scratch.removeAll(keepingCapacity: true)
                scratch.append(contentsOf: scanner.folded[foldedStart..<foldedEnd])
                stemIfEnglish(&scratch)
                text = term(scratch[...])
            }
            // A part's scalars are not tracked; snippets only need the compound's.
            let part = Term(
                term: text, position: position, kind: .part, source: sourceStart..<sourceEnd,
                scalars: scanner.scalars, word: word)
            guard body(part) else { return false }
            position += 1
        }
        return true
    }

    /// Stems `word` with Porter2 when it has three or more bytes, all `a`–`z` or `'`.
    @inline(__always)
    static func stemIfEnglish(_ word: inout [UInt8]) {
        guard word.count >= 3, word.count <= maxTermBytes,
            word.allSatisfy({ $0 &- UInt8(ascii: "a") < 26 || $0 == UInt8(ascii: "'") })
        else { return }
        Porter2.stem(&word)
    }

    /// `bytes` (valid UTF-8) as a term: cut to ``maxTermBytes`` at a scalar boundary.
    @inline(__always)
    static func term<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String where Bytes.Index == Int {
        guard bytes.count > maxTermBytes else { return String(decoding: bytes, as: UTF8.self) }
        var end = bytes.startIndex + maxTermBytes
        while end > bytes.startIndex, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self)
    }
}
