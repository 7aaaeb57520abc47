import Testing
import WebArcHTML

@Suite struct HTMLTokenizerTests {
    static func tokens(_ text: String) -> [HTMLToken] {
        Array(HTMLTokenizer(Array(text.utf8)))
    }

    static func tags(_ text: String) -> [HTMLTag] {
        tokens(text).compactMap { if case .startTag(let tag) = $0 { tag } else { nil } }
    }

    /// A short description of each token, with the bytes it covers.
    static func outline(_ text: String) -> [String] {
        let bytes = Array(text.utf8)
        func slice(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        return tokens(text).map { token in
            switch token {
            case .text(let range): "text \(slice(range))"
            case .startTag(let tag): "start \(tag.name)" + tag.attributes.map { " \($0.name)=\($0.value)" }.joined()
            case .endTag(let name, _): "end \(name)"
            case .comment(let range): "comment \(slice(range))"
            case .rawText(let element, let range): "raw \(element) \(slice(range))"
            }
        }
    }

    @Test func aSmallDocument() {
        #expect(
            Self.outline("<!DOCTYPE html><P class=x>Hi <b>there</b></p>") == [
                "comment <!DOCTYPE html>", "start p class=x", "text Hi ", "start b", "text there", "end b", "end p",
            ])
    }

    @Test func attributeValuesAsWritten() {
        let tag = Self.tags(#"<IMG SRC="a b.png" alt='it"s' width=10 hidden data-x = "y" title=a&amp;b>"#)[0]
        #expect(tag.name == "img")
        #expect(tag.attributes.map(\.name) == ["src", "alt", "width", "hidden", "data-x", "title"])
        #expect(tag.attributes.map(\.value) == ["a b.png", #"it"s"#, "10", "", "y", "a&amp;b"])
        #expect(
            tag.attributes.map(\.quote) == [UInt8(ascii: "\""), UInt8(ascii: "'"), nil, nil, UInt8(ascii: "\""), nil])
        #expect(tag.attribute("hidden")?.valueRange == nil)
        #expect(tag.attribute("title")?.decodedValue == "a&b")
        #expect(tag.value("missing") == nil)
    }

    @Test func rangesSpliceBackIntoTheSource() throws {
        let text = #"<a  HREF = 'x.html' class=c id="i">"#
        let bytes = Array(text.utf8)
        let tag = try #require(Self.tags(text).first)
        #expect(tag.range == bytes.indices)
        let href = try #require(tag.attribute("href"))
        #expect(String(decoding: bytes[href.nameRange], as: UTF8.self) == "HREF")
        #expect(String(decoding: bytes[try #require(href.valueRange)], as: UTF8.self) == "x.html")
        #expect(String(decoding: bytes[href.range], as: UTF8.self) == "HREF = 'x.html'")
        #expect(String(decoding: bytes[try #require(tag.attribute("class")?.range)], as: UTF8.self) == "class=c")
        #expect(String(decoding: bytes[try #require(tag.attribute("id")?.range)], as: UTF8.self) == #"id="i""#)
    }

    @Test func duplicateAttributesAreKeptAndTheFirstWins() {
        let tag = Self.tags("<a href=1 HREF=2>")[0]
        #expect(tag.attributes.count == 2)
        #expect(tag.value("href") == "1")
    }

    @Test func slashesAndOddNames() {
        #expect(Self.outline("<img/src=a.png/>") == ["start img src=a.png/"])
        #expect(Self.tags("<br/>")[0].isSelfClosing)
        #expect(Self.tags("<img src=a />")[0].isSelfClosing)
        #expect(Self.outline("<a =x b\"c=d>") == ["start a =x= b\"c=d"])
        #expect(Self.outline("<svg:image xlink:href=i.svg>") == ["start svg:image xlink:href=i.svg"])
        #expect(Self.outline("<a href=>x") == ["start a href=", "text x"])
    }

    @Test func lessThanThatIsText() {
        #expect(Self.outline("a < b <3 <") == ["text a < b <3 <"])
        #expect(Self.outline("x</") == ["text x</"])
        #expect(Self.outline("1<2<a>") == ["text 1<2", "start a"])
    }

    @Test func commentsAndBogusComments() {
        #expect(Self.outline("<!-- <a href=x> -->y") == ["comment <!-- <a href=x> -->", "text y"])
        #expect(Self.outline("<!-->a<!--->b") == ["comment <!-->", "text a", "comment <!--->", "text b"])
        #expect(Self.outline("<!-- a --!>b") == ["comment <!-- a --!>", "text b"])
        #expect(Self.outline("<?xml version='1.0'?><a>") == ["comment <?xml version='1.0'?>", "start a"])
        #expect(Self.outline("</ a>x</>") == ["comment </ a>", "text x", "comment </>"])
        #expect(Self.outline("<![CDATA[x]]>") == ["comment <![CDATA[x]]>"])
    }

    @Test func rawTextElementsAreToldWithoutTheSet() {
        #expect(HTMLTokenizer.rawTextElements.allSatisfy(HTMLTokenizer.isRawTextElement))
        for name in ["scripts", "styl", "titles", "textare", "div", "", "xmp", "tytle", "scrypt"] {
            #expect(!HTMLTokenizer.isRawTextElement(name), "\(name)")
        }
        #expect(Self.outline("<scripts><a>") == ["start scripts", "start a"])
    }

    @Test func rawTextElementsHoldNoMarkup() {
        #expect(
            Self.outline("<script>if (a<b) document.write('<img src=x>')</script><img src=y>") == [
                "start script", "raw script if (a<b) document.write('<img src=x>')", "end script", "start img src=y",
            ])
        #expect(Self.outline("<STYLE>a{}</style >b") == ["start style", "raw style a{}", "end style", "text b"])
        #expect(Self.outline("<title>a<b>c</TITLE>") == ["start title", "raw title a<b>c", "end title"])
        #expect(Self.outline("<script></scripts></script>") == ["start script", "raw script </scripts>", "end script"])
        #expect(Self.outline("<script></script>") == ["start script", "end script"])
        #expect(Self.outline("<textarea><a href=x>") == ["start textarea", "raw textarea <a href=x>"])
        #expect(
            Self.outline("<script src=a.js />x</script>") == ["start script src=a.js", "raw script x", "end script"])
    }

    @Test func endTagsDropTheirAttributes() {
        #expect(Self.outline("</a href='>'>x") == ["end a", "text x"])
    }

    @Test func unterminatedMarkupRunsToTheEnd() {
        #expect(Self.outline("<a href='x>y") == ["start a href=x>y"])
        #expect(Self.outline("<a href=x") == ["start a href=x"])
        #expect(Self.outline("<a") == ["start a"])
        #expect(Self.outline("<!-- never closed <a>") == ["comment <!-- never closed <a>"])
        #expect(Self.outline("<!doctype") == ["comment <!doctype"])
        #expect(Self.outline("<script>var a = '</scr") == ["start script", "raw script var a = '</scr"])
        #expect(Self.outline("</a") == ["end a"])
        #expect(Self.outline("<a b='") == ["start a b="])
    }

    @Test func aPartOfADocumentIsReadAsAWholeOne() {
        let bytes = Array("<!--<a href='x'><b--><i>".utf8)
        let tokens = Array(HTMLTokenizer(bytes, in: 4..<18))
        #expect(tokens.map(\.range) == [4..<16, 16..<18])
        guard case .startTag(let tag) = tokens.first, case .startTag(let unterminated) = tokens.last else {
            Issue.record("expected two start tags, got \(tokens)")
            return
        }
        #expect(tag.value("href") == "x")
        #expect(unterminated.name == "b", "a tag unterminated inside the part ends with it")
        #expect(Array(HTMLTokenizer(bytes, in: 30..<40)).isEmpty)
    }

    @Test func realWorldLinks() {
        let page = #"""
            <base href="https://a.org/dir/"><meta http-equiv=refresh content="0; url=next.html">
            <img srcset="s1.png 1x, s2.png 2x"><div style="background: url('bg.jpg')">
            """#
        let tags = Self.tags(page)
        #expect(tags.map(\.name) == ["base", "meta", "img", "div"])
        #expect(tags[0].value("href") == "https://a.org/dir/")
        #expect(tags[1].value("content") == "0; url=next.html")
        #expect(SourceSet.urls(in: tags[2].value("srcset") ?? "") == ["s1.png", "s2.png"])
        #expect(CSSReferences.urls(in: Array((tags[3].value("style") ?? "").utf8)) == ["bg.jpg"])
    }
}
