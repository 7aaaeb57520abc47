import Testing

@testable import WebArcServer

@Suite struct OriginMapTests {
    static let primary = Origin(scheme: "https", authority: "www.example.org")
    static let cdn = Origin(scheme: "https", authority: "cdn.example")
    static let blog = Origin(scheme: "http", authority: "blog.example:8080")
    static let map = OriginMap(origins: [primary, cdn, blog], primary: primary)

    @Test func originsParseLikeCanonicalKeys() {
        #expect(Origin(url: "HTTPS://CDN.Example:443/x") == Self.cdn)
        #expect(Origin(url: "http://user:pw@blog.example:8080?q") == Self.blog)
        #expect(Origin(url: "ftp://example.org/") == nil)
        #expect(Origin(url: "/relative") == nil)
        #expect(Origin(url: "http://") == nil)
    }

    @Test func pathsRoute() {
        #expect(
            Self.map.route(forPath: "/a/b?c") == .archive(url: "https://www.example.org/a/b?c", origin: Self.primary))
        #expect(
            Self.map.route(forPath: "/_/https/cdn.example/x.css")
                == .archive(url: "https://cdn.example/x.css", origin: Self.cdn))
        #expect(
            Self.map.route(forPath: "/_/http/blog.example:8080/")
                == .archive(url: "http://blog.example:8080/", origin: Self.blog))
        #expect(Self.map.route(forPath: "/_/https/cdn.example") == .addSlash(location: "/_/https/cdn.example/"))
        #expect(
            Self.map.route(forPath: "/_/https/other.example/x")
                == .archive(url: "https://www.example.org/_/https/other.example/x", origin: Self.primary))
        #expect(OriginMap(origins: [], primary: nil).route(forPath: "/") == nil)
    }

    @Test func archiveURLsMapBack() {
        #expect(Self.map.servedPath(forArchiveURL: "https://www.example.org/a?b") == "/a?b")
        #expect(Self.map.servedPath(forArchiveURL: "https://www.example.org") == "/")
        #expect(Self.map.servedPath(forArchiveURL: "https://cdn.example/x.css") == "/_/https/cdn.example/x.css")
        #expect(Self.map.servedPath(forArchiveURL: "http://blog.example:8080?x") == "/_/http/blog.example:8080/?x")
        #expect(Self.map.servedPath(forArchiveURL: "https://live.example/") == nil)
        #expect(Self.map.servedPath(forArchiveURL: "http://cdn.example/x") == nil)
    }
}
