import WebArc

/// One page of text analysed for the index: its title, length and each term's positions (spec
/// §17.3: title tokens first, the body's after a gap of one position).
struct DocumentAnalysis: Sendable {
    var url: String
    var title: String
    /// Tokens in the title and the body: BM25's document length.
    var length: Int
    /// The folded title the suggestions sort by, cut to ``IndexFormat/maxTitleKeyBytes``; empty: none.
    var titleKey: [UInt8]
    /// Each term (UTF-8), its positions ascending, and whether the title holds it; sorted by term bytes.
    var terms: [(term: [UInt8], positions: [Int], inTitle: Bool)]

    /// Analyses `text`: the title's tokens at positions 0…, the body's from one past the title's last.
    init(url: String, text: PageText) {
        self.url = url
        title = Self.cut(text.title, to: IndexFormat.maxDocumentStringBytes)
        var table: [String: (positions: [Int], inTitle: Bool)] = [:]
        var length = 0
        var titleEnd = 0
        Analyzer.forEachToken(in: text.title) { term, position, _ in
            table[term, default: ([], true)].positions.append(position)
            titleEnd = max(titleEnd, position + 1)
            length += 1
        }
        let bodyStart = titleEnd == 0 ? 0 : titleEnd + 1
        Analyzer.forEachToken(in: text.text) { term, position, _ in
            table[term, default: ([], false)].positions.append(bodyStart + position)
            length += 1
        }
        self.length = length
        terms = table.map { (Array($0.key.utf8), $0.value.positions, $0.value.inTitle) }
            .sorted { $0.term.lexicographicallyPrecedes($1.term) }
        titleKey = Self.titleKey(text.title)
    }

    /// A title as suggestions compare it: folded, runs of white space as one space, trimmed, cut
    /// to ``IndexFormat/maxTitleKeyBytes`` at a scalar boundary.
    static func titleKey(_ title: String) -> [UInt8] {
        let folded = Analyzer.fold(title)
        let words = folded.split(whereSeparator: { $0.isWhitespace })
        return Array(cut(words.joined(separator: " "), to: IndexFormat.maxTitleKeyBytes).utf8)
    }

    /// `text` cut to at most `limit` UTF-8 bytes at a scalar boundary.
    static func cut(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var bytes = Array(text.utf8.prefix(limit))
        while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
        if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
