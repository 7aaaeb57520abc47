import Foundation
import Testing
import WebArcHTML

@testable import WebArcSearch

@Suite struct TextVisibleTextTests {
    func page(_ html: String, charset: String? = "utf-8") -> PageText {
        VisibleText.of(html: Array(html.utf8), charset: charset)
    }

    @Test func titleTextAndHeadings() {
        let text = page(
            """
            <!doctype html><html><head><meta charset=utf-8><title> Caf&eacute;  &amp; Bar </title>
            <style>p { color: red }</style><script>var hidden = "x";</script></head>
            <body><h1>Menu<a class="headerlink" href="#m">¶</a></h1><p>Hot <b>drinks</b>, cold<br>food.</p>
            <h2>Prices</h2><ul><li>one<li>two</ul><h4>small</h4></body></html>
            """)
        #expect(text.title == "Café & Bar")
        #expect(text.text == "Menu\nHot drinks, cold\nfood.\nPrices\none\ntwo\nsmall")
        #expect(text.headings == ["Menu", "Prices"])
    }

    @Test func inlineElementsDoNotSeparateWords() {
        #expect(page("<p>data<b>base</b> <code>os.</code><span>path</span></p>").text == "database os.path")
    }

    @Test func chromeAndHiddenElementsAreLeftOut() {
        let html = """
            <body><nav>Home | About</nav><header>Site name</header>
            <div role="navigation">breadcrumbs</div><div role="search"><input name=q></div>
            <div class="sphinxsidebar"><h3>Navigation</h3></div><div class="related">next</div>
            <main><header>Article title</header><p>Body text</p><footer>article footer</footer></main>
            <aside>ad</aside><p hidden>secret</p><p aria-hidden="true">decor</p>
            <p style="display: none">none</p><p hidden="until-found">found</p>
            <template><p>tpl</p></template><noscript>enable js</noscript>
            <svg><title>icon</title><text>svg text</text></svg><dialog>modal</dialog><dialog open>shown</dialog>
            <textarea>typed</textarea><select><option>opt</select>
            <footer>Copyright</footer><div class="footer">© Python</div></body>
            """
        let text = page(html)
        #expect(text.text == "Article title\nBody text\narticle footer\nfound\nshown")
        #expect(text.title == "")
    }

    @Test func unclosedAndMisnestedElementsEndWhereABrowserEndsThem() {
        // The end tag of an ancestor closes an unclosed skipped element.
        #expect(page("<div><nav>menu</div><p>after</p>").text == "after")
        // Implied ends: a `p` closed by the next block; `li`, `td` by their siblings.
        #expect(page("<p hidden>one<p>two").text == "two")
        #expect(page("<table><tr><td>a<td>b<tr><td>c</table>").text == "a\nb\nc")
        // A self-closing tag opens nothing.
        #expect(page("<nav/>visible<svg/>also").text == "visible\nalso")
        // `head` ends at the first body element even without `</head>`.
        #expect(page("<head><title>T</title><p>text").text == "text")
    }

    @Test func characterReferences() {
        let text = page("<p>&lt;a&gt; &amp;amp; &#169; &#xE9; &#x1F600; &#0; &#128; &nbsp;x&nbspy &bogus; &amp</p>")
        #expect(text.text == "<a> &amp; © é 😀 \u{FFFD} € x y &bogus; &")
    }

    @Test func encodings() {
        let latin1: [UInt8] =
            Array("<title>Caf".utf8) + [0xE9] + Array("</title><p>na".utf8) + [0xEF, 0x76, 0x65, 0x80]
        #expect(VisibleText.of(html: latin1, charset: "ISO-8859-1") == PageText(title: "Café", text: "naïve€"))
        let declared: [UInt8] = Array("<meta charset=windows-1252><p>".utf8) + [0xE9]
        #expect(VisibleText.of(html: declared, charset: nil).text == "é")
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("<p>x".utf8)
        #expect(VisibleText.of(html: bom, charset: nil).text == "x")
        let utf16: [UInt8] = [0xFF, 0xFE] + Array("<p>été".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(VisibleText.of(html: utf16, charset: nil).text == "été")
        let invalid: [UInt8] = Array("<p>a".utf8) + [0xFF, 0xC3] + Array("b".utf8)
        #expect(VisibleText.of(html: invalid, charset: "utf-8").text == "a\u{FFFD}\u{FFFD}b")
    }

    @Test func textIsCappedAtAScalarBoundary() {
        let word = "é" + String(repeating: "x", count: 98) + " "
        let html = "<title>Big</title><p>" + String(repeating: word, count: 20_000)
        let text = page(html)
        #expect(text.title == "Big")
        #expect(text.text.utf8.count <= VisibleText.maxTextBytes)
        #expect(text.text.utf8.count > VisibleText.maxTextBytes - 200)
        #expect(!text.text.unicodeScalars.contains("\u{FFFD}"))
    }

    /// Words and the single spaces between them are copied as runs; cut by the limit, the text is
    /// the collapsed text's prefix up to the limit, never ending in a space.
    @Test(arguments: 1..<40) func textCutByALimitEndsAsTheCollapsedTextsPrefix(limit: Int) {
        let source = Array("alpha beta  gamma\ndelta \t epsilon zeta".utf8)
        let collapsed = "alpha beta gamma delta epsilon zeta"
        var buffer = TextBuffer(limit: limit, encoding: .utf8, reserve: 64)
        source.withUnsafeBufferPointer { buffer.append($0, 0..<$0.count) }
        var expected = String(collapsed.prefix(limit))
        while expected.last == " " { expected.removeLast() }
        #expect(buffer.text == expected)
        #expect(buffer.isFull == (limit < collapsed.utf8.count))
    }

    @Test func plainText() {
        let text = VisibleText.of(
            plain: Array("\n\n  Read me first  \nline two\n\nnew  paragraph\r\n".utf8), charset: nil)
        #expect(text.title == "Read me first")
        #expect(text.text == "Read me first line two\nnew paragraph")
        #expect(text.headings == [])
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/doc/python3.11/html/library/json.html")))
    func sphinxPageOfThePythonDocs() throws {
        let bytes = try [UInt8](
            Data(contentsOf: URL(fileURLWithPath: "/usr/share/doc/python3.11/html/library/json.html")))
        let text = VisibleText.of(html: bytes, charset: nil)
        #expect(text.title == "json — JSON encoder and decoder — Python 3.11.2 documentation")
        #expect(text.headings.first == "json — JSON encoder and decoder")
        #expect(text.headings.contains("Basic Usage"))
        #expect(text.text.contains("json.dumps(obj, *, skipkeys=False"))
        // The sidebar's table of contents, the navigation bars, the footer and the pilcrows are gone.
        #expect(!text.text.contains("Table of Contents"))
        #expect(!text.text.contains("¶"))
        #expect(!text.text.contains("Previous topic"))
        #expect(!text.text.contains("Found a bug?"))
        #expect(!text.text.contains("Copyright"))
    }

    @Test func elementTraitsAreFoundByNameWithoutTheDictionary() {
        for (name, traits) in ElementTraits.byName { #expect(ElementTraits.of(name) == traits, "\(name)") }
        for name in ["", "x", "span", "code", "a", "b", "h7", "svg:image", "my-element", "blockquotes", "scripts"] {
            #expect(ElementTraits.of(name) == ElementTraits.byName[name] ?? [], "\(name)")
        }
    }

    /// Pages whose tokens a cut into parts could split: raw text, comments, references, a title,
    /// a charset that changes the encoding, an unterminated tag at the end.
    static let pagesToCut: [[UInt8]] = [
        Array(
            ("<!doctype html><html><head><meta charset=windows-1252><title>T &amp; \u{E9}</title>"
                + "<script>if (a </scr + 'ipt>') {}</script><style>p{}</style></head><body>"
                + "<h1>Head<!-- a -- comment --></h1><p>caf\u{E9} &eacute;&#233;&nbsp;x<nav>no</nav>"
                + "<div class=related>chrome</div><pre>  spaced   text </pre><textarea>not</textarea>"
                + "<p>tail <b>bold</b> <a href='x>y'>link</a> <unterminated").utf8),
        [0xEF, 0xBB, 0xBF] + Array("<p>marked</p><script>".utf8),
        Array(
            String(repeating: "<p>Paragraph of words &amp; more.</p><script>var x = '<p>';</script>", count: 400).utf8),
    ]

    @Test func rawTextElementsAreTheTokenizers() {
        /// Whether the scanner reads `name`'s start tag as a raw-text element's.
        func isRawText(_ name: String) -> Bool {
            Array("<\(name)>".utf8).withUnsafeBufferPointer { bytes in
                var scanner = TagScanner(bytes, in: 0..<bytes.count)
                return scanner.next() == .startTag && TagScanner.isRawText(scanner.name)
            }
        }
        #expect(HTMLTokenizer.rawTextElements.allSatisfy(isRawText))
        #expect(HTMLTokenizer.rawTextElements.count == 4)
        #expect(isRawText("SCRIPT") && !isRawText("p") && !isRawText("scripts") && !isRawText("titl"))
    }

    @Test(arguments: 0..<pagesToCut.count) func aPageReadInPartsReadsAsAWhole(page: Int) {
        let html = Self.pagesToCut[page]
        let whole = VisibleText.of(html: html, charset: nil)
        for size in [1, 2, 5, 64, 100, 1000] {
            var offset = 0
            var reader = VisibleTextReader(
                Array(html.prefix(size)), encoding: TextBuffer.Encoding(label: nil), charsetKnown: false)
            offset = size
            let read = reader.read(
                every: 10,
                more: {
                    guard offset < html.count else { return nil }
                    defer { offset += size }
                    return Array(html[offset..<min(html.count, offset + size)])
                }, progress: { _ in true })
            #expect(read == whole, "parts of \(size)")
        }
    }
}
