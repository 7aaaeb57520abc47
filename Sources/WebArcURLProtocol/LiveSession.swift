import Foundation
import Synchronization
import WebArc

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `URLSession` that goes to the network and never through a webarc handler: the guard against
/// recursion that a handler forwarding requests needs.
///
/// Its configuration lists only the platform's own protocol classes, so neither a handler
/// installed in the caller's configuration nor one registered for `URLSession.shared` sees its
/// requests again. Each fetch is a stream of events: the redirect hops it followed, the final
/// response head, then body pieces as they arrive (memory holds what the consumer has not taken).
final class LiveSession: Sendable {
    /// One step of a fetch.
    enum Event: Sendable {
        /// A redirect `response` was followed to `request`.
        case redirect(HTTPURLResponse, to: URLRequest)
        /// The final response head.
        case response(HTTPURLResponse)
        /// Body bytes.
        case data(Data)
    }

    /// Most redirects followed for one fetch.
    let redirectLimit: Int
    private let session: URLSession
    private let router: Router

    /// Makes a session from `configuration` (an ephemeral one by default) without webarc handlers.
    init(configuration: URLSessionConfiguration = .ephemeral, redirectLimit: Int = 20) {
        let configuration = configuration.copy() as? URLSessionConfiguration ?? .ephemeral
        configuration.protocolClasses = (configuration.protocolClasses ?? []).filter {
            !($0 is ArchiveURLProtocol.Type || $0 is RecordingURLProtocol.Type)
        }
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.redirectLimit = redirectLimit
        router = Router(redirectLimit: redirectLimit)
        session = URLSession(configuration: configuration, delegate: router, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// The events of fetching `request`; ending the iteration early cancels the fetch.
    ///
    /// - Parameter follows: whether to follow a redirect to the proposed request; a refused hop
    ///   is yielded, and then the stream throws
    ///   ``WebArcURLProtocolError/redirectNotFollowed(url:target:)``.
    /// - Returns: a stream that throws the transport error, or
    ///   ``WebArcURLProtocolError/redirectLoop(chain:)`` /
    ///   ``WebArcURLProtocolError/tooManyRedirects(chain:limit:)`` after yielding the hops.
    func events(
        for request: URLRequest, following follows: @escaping @Sendable (URLRequest) -> Bool = { _ in true }
    )
        -> AsyncThrowingStream<Event, any Error>
    {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Event.self, throwing: (any Error).self)
        let task = session.dataTask(with: request)
        router.begin(task, request: request, continuation: continuation, follows: follows)
        continuation.onTermination = { termination in
            // Cancelling runs this synchronously, and a handler's `stopLoading()` cancels from a
            // task work queue; swift-corelibs-foundation's `cancel()` waits on the work queues of
            // every session (they share one target), so calling it from there traps.
            if case .cancelled = termination { DispatchQueue.global().async { task.cancel() } }
        }
        task.resume()
        return stream
    }

    /// Routes one session's delegate callbacks to the stream of each task.
    private final class Router: NSObject, URLSessionDataDelegate, Sendable {
        private struct Fetch {
            var continuation: AsyncThrowingStream<Event, any Error>.Continuation
            var visited: [String]
            var follows: @Sendable (URLRequest) -> Bool
            var failure: WebArcURLProtocolError?
        }

        private let redirectLimit: Int
        private let fetches = Mutex<[Int: Fetch]>([:])

        init(redirectLimit: Int) { self.redirectLimit = redirectLimit }

        func begin(
            _ task: URLSessionTask, request: URLRequest,
            continuation: AsyncThrowingStream<Event, any Error>.Continuation,
            follows: @escaping @Sendable (URLRequest) -> Bool
        ) {
            let first = request.url?.absoluteString ?? ""
            fetches.withLock {
                $0[task.taskIdentifier] = Fetch(continuation: continuation, visited: [first], follows: follows)
            }
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            let target = request.url?.absoluteString ?? ""
            let follow = fetches.withLock { fetches -> Bool in
                guard var fetch = fetches[task.taskIdentifier], fetch.failure == nil else { return false }
                defer { fetches[task.taskIdentifier] = fetch }
                fetch.continuation.yield(.redirect(response, to: request))
                let key = (try? URLKey.canonicalize(target)) ?? target
                if fetch.visited.contains(where: { ((try? URLKey.canonicalize($0)) ?? $0) == key }) {
                    fetch.failure = .redirectLoop(chain: fetch.visited + [target])
                } else if fetch.visited.count > redirectLimit {
                    fetch.failure = .tooManyRedirects(chain: fetch.visited, limit: redirectLimit)
                } else if !fetch.follows(request) {
                    fetch.failure = .redirectNotFollowed(url: response.url?.absoluteString ?? "", target: target)
                }
                fetch.visited.append(target)
                return fetch.failure == nil
            }
            completionHandler(follow ? request : nil)
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            if let response = response as? HTTPURLResponse { yield(.response(response), for: dataTask) }
            completionHandler(.allow)
        }

        /// Ends the fetch with the 401 already received instead of answering its challenge.
        ///
        /// swift-corelibs-foundation asks for a credential only after a 401 carrying
        /// `WWW-Authenticate` has arrived whole (head and body, on this serial delegate queue
        /// before this call); with no credential to give, `performDefaultHandling` never completes
        /// the task. A recording stores the 401 as served, so the stream ends here and the task
        /// is cancelled (its cancellation finds no fetch left and is ignored).
        func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            guard challenge.failureResponse != nil else { return completionHandler(.performDefaultHandling, nil) }
            if let fetch = fetches.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) {
                if let failure = fetch.failure {
                    fetch.continuation.finish(throwing: failure)
                } else {
                    fetch.continuation.finish()
                }
            }
            completionHandler(.cancelAuthenticationChallenge, nil)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            yield(.data(data), for: dataTask)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let fetch = fetches.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
            if let failure = fetch.failure {
                fetch.continuation.finish(throwing: failure)
            } else {
                fetch.continuation.finish(throwing: error)
            }
        }

        private func yield(_ event: Event, for task: URLSessionTask) {
            fetches.withLock { fetches in
                guard let fetch = fetches[task.taskIdentifier], fetch.failure == nil else { return }
                fetch.continuation.yield(event)
            }
        }
    }
}
