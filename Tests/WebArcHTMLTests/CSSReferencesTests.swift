import Testing
import WebArcHTML

@Suite struct CSSReferencesTests {
    static func urls(_ css: String) -> [String] { CSSReferences.urls(in: Array(css.utf8)) }

    @Test func urlAndImportInEveryQuoting() {
        #expect(
            Self.urls(#"@import 'a.css'; @IMPORT "b.css"; x { src: url("f.woff") url( 'g.woff' ) URL(h.png) }"#)
                == ["a.css", "b.css", "f.woff", "g.woff", "h.png"])
    }

    @Test func commentsStringsAndDataAreSkipped() {
        #expect(
            Self.urls("/* url(c.png) */ a { content: \"url(s.png)\" } b { c: url(data:x) url(DATA:y) url() }") == [])
    }

    @Test func unterminatedInputEnds() {
        #expect(Self.urls("a { b: url('x.png") == ["x.png"])
        #expect(Self.urls("/* never closed url(x)") == [])
        #expect(Self.urls("url(") == [])
        #expect(Self.urls("@import") == [])
    }
}
