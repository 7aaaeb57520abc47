import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class EngineReplay: ArchiveURLProtocol {}

/// What the URL protocol now answers through the shared replay engine, where it used to disagree
/// with `webarc serve`, through real URLSession tasks.
@Suite("URL protocol through the replay engine", .serialized, .timeLimit(.minutes(10)))
struct ReplayEngineTests {
    static let css = "body { color: #222 }"
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        var archive = ArchiveBuilder()
        archive.response(
            "https://docs.test/_static/pydoctheme.css", headers: [HTTPHeader("Content-Type", "text/css")],
            text: Self.css)
        archive.response(
            "https://docs.test/library/index.html", headers: [HTTPHeader("Content-Type", "text/html")], text: "library")
        archive.response("https://docs.test/search?q=swift&page=2", text: "results")
        archive.response(
            "https://docs.test/data.bin", headers: [HTTPHeader("Content-Type", "application/octet-stream")],
            body: Array(0..<200).map(UInt8.init))
        archive.redirect("https://docs.test/js", to: "javascript:alert(document.cookie)", status: 302)
        archive.redirect("https://docs.test/data-url", to: "data:text/html,<script>alert(1)</script>", status: 301)
        archive.redirect("https://docs.test/local", to: "file:///etc/passwd", status: 307)
        archive.response(
            "https://docs.test/refresh",
            headers: [HTTPHeader("Refresh", "0; url=javascript:alert(1)"), HTTPHeader("Content-Type", "text/html")],
            text: "r")
        EngineReplay.serve(try archive.build(in: folder), onMiss: .offline)
    }

    @Test("Range: bytes=0-(2^64 - 1) is answered 206 with the whole body, not a trap", arguments: LoadingAPI.allCases)
    func hugeRangeEnd(api: LoadingAPI) async throws {
        var request = URLRequest(url: URL(string: "https://docs.test/data.bin")!)
        request.setValue("bytes=0-18446744073709551615", forHTTPHeaderField: "Range")
        let fetched = await api.fetch(request, through: EngineReplay.self)
        #expect(fetched.status == 206)
        #expect(fetched.data?.count == 200)
        #expect(fetched.response?.value(forHTTPHeaderField: "Content-Range") == "bytes 0-199/200")
    }

    @Test(
        "fuzzy rules: a cache-buster query, reordered parameters, a folder's index.html",
        arguments: [
            ("https://docs.test/_static/pydoctheme.css?2022.1", css),
            ("https://docs.test/search?page=2&q=swift", "results"),
            ("https://docs.test/library/", "library"), ("webarc://docs.test/_static/pydoctheme.css?v=3", css),
        ])
    func fuzzy(url: String, body: String) async throws {
        let fetched = await LoadingAPI.async.fetch(url, through: EngineReplay.self)
        #expect(fetched.error == nil)
        #expect(fetched.status == 200)
        #expect(fetched.text == body)
    }

    @Test("a different path never matches")
    func differentPath() async throws {
        let fetched = await LoadingAPI.async.fetch(
            "https://docs.test/_static/pydoctheme.js?2022.1", through: EngineReplay.self)
        #expect(fetched.urlErrorCode == .resourceUnavailable)
    }

    @Test(
        "a stored redirect to javascript:, data: or file: is delivered as its 3xx without Location, never followed",
        arguments: [
            ("https://docs.test/js", 302), ("https://docs.test/data-url", 301), ("https://docs.test/local", 307),
        ])
    func unsafeRedirect(url: String, status: Int) async throws {
        for api in LoadingAPI.allCases {
            let fetched = await api.fetch(url, through: EngineReplay.self)
            #expect(fetched.error == nil, "\(api)")
            #expect(fetched.status == status, "\(api)")
            #expect(fetched.response?.value(forHTTPHeaderField: "Location") == nil, "\(api)")
            #expect(fetched.response?.url?.absoluteString == url, "\(api)")
        }
    }

    @Test("a Refresh header leading to javascript: is dropped")
    func unsafeRefresh() async throws {
        let fetched = await LoadingAPI.async.fetch("https://docs.test/refresh", through: EngineReplay.self)
        #expect(fetched.status == 200)
        #expect(fetched.response?.value(forHTTPHeaderField: "Refresh") == nil)
    }
}
