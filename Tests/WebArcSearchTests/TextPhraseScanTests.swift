import Testing

@testable import WebArcSearch

@Suite struct TextPhraseScanTests {
    static let pages: [[UInt8]] = [
        TextSnippetTests.page(paragraphs: 3000, inserted: "Call json.dumps(obj) to encode.", at: 2000),
        TextSnippetTests.page(paragraphs: 50, inserted: "the json module dumps objects", at: 10),
        Array("<title>What's new in Python 3.11</title><p>Nothing here about it.</p>".utf8),
        Array("<p>rivers and hills</p><p>hills rivers</p>".utf8),
        Array("<p></p>".utf8),
    ]
    static let phrases: [[[String]]] = [
        [["json", "dump"]], [["json", "modul", "dump"]], [["what", "new", "in", "python", "3.11"]],
        [["river", "and", "hill"], ["hill", "river"]], [["hill", "and"]], [["json"]], [[]], [["weather", "in"]],
    ]

    @Test(arguments: 0..<pages.count) func phrasesFoundInPartsAreThoseOfTheWholePage(page: Int) {
        let html = Self.pages[page]
        let whole = VisibleText.of(html: html, charset: "utf-8")
        for phrases in Self.phrases {
            let expected = PhraseCheck.holds(phrases, in: whole)
            for size in [1, 100, 65_536] where html.count / size < 20_000 {
                let found = PhraseScan.holds(
                    phrases, htmlParts: TextSnippetTests.parts(html, size: size), charset: "utf-8")
                #expect(found == expected, "\(phrases) in parts of \(size)")
            }
        }
    }

    @Test func aPhraseInTheTextOrTheTitle() {
        #expect(PhraseScan.holds(["json", "dump"], in: "use json.dumps here"))
        #expect(PhraseScan.holds(["json", "dump"], in: "json dumps"))
        #expect(!PhraseScan.holds(["json", "dump"], in: "dumps json"))
        #expect(PhraseScan.holds(["json"], in: ""))
        #expect(!PhraseScan.holds([], in: "json"))
        let title = Array("<title>Logging HOWTO</title><p>body</p>".utf8)
        #expect(PhraseScan.holds([["log", "howto"]], htmlParts: TextSnippetTests.parts(title, size: 7), charset: nil))
    }

    @Test func aPageIsReadOnlyUntilEveryPhraseIsFound() {
        let html = TextSnippetTests.page(paragraphs: 20_000, inserted: "The json module dumps objects.", at: 3)
        let next = TextSnippetTests.parts(html, size: 65_536)
        var parts = 0
        let found = PhraseScan.holds(
            [["json", "modul"], ["dump", "object"]],
            htmlParts: {
                parts += 1
                return next()
            }, charset: "utf-8")
        #expect(found)
        #expect(parts == 1)
    }
}
