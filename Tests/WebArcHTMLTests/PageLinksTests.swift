import Testing

@testable import WebArcHTML

@Suite struct PageLinksTests {
    @Test("pages, requisites and frames come by tag and attribute, in document order, decoded and not resolved")
    func kinds() {
        let html = #"""
            <base href=" /b/ "><base href="/ignored/"><a href="next.html#top">n</a><area href=map.html>
            <img src=i.png srcset="s1.png 1x, s2.png 2x"><iframe src="f.html"></iframe><video src=v.mp4 poster=p.jpg>
            <link rel="preload" href="font.woff2" imagesrcset="w1.png 1x"><object data=o.svg></object><svg><image xlink:href="x.svg"></svg>
            <p style="background: url(&quot;d.png&quot;)" background="t.gif">
            """#
        let links = PageLinks(html: Array(html.utf8))
        #expect(links.base == "/b/")
        #expect(
            links.references == [
                .init("next.html#top", .page), .init("map.html", .page), .init("i.png", .requisite),
                .init("s1.png", .requisite),
                .init("s2.png", .requisite), .init("f.html", .frame), .init("v.mp4", .requisite),
                .init("p.jpg", .requisite),
                .init("font.woff2", .requisite), .init("w1.png", .requisite), .init("o.svg", .requisite),
                .init("x.svg", .requisite),
                .init("t.gif", .requisite), .init("d.png", .requisite),
            ])
    }

    /// The HTML standard's rules: `rel` is a set of tokens split at ASCII whitespace (tab and line
    /// feed too, not a no-break space) and compared ASCII case-insensitively.
    @Test("rel tokens split at ASCII whitespace and match in any ASCII case")
    func relTokens() {
        let html =
            "<link rel=\"ICON\tpreload\" href=a.png><link rel=\"alternate\nStyleSheet\" href=b.css>"
            + "<link rel=\"stylesheet\u{A0}x\" href=c.css><link rel=prefetch href=d.html><link rel=canonical href=e.html>"
        #expect(PageLinks(html: Array(html.utf8)).references.map(\.url) == ["a.png", "b.css"])
    }

    @Test("references that name no other resource are left out, and so are tags browsers do not load from")
    func leftOut() {
        let html = #"""
            <img src=""><img src="  "><img src="#x"><img src="DATA:image/png,x"><script src=" JavaScript:void(0)"></script>
            <input src=no.png><input type=IMAGE src=yes.png><div src=no2.png data=no3.png></div><!-- <img src=c.png> -->
            <script>document.write('<img src="s.png">')</script><style>p { background: url(st.png) }</style>
            """#
        #expect(
            PageLinks(html: Array(html.utf8)).references == [.init("yes.png", .requisite), .init("st.png", .requisite)])
    }
}
