import Foundation
import Testing
import WebArc
import WebArcServer
import WebArcTestSupport

/// A crawl-like archive of three origins, and several archives searched in order.
///
/// Recipe: a start page on `https://www.example.org` linking absolutely, protocol-relatively and
/// root-relatively to its own and two other origins; a stylesheet on the CDN with root-relative
/// `url()`s; a redirect from one origin to another.
@Suite struct MultiOriginTests {
    static let startPage = """
        <html><head><link rel="stylesheet" href="https://cdn.example/css/site.css">\
        <script src="//cdn.example/js/app.js"></script></head><body>\
        <a href="https://www.example.org/about">About</a> <a href="/contact">Contact</a>\
        <a href="http://blog.example:8080/post?id=1">Post</a> <a href='https://live.example/x'>Live</a>\
        <img src="https://cdn.example/img/logo.png"></body></html>
        """
    static let stylesheet =
        "body { background: url(/img/bg.png) } @import \"/css/more.css\"; a { b: url('//cdn.example/f.woff') }"
    static let blogPage =
        "<a href=\"/\">blog home</a> <img srcset=\"/img/a.png 1x\"> <a href=\"https://www.example.org/\">main</a>"

    static let securePage = """
        <meta http-equiv="Content-Security-Policy" content="script-src https://cdn.example">\
        <script src="https://cdn.example/js/app.js" integrity="sha384-stored" crossorigin></script>
        """
    static let policyHeaders = [
        HTTPHeader("Content-Type", "text/html"),
        HTTPHeader("Content-Security-Policy", "default-src https://cdn.example"),
        HTTPHeader("Content-Security-Policy-Report-Only", "default-src 'self'"), HTTPHeader("X-Kept", "yes"),
    ]

    static func archive(in folder: TemporaryFolder) throws -> ArchiveReader {
        try makeArchive(
            in: folder,
            [
                .text("https://www.example.org/", startPage),
                .text("https://www.example.org/about", "<p>about</p>"),
                .text("https://www.example.org/contact", "<p>contact</p>"),
                .text("https://cdn.example/css/site.css", stylesheet, type: "text/css"),
                .text("https://cdn.example/js/app.js", "console.log('https://cdn.example/x')", type: "text/javascript"),
                .page(
                    "https://cdn.example/img/logo.png", [0x89, 0x50, 0x4E, 0x47],
                    headers: [HTTPHeader("Content-Type", "image/png")]),
                .page("https://cdn.example/img/bg.png", [1, 2, 3], headers: [HTTPHeader("Content-Type", "image/png")]),
                .text("https://cdn.example/", "<p>cdn root</p>"),
                .redirect("https://cdn.example/old.css", to: "https://cdn.example/css/site.css"),
                .redirect("https://cdn.example/home", to: "https://www.example.org/", status: 302),
                .text("http://blog.example:8080/post?id=1", blogPage),
                .page("https://www.example.org/secure", Array(securePage.utf8), headers: policyHeaders),
            ],
            startURL: "https://www.example.org/")
    }

    @Test func primaryOriginIsServedAtRootWithLinksRewritten() async throws {
        let folder = try TemporaryFolder()
        let reader = try Self.archive(in: folder)
        try await withServer([reader]) { server in
            let page = try fetch(server.port, "/")
            #expect(page.status == 200)
            #expect(page.text.contains("href=\"/_/https/cdn.example/css/site.css\""))
            #expect(page.text.contains("src=\"/_/https/cdn.example/js/app.js\""))
            #expect(page.text.contains("href=\"/about\""))
            #expect(page.text.contains("href=\"/contact\""))
            #expect(page.text.contains("href=\"/_/http/blog.example:8080/post?id=1\""))
            #expect(page.text.contains("href='https://live.example/x'"))
            #expect(page.text.contains("src=\"/_/https/cdn.example/img/logo.png\""))
            #expect(page.header("Content-Length") == String(page.body.count))
            let stored = try SiteFixture.etag("https://www.example.org/", in: reader)
            #expect(page.header("ETag") != stored)
            #expect(page.header("ETag")?.hasPrefix(String(stored.dropLast()) + "-r") == true)
            let again = try fetch(server.port, "/", headers: ["If-None-Match: \(page.header("ETag") ?? "")"])
            #expect(again.status == 304)
            let partial = try fetch(server.port, "/", headers: ["Range: bytes=0-5"])
            #expect(partial.text == String(page.text.prefix(6)))
        }
    }

    @Test func otherOriginsAreServedUnderTheirPrefix() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try Self.archive(in: folder)]) { server in
            let css = try fetch(server.port, "/_/https/cdn.example/css/site.css")
            #expect(css.status == 200)
            #expect(css.text.contains("url(/_/https/cdn.example/img/bg.png)"))
            #expect(css.text.contains("@import \"/_/https/cdn.example/css/more.css\""))
            #expect(css.text.contains("url('/_/https/cdn.example/f.woff')"))
            #expect(try fetch(server.port, "/_/https/cdn.example/img/bg.png").body == [1, 2, 3])
            #expect(try fetch(server.port, "/_/HTTPS/CDN.example:443/img/bg.png").body == [1, 2, 3])
            let script = try fetch(server.port, "/_/https/cdn.example/js/app.js")
            #expect(script.text == "console.log('https://cdn.example/x')")
            let blog = try fetch(server.port, "/_/http/blog.example:8080/post?id=1")
            #expect(blog.text.contains("href=\"/_/http/blog.example:8080/\""))
            #expect(blog.text.contains("srcset=\"/_/http/blog.example:8080/img/a.png 1x\""))
            #expect(blog.text.contains("href=\"/\">main"))
            let bare = try fetch(server.port, "/_/https/cdn.example")
            #expect(bare.status == 301)
            #expect(bare.header("Location") == "/_/https/cdn.example/")
            #expect(try fetch(server.port, "/_/https/cdn.example/").text == "<p>cdn root</p>")
            #expect(try fetch(server.port, "/_/https/unknown.example/x").status == 404)
        }
    }

    @Test func rewrittenPagesDropPoliciesAndIntegrityHashes() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try Self.archive(in: folder)]) { server in
            let page = try fetch(server.port, "/secure")
            #expect(page.text == "<script src=\"/_/https/cdn.example/js/app.js\" crossorigin></script>")
            #expect(page.header("Content-Security-Policy") == nil)
            #expect(page.header("Content-Security-Policy-Report-Only") == nil)
            #expect(page.header("X-Kept") == "yes")
            let stored = try fetch(server.port, "https://www.example.org/secure")
            #expect(stored.text == Self.securePage)
            #expect(stored.header("Content-Security-Policy") == "default-src https://cdn.example")
        }
    }

    @Test func redirectsAreMappedToServedPaths() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try Self.archive(in: folder)]) { server in
            let sameOrigin = try fetch(server.port, "/_/https/cdn.example/old.css")
            #expect(sameOrigin.status == 301)
            #expect(sameOrigin.header("Location") == "/_/https/cdn.example/css/site.css")
            let toPrimary = try fetch(server.port, "/_/https/cdn.example/home")
            #expect(toPrimary.status == 302)
            #expect(toPrimary.header("Location") == "/")
        }
    }

    @Test func proxyFormRequestsGetStoredBytes() async throws {
        let folder = try TemporaryFolder()
        let reader = try Self.archive(in: folder)
        try await withServer([reader]) { server in
            let page = try fetch(server.port, "https://www.example.org/")
            #expect(page.text == Self.startPage)
            #expect(page.header("ETag") == (try SiteFixture.etag("https://www.example.org/", in: reader)))
            let redirect = try fetch(server.port, "https://cdn.example/home")
            #expect(redirect.header("Location") == "https://www.example.org/")
            #expect(try fetch(server.port, "http://blog.example:8080/post?id=1").text == Self.blogPage)
            #expect(try fetch(server.port, "https://live.example/x").status == 404)
        }
    }

    @Test func severalArchivesAreSearchedInOrder() async throws {
        let folder = try TemporaryFolder()
        let update = try makeArchive(
            in: folder, name: "update.webarc",
            [.text("http://localhost/index.html", "v2"), .text("http://localhost/new.html", "new")])
        let base = try makeArchive(
            in: folder, name: "base.webarc",
            [
                .text("http://localhost/index.html", "v1"), .text("http://localhost/old.html", "old"),
                .text("http://localhost/", "root"),
            ],
            startURL: "http://localhost/")
        try await withServer([update, base]) { server in
            let texts = try ["/index.html", "/new.html", "/old.html", "/"].map { try fetch(server.port, $0).text }
            #expect(texts == ["v2", "new", "old", "root"])
        }
    }
}
