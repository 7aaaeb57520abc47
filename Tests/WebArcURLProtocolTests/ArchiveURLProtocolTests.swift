import Foundation
import Testing
import WebArc
import WebArcTestSupport
import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class BasicReplay: ArchiveURLProtocol {}
final class OfflineReplay: ArchiveURLProtocol {}
final class PassThroughReplay: ArchiveURLProtocol {}
final class SharedSessionReplay: ArchiveURLProtocol {}

@Suite("ArchiveURLProtocol", .serialized, .timeLimit(.minutes(10)))
struct ArchiveURLProtocolTests {
    let folder: TemporaryFolder
    let reader: ArchiveReader

    init() throws {
        folder = try TemporaryFolder()
        var archive = ArchiveBuilder()
        archive.response(
            "https://example.com/",
            headers: [
                HTTPHeader("Content-Type", "text/html; charset=utf-8"), HTTPHeader("X-Archive", "yes"),
                HTTPHeader("Set-Cookie", "a=1"), HTTPHeader("Set-Cookie", "b=2"),
                HTTPHeader("Cache-Control", "max-age=60"),
                HTTPHeader("Transfer-Encoding", "chunked"), HTTPHeader("Content-Length", "999"),
            ], mimeType: "text/html", textEncoding: "utf-8", body: Array("<h1>hello</h1>".utf8))
        archive.response(
            "https://example.com/plain", mimeType: "text/plain", textEncoding: "iso-8859-1", body: Array("plain".utf8))
        archive.response("https://example.com/gone", status: 404, text: "no such page")
        archive.response("https://example.com/search?q=a", text: "results for a")
        archive.response("https://example.com/search?q=b", text: "results for b")
        archive.response("https://example.com/form", method: "POST", body: Array("posted".utf8))
        archive.response(
            "https://example.com/private", status: 401,
            headers: [HTTPHeader("WWW-Authenticate", "Basic realm=\"staff\"")], body: Array("who are you".utf8))
        archive.response(
            "https://example.com/bearer", status: 401, headers: [HTTPHeader("WWW-Authenticate", "Bearer")],
            text: "token")
        archive.response("http://example.com/empty", body: [])
        reader = try archive.build(in: folder)
        BasicReplay.serve(reader, onMiss: .offline)
    }

    @Test("replays status, every stored header, MIME type, encoding and body", arguments: LoadingAPI.allCases)
    func replaysStoredResponse(api: LoadingAPI) async throws {
        let fetched = await api.fetch("https://example.com/", through: BasicReplay.self)
        #expect(fetched.error == nil)
        let response = try #require(fetched.response)
        #expect(response.statusCode == 200)
        #expect(fetched.text == "<h1>hello</h1>")
        #expect(response.value(forHTTPHeaderField: "X-Archive") == "yes")
        #expect(response.value(forHTTPHeaderField: "Cache-Control") == "max-age=60")
        #expect(response.value(forHTTPHeaderField: "Set-Cookie") == "a=1, b=2")
        #expect(response.value(forHTTPHeaderField: "Content-Length") == "14")
        #expect(response.value(forHTTPHeaderField: "Transfer-Encoding") == nil)
        #expect(response.mimeType == "text/html")
        #expect(response.textEncodingName == "utf-8")
        #expect(response.url?.absoluteString == "https://example.com/")
    }

    @Test("a record without Content-Type gets one from its MIME type and text encoding")
    func contentTypeFromRecord() async throws {
        let fetched = await LoadingAPI.async.fetch("https://example.com/plain", through: BasicReplay.self)
        let response = try #require(fetched.response)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=iso-8859-1")
        #expect(response.mimeType == "text/plain")
        #expect(response.textEncodingName == "iso-8859-1")
    }

    @Test("lookups use the canonical URL: case, default port, fragment, dot segments")
    func canonicalLookup() async throws {
        let fetched = await LoadingAPI.async.fetch("HTTPS://Example.COM:443/a/../#top", through: BasicReplay.self)
        #expect(fetched.status == 200)
        #expect(fetched.text == "<h1>hello</h1>")
    }

    @Test("query strings name different records")
    func queryStrings() async throws {
        #expect(
            await LoadingAPI.async.fetch("https://example.com/search?q=a", through: BasicReplay.self).text
                == "results for a")
        #expect(
            await LoadingAPI.async.fetch("https://example.com/search?q=b", through: BasicReplay.self).text
                == "results for b")
        let missing = await LoadingAPI.async.fetch("https://example.com/search?q=c", through: BasicReplay.self)
        #expect(missing.urlErrorCode == .resourceUnavailable)
    }

    @Test("the method is part of the lookup")
    func methodLookup() async throws {
        var post = URLRequest(url: URL(string: "https://example.com/form")!)
        post.httpMethod = "POST"
        post.httpBody = Data("x=1".utf8)
        #expect(await LoadingAPI.async.fetch(post, through: BasicReplay.self).text == "posted")
        let get = await LoadingAPI.async.fetch("https://example.com/form", through: BasicReplay.self)
        #expect(get.urlErrorCode == .resourceUnavailable)
    }

    @Test("a stored 404 replays as a response, not an error", arguments: LoadingAPI.allCases)
    func stored404(api: LoadingAPI) async throws {
        let fetched = await api.fetch("https://example.com/gone", through: BasicReplay.self)
        #expect(fetched.error == nil)
        #expect(fetched.status == 404)
        #expect(fetched.text == "no such page")
    }

    @Test("an empty body replays as an empty body", arguments: LoadingAPI.allCases)
    func emptyBody(api: LoadingAPI) async throws {
        let fetched = await api.fetch("http://example.com/empty", through: BasicReplay.self)
        #expect(fetched.status == 200)
        #expect(fetched.data?.isEmpty == true)
        #expect(fetched.response?.value(forHTTPHeaderField: "Content-Length") == "0")
    }

    @Test(
        "a https 401 completes, with WWW-Authenticate renamed", arguments: ["private", "bearer"], LoadingAPI.allCases)
    func unauthorizedCompletes(path: String, api: LoadingAPI) async throws {
        let fetched = await api.fetch("https://example.com/\(path)", through: BasicReplay.self)
        let response = try #require(fetched.response)
        #expect(response.statusCode == 401)
        #expect(response.value(forHTTPHeaderField: "WWW-Authenticate") == nil)
        #expect(response.value(forHTTPHeaderField: "X-Webarc-Original-WWW-Authenticate") != nil)
    }

    @Test("a webarc: URL finds the https record and keeps its scheme", arguments: LoadingAPI.allCases)
    func webarcScheme(api: LoadingAPI) async throws {
        let fetched = await api.fetch("webarc://example.com/search?q=a", through: BasicReplay.self)
        #expect(fetched.text == "results for a")
        #expect(fetched.response?.url?.absoluteString == "webarc://example.com/search?q=a")
    }

    @Test(
        "offline: a miss fails with resourceUnavailable naming the URL, and never reaches the network",
        arguments: LoadingAPI.allCases)
    func offlineMiss(api: LoadingAPI) async throws {
        let server = try TestHTTPServer { _ in .init(text: "from the network") }
        defer { server.stop() }
        OfflineReplay.serve(reader, onMiss: .offline)
        let url = server.url("/not-archived?x=1")
        let fetched = await api.fetch(URLRequest(url: url), through: OfflineReplay.self)
        let error = try #require(fetched.error as? URLError)
        #expect(error.code == .resourceUnavailable)
        #expect(error.localizedDescription.contains(url.absoluteString))
        #expect(error.failureURLString == url.absoluteString)
        #expect(server.received.isEmpty)
    }

    @Test("pass-through: a miss goes to the network, a hit does not", arguments: LoadingAPI.allCases)
    func passThroughMiss(api: LoadingAPI) async throws {
        let server = try TestHTTPServer { request in .init(text: "live \(request.target)") }
        defer { server.stop() }
        var archive = ArchiveBuilder()
        archive.response(server.url("/archived").absoluteString, text: "from the archive")
        PassThroughReplay.serve(try archive.build(in: folder, name: "pass.webarc"), onMiss: .passThrough)
        let live = await api.fetch(URLRequest(url: server.url("/live")), through: PassThroughReplay.self)
        #expect(live.text == "live /live")
        let archived = await api.fetch(URLRequest(url: server.url("/archived")), through: PassThroughReplay.self)
        #expect(archived.text == "from the archive")
        #expect(server.received.map(\.target) == ["/live"])
    }

    @Test("pass-through never sends a webarc: miss to the network")
    func passThroughWebarcMiss() async throws {
        PassThroughReplay.serve(reader, onMiss: .passThrough)
        let fetched = await LoadingAPI.async.fetch("webarc://example.com/nothing", through: PassThroughReplay.self)
        #expect(fetched.urlErrorCode == .resourceUnavailable)
    }

    @Test("registerForSharedSession puts the handler behind URLSession.shared")
    func sharedSession() async throws {
        SharedSessionReplay.serve(reader, onMiss: .offline)
        #expect(SharedSessionReplay.registerForSharedSession())
        defer { SharedSessionReplay.unregisterFromSharedSession() }
        let (data, response) = try await URLSession.shared.data(from: URL(string: "webarc://example.com/search?q=b")!)
        #expect(String(decoding: data, as: UTF8.self) == "results for b")
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test("a class that serves nothing declines every request")
    func stopServing() async throws {
        OfflineReplay.serve(reader)
        #expect(OfflineReplay.canInit(with: URLRequest(url: URL(string: "https://example.com/")!)))
        OfflineReplay.stopServing()
        #expect(!OfflineReplay.canInit(with: URLRequest(url: URL(string: "https://example.com/")!)))
        #expect(!BasicReplay.canInit(with: URLRequest(url: URL(string: "ftp://example.com/")!)))
    }
}

extension URLError {
    /// The failing URL's text, from either user-info key.
    var failureURLString: String? { failingURL?.absoluteString }
}
