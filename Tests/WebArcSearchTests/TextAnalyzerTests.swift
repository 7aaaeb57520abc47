import Testing

@testable import WebArcSearch

@Suite struct TextAnalyzerTests {
    func terms(_ text: String) -> [String] { Analyzer.tokens(text).map(\.term) }

    @Test func wordsAreFoldedAndStemmed() {
        #expect(terms("The Running DOGS ran") == ["the", "run", "dog", "ran"])
        #expect(terms("Café Über Straße ﬁle Ｐython") == ["cafe", "uber", "strass", "file", "python"])
        #expect(terms("Ørsted Łódź Æsir") == ["orst", "lodz", "aesir"])
    }

    @Test func apostrophesAndFullStopsInsideWords() {
        #expect(terms("don't, it’s e.g. end.") == ["don't", "it", "e.g", "e", "g", "end"])
        #expect(terms("'quoted' word") == ["quot", "word"])
    }

    @Test func numbersKeepTheirSeparators() {
        #expect(terms("Python 3.11 costs 1,000.50 in v2.0") == ["python", "3.11", "cost", "1,000.50", "in", "v2.0"])
        #expect(terms("3. items, 4,") == ["3", "item", "4"])
    }

    @Test func compoundsAndTheirPartsShareAFirstPosition() {
        let tokens = Analyzer.tokens("use os.path.join now")
        #expect(tokens.map(\.term) == ["use", "os.path.join", "os", "path", "join", "now"])
        #expect(tokens.map(\.position) == [0, 1, 1, 2, 3, 4])
        #expect(terms("sort_keys __init__") == ["sort_keys", "sort", "key", "__init__", "init"])
        #expect(terms("json.dumps(obj)") == ["json.dumps", "json", "dump", "obj"])
    }

    @Test func rangesPointAtTheWordsInTheText() {
        let text = "Ünïcode café os.path"
        let tokens = Analyzer.tokens(text)
        #expect(tokens.map { String(text[$0.range]) } == ["Ünïcode", "café", "os.path", "os", "path"])
        #expect(tokens.map(\.term) == ["unicod", "cafe", "os.path", "os", "path"])
    }

    @Test func ideographsAndKanaAreOneTermEach() {
        let tokens = Analyzer.tokens("東京タワーへ行く Tokyo")
        #expect(tokens.map(\.term) == ["東", "京", "タ", "ワ", "ー", "へ", "行", "く", "tokyo"])
        #expect(tokens.map(\.position) == Array(0..<9))
        #expect(terms("서울 특별시") == ["서울", "특별시"])
    }

    @Test func combiningMarksAndFormatCharactersStayInTheWord() {
        // e + combining acute; a soft hyphen inside a word.
        #expect(terms("cafe\u{301} hyphen\u{AD}ation") == ["cafe", "hyphen"])
        #expect(terms("naïve\u{200B}word") == ["naiv", "word"])
    }

    @Test func punctuationAndSymbolsSeparateWords() {
        #expect(terms("a-b c/d e:f (g) «h» i&j") == ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"])
        #expect(terms("  \n\t ") == [])
        #expect(terms("_ __ ...") == [])
    }

    @Test func longWordsAreCutAtAScalarBoundary() {
        let long = String(repeating: "é", count: 100)
        let term = terms(long)
        #expect(term.count == 1)
        #expect(term[0] == String(repeating: "e", count: Analyzer.maxTermBytes))
        let greek = String(repeating: "λ", count: 100)
        #expect(terms(greek)[0].utf8.count == Analyzer.maxTermBytes)
        let mixed = "a" + String(repeating: "λ", count: 100)
        #expect(terms(mixed)[0].utf8.count == Analyzer.maxTermBytes - 1)
    }

    @Test func asciiRunsEndAtTheirWordsEdgeOrJoinWhatFollows() {
        // A run of ASCII letters ends its word at a space, at punctuation and at the text's end,
        // and goes on through a joiner, a mark or a letter above ASCII.
        #expect(terms("end") == ["end"])
        #expect(
            terms("abc\u{301}d naïve Ünï x_y 3,5 a.b. it’s") == [
                "abcd", "naiv", "uni", "x_y", "x", "y", "3,5", "a.b", "a", "b", "it",
            ])
        // A word far longer than the scanner's first buffer: it grows, and the term is cut.
        let long = String(repeating: "Ab", count: 5000)
        #expect(terms(long) == [String(repeating: "ab", count: Analyzer.maxTermBytes / 2)])
        // A compound of it and `x`: cut as a whole, then its parts.
        let cut = String(repeating: "ab", count: Analyzer.maxTermBytes / 2)
        #expect(terms(long + ".x") == [cut, cut, "x"])
    }

    @Test func normalizeAndFold() {
        #expect(Analyzer.normalize("Connections") == "connect")
        #expect(Analyzer.normalize("os.path") == "os.path")
        #expect(Analyzer.fold("PYTHÖN") == "python")
        #expect(Analyzer.fold("Straße") == "strasse")
        // As words fold: curly apostrophes become `'`, format characters go.
        #expect(Analyzer.normalize("Don’t") == "don't")
        #expect(Analyzer.fold("it’s hy\u{AD}phen") == "it's hyphen")
    }

    /// U+037A and Arabic's isolated marks decompose to a space and a mark: the space must not
    /// end up inside a term, which no query word could match (found by FuzzSearchQuery).
    @Test func lettersWhoseDecompositionHoldsASpaceFoldWithoutIt() throws {
        for text in ["a\u{37A}oJ", "\u{FE76}\u{FE7C}x", "\u{FDFA}", "ab\u{FC5E}cd"] {
            let found = terms(text)
            #expect(!found.isEmpty, "\(text.debugDescription)")
            for term in found {
                #expect(!term.unicodeScalars.contains { $0.properties.isWhitespace }, "\(term.debugDescription)")
            }
            for clause in try SearchQuery.parse(text).clauses {
                guard case .word(let term) = clause else { continue }
                #expect(!term.contains(" "), "\(term.debugDescription)")
            }
        }
        #expect(terms("a\u{37A}oJ") == ["aoj"])
    }

    /// U+037A folds to nothing: alone (or after punctuation) it is no word, so neither the index
    /// nor a query gets an empty term (found by FuzzSearchQuery after the fix above).
    @Test func aLetterThatFoldsToNothingMakesNoWord() throws {
        #expect(terms("\u{37A}").isEmpty)
        #expect(terms("ab\u{0}\u{37A} cd") == ["ab", "cd"])
        #expect(terms("x\u{37A}") == ["x"])
        #expect(throws: SearchQueryError.empty) { try SearchQuery.parse("\u{37A}") }
        #expect(try SearchQuery.parse("\u{37A} python").clauses == [.word("python")])
        #expect(try SearchQuery.parse("o\u{4}\u{37A}").clauses == [.word("o")])
    }

    @Test func foldingIsIdempotent() {
        for text in ["ǅemal Ⅻ ﬃ ㎏ ﬀ ǈ ẞ İstanbul ΣΑΣ ς", "①②③ Ａｂｃ ｶﾀｶﾅ"] {
            let once = Analyzer.fold(text)
            #expect(Analyzer.fold(once) == once)
        }
    }
}
