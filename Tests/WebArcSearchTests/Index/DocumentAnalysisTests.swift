import Testing

@testable import WebArcSearch

@Suite struct DocumentAnalysisTests {
    /// The analysis as the index rules state it, through the string tokens: each term's positions
    /// (title first, the body after a gap of one), whether the title holds it, sorted by bytes.
    static func reference(_ text: PageText) -> (length: Int, terms: [([UInt8], [Int], Bool)]) {
        var table: [String: (positions: [Int], inTitle: Bool)] = [:]
        var length = 0
        var titleEnd = 0
        for token in Analyzer.tokens(text.title) {
            table[token.term, default: ([], true)].positions.append(token.position)
            titleEnd = max(titleEnd, token.position + 1)
            length += 1
        }
        let bodyStart = titleEnd == 0 ? 0 : titleEnd + 1
        for token in Analyzer.tokens(text.text) {
            table[token.term, default: ([], false)].positions.append(bodyStart + token.position)
            length += 1
        }
        let terms = table.map { (Array($0.key.utf8), $0.value.positions, $0.value.inTitle) }
            .sorted { $0.0.lexicographicallyPrecedes($1.0) }
        return (length, terms)
    }

    static let pages: [PageText] = [
        PageText(title: "json — JSON encoder and decoder", text: "Use json.dumps(obj, sort_keys=True) to encode."),
        PageText(title: "", text: "Running runners ran; the runner runs. Don't run! It’s running."),
        PageText(title: "Über Straße", text: "Café cafe CAFÉ Ｐython ﬁle os.path.join __init__ 3.11 1,000.50"),
        PageText(title: "東京タワー", text: "東京タワーへ行く Tokyo 東京"),
        PageText(
            title: "Long", text: String(repeating: "abcdefghij", count: 9) + " " + String(repeating: "é", count: 40)),
        // Canonically equivalent spellings (precomposed and decomposed Hangul and Devanagari).
        PageText(
            title: "한국어", text: "한국어 \u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}\u{11A8}\u{110B}\u{1165} क़ क\u{093C}"),
        PageText(title: "Title only words", text: ""),
        PageText(title: "a b", text: "a a b b c"),
    ]

    @Test(arguments: pages) func termsMatchTheTokensOfTheText(page: PageText) {
        let analysis = DocumentAnalysis(url: "https://example.com/", text: page)
        let expected = Self.reference(page)
        #expect(analysis.length == expected.length)
        #expect(analysis.terms.map(\.term) == expected.terms.map(\.0))
        #expect(analysis.terms.map(\.positions) == expected.terms.map(\.1))
        #expect(analysis.terms.map(\.inTitle) == expected.terms.map(\.2))
    }

    @Test func aGeneratedTextOfManyWordsMatchesToo() {
        var generator = SplitMix(seed: 38)
        let words = [
            "connection", "connected", "os.path", "Ünïcode", "don't", "3.11", "running", "json.dumps", "東",
            "skies", "generously", "a", "of", "sort_keys", "E.g.", "café",
        ]
        var text = ""
        for _ in 0..<5000 { text += words[Int(generator.next() % UInt64(words.count))] + " " }
        let page = PageText(title: "connection running", text: text)
        let analysis = DocumentAnalysis(url: "https://example.com/", text: page)
        let expected = Self.reference(page)
        #expect(analysis.length == expected.length)
        #expect(analysis.terms.map(\.term) == expected.terms.map(\.0))
        #expect(analysis.terms.map(\.positions) == expected.terms.map(\.1))
    }

    @Test func byteSliceSetNumbersDistinctStrings() {
        var set = ByteSliceSet()
        var numbers: [Int] = []
        for number in 0..<2000 {
            let bytes = Array("term\(number % 700)".utf8)
            let (found, isNew) = bytes.withUnsafeBufferPointer { set.insert($0) }
            #expect(isNew == (number < 700))
            numbers.append(found)
        }
        #expect(set.count == 700)
        #expect(numbers[1400] == numbers[0])
        #expect(set.bytes(of: numbers[699]) == Array("term699".utf8))
    }

    /// A large page's table made small again for the next pages, and warmed before inserts, still
    /// numbers and finds every string (the builder warms its run's table for each document).
    @Test func byteSliceSetClearedAfterALargePageAndWarmedStillFindsEveryString() {
        var set = ByteSliceSet()
        for size in [20_000, 12, 300, 20_000, 5] {
            set.removeAll()
            let strings = (0..<size).map { Array("w\($0 &* 7919)".utf8) }
            let hashes = strings.map { $0.withUnsafeBufferPointer(ByteSliceSet.hash) }
            hashes.withUnsafeBufferPointer { set.warm($0) }
            for (number, bytes) in strings.enumerated() {
                let (found, isNew) = bytes.withUnsafeBufferPointer { set.insert($0, hash: hashes[number]) }
                #expect(isNew && found == number)
            }
            hashes.withUnsafeBufferPointer { set.warm($0) }
            for (number, bytes) in strings.enumerated() where number % 97 == 0 {
                #expect(bytes.withUnsafeBufferPointer { set.number(of: $0, hash: hashes[number]) } == number)
            }
            #expect(set.count == size)
        }
    }

    @Test func aStemCacheGivesTheStemmersTerms() {
        var cache = StemCache()
        var term: [UInt8] = []
        var expected: [UInt8] = []
        // More forms than the cache has records: forms take one another's, and every term stays
        // right; every fifth form is longer than a record holds.
        var mismatches = 0
        for round in 0..<2 {
            for number in 0..<(4 * StemCache.recordCount) where round == 0 || number % 7 == 0 {
                let letters = String(number).utf8.map { $0 - UInt8(ascii: "0") + UInt8(ascii: "a") }
                let stem = number % 5 == 0 ? "internationaliz" : "connect"
                let form = Array(stem.utf8) + letters + Array((number % 3 == 0 ? "ing" : "ed").utf8)
                form.withUnsafeBufferPointer { bytes in
                    cache.termBytes(ofForm: bytes, hash: ByteSliceSet.hash(bytes), into: &term)
                    Analyzer.termBytes(ofForm: bytes, stems: true, into: &expected)
                }
                if term != expected { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    /// Pages analysed one after another share a thread's workspace (its stem cache, its tables):
    /// each page's terms are still its own, whatever came before it (a form met earlier, a term
    /// met on a page before but not on this one, a spelling above ASCII).
    @Test func pagesInTurnEachMatchTheirTokens() {
        var generator = SplitMix(seed: 37)
        let words = [
            "connection", "connected", "connects", "running", "runner", "skies", "sky", "généreux", "café",
            "CAFÉ", "os.path", "don't", "a", "the", "internationalization", "3.11",
        ]
        for pageNumber in 0..<40 {
            var text = ""
            for _ in 0..<(50 + pageNumber * 7) { text += words[Int(generator.next() % UInt64(words.count))] + " " }
            let page = PageText(title: words[pageNumber % words.count], text: text)
            let analysis = DocumentAnalysis(url: "https://example.com/\(pageNumber)", text: page)
            let expected = Self.reference(page)
            #expect(analysis.length == expected.length)
            #expect(analysis.terms.map(\.term) == expected.terms.map(\.0), "page \(pageNumber)")
            #expect(analysis.terms.map(\.positions) == expected.terms.map(\.1), "page \(pageNumber)")
            #expect(analysis.terms.map(\.inTitle) == expected.terms.map(\.2), "page \(pageNumber)")
        }
    }

    /// A seeded generator, so a failure replays.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ value >> 30) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ value >> 27) &* 0x94D0_49BB_1331_11EB
            return value ^ value >> 31
        }
    }
    /// Two terms that collide under FNV-1a from its fixed offset basis (found by a birthday search)
    /// do not collide in the term tables: their hash starts from a per-process seed, so that pages
    /// written to collide cannot make every probe walk them.
    @Test func termsMadeToCollideUnderAFixedHashDoNotCollideInTheTables() {
        func fixedFNV(_ bytes: [UInt8]) -> UInt32 {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            return UInt32(truncatingIfNeeded: hash ^ hash >> 32)
        }
        var seen: [UInt32: [UInt8]] = [:]
        var pair: ([UInt8], [UInt8])?
        for number in 0..<2_000_000 where pair == nil {
            let term = Array("t\(number)".utf8)
            let hash = fixedFNV(term)
            if let other = seen[hash] { pair = (other, term) } else { seen[hash] = term }
        }
        guard let (first, second) = pair else {
            Issue.record("no collision in 2 000 000 terms")
            return
        }
        #expect(fixedFNV(first) == fixedFNV(second))
        let hashes = [first, second].map { term in term.withUnsafeBufferPointer { ByteSliceSet.hash($0) } }
        #expect(hashes[0] != hashes[1], "\(first) and \(second) collide in the term tables too")
    }
}
