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

    @Test func longWordIsCut() {
        let long = String(repeating: "x", count: 500)
        let snippet = Snippet.make(text: long, terms: [], maxLength: 50)
        #expect(snippet == String(repeating: "x", count: 50) + "…")
    }
}
