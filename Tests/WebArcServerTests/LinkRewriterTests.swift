import Testing

@testable import WebArcServer

@Suite struct LinkRewriterTests {
    static let map = OriginMapTests.map

    func rewrite(_ text: String, kind: LinkRewriter.Kind = .html, page: Origin = OriginMapTests.primary) -> String? {
        LinkRewriter(map: Self.map, kind: kind, pageOrigin: page).rewrite(Array(text.utf8)).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    @Test func absoluteAndProtocolRelativeLinks() {
        #expect(rewrite("<a href=\"https://www.example.org/a\">") == "<a href=\"/a\">")
        #expect(rewrite("<a href=\"https://www.example.org\">") == "<a href=\"/\">")
        #expect(rewrite("<a href='https://www.example.org?q'>") == "<a href='/?q'>")
        #expect(rewrite("<a href=https://CDN.example:443/x>") == "<a href=/_/https/cdn.example/x>")
        #expect(rewrite("<script src=\"//cdn.example/a.js\">") == "<script src=\"/_/https/cdn.example/a.js\">")
        #expect(rewrite("<a href=\"http://blog.example:8080/p\">") == "<a href=\"/_/http/blog.example:8080/p\">")
        #expect(rewrite("fetch(`https://cdn.example/api`)") == "fetch(`/_/https/cdn.example/api`)")
    }

    @Test func linksLeftAlone() {
        #expect(rewrite("<a href=\"https://live.example/a\">") == nil)
        #expect(rewrite("<a href=\"http://www.example.org/a\">") == nil)
        #expect(rewrite("Visit https://www.example.org/ today") == nil)
        #expect(rewrite("<a href=\"https://www.example.org.evil/a\">") == nil)
        #expect(rewrite("<a href=\"https://user@www.example.org/a\">") == nil)
        #expect(rewrite("<a href=\"/root\">") == nil)
        #expect(rewrite("\"https:\\/\\/www.example.org\\/\"") == nil)
        #expect(rewrite("") == nil)
    }

    @Test func pagesWithNothingToChangeAreNotTokenized() {
        let primary = LinkRewriter(map: Self.map, kind: .html, pageOrigin: OriginMapTests.primary)
        #expect(!primary.mayChange(Array("<a href=\"../w/a.html\">a</a> <img src=\"/x.png\">".utf8)))
        #expect(primary.mayChange(Array("<a href=\"//cdn.example/a\">".utf8)))
        // The attribute's value may be written with character references, not its name.
        #expect(primary.mayChange(Array("<meta HTTP-EQUIV=\"&#114;efresh\" content=\"0;url=javascript:x\">".utf8)))
        #expect(rewrite("<meta HTTP-EQUIV=\"refresh\" content=\"0;url=javascript:x\">x") == "x")
        let prefixed = LinkRewriter(map: Self.map, kind: .html, pageOrigin: OriginMapTests.cdn)
        #expect(prefixed.mayChange(Array("<img src=\"/x.png\">".utf8)))
    }

    @Test func rootRelativeLinksOnAPrefixedOrigin() {
        let page = OriginMapTests.cdn
        #expect(
            rewrite("<img src=\"/a.png\" title=\"/not\">", page: page)
                == "<img src=\"/_/https/cdn.example/a.png\" title=\"/not\">")
        #expect(rewrite("<a HREF = '/x'>", page: page) == "<a HREF = '/_/https/cdn.example/x'>")
        #expect(rewrite("<form action=/post>", page: page) == "<form action=/_/https/cdn.example/post>")
        #expect(
            rewrite("<div style=\"background: url(/bg.png)\">", page: page)
                == "<div style=\"background: url(/_/https/cdn.example/bg.png)\">")
        #expect(
            rewrite("a { b: url( \"/f.woff\" ) } @import '/more.css';", kind: .css, page: page)
                == "a { b: url( \"/_/https/cdn.example/f.woff\" ) } @import '/_/https/cdn.example/more.css';")
        #expect(rewrite("x = \"/api\"", kind: .css, page: page) == nil)
        #expect(rewrite("<p data-x=\"/a\">", page: page) == nil)
    }

    @Test func rewrittenElementsLoseTheirIntegrityHash() {
        #expect(
            rewrite("<link integrity=\"sha384-abc\" rel=stylesheet href=\"https://cdn.example/a.css\">")
                == "<link rel=stylesheet href=\"/_/https/cdn.example/a.css\">")
        #expect(
            rewrite("<script src=//cdn.example/a.js INTEGRITY = 'sha256-x' crossorigin></script>")
                == "<script src=/_/https/cdn.example/a.js crossorigin></script>")
        #expect(
            rewrite("<script src=https://cdn.example/a.js integrity=sha256-x>")
                == "<script src=/_/https/cdn.example/a.js>")
        let untouched = "<script src=\"https://live.example/a.js\" integrity=\"sha256-x\"></script>"
        #expect(
            rewrite(untouched + "<a href=\"https://cdn.example/\">") == untouched + "<a href=\"/_/https/cdn.example/\">"
        )
        #expect(
            rewrite("<p data-integrity=\"x\"><a href=\"https://cdn.example/\">")
                == "<p data-integrity=\"x\"><a href=\"/_/https/cdn.example/\">")
    }

    @Test func rewrittenPagesLosePolicyMetaElements() {
        let policy = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src https://cdn.example\">"
        #expect(rewrite(policy + "<a href=\"https://cdn.example/\">") == "<a href=\"/_/https/cdn.example/\">")
        #expect(
            rewrite("<META HTTP-EQUIV='content-security-policy-report-only' content=\"x\"/><img src=//cdn.example/i>")
                == "<img src=/_/https/cdn.example/i>")
        #expect(rewrite(policy) == nil, "a page with nothing to rewrite goes out as stored")
        #expect(
            rewrite("<meta charset=utf-8><a href=\"https://cdn.example/\">")
                == "<meta charset=utf-8><a href=\"/_/https/cdn.example/\">")
    }

    @Test("tags and attributes come from the HTML tokenizer")
    func tagsFromTheTokenizer() {
        let page = OriginMapTests.cdn
        // A value after spaces around `=` is still the attribute's value.
        #expect(rewrite("<a href = https://cdn.example/x>") == "<a href = /_/https/cdn.example/x>")
        // An assignment in a script is not an attribute, and a `<meta>` that only mentions the words stays.
        #expect(rewrite("<script>img.src = \"/a.png\"</script>", page: page) == nil)
        let description = "<meta name=description content=\"http-equiv content-security-policy\">"
        #expect(
            rewrite(description + "<a href=\"https://cdn.example/\">") == description
                + "<a href=\"/_/https/cdn.example/\">")
        // A `>` inside a quoted value does not end the tag.
        #expect(
            rewrite("<script integrity=\"sha256-a>b\" src=\"https://cdn.example/a.js\"></script>")
                == "<script src=\"/_/https/cdn.example/a.js\"></script>")
        // Links in comments (conditional comments load) and in raw text are still rewritten.
        #expect(
            rewrite("<!--[if IE]><link href=\"https://cdn.example/ie.css\"><![endif]-->")
                == "<!--[if IE]><link href=\"/_/https/cdn.example/ie.css\"><![endif]-->")
        #expect(
            rewrite("<style>a { b: url(/f.png) }</style>", page: page)
                == "<style>a { b: url(/_/https/cdn.example/f.png) }</style>")
        // A comment's contents are read as HTML: URL attributes in it keep their meaning.
        #expect(
            rewrite("<!--[if IE]><link href=\"/ie.css\" title=\"/t\"><![endif]-->", page: page)
                == "<!--[if IE]><link href=\"/_/https/cdn.example/ie.css\" title=\"/t\"><![endif]-->")
        // Not a comment opened inside a comment (reading that again could take quadratic time):
        // there only absolute links change.
        #expect(
            rewrite("<!-- <!-- <a href=\"/x\"><a href=\"https://cdn.example/y\"> -->", page: page)
                == "<!-- <!-- <a href=\"/x\"><a href=\"/_/https/cdn.example/y\"> -->")
    }

    /// Inputs that would make a careless rewriter quadratic; 2 MiB each, so a regression shows as
    /// the time limit (a hang guard), not as a timing assertion.
    @Test(
        .timeLimit(.minutes(10)),
        arguments: ["<!--", "<!-- <a href=/x>", "<a href=/", "\"https://cdn.example", "url(/", "<a b='"])
    func hostileRepetitionsStayLinear(unit: String) {
        let text = String(repeating: unit, count: (2 << 20) / unit.utf8.count)
        _ = rewrite(text, page: OriginMapTests.cdn)
        _ = rewrite(text, kind: .css, page: OriginMapTests.cdn)
    }

    @Test func kinds() {
        #expect(LinkRewriter.kind(forMediaType: "text/html") == .html)
        #expect(LinkRewriter.kind(forMediaType: "application/xhtml+xml") == .html)
        #expect(LinkRewriter.kind(forMediaType: "text/css") == .css)
        #expect(LinkRewriter.kind(forMediaType: "text/javascript") == nil)
    }
}
