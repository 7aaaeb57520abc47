import Foundation
import Testing
import WebArcHTML

@testable import WebArcCaptureCLI

/// What `webarc capture` follows in a page, read with the shared HTML tokenizer.
@Suite struct PageLinksTests {
    static let base = URL(string: "https://a.test/dir/page.html")!

    @Test func pagesAndRequisites() {
        let html = #"""
            <base href="/b/"><base href="/ignored/"><a href="next.html#top">n</a><area href=map.html>
            <img src=i.png srcset="s1.png 1x, s2.png 2x"><link rel="Stylesheet icon" href='s.css?a=1&amp;b=2'>
            <style>@import "more.css"; p { background: url(bg.png) }</style><div style="background: url('d.png')"></div>
            <!-- <img src="commented.png"> --><script>document.write('<img src="scripted.png">')</script>
            <a href="mailto:x@a.test">m</a><img src="data:image/png,x"><object data=o.svg></object>
            """#
        let links = PageLinks.html(Array(html.utf8), baseURL: Self.base)
        #expect(links.pages.map(\.absoluteString) == ["https://a.test/b/next.html", "https://a.test/b/map.html"])
        #expect(
            links.requisites.map(\.absoluteString) == [
                "https://a.test/b/i.png", "https://a.test/b/s1.png", "https://a.test/b/s2.png",
                "https://a.test/b/s.css?a=1&b=2",
                "https://a.test/b/more.css", "https://a.test/b/bg.png", "https://a.test/b/d.png",
                "https://a.test/b/o.svg",
            ])
    }

    @Test func hostilePagesEnd() {
        for html in [
            "<a href='never closed", "<!-- <img src=x", "<script><img src=x>", "<style>url(", "<\0\u{FF}<a href=\0>",
        ] {
            _ = PageLinks.html(Array(html.utf8), baseURL: Self.base)
        }
        let unterminated = PageLinks.html(Array("<img src='x.png".utf8), baseURL: Self.base)
        #expect(unterminated.requisites.map(\.absoluteString) == ["https://a.test/dir/x.png"])
    }
}
