import Testing

@testable import WebArcSearch

@Suite struct TextSnippetTests {
    let text = """
        Intro words that say nothing much about anything in particular here.
        The json module can serialize objects. Later, much later, the text goes on about other things \
        entirely, and then json dumps turns objects into strings with sort keys and indent options.
        The end.
        """

    @Test func windowAroundTheDensestCluster() {
        let snippet = Snippet.make(text: text, terms: ["json", "dump", "sort"], maxLength: 60)
        #expect(snippet.hasPrefix("…"))
        #expect(snippet.hasSuffix("…"))
        #expect(snippet.contains("json dumps turns objects into strings with sort"))
        #expect(snippet.unicodeScalars.count <= 62)
        #expect(!snippet.contains("\n"))
    }

    @Test func wholeWordsOnly() {
        let snippet = Snippet.make(text: text, terms: ["serial"], maxLength: 40)
        let body = String(snippet.filter { $0 != "…" })
        let words = Set(text.split(whereSeparator: { !$0.isLetter }).map(String.init))
        for word in body.split(whereSeparator: { !$0.isLetter }) { #expect(words.contains(String(word)), "\(word)") }
        #expect(body.first?.isLetter == true && body.last?.isLetter == true)
        #expect(body.contains("serialize"))
    }

    @Test func noMatchShowsTheBeginning() {
        let snippet = Snippet.make(text: text, terms: ["absent"], maxLength: 30)
        #expect(snippet.hasPrefix("Intro words"))
        #expect(snippet.hasSuffix("…"))
    }

    @Test func shortTextIsWholeWithoutEllipses() {
        #expect(Snippet.make(text: "Just json here.", terms: ["json"]) == "Just json here.")
        #expect(Snippet.make(text: "", terms: ["json"]) == "")
        #expect(Snippet.make(text: "?!", terms: ["json"]) == "?!")
    }

    /// An HTML page of `paragraphs` filler paragraphs (about 100 bytes of text each) with `inserted`
    /// after paragraph `at`.
    static func page(paragraphs: Int, inserted: String, at: Int) -> [UInt8] {
        var html = "<html><head><title>Filler</title><script>var json = 1;</script></head><body>"
        for number in 0..<paragraphs {
            if number == at { html += "<p>\(inserted)</p>" }
            html += "<p>Paragraph \(number) tells of rivers, hills and the weather in a town nobody visits.</p>"
        }
        return Array((html + "</body></html>").utf8)
    }

    /// The snippet read in prefixes, and the limits it asked the page's text for.
    static func snippetByPrefixes(_ html: [UInt8], terms: Set<String>) -> (snippet: String, limits: [Int]) {
        var limits: [Int] = []
        let snippet = Snippet.make(terms: terms) { limit in
            limits.append(limit)
            return VisibleText.of(html: html, charset: "utf-8", limit: limit)
        }
        return (snippet, limits)
    }

    @Test func anEarlyMatchReadsOnlyTheStartOfAPage() {
        let html = Self.page(paragraphs: 5000, inserted: "The json module dumps objects.", at: 3)
        let (snippet, limits) = Self.snippetByPrefixes(html, terms: ["json", "dump"])
        #expect(limits == [Snippet.readLimits[0]])
        #expect(snippet.contains("The json module dumps objects."))
        let whole = VisibleText.of(html: html, charset: "utf-8").text
        #expect(snippet == Snippet.make(text: whole, terms: ["json", "dump"]))
    }

    @Test func aLateMatchReadsFurtherAndGivesTheWholeTextsSnippet() {
        // About 16 KB, 80 KB and 320 KB of text before the match (the last past the snippet's scan).
        for (at, reads) in [(200, 2), (1000, 3), (4000, 4)] {
            let html = Self.page(paragraphs: 5000, inserted: "Then json dumps turns objects into strings.", at: at)
            let (snippet, limits) = Self.snippetByPrefixes(html, terms: ["json", "dump"])
            let whole = VisibleText.of(html: html, charset: "utf-8").text
            #expect(snippet == Snippet.make(text: whole, terms: ["json", "dump"]), "at \(at)")
            #expect(limits == Array(Snippet.readLimits.prefix(reads)), "at \(at)")
            if at < 4000 { #expect(snippet.contains("json dumps turns objects")) }
        }
    }

    @Test func aTermTheTextLacksReadsEveryPrefix() {
        // A term held by the title only: nothing settles the snippet early; it is the whole text's,
        // which (about 160 KB) the third read gives uncut.
        let html = Self.page(paragraphs: 2000, inserted: "A json word.", at: 10)
        let (snippet, limits) = Self.snippetByPrefixes(html, terms: ["json", "filler"])
        #expect(limits == Array(Snippet.readLimits.prefix(3)))
        #expect(
            snippet == Snippet.make(text: VisibleText.of(html: html, charset: "utf-8").text, terms: ["json", "filler"]))
        #expect(snippet.contains("A json word."))
    }

    @Test func aWordCutByAReadLimitIsLeftOut() {
        // The first read limit cuts the last "json" to "js". Read whole, that "json" makes the best
        // window (with the one before it); cut, "js" would end the scan with the first "json" as
        // the best: the cut word must be left out, and the next prefix read.
        let start = Snippet.readLimits[0] - 29
        let filler = String(repeating: "a", count: start % 5) + String(repeating: "word ", count: start / 5)
        let text = filler + "json abcdefghijklmnop json json tail words"
        let plain = Array(text.utf8)
        var limits: [Int] = []
        let snippet = Snippet.make(terms: ["json"], maxLength: 20) { limit in
            limits.append(limit)
            return VisibleText.of(plain: plain, charset: nil, limit: limit)
        }
        #expect(snippet == Snippet.make(text: text, terms: ["json"], maxLength: 20))
        #expect(limits.count == 2)
        let cut = String(text.utf8.prefix(Snippet.readLimits[0]))!
        #expect(cut.hasSuffix(" js"))
        #expect(Snippet.make(text: cut, terms: ["json"], maxLength: 20) != snippet)
    }

    @Test func plainTextIsReadInPrefixesToo() {
        let text = String(repeating: "Nothing of note in this line of plain text.\n", count: 4000) + "The json end."
        let plain = Array(text.utf8)
        var limits: [Int] = []
        let snippet = Snippet.make(terms: ["json"]) { limit in
            limits.append(limit)
            return VisibleText.of(plain: plain, charset: nil, limit: limit)
        }
        #expect(snippet.contains("The json end"))
        #expect(snippet == Snippet.make(text: VisibleText.of(plain: plain, charset: nil).text, terms: ["json"]))
        #expect(limits.count == 3)
    }

    /// Pages for the one-walk snippet: matches early, late, past what is searched, absent, and
    /// pages with no words or little text.
    static let walkedPages: [(html: [UInt8], terms: Set<String>)] = [
        (page(paragraphs: 5000, inserted: "The json module dumps objects.", at: 3), ["json", "dump"]),
        (page(paragraphs: 5000, inserted: "Then json dumps turns objects into strings.", at: 1500), ["json", "dump"]),
        (page(paragraphs: 5000, inserted: "Far json dumps.", at: 4000), ["json", "dump"]),
        (page(paragraphs: 2000, inserted: "A json word.", at: 10), ["json", "filler"]),
        (page(paragraphs: 30, inserted: "json at the end", at: 29), ["json", "end"]),
        (page(paragraphs: 3, inserted: "os.path.join joins; sort_keys", at: 1), ["os.path.join", "join", "key"]),
        (page(paragraphs: 50, inserted: "nothing", at: 0), []),
        (Array("<p>?! ... ;;</p>".utf8), ["json"]),
        (Array("<p></p>".utf8), ["json"]),
        (Array(("<pre>" + String(repeating: "-- ", count: 200_000) + "</pre><p>late json</p>").utf8), ["json"]),
    ]

    @Test(arguments: 0..<walkedPages.count) func oneWalkGivesTheWholeTextsSnippet(page: Int) {
        let (html, terms) = Self.walkedPages[page]
        let whole = VisibleText.of(html: html, charset: "utf-8").text
        for maxLength in [20, 200] {
            #expect(
                Snippet.make(html: html, charset: "utf-8", terms: terms, maxLength: maxLength)
                    == Snippet.make(text: whole, terms: terms, maxLength: maxLength), "max \(maxLength)")
        }
    }

    /// `bytes` cut into parts of `size` bytes, as a `next` function gives them.
    static func parts(_ bytes: [UInt8], size: Int) -> () -> [UInt8]? {
        var offset = 0
        return {
            guard offset < bytes.count else { return nil }
            defer { offset += size }
            return Array(bytes[offset..<min(bytes.count, offset + size)])
        }
    }

    @Test(arguments: 0..<walkedPages.count) func pagesInPartsGiveTheWholeTextsSnippet(page: Int) {
        let (html, terms) = Self.walkedPages[page]
        let expected = Snippet.make(text: VisibleText.of(html: html, charset: "utf-8").text, terms: terms)
        for size in [1, 97, 4096, 262_144] where html.count / size < 50_000 {
            #expect(
                Snippet.make(htmlParts: Self.parts(html, size: size), charset: "utf-8", terms: terms) == expected,
                "parts of \(size)")
        }
    }

    @Test func aPageWhoseSnippetSettlesEarlyIsNotReadToItsEnd() {
        let html = Self.page(paragraphs: 20_000, inserted: "The json module dumps objects.", at: 3)
        let next = Self.parts(html, size: 65_536)
        var parts = 0
        let snippet = Snippet.make(
            htmlParts: {
                parts += 1
                return next()
            }, charset: "utf-8", terms: ["json", "dump"])
        #expect(snippet.contains("The json module dumps objects."))
        #expect(parts == 1)
        #expect(html.count > 20 * 65_536)
    }

    @Test func aWordAtTheEndOfWhatIsSearchedIsCutAsInTheWholeText() {
        // The searched prefix ends inside "jsonx": scanned whole, it is the word "js"; the walk
        // must scan that prefix as the whole text's scan does, not stop at the last space.
        let start = Snippet.searchedBytes - 2
        let filler = String(repeating: "a", count: start % 5) + String(repeating: "word ", count: start / 5)
        let html = Array(("<p>" + filler + "jsonx js json</p>").utf8)
        let whole = VisibleText.of(html: html, charset: "utf-8").text
        #expect(whole.utf8.count > Snippet.searchedBytes)
        for terms: Set<String> in [["js"], ["json"], ["word", "js"]] {
            #expect(
                Snippet.make(html: html, charset: "utf-8", terms: terms, maxLength: 30)
                    == Snippet.make(text: whole, terms: terms, maxLength: 30))
        }
    }

    @Test func longWordIsCut() {
        let long = String(repeating: "x", count: 500)
        let snippet = Snippet.make(text: long, terms: [], maxLength: 50)
        #expect(snippet == String(repeating: "x", count: 50) + "…")
    }
}
