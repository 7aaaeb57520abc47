import Foundation
import Synchronization
import Testing
import WebArc
import WebArcTestSupport
import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds a small archive for a test, record by record.
struct ArchiveBuilder {
    enum Item {
        case response(ResponseSpec)
        case redirect(RedirectRecord)
    }

    struct ResponseSpec {
        var method = "GET"
        var url: String
        var status = 200
        var headers: [HTTPHeader] = []
        var mimeType: String?
        var textEncoding: String?
        var body: [UInt8]
        var captureDate: Date?
    }

    var items: [Item] = []

    mutating func response(
        _ url: String, method: String = "GET", status: Int = 200, headers: [HTTPHeader] = [], mimeType: String? = nil,
        textEncoding: String? = nil, body: [UInt8], captureDate: Date? = nil
    ) {
        items.append(
            .response(
                ResponseSpec(
                    method: method, url: url, status: status, headers: headers, mimeType: mimeType,
                    textEncoding: textEncoding,
                    body: body, captureDate: captureDate)))
    }

    mutating func response(_ url: String, status: Int = 200, headers: [HTTPHeader] = [], text: String) {
        response(url, status: status, headers: headers, body: Array(text.utf8))
    }

    mutating func redirect(_ url: String, to target: String, status: Int = 301, method: String = "GET") {
        items.append(
            .redirect(
                RedirectRecord(
                    request: RequestRecord(method: method, url: url), status: status, target: target,
                    headers: [HTTPHeader("Location", target)])))
    }

    /// Writes the archive into `folder` and opens it.
    func build(in folder: TemporaryFolder, name: String = "test.webarc") throws -> ArchiveReader {
        let path = folder.file(name)
        let writer = try ArchiveWriter(path: path)
        for item in items {
            switch item {
            case .response(let spec):
                let body = try writer.addBody(spec.body)
                try writer.add(
                    ResponseRecord(
                        request: RequestRecord(method: spec.method, url: spec.url), status: spec.status,
                        headers: spec.headers,
                        mimeType: spec.mimeType, textEncoding: spec.textEncoding, body: body,
                        captureDate: spec.captureDate))
            case .redirect(let redirect):
                try writer.add(redirect)
            }
        }
        try writer.finish()
        return try ArchiveReader(path: path)
    }
}

/// A session whose configuration has `handler` installed in front.
func session(through handler: any WebArcHandler.Type, delegate: (any URLSessionDelegate)? = nil) -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 20
    handler.install(in: configuration)
    return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
}

/// The result of one task, however it was made.
struct Fetched: @unchecked Sendable {
    var data: Data?
    var response: HTTPURLResponse?
    var error: (any Error)?

    var status: Int? { response?.statusCode }
    var text: String? { data.map { String(decoding: $0, as: UTF8.self) } }
    var urlErrorCode: URLError.Code? { (error as? URLError)?.code }
}

/// Runs a data task with a completion handler.
func fetchWithCompletionHandler(_ session: URLSession, _ request: URLRequest) async -> Fetched {
    await withCheckedContinuation { continuation in
        session.dataTask(with: request) { data, response, error in
            continuation.resume(returning: Fetched(data: data, response: response as? HTTPURLResponse, error: error))
        }.resume()
    }
}

/// Runs `data(for:)`.
func fetchAsync(_ session: URLSession, _ request: URLRequest) async -> Fetched {
    do {
        let (data, response) = try await session.data(for: request)
        return Fetched(data: data, response: response as? HTTPURLResponse, error: nil)
    } catch {
        return Fetched(data: nil, response: nil, error: error)
    }
}

/// A session delegate that takes bodies in pieces and reports each task's outcome.
final class CollectingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Task {
        var pieces: [Int] = []
        var data = Data()
        var response: HTTPURLResponse?
        var redirects = 0
        var continuation: CheckedContinuation<Fetched, Never>?
    }

    private let tasks = Mutex<[Int: Task]>([:])
    private let decision: (@Sendable (HTTPURLResponse, URLRequest) -> URLRequest?)?
    private let hops = Mutex<[String]>([])

    /// A delegate that answers `willPerformHTTPRedirection` with `decideRedirect` (nil stops the
    /// chain), or follows every redirect when none is given.
    init(decideRedirect: (@Sendable (HTTPURLResponse, URLRequest) -> URLRequest?)? = nil) {
        decision = decideRedirect
    }

    /// The redirects `willPerformHTTPRedirection` was asked about: "status from -> to".
    var redirectsAsked: [String] { hops.withLock { $0 } }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let from = response.url?.absoluteString ?? "?"
        hops.withLock { $0.append("\(response.statusCode) \(from) -> \(request.url?.absoluteString ?? "?")") }
        completionHandler(decision.map { $0(response, request) } ?? request)
    }

    /// Piece sizes received per task, in order.
    func pieces(of task: URLSessionTask) -> [Int] { tasks.withLock { $0[task.taskIdentifier]?.pieces ?? [] } }

    /// Runs a data task through the delegate; `started` receives the task once it is resumed.
    func fetch(
        _ session: URLSession, _ request: URLRequest, started: (URLSessionTask) -> Void = { _ in }
    ) async
        -> (Fetched, pieces: [Int])
    {
        let task = session.dataTask(with: request)
        let fetched = await withCheckedContinuation { continuation in
            tasks.withLock { $0[task.taskIdentifier, default: Task()].continuation = continuation }
            task.resume()
            started(task)
        }
        return (fetched, pieces(of: task))
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        tasks.withLock { $0[dataTask.taskIdentifier, default: Task()].response = response as? HTTPURLResponse }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        tasks.withLock {
            $0[dataTask.taskIdentifier, default: Task()].pieces.append(data.count)
            $0[dataTask.taskIdentifier, default: Task()].data.append(data)
        }
    }

    /// Ends a task at a 401 challenge with the response and body already received, as a caller
    /// with no credential sees it (swift-corelibs-foundation's default handling never completes).
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard challenge.failureResponse != nil else { return completionHandler(.performDefaultHandling, nil) }
        urlSession(session, task: task, didCompleteWithError: nil)
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (state, continuation) = tasks.withLock { tasks -> (Task, CheckedContinuation<Fetched, Never>?) in
            let state = tasks[task.taskIdentifier] ?? Task()
            tasks[task.taskIdentifier]?.continuation = nil
            return (state, state.continuation)
        }
        continuation?.resume(
            returning: Fetched(
                data: error == nil ? state.data : nil, response: (task.response as? HTTPURLResponse) ?? state.response,
                error: error))
    }
}

/// A task started by ``LoadingAPI/start(_:on:delegate:)``: its outcome, and a way to cancel it.
final class RunningFetch: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var swiftTask: Task<Fetched, Never>?

    fileprivate func started(_ task: URLSessionTask) { lock.withLock { self.task = task } }

    fileprivate func run(_ body: @escaping @Sendable () async -> Fetched) {
        lock.withLock { swiftTask = Task { await body() } }
    }

    /// Cancels the fetch the way a caller of its API does: `cancel()` on the task, or on the
    /// Swift task awaiting `data(for:)`. Does nothing before the task exists.
    ///
    /// Off the cooperative pool: Foundation's `URLSessionTask.cancel()` waits on the task's work
    /// queue, and two dozen tasks cancelling at once must not hold both of its threads.
    func cancel() async {
        let (task, swiftTask) = lock.withLock { (self.task, self.swiftTask) }
        _ = try? await onOwnThread { if let task { task.cancel() } else { swiftTask?.cancel() } }
    }

    /// How the fetch ended.
    var outcome: Fetched {
        get async { await lock.withLock { swiftTask! }.value }
    }
}

/// The three ways a caller reads a body through `URLSession`.
enum LoadingAPI: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case completionHandler, async, delegate

    var testDescription: String { rawValue }

    /// Runs `request` through `handler` with this API, on a new session.
    func fetch(_ request: URLRequest, through handler: any WebArcHandler.Type) async -> Fetched {
        switch self {
        case .completionHandler:
            let session = session(through: handler)
            defer { session.finishTasksAndInvalidate() }
            return await fetchWithCompletionHandler(session, request)
        case .async:
            let session = session(through: handler)
            defer { session.finishTasksAndInvalidate() }
            return await fetchAsync(session, request)
        case .delegate:
            let delegate = CollectingDelegate()
            let session = session(through: handler, delegate: delegate)
            defer { session.finishTasksAndInvalidate() }
            return await delegate.fetch(session, request).0
        }
    }

    /// Starts `request` on `session` with this API; `delegate` must be the session's for `.delegate`.
    func start(_ request: URLRequest, on session: URLSession, delegate: CollectingDelegate) -> RunningFetch {
        let running = RunningFetch()
        switch self {
        case .completionHandler:
            running.run {
                await withCheckedContinuation { continuation in
                    let task = session.dataTask(with: request) { data, response, error in
                        continuation.resume(
                            returning: Fetched(data: data, response: response as? HTTPURLResponse, error: error))
                    }
                    task.resume()
                    running.started(task)
                }
            }
        case .async:
            running.run { await fetchAsync(session, request) }
        case .delegate:
            running.run { await delegate.fetch(session, request) { running.started($0) }.0 }
        }
        return running
    }

    func fetch(_ url: String, through handler: any WebArcHandler.Type) async -> Fetched {
        await fetch(URLRequest(url: URL(string: url)!), through: handler)
    }
}
