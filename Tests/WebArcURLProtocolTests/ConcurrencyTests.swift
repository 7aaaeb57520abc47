import Foundation
import Synchronization
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class ConcurrentReplay: ArchiveURLProtocol {}
final class WaitingPassThrough: ArchiveURLProtocol {}

/// A delegate that cancels its task when asked about a redirect, and never answers.
final class CancelOnRedirect: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let completion = Mutex<CheckedContinuation<(any Error)?, Never>?>(nil)

    /// Runs a data task and returns the error it completes with.
    func run(_ session: URLSession, _ url: URL) async -> (any Error)? {
        await withCheckedContinuation { continuation in
            completion.withLock { $0 = continuation }
            session.dataTask(with: url).resume()
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        task.cancel()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        completion.withLock {
            $0?.resume(returning: error)
            $0 = nil
        }
    }
}

@Suite("Concurrency and cancellation", .serialized, .timeLimit(.minutes(10)))
struct ConcurrencyTests {
    static let pages = 120
    static let large = SeededGenerator.packedBytes(24 * 1024 * 1024, seed: 99)
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        var archive = ArchiveBuilder()
        for page in 0..<Self.pages {
            archive.response(
                "https://many.test/page/\(page)?v=\(page % 7)",
                body: SeededGenerator.packedBytes(1000 + page * 997, seed: UInt64(page)))
        }
        archive.redirect("https://many.test/start", to: "https://many.test/page/3?v=3")
        archive.response("https://many.test/large", body: Self.large)
        ConcurrentReplay.serve(try archive.build(in: folder), onMiss: .offline)
    }

    @Test("hundreds of concurrent requests over one archive and one session each get their own bytes")
    func manyAtOnce() async throws {
        let delegate = CollectingDelegate()
        let plain = session(through: ConcurrentReplay.self)
        let streaming = session(through: ConcurrentReplay.self, delegate: delegate)
        defer {
            plain.finishTasksAndInvalidate()
            streaming.finishTasksAndInvalidate()
        }
        let failures = await withTaskGroup(of: Int.self) { group in
            for index in 0..<600 {
                group.addTask {
                    let page = index % Self.pages
                    let request = URLRequest(url: URL(string: "https://many.test/page/\(page)?v=\(page % 7)")!)
                    let fetched: Fetched =
                        switch index % 3 {
                        case 0: await fetchAsync(plain, request)
                        case 1: await fetchWithCompletionHandler(plain, request)
                        default: await delegate.fetch(streaming, request).0
                        }
                    let expected = Data(SeededGenerator.packedBytes(1000 + page * 997, seed: UInt64(page)))
                    return fetched.status == 200 && fetched.data == expected ? 0 : 1
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }

    /// The APIs whose cancellation may race a load's end on this toolchain. Before Swift 6.4,
    /// FoundationNetworking's `URLSessionTask.cancel()` waits on the task's work queue inside the
    /// awaiting Swift task's cancellation handler, which holds that task's lock, while a load ending
    /// on the work queue resumes the task and waits for the same lock: a deadlock for every URL
    /// protocol, the network's own too (swift-corelibs-foundation #5412, fixed in 6.4 by #5417).
    /// It hung this suite on CI; `gdb` showed exactly those two stacks.
    static var apisWhoseCancelMayRaceTheEnd: [LoadingAPI] {
        #if compiler(>=6.4)
        LoadingAPI.allCases
        #else
        [.completionHandler, .delegate]
        #endif
    }

    @Test(
        "cancelled tasks end with cancelled or a whole body, and leave no worker running",
        arguments: apisWhoseCancelMayRaceTheEnd)
    func cancellation(api: LoadingAPI) async throws {
        let delegate = CollectingDelegate()
        let session = session(through: ConcurrentReplay.self, delegate: api == .delegate ? delegate : nil)
        defer { session.finishTasksAndInvalidate() }
        let request = URLRequest(url: URL(string: "https://many.test/large")!)
        let outcomes = await withTaskGroup(of: String.self) { group in
            for index in 0..<24 {
                group.addTask {
                    let running = api.start(request, on: session, delegate: delegate)
                    if index % 4 != 0 {
                        // Not a wait for an event: staggers the cancels over the load (0, 1 or 2
                        // ms in), where any moment must end in cancelled or a whole body.
                        try? await Task.sleep(for: .milliseconds(index % 3))
                        await running.cancel()
                    }
                    let fetched = await running.outcome
                    if fetched.data?.count == Self.large.count { return "whole" }
                    if fetched.urlErrorCode == .cancelled { return "cancelled" }
                    return "other: \(String(describing: fetched.error)) \(fetched.data?.count ?? -1)"
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { $0 == "whole" || $0 == "cancelled" }, "\(outcomes)")
        #expect(outcomes.filter { $0 == "whole" }.count >= 6)
        #expect(await workersFinish())
    }

    @Test("a redirect and its target, fetched at once by many tasks, agree")
    func concurrentRedirects() async throws {
        let session = session(through: ConcurrentReplay.self)
        defer { session.finishTasksAndInvalidate() }
        let urls = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    await fetchAsync(session, URLRequest(url: URL(string: "https://many.test/start")!)).response?.url?
                        .absoluteString
                }
            }
            return await group.reduce(into: Set<String?>()) { $0.insert($1) }
        }
        #expect(urls == ["https://many.test/page/3?v=3"])
    }

    /// Waits until no replay worker runs; false when one still does after a minute (a hang guard).
    private func workersFinish() async -> Bool {
        await withHangGuard { await Replay.workers.waitUntilNone() } ?? false
    }

    @Test("a task cancelled while the handler waits for the redirect delegate ends cancelled, and its worker stops")
    func cancelWhileAskingDelegate() async throws {
        let delegate = CancelOnRedirect()
        let session = session(through: ConcurrentReplay.self, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        let error = await delegate.run(session, URL(string: "https://many.test/start")!)
        #expect((error as? URLError)?.code == .cancelled)
        #expect(await workersFinish())
    }

    /// A stored redirect leads to a slow live server the archive lacks, so the handler itself
    /// forwards the request (through ``Replay/forward``); cancelling the task must cancel that
    /// fetch, which the server sees as its connection closing while it still holds the answer.
    @Test(
        "a pass-through task cancelled while the network has not answered ends cancelled, and its fetch stops",
        arguments: LoadingAPI.allCases)
    func cancelWhileForwarding(api: LoadingAPI) async throws {
        let arrived = DispatchSemaphore(value: 0)
        let closed = DispatchSemaphore(value: 0)
        let sawClose = Mutex<Bool?>(nil)
        let server = try TestHTTPServer { request in
            arrived.signal()
            let wasClosed = request.waitForClose(timeout: 600)
            sawClose.withLock { $0 = wasClosed }
            closed.signal()
            return .init(text: "late")
        }
        defer { server.stop() }
        var archive = ArchiveBuilder()
        archive.redirect("http://archived.test/slow", to: server.url("/slow").absoluteString)
        WaitingPassThrough.serve(try archive.build(in: folder, name: "forward.webarc"), onMiss: .passThrough)
        let delegate = CollectingDelegate()
        let session = session(through: WaitingPassThrough.self, delegate: api == .delegate ? delegate : nil)
        defer { session.finishTasksAndInvalidate() }
        let running = api.start(
            URLRequest(url: URL(string: "http://archived.test/slow")!), on: session, delegate: delegate)
        #expect(try await onOwnThread { arrived.wait(timeout: .now() + 600) } == .success)
        #expect(server.received.map(\.target) == ["/slow"])
        await running.cancel()
        let fetched = await running.outcome
        #expect(fetched.urlErrorCode == .cancelled)
        #expect(fetched.data == nil)
        #expect(try await onOwnThread { closed.wait(timeout: .now() + 600) } == .success)
        #expect(sawClose.withLock { $0 } == true, "the forwarded fetch kept its connection open after the cancel")
        #expect(await workersFinish())
    }
}
