import Dispatch
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Asks a task's delegate about each stored redirect, the way swift-corelibs-foundation's own HTTP
/// loader does online.
///
/// A URL protocol cannot hand a redirect to swift-corelibs-foundation (its
/// `urlProtocol(_:wasRedirectedTo:redirectResponse:)` stops the process), so the handlers walk
/// stored chains themselves and call
/// `urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)` for each hop, on
/// the session's delegate queue, when the task has a delegate of its own or its session has one:
/// swift-corelibs-foundation's HTTP loader asks the session delegate for completion-handler tasks
/// too, and so do the handlers. The answer decides: the proposed request is followed; another
/// request is looked up instead; nil ends the chain, and the caller receives the redirect response
/// itself.
struct RedirectApproval: @unchecked Sendable {
    // The task, session and delegate are only passed back to the delegate, on its own queue.
    private let task: URLSessionTask?
    private let session: URLSession?
    private let delegate: (any URLSessionTaskDelegate)?

    /// Follows every hop without asking anyone.
    static let followAll = RedirectApproval(task: nil, session: nil, delegate: nil)

    private init(task: URLSessionTask?, session: URLSession?, delegate: (any URLSessionTaskDelegate)?) {
        self.task = task
        self.session = session
        self.delegate = delegate
    }

    /// The approval for `task`: its own delegate, else its session's.
    ///
    /// Call only from `startLoading()` (see ``TaskInternals``).
    init(task: URLSessionTask?) {
        #if canImport(FoundationNetworking)
        let session = TaskInternals.session(of: task)
        let delegate = task?.delegate ?? session?.delegate as? any URLSessionTaskDelegate
        self.init(task: task, session: session, delegate: session == nil ? nil : delegate)
        #else
        self.init(task: nil, session: nil, delegate: nil)
        #endif
    }

    /// Whether a delegate will be asked.
    var asksDelegate: Bool { delegate != nil }

    /// What the delegate answers for `response` proposing `request`.
    ///
    /// - Returns: the request to follow, or nil to stop at the redirect.
    /// - Throws: `redirectNotAnswered` when the delegate calls no completion handler within
    ///   `timeout` seconds; `stopped` when the load stops meanwhile.
    func decide(
        _ response: HTTPURLResponse, proposing request: URLRequest, load: ProtocolLoad, timeout: TimeInterval
    )
        throws(WebArcURLProtocolError) -> URLRequest?
    {
        guard let session, delegate != nil else { return request }
        let answer = Mutex<URLRequest??>(nil)
        let answered = DispatchSemaphore(value: 0)
        load.onStop { answered.signal() }
        let question = Question(approval: self, response: response, request: request)
        session.delegateQueue.addOperation {
            question.ask { chosen in
                answer.withLock { $0 = .some(chosen) }
                answered.signal()
            }
        }
        if answered.wait(timeout: .now() + timeout) == .timedOut {
            throw .redirectNotAnswered(url: response.url?.absoluteString ?? "")
        }
        guard let chosen = answer.withLock({ $0 }) else { throw .stopped(url: response.url?.absoluteString ?? "") }
        return chosen
    }

    /// One redirect put to the delegate, carried onto its queue.
    private struct Question: @unchecked Sendable {
        let approval: RedirectApproval
        let response: HTTPURLResponse
        let request: URLRequest

        func ask(_ completion: @escaping @Sendable (URLRequest?) -> Void) {
            guard let session = approval.session, let task = approval.task, let delegate = approval.delegate else {
                return completion(request)
            }
            delegate.urlSession(
                session, task: task, willPerformHTTPRedirection: response, newRequest: request,
                completionHandler: completion)
        }
    }
}
