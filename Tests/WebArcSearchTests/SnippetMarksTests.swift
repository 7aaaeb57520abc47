import Testing

@testable import WebArcSearch

@Suite struct SnippetMarksTests {
    @Test func marksStemmedWordsPhrasesAndPrefixesAndEscapesTheRest() throws {
        let query = try SearchQuery.parse(#"running "json dumps" pyth*"#)
        let html = SnippetMarks.html("<Runs> json.dumps & Python, not pythonic-less py", query: query)
        #expect(html.contains("&lt;<mark>Runs</mark>&gt;"))
        #expect(html.contains("<mark>json</mark>") || html.contains("<mark>json.dumps</mark>"))
        #expect(html.contains("&amp; <mark>Python</mark>, not <mark>pythonic</mark>-less py"))
        #expect(SnippetMarks.html("a <b>", query: nil) == "a &lt;b&gt;")
    }
}
