import Testing
import WebArcSearch

@Suite struct SearchHitTests {
    @Test func hitsCompareByValue() {
        let hit = SearchHit(url: "http://a/", title: "A", snippet: "", score: 1)
        #expect(hit == SearchHit(url: "http://a/", title: "A", snippet: "", score: 1))
        #expect(hit != SearchHit(url: "http://b/", title: "A", snippet: "", score: 1))
    }
}
