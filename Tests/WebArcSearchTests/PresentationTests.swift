import Testing

@testable import WebArcSearch

@Suite struct QueryStringTests {
    @Test func decodesFormEncoding() {
        #expect(QueryString.value(of: "q", in: "/_webarc/search?q=json+dumps") == "json dumps")
        #expect(QueryString.value(of: "q", in: "/s?x=1&q=%C3%A9t%C3%A9&q=second") == "été")
        #expect(QueryString.value(of: "q", in: "/s?q") == "")
        #expect(QueryString.value(of: "q", in: "/s?qq=1#q=2") == nil)
        #expect(QueryString.value(of: "q", in: "/s") == nil)
    }

    @Test func keepsBrokenEscapesAndReplacesInvalidUTF8() {
        #expect(QueryString.value(of: "q", in: "/s?q=100%25+%zz%4") == "100% %zz%4")
        #expect(QueryString.value(of: "q", in: "/s?q=a%FF%C3b") == "a\u{FFFD}\u{FFFD}b")
        #expect(QueryString.value(of: "q", in: "/s?q=%ED%A0%80") == "\u{FFFD}\u{FFFD}\u{FFFD}")
    }

    @Test func encodesWhatItDecodes() {
        let text = "a b&c=d/é\"<*"
        #expect(QueryString.encode(text) == "a+b%26c%3Dd%2F%C3%A9%22%3C%2A")
        #expect(QueryString.value(of: "q", in: "/?q=" + QueryString.encode(text)) == text)
    }
}

@Suite struct SearchLabelsTests {
    @Test func picksTheHighestWeightedLanguageWithLabels() {
        #expect(SearchLabels.forAcceptLanguage("fr-CH, fr;q=0.9, en;q=0.8").language == "fr")
        #expect(SearchLabels.forAcceptLanguage("ja, de;q=0.5, en;q=0.3").language == "de")
        #expect(SearchLabels.forAcceptLanguage("en;q=0.2, es;q=0.7").language == "es")
        #expect(SearchLabels.forAcceptLanguage("ja, zh").language == "en")
        #expect(SearchLabels.forAcceptLanguage("de;q=0, *").language == "en")
        #expect(SearchLabels.forAcceptLanguage(nil) == .english)
        #expect(SearchLabels.forLanguage("PT_br").search == "Pesquisar")
    }
}

@Suite struct SearchJSONTests {
    @Test func escapesStringsAndKeepsKeyOrder() {
        let hit = SearchHit(url: "http://x/a\"b", title: "T\\\n", snippet: "a\u{1}b", score: 1.23456)
        #expect(
            SearchJSON.hits([hit])
                == #"[{"url":"http://x/a\"b","title":"T\\\n","snippet":"a\u0001b","score":1.2346}]"#)
        #expect(SearchJSON.suggestions([Suggestion(title: "é", url: "u")]) == #"[{"title":"é","url":"u"}]"#)
        #expect(SearchJSON.hits([]) == "[]")
        #expect(SearchJSON.number(.nan) == "0")
        #expect(SearchJSON.number(3) == "3")
    }
}

@Suite struct SearchBoxTests {
    @Test func injectsRightAfterTheBodyTagInThePageLanguage() throws {
        let page = Array(
            #"<!DOCTYPE html><html lang="de"><head><!-- <body> --><script>"<body>"</script></head><BODY class=x><p>Hi</p></body></html>"#
                .utf8)
        let injected = try #require(SearchBox.inject(into: page))
        let text = String(decoding: injected, as: UTF8.self)
        let form = SearchBox.form(labels: .forLanguage("de"))
        #expect(text.contains("<BODY class=x>" + form + "<p>Hi</p>"))
        #expect(form.contains(#"action="/_webarc/search""#) && form.contains(">Suchen</button>"))
        #expect(injected.count == page.count + form.utf8.count)
    }

    @Test func leavesPagesWithoutABodyTagAlone() {
        #expect(SearchBox.inject(into: Array("<p>no body tag</p>".utf8)) == nil)
        #expect(SearchBox.inject(into: Array("<html><frameset><body>".utf8)) == nil)
        #expect(SearchBox.inject(into: []) == nil)
    }
}

@Suite struct SearchResultsPageTests {
    @Test func escapesEverythingFromTheQueryAndTheArchive() {
        let item = SearchResultsPage.Item(
            title: "<script>alert(1)</script>", href: "/a?x=\"1\"&y", shownURL: "http://h/<a>",
            snippetHTML: "ok <mark>word</mark>")
        let page = SearchResultsPage.html(
            query: "\"><img src=x>", content: .results([item]), labels: .forLanguage("fr"))
        #expect(!page.contains("<script>alert") && page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(page.contains(#"value="&quot;&gt;&lt;img src=x&gt;""#))
        #expect(page.contains(#"<a href="/a?x=&quot;1&quot;&amp;y">"#))
        #expect(page.contains("http://h/&lt;a&gt;") && page.contains("ok <mark>word</mark>"))
        #expect(page.contains(#"<html lang="fr">"#) && page.contains("Résultats (1)"))
        #expect(!page.contains("<script") && !page.contains("<img") && !page.contains("http-equiv"))
    }

    @Test func anEmptyQueryShowsTheFormOnly() {
        let page = SearchResultsPage.html(query: "", content: .form, labels: .english)
        #expect(page.contains(#"<form action="/_webarc/search""#) && page.contains("autofocus"))
        #expect(!page.contains("<ol") && !page.contains("role=\"status\""))
        let none = SearchResultsPage.html(query: "zzz", content: .results([]), labels: .english)
        #expect(none.contains("No pages match."))
    }
}
