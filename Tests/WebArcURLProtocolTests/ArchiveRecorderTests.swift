import Foundation
import Testing
import WebArc
import WebArcReplay
import WebArcTestSupport

@testable import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class RecordedReplay: ArchiveURLProtocol {}
final class Recording: RecordingURLProtocol {}
final class GuardReplay: ArchiveURLProtocol {}

@Suite("Recording live traffic", .serialized, .timeLimit(.minutes(10)))
struct ArchiveRecorderTests {
    let folder: TemporaryFolder
    let server: TestHTTPServer

    init() throws {
        folder = try TemporaryFolder()
        server = try TestHTTPServer(handler: TestSite.respond)
    }

    static let paths = [
        "/", "/status/200", "/status/201", "/status/404", "/status/500", "/missing", "/redirect/4", "/see-other",
        "/large", "/echo?a=1&b=two", "/echo?a=2", "/echo?q=%C3%BC+x", "/same-a", "/same-b", "/auth",
    ]

    /// Live: each path fetched once through a plain session with no webarc handler (the server
    /// itself). Replay must match it: status, bytes, where the chain ended, and every live header
    /// with the same value, except those ``ReplayedHeaders`` documents as not replayed as sent.
    @Test("every recorded URL replays with the live status, headers and bytes", arguments: LoadingAPI.allCases)
    func recordThenReplay(api: LoadingAPI) async throws {
        let path = folder.file("recorded-\(api).webarc")
        let recorder = try ArchiveRecorder(path: path)
        Recording.record(into: recorder)
        defer { Recording.stopRecording() }
        for path in Self.paths {
            let recorded = await api.fetch(URLRequest(url: server.url(path)), through: Recording.self)
            #expect(recorded.error == nil, "\(path): \(String(describing: recorded.error))")
        }
        try recorder.finish()
        #expect(recorder.statistics.responses == Self.paths.count)
        #expect(recorder.statistics.redirects == 5)
        #expect(recorder.statistics.bodiesDeduplicated >= 1)

        let delegate = CollectingDelegate()
        let plain = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { plain.finishTasksAndInvalidate() }
        RecordedReplay.serve(try ArchiveReader(path: path), onMiss: .offline)
        for path in Self.paths {
            let live = await delegate.fetch(plain, URLRequest(url: server.url(path))).0
            #expect(live.error == nil && live.status != nil, "\(path): \(String(describing: live.error))")
            let replayed = await api.fetch(URLRequest(url: server.url(path)), through: RecordedReplay.self)
            #expect(replayed.status == live.status, "\(path)")
            #expect(replayed.data ?? Data() == live.data ?? Data(), "\(path)")
            #expect(replayed.response?.url == live.response?.url, "\(path)")
            let replayedHeaders = headers(replayed)
            for (name, value) in headers(live) where !Self.notReplayedAsSent.contains(name) {
                #expect(replayedHeaders[name] == value, "\(path): \(name)")
            }
            if live.status == 401 {
                #expect(replayedHeaders["x-webarc-original-www-authenticate"] == headers(live)["www-authenticate"])
            }
        }
        let report = ArchiveVerifier.verify(path: path)
        #expect(report.problems.isEmpty, "\(report.problems)")
    }

    /// Live headers that replay does not carry as sent: hop-by-hop ones, and a 401's challenge
    /// (renamed, see ``ReplayedHeaders``).
    static let notReplayedAsSent: Set<String> = StoredHeaders.dropped.union(["www-authenticate"])

    @Test("what is recorded matches what the server sent")
    func matchesServer() async throws {
        let recorder = try ArchiveRecorder(path: folder.file("truth.webarc"))
        let large = try await recorder.record(URLRequest(url: server.url("/large")), keepingBodyUpTo: 8 << 20)
        #expect(large.body == Data(TestSite.large))
        #expect(large.response.bodyLength == UInt64(TestSite.large.count))
        #expect(large.response.headers.value(for: "ETag") == "\"big\"")
        #expect(large.response.headers.value(for: "Content-Length") == String(TestSite.large.count))
        #expect(large.response.mimeType == "application/octet-stream")

        let page = try await recorder.record(URLRequest(url: server.url("/")), keepingBodyUpTo: 1 << 20)
        #expect(page.response.mimeType == "text/html")
        #expect(page.response.textEncoding == "utf-8")
        #expect(page.body.map { String(decoding: $0, as: UTF8.self) } == TestSite.page)

        let missing = try await recorder.record(URLRequest(url: server.url("/missing")))
        #expect(missing.response.status == 404)
        #expect(missing.body == nil)

        // swift-corelibs-foundation's own loader never completes a 401 with a Basic challenge
        // when nobody offers a credential; the recorder stores it as served.
        let challenged = try await recorder.record(URLRequest(url: server.url("/auth")), keepingBodyUpTo: 100)
        #expect(challenged.response.status == 401)
        #expect(challenged.response.headers.value(for: "WWW-Authenticate") == "Basic realm=\"test\"")
        #expect(challenged.body == Data("no".utf8))

        let query = try await recorder.record(URLRequest(url: server.url("/echo?x=1&y=%20")), keepingBodyUpTo: 100)
        #expect(query.body == Data("query=x=1&y=%20".utf8))
        #expect(query.response.request.url == server.url("/echo?x=1&y=%20").absoluteString)
        try recorder.finish()
    }

    @Test("each redirect hop is stored, and replay ends where the live chain ended")
    func redirectChain() async throws {
        let path = folder.file("chain.webarc")
        let recorder = try ArchiveRecorder(path: path)
        let exchange = try await recorder.record(URLRequest(url: server.url("/redirect/5")), keepingBodyUpTo: 100)
        #expect(exchange.redirects.map(\.status) == [307, 302, 307, 302, 307])
        #expect(exchange.redirects.first?.request.url == server.url("/redirect/5").absoluteString)
        #expect(exchange.redirects.last?.target == server.url("/redirect/0").absoluteString)
        #expect(exchange.response.request.url == server.url("/redirect/0").absoluteString)
        #expect(exchange.body == Data("arrived".utf8))
        try recorder.finish()
        RecordedReplay.serve(try ArchiveReader(path: path), onMiss: .offline)
        let replayed = await LoadingAPI.async.fetch(
            URLRequest(url: server.url("/redirect/5")), through: RecordedReplay.self)
        #expect(replayed.text == "arrived")
        #expect(replayed.response?.url == server.url("/redirect/0"))
    }

    @Test("a redirect the caller refuses is stored as a hop, and its target is never fetched")
    func redirectNotFollowed() async throws {
        let elsewhere = try TestHTTPServer(handler: TestSite.respond)
        defer { elsewhere.stop() }
        let target = elsewhere.url("/echo?left=1")
        let leaving = try TestHTTPServer { request in
            request.target == "/leave"
                ? .init(status: 302, headers: [("Location", target.absoluteString)]) : .init(text: "home")
        }
        defer { leaving.stop() }
        let path = folder.file("not-followed.webarc")
        let recorder = try ArchiveRecorder(path: path)
        let refused = WebArcURLProtocolError.redirectNotFollowed(
            url: leaving.url("/leave").absoluteString, target: target.absoluteString)
        await #expect(throws: refused) {
            _ = try await recorder.record(URLRequest(url: leaving.url("/leave"))) { $0.port == leaving.port }
        }
        #expect(elsewhere.received.isEmpty)
        #expect(recorder.statistics == ArchiveRecorder.Statistics(redirects: 1))
        try recorder.finish()
        RecordedReplay.serve(try ArchiveReader(path: path), onMiss: .offline)
        let replayed = await LoadingAPI.async.fetch(
            URLRequest(url: leaving.url("/leave")), through: RecordedReplay.self)
        #expect(replayed.urlErrorCode == .resourceUnavailable)
        #expect(replayed.response == nil)
        #expect((replayed.error as? URLError)?.failureURLString == target.absoluteString)
    }

    @Test("recording follows and stores the whole chain without asking the app's redirect delegate")
    func delegateNotAskedWhileRecording() async throws {
        let path = folder.file("unasked.webarc")
        let recorder = try ArchiveRecorder(path: path)
        Recording.record(into: recorder)
        defer { Recording.stopRecording() }
        let delegate = CollectingDelegate { _, _ in nil }
        let session = session(through: Recording.self, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        let (fetched, _) = await delegate.fetch(session, URLRequest(url: server.url("/redirect/2")))
        #expect(fetched.text == "arrived")
        #expect(delegate.redirectsAsked.isEmpty)
        #expect(recorder.statistics.redirects == 2)
        try recorder.finish()
    }

    @Test("a live redirect loop is stored as its hops and replays as the same error")
    func redirectLoop() async throws {
        let path = folder.file("loop.webarc")
        let recorder = try ArchiveRecorder(path: path)
        await #expect {
            _ = try await recorder.record(URLRequest(url: server.url("/loop/a")))
        } throws: { error in
            if case .redirectLoop = error as? WebArcURLProtocolError { true } else { false }
        }
        #expect(recorder.statistics.redirects == 2)
        #expect(recorder.statistics.failures == 1)
        try recorder.finish()
        RecordedReplay.serve(try ArchiveReader(path: path), onMiss: .offline)
        let replayed = await LoadingAPI.async.fetch(
            URLRequest(url: server.url("/loop/a")), through: RecordedReplay.self)
        #expect(replayed.urlErrorCode == .httpTooManyRedirects)
    }

    @Test("a refused connection stores nothing and reports the transport error")
    func connectionRefused() async throws {
        let refused = URL(string: "http://127.0.0.1:\(try TestHTTPServer.refusedPort())/")!
        let path = folder.file("refused.webarc")
        let recorder = try ArchiveRecorder(path: path)
        await #expect {
            _ = try await recorder.record(URLRequest(url: refused))
        } throws: { error in
            (error as? URLError)?.code == .cannotConnectToHost
        }
        #expect(recorder.statistics == ArchiveRecorder.Statistics(failures: 1))
        try recorder.finish()
        #expect(try ArchiveReader(path: path).recordCount == 0)
    }

    @Test("through a session, a refused connection reaches the caller as the transport error")
    func connectionRefusedThroughSession() async throws {
        // The reserved port: a stopped server's port could go to another test's server first.
        let refused = URL(string: "http://127.0.0.1:\(try TestHTTPServer.refusedPort())/x")!
        let recorder = try ArchiveRecorder(path: folder.file("refused-session.webarc"))
        Recording.record(into: recorder)
        defer { Recording.stopRecording() }
        let fetched = await LoadingAPI.completionHandler.fetch(URLRequest(url: refused), through: Recording.self)
        #expect(fetched.urlErrorCode == .cannotConnectToHost)
        recorder.cancel()
    }

    @Test("the inner session is never intercepted by a webarc handler, installed or registered")
    func recursionGuard() async throws {
        var archive = ArchiveBuilder()
        archive.response(server.url("/echo?guard=1").absoluteString, text: "from an archive")
        GuardReplay.serve(try archive.build(in: folder, name: "guard.webarc"), onMiss: .offline)
        #expect(GuardReplay.registerForSharedSession())
        defer { GuardReplay.unregisterFromSharedSession() }
        let configuration = URLSessionConfiguration.ephemeral
        GuardReplay.install(in: configuration)
        Recording.install(in: configuration)
        let recorder = try ArchiveRecorder(path: folder.file("guard-out.webarc"), configuration: configuration)
        let exchange = try await recorder.record(URLRequest(url: server.url("/echo?guard=1")), keepingBodyUpTo: 100)
        #expect(exchange.body == Data("query=guard=1".utf8))
        #expect(server.received.contains { $0.target == "/echo?guard=1" })
        try recorder.finish()
    }

    @Test("a large body streams to a delegate in pieces while it is recorded")
    func largeThroughDelegate() async throws {
        let recorder = try ArchiveRecorder(path: folder.file("large.webarc"))
        Recording.record(into: recorder)
        defer { Recording.stopRecording() }
        let delegate = CollectingDelegate()
        let session = session(through: Recording.self, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        let (fetched, pieces) = await delegate.fetch(session, URLRequest(url: server.url("/large")))
        #expect(fetched.data == Data(TestSite.large))
        #expect(pieces.count > 10)
        try recorder.finish()
    }

    @Test("concurrent exchanges are all stored")
    func concurrent() async throws {
        let path = folder.file("concurrent.webarc")
        let recorder = try ArchiveRecorder(path: path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<60 {
                group.addTask { _ = try await recorder.record(URLRequest(url: server.url("/echo?n=\(index % 40)"))) }
            }
            try await group.waitForAll()
        }
        try recorder.finish()
        let reader = try ArchiveReader(path: path)
        #expect(reader.recordCount == 60)
        #expect(reader.bodyCount == 40)
    }

    @Test("after finish, exchanges fail with recorderClosed and finish throws writerClosed")
    func closed() async throws {
        let recorder = try ArchiveRecorder(path: folder.file("closed.webarc"))
        try recorder.finish()
        await #expect(throws: WebArcURLProtocolError.recorderClosed(url: server.url("/echo").absoluteString)) {
            _ = try await recorder.record(URLRequest(url: server.url("/echo")))
        }
        #expect(throws: WebArcError.writerClosed) { try recorder.finish() }
    }

    @Test("a cancelled or dropped recorder leaves no file behind")
    func nothingLeftBehind() async throws {
        let path = folder.file("dropped.webarc")
        do {
            let recorder = try ArchiveRecorder(path: path)
            _ = try await recorder.record(URLRequest(url: server.url("/echo")))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        let cancelled = try ArchiveRecorder(path: path)
        cancelled.cancel()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.contains("dropped") })
    }

    private func headers(_ fetched: Fetched) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in fetched.response?.allHeaderFields ?? [:] {
            result[String(describing: name).lowercased()] = String(describing: value)
        }
        return result
    }
}
