// Visible text and terms (WebArcSearch) of any bytes as an HTML page and as plain text, in the
// encoding the first byte chooses: the text, title and headings stay within their limits; every
// token's term is non-empty, folded and at most Analyzer.maxTermBytes; positions start at 0 and
// never skip; ranges lie in the text on scalar boundaries; a snippet for the first terms stays
// within its length. The walk over tags read in place gives what the walk over HTMLTokenizer's
// tokens gives (differential, while both exist).
@_spi(Differential) import WebArcSearchText

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVisibleText(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let charsets: [String?] = [nil, "utf-8", "windows-1252", "shift_jis"]
    let charset = charsets[Int(bytes.first ?? 0) % charsets.count]
    let html = VisibleText.of(html: bytes, charset: charset)
    precondition(html == VisibleText.ofByTokens(html: bytes, charset: charset), "the two walks differ")
    for page in [html, VisibleText.of(plain: bytes, charset: charset)] {
        precondition(page.text.utf8.count <= VisibleText.maxTextBytes)
        precondition(page.title.utf8.count <= VisibleText.maxTitleBytes)
        precondition(page.headings.count <= VisibleText.maxHeadings)
        precondition(page.headings.allSatisfy { !$0.isEmpty && $0.utf8.count <= VisibleText.maxHeadingBytes })
        check(page.title)
        check(page.text)
    }
    return 0
}

private func check(_ text: String) {
    let utf8 = Array(text.utf8)
    var terms: [String] = []
    var highest = -1
    Analyzer.forEachToken(in: text) { term, position, range in
        precondition(!term.isEmpty && term.utf8.count <= Analyzer.maxTermBytes, "term \(term.debugDescription)")
        precondition(Analyzer.fold(term) == term, "term \(term.debugDescription) is not folded")
        precondition(position >= 0 && position <= highest + 1 && position >= highest - 64, "position \(position)")
        highest = max(highest, position)
        precondition(range.lowerBound >= 0 && range.upperBound <= utf8.count && !range.isEmpty, "range \(range)")
        precondition(utf8[range.lowerBound] & 0xC0 != 0x80, "range \(range) starts inside a scalar")
        precondition(range.upperBound == utf8.count || utf8[range.upperBound] & 0xC0 != 0x80)
        if terms.count < 3 { terms.append(term) }
    }
    precondition(Analyzer.tokens(text).count == countTokens(text))
    let snippet = Snippet.make(text: text, terms: Set(terms), maxLength: 80)
    precondition(snippet.unicodeScalars.count <= 82, "snippet of \(snippet.unicodeScalars.count) scalars")
}

private func countTokens(_ text: String) -> Int {
    var count = 0
    Analyzer.forEachToken(in: text) { _, _, _ in count += 1 }
    return count
}
