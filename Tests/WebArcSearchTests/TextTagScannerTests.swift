import Foundation
import Testing
import WebArcTestSupport

@_spi(Differential) @testable import WebArcSearch

/// The visible-text walk over ``TagScanner`` gives what the walk over HTMLTokenizer's tokens gave:
/// on the Python docs, on hostile pieces of markup, and on pages made of them at random.
@Suite struct TextTagScannerTests {
    static let pythonDocs = URL(fileURLWithPath: "/usr/share/doc/python3.11/html")

    /// Pieces pages are made of: the edge cases the visible-text rules and the tokenizer name.
    static let pieces: [String] = [
        "<p>", "</p>", "<P CLASS=x>", "<li>", "<LI>", "</li>", "<dt>", "<dd>", "<tr>", "<td>", "<th>", "</tr>",
        "<table>", "</table>", "<option>", "<div>", "</div>", "<DIV>", "</DiV >", "<span>", "</span>", "<b>",
        "<h1>", "</h1>", "<h2 id=a>", "</H2>", "<h3>", "</h3>", "<br>", "<br/>", "<div/>", "<img src=x alt=y>",
        "<wbr>", "<head>", "</head>", "<body>", "<html>", "<title>", "</title>", "<TITLE>T&amp;t</title >",
        "<svg><title>no</title></svg>", "<script>if (a<b) x='</p>'</script>", "<script>", "</SCRIPT>",
        "</scriptx>", "<style>p{}</style", "<textarea><b>x</b></textarea>", "<template>t</template>",
        "<nav>", "</nav>", "<aside>", "<header>", "</header>", "<footer>", "</footer>", "<article>",
        "</article>", "<main>", "<section>", "</section>", "<dialog>", "<dialog open>", "</dialog>",
        "<div hidden>", "<div hidden=until-found>", "<div HIDDEN=UNTIL-FOUND>", "<p hidden=''>",
        "<div aria-hidden=true>", "<div aria-hidden=' TRUE '>", "<div aria-hidden=false>", "<div aria-hiddex=true>",
        "<div role=navigation>", "<div role='main search'>", "<div ROLE=Banner>", "<div role=contentinfox>",
        "<div style='display: none'>", "<div style=\"DISPLAY:\tNONE\">", "<div style='visibility:\nhidden'>",
        "<div style='display:\r\nnone'>", "<div style='display:none\u{301}'>", "<div style='diſplay:none'>",
        "<div style='display:ｎone'>", "<div hidden=until-found\u{301}>", "<div aria-hidden='true\u{200B}'>",
        "<div hidden=\"\u{212A}\">", "<div class=sphinxsidebar>", "<div class='x related'>", "<div class=FOOTER>",
        "<a class=headerlink href=#x>¶</a>", "<a class=\"headerlinkx\">¶</a>", "<span class=related>",
        "<meta charset=windows-1252>", "<meta charset='utf-8'>",
        "<META HTTP-EQUIV=content-type CONTENT='text/html; CHARSET=ISO-8859-1'>",
        "<meta content=\"text/html;charset=latin1\">", "<meta charset>", "<meta>", "caf\u{E9} ", "caf\\xE9",
        "&amp;", "&eacute;", "&#233;", "&#x20AC;", "&notin;", "&nbsp;", "&", "&#", "&#xZZ;", " ", "\n", "\n\n",
        "\t", "text", "word ", "Two words", "<!-- c -->", "<!-->", "<!--->", "<!-- a --!>", "<!--", "<!doctype html>",
        "<?xml ?>", "</>", "</ x>", "<", "<<", "< p>", "<3", "a<b", "<a href='x>y'>", "<a title=\"a>b\">",
        "<a b=c/>", "<p/ class=x>", "<x =y>", "<x ==y>", "<x a = 'b' c = d>", "<x\u{0}y>", "</x\u{0}y>",
        "<a\u{37E}>", "</a;>", "<caf\u{E9}>", "</cafe\u{301}>", "<\u{212A}>", "</k>", "<ab\u{FFFD}>",
        "<figcaption>", "</FIGCAPTION>", "<blockquote>", "<figcaptionx>", "<noscript>", "</noscript>",
        "<select><option>o</select>", "<iframe>i</iframe>", "<xyzlongname>", "</xyzlongname>",
        "<xyzlongnamf>", "</xyzlongnamF>", "<p", "<div class='unterminated", "<a href=\"", "<!-- open", "</p",
    ]

    /// Invalid UTF-8 and other raw bytes, spliced between pieces.
    static let rawBytes: [[UInt8]] = [
        [0x80], [0xC3], [0xFF, 0xFE], [0xE9], [0x3C, 0x80, 0x3E], [0x3C, 0x2F, 0xC3, 0x3E],
    ]

    func expectSame(_ html: [UInt8], charset: String?, sourceLocation: SourceLocation = #_sourceLocation) {
        let new = VisibleText.of(html: html, charset: charset)
        let old = VisibleText.ofByTokens(html: html, charset: charset)
        #expect(
            new == old, "\(String(decoding: html.prefix(300), as: UTF8.self).debugDescription)",
            sourceLocation: sourceLocation)
    }

    @Test func eachPieceAlone() {
        for piece in Self.pieces {
            for charset in [nil, "utf-8", "windows-1252"] {
                expectSame(Array(piece.utf8), charset: charset)
                expectSame(Array("<p>a\(piece)b</p> c".utf8), charset: charset)
            }
        }
    }

    @Test func pagesOfRandomPieces() {
        var random = SeededGenerator(seed: 0x5eed_7a65)
        for _ in 0..<4000 {
            var html: [UInt8] = []
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                if Int.random(in: 0..<12, using: &random) == 0 {
                    html += Self.rawBytes.randomElement(using: &random)!
                } else {
                    html += Array(Self.pieces.randomElement(using: &random)!.utf8)
                }
            }
            let charset = [nil, "utf-8", "windows-1252"].randomElement(using: &random)!
            expectSame(html, charset: charset)
            // Read in parts (as snippets read bodies), the walk gives the same text as read whole.
            let parts = Int.random(in: 1...5, using: &random)
            #expect(readInParts(html, charset: charset, parts: parts) == VisibleText.of(html: html, charset: charset))
        }
    }

    /// The page read by ``VisibleTextReader`` in `parts` parts of about equal size.
    func readInParts(_ html: [UInt8], charset: String?, parts: Int) -> PageText {
        let size = Swift.max(1, html.count / parts)
        var chunks = stride(from: 0, to: html.count, by: size).map {
            Array(html[$0..<Swift.min($0 + size, html.count)])
        }
        guard !chunks.isEmpty, VisibleText.transcodedUTF16(html) == nil else {
            return VisibleText.of(html: html, charset: charset)
        }
        var reader = VisibleTextReader(
            chunks.removeFirst(), encoding: TextBuffer.Encoding(label: charset), charsetKnown: charset != nil)
        return reader.read(every: 64, more: { chunks.isEmpty ? nil : chunks.removeFirst() }, progress: { _ in true })
    }

    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: pythonDocs.path),
            "the Python docs are not installed (Debian python3.11-doc)"))
    func pythonDocsPages() async throws {
        let mismatches = try await onOwnThread { () -> [String] in
            var mismatches: [String] = []
            let files = FileManager.default.enumerator(at: Self.pythonDocs, includingPropertiesForKeys: nil)!
            var pages = 0
            for case let file as URL in files where file.pathExtension == "html" {
                let html = try [UInt8](Data(contentsOf: file))
                pages += 1
                // No charset: the page's `<meta charset>` decides, as for a body served without one.
                if VisibleText.of(html: html, charset: nil) != VisibleText.ofByTokens(html: html, charset: nil) {
                    mismatches.append(file.path)
                }
            }
            return pages > 400 ? mismatches : ["only \(pages) pages found"]
        }
        #expect(mismatches == [])
    }
}
