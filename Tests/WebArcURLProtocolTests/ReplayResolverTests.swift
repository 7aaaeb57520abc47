import Foundation
import Testing
import WebArc
import WebArcReplay
import WebArcTestSupport

@testable import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class RedirectReplay: ArchiveURLProtocol {}
final class RedirectPassThrough: ArchiveURLProtocol {}

/// Stored redirects: swift-corelibs-foundation stops the process on `wasRedirectedTo` and does not
/// follow a 3xx from a URL protocol, so the handler walks the chain and delivers the final response.
@Suite("Stored redirects", .serialized, .timeLimit(.minutes(10)))
struct ReplayResolverTests {
    let folder: TemporaryFolder
    let reader: ArchiveReader

    init() throws {
        folder = try TemporaryFolder()
        var archive = ArchiveBuilder()
        archive.redirect("http://site.test/old", to: "http://site.test/newer", status: 301)
        archive.redirect("http://site.test/newer", to: "https://site.test/newest", status: 302)
        archive.redirect("https://site.test/newest", to: "https://site.test/home", status: 308)
        archive.response("https://site.test/home", text: "home")
        archive.redirect("http://site.test/a", to: "http://site.test/b")
        archive.redirect("http://site.test/b", to: "http://site.test/a")
        archive.redirect("http://site.test/form", to: "http://site.test/thanks", status: 303, method: "POST")
        archive.response("http://site.test/thanks", text: "thanks")
        archive.redirect("http://site.test/keep", to: "http://site.test/kept", status: 307, method: "POST")
        archive.response("http://site.test/kept", method: "POST", body: Array("kept POST".utf8))
        archive.redirect("http://site.test/dangling", to: "http://site.test/nowhere")
        for hop in 0..<25 {
            archive.redirect("http://site.test/hop\(hop)", to: "http://site.test/hop\(hop + 1)", status: 302)
        }
        archive.response("http://site.test/hop25", text: "far")
        reader = try archive.build(in: folder)
        RedirectReplay.serve(reader, onMiss: .offline)
    }

    @Test("a chain is followed to its final response, with response.url where it ended", arguments: LoadingAPI.allCases)
    func chain(api: LoadingAPI) async throws {
        let fetched = await api.fetch("http://site.test/old", through: RedirectReplay.self)
        #expect(fetched.error == nil)
        #expect(fetched.status == 200)
        #expect(fetched.text == "home")
        #expect(fetched.response?.url?.absoluteString == "https://site.test/home")
    }

    @Test("a redirect loop ends in httpTooManyRedirects, not a hang", arguments: LoadingAPI.allCases)
    func loop(api: LoadingAPI) async throws {
        let fetched = await api.fetch("http://site.test/a", through: RedirectReplay.self)
        let error = try #require(fetched.error as? URLError)
        #expect(error.code == .httpTooManyRedirects)
        #expect(error.localizedDescription.contains("redirect loop"))
    }

    @Test("more than 20 hops end in httpTooManyRedirects")
    func tooMany() async throws {
        let fetched = await LoadingAPI.async.fetch("http://site.test/hop0", through: RedirectReplay.self)
        #expect(fetched.urlErrorCode == .httpTooManyRedirects)
        let shorter = await LoadingAPI.async.fetch("http://site.test/hop10", through: RedirectReplay.self)
        #expect(shorter.text == "far")
    }

    @Test("303 after POST continues as GET; 307 keeps POST")
    func methods() async throws {
        var post = URLRequest(url: URL(string: "http://site.test/form")!)
        post.httpMethod = "POST"
        #expect(await LoadingAPI.async.fetch(post, through: RedirectReplay.self).text == "thanks")
        post.url = URL(string: "http://site.test/keep")
        #expect(await LoadingAPI.async.fetch(post, through: RedirectReplay.self).text == "kept POST")
        #expect(RedirectChain.method(after: 302, from: "POST") == "GET")
        #expect(RedirectChain.method(after: 303, from: "HEAD") == "HEAD")
        #expect(RedirectChain.method(after: 308, from: "PUT") == "PUT")
    }

    @Test("offline: a chain whose target is missing fails naming the target")
    func danglingOffline() async throws {
        let fetched = await LoadingAPI.completionHandler.fetch(
            "http://site.test/dangling", through: RedirectReplay.self)
        let error = try #require(fetched.error as? URLError)
        #expect(error.code == .resourceUnavailable)
        #expect(error.localizedDescription.contains("http://site.test/nowhere"))
    }

    @Test("pass-through: a chain whose target is missing carries on over the network", arguments: LoadingAPI.allCases)
    func danglingPassThrough(api: LoadingAPI) async throws {
        let server = try TestHTTPServer { request in .init(text: "live \(request.target)") }
        defer { server.stop() }
        var archive = ArchiveBuilder()
        archive.redirect("http://archived.test/moved", to: server.url("/landing?x=1").absoluteString)
        RedirectPassThrough.serve(try archive.build(in: folder, name: "pass.webarc"), onMiss: .passThrough)
        let fetched = await api.fetch("http://archived.test/moved", through: RedirectPassThrough.self)
        #expect(fetched.text == "live /landing?x=1")
        #expect(fetched.response?.url == server.url("/landing?x=1"))
    }

    /// Larger than ``BodySpool/memoryLimit``, so a whole delivery spools through a file.
    @Test("pass-through: a large live body arrives whole, or in pieces to a delegate", arguments: LoadingAPI.allCases)
    func largePassThrough(api: LoadingAPI) async throws {
        let server = try TestHTTPServer(handler: TestSite.respond)
        defer { server.stop() }
        var archive = ArchiveBuilder()
        archive.redirect("http://archived.test/big", to: server.url("/large").absoluteString)
        RedirectPassThrough.serve(try archive.build(in: folder, name: "pass-large.webarc"), onMiss: .passThrough)
        let fetched = await api.fetch("http://archived.test/big", through: RedirectPassThrough.self)
        #expect(fetched.status == 200)
        #expect(fetched.data == Data(TestSite.large))
        #expect(fetched.response?.value(forHTTPHeaderField: "ETag") == "\"big\"")
    }

    @Test("a webarc: request follows http redirects and stays in the webarc scheme")
    func webarcChain() async throws {
        let fetched = await LoadingAPI.async.fetch("webarc://site.test/old", through: RedirectReplay.self)
        #expect(fetched.text == "home")
        #expect(fetched.response?.url?.absoluteString == "webarc://site.test/home")
    }

    @Test("the session delegate is asked about each stored hop, as online")
    func delegateAsked() async throws {
        let delegate = CollectingDelegate()
        let session = session(through: RedirectReplay.self, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        let (fetched, _) = await delegate.fetch(session, URLRequest(url: URL(string: "http://site.test/old")!))
        #expect(fetched.text == "home")
        #expect(fetched.response?.url?.absoluteString == "https://site.test/home")
        #expect(
            delegate.redirectsAsked == [
                "301 http://site.test/old -> http://site.test/newer",
                "302 http://site.test/newer -> https://site.test/newest",
                "308 https://site.test/newest -> https://site.test/home",
            ])
    }

    @Test("a delegate that answers nil gets the stored redirect itself: status, Location, no body")
    func delegateStops() async throws {
        let delegate = CollectingDelegate { response, _ in
            response.statusCode == 302 ? nil : URLRequest(url: URL(string: "http://site.test/newer")!)
        }
        let session = session(through: RedirectReplay.self, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        let (fetched, _) = await delegate.fetch(session, URLRequest(url: URL(string: "http://site.test/old")!))
        #expect(fetched.error == nil)
        #expect(fetched.status == 302)
        #expect(fetched.response?.url?.absoluteString == "http://site.test/newer")
        #expect(fetched.response?.value(forHTTPHeaderField: "Location") == "https://site.test/newest")
        #expect(fetched.data?.isEmpty == true)
        #expect(delegate.redirectsAsked.count == 2)
    }

    @Test("a delegate may send the chain to another stored URL")
    func delegateRedirects() async throws {
        let delegate = CollectingDelegate { _, _ in URLRequest(url: URL(string: "http://site.test/thanks")!) }
        let session = session(through: RedirectReplay.self, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        let (fetched, _) = await delegate.fetch(session, URLRequest(url: URL(string: "http://site.test/old")!))
        #expect(fetched.text == "thanks")
        #expect(fetched.response?.url?.absoluteString == "http://site.test/thanks")
        #expect(delegate.redirectsAsked == ["301 http://site.test/old -> http://site.test/newer"])
    }

    @Test("like the platform's own HTTP loader, a completion-handler task also has the session delegate asked")
    func completionHandlerAsks() async throws {
        let server = try TestHTTPServer(handler: TestSite.respond)
        defer { server.stop() }
        let liveDelegate = CollectingDelegate()
        let live = URLSession(configuration: .ephemeral, delegate: liveDelegate, delegateQueue: nil)
        defer { live.finishTasksAndInvalidate() }
        let online = await fetchWithCompletionHandler(live, URLRequest(url: server.url("/redirect/2")))
        #expect(online.text == "arrived")
        #expect(liveDelegate.redirectsAsked.count == 2)

        let delegate = CollectingDelegate()
        let session = session(through: RedirectReplay.self, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        let replayed = await fetchWithCompletionHandler(session, URLRequest(url: URL(string: "http://site.test/old")!))
        #expect(replayed.text == "home")
        #expect(delegate.redirectsAsked.count == 3)
        let awaited = await fetchAsync(session, URLRequest(url: URL(string: "http://site.test/old")!))
        #expect(awaited.text == "home")
        #expect(delegate.redirectsAsked.count == 6)
    }
}
