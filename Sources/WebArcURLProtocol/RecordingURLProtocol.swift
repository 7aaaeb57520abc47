import Foundation
import WebArc

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records an app's own `URLSession` traffic into an archive while passing it through.
///
/// ```swift
/// let recorder = try ArchiveRecorder(path: "session.webarc")
/// RecordingURLProtocol.record(into: recorder)
/// RecordingURLProtocol.install(in: configuration)
/// // … use sessions made from `configuration`, then:
/// try recorder.finish()
/// ```
///
/// Each http or https request goes to the network through the recorder's inner session (which
/// this class never sees again), is stored, and then reaches the caller as ``ArchiveURLProtocol``
/// would replay it: the final response after any redirects, with `response.url` where the chain
/// ended, and the stored headers and body. The caller sees the response once the body is complete.
/// Bodies reach the caller as with ``ArchiveURLProtocol`` (in pieces to a session delegate, whole
/// to a completion handler); download tasks fail on Linux, as with ``ArchiveURLProtocol``. Each
/// subclass records into its own recorder.
///
/// Redirects: the recorder follows the whole live chain itself (up to 20 hops) and stores every
/// hop; the app's task or session delegate is **not** asked `willPerformHTTPRedirection` while
/// recording, so it can neither stop nor change a hop, and it receives the final response. (An
/// ``ArchiveURLProtocol`` replaying the archive does ask it, hop by hop.)
open class RecordingURLProtocol: URLProtocol {
    static let recorders = ProtocolRegistry<ArchiveRecorder>()

    private let load = ProtocolLoad()

    /// Records what this class sees into `recorder`, replacing any recorder set before.
    public class func record(into recorder: ArchiveRecorder) {
        recorders.set(recorder, for: self)
    }

    /// Stops recording: this class then declines every request.
    public class func stopRecording() {
        recorders.set(nil, for: self)
    }

    /// Whether this class records `request`: any http or https request while a recorder is set.
    override open class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return false
        }
        return recorders.settings(for: self) != nil
    }

    /// Returns `request` unchanged.
    override open class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    /// Starts the exchange in a task and returns at once.
    override open func startLoading() {
        let queue = TaskInternals.workQueue(of: task)
        guard load.start(self, queue: queue) else { return }
        let request = self.request
        let url = request.url?.absoluteString ?? ""
        let recorder = Self.recorders.settings(for: type(of: self))
        let isDownload = ArchiveURLProtocol.isDownload(task)
        let delivery = BodyDelivery.mode(for: task)
        let load = self.load
        let done = DispatchSemaphore(value: 0)
        let exchange = Task {
            defer { done.signal() }
            do {
                guard !isDownload else { throw WebArcURLProtocolError.downloadTaskUnsupported(url: url) }
                guard let recorder else { throw WebArcURLProtocolError.recorderClosed(url: url) }
                let (exchange, spool) = try await recorder.perform(request)
                let method = request.httpMethod?.uppercased() == "HEAD" ? "HEAD" : "GET"
                let plan = ReplayPlan(response: exchange.response, method: method, requestHeaders: [:])
                let shown = URL(string: exchange.response.request.url) ?? request.url!
                guard load.receive(HTTPURLResponse.replaying(status: plan.status, headers: plan.headers, url: shown))
                else {
                    return
                }
                guard try delivery.send(through: load, length: spool.length, try spool.pieces()) else { return }
                load.finish()
            } catch let error as WebArcURLProtocolError {
                load.fail(error.urlError)
            } catch {
                load.fail(error)
            }
        }
        load.onStop { exchange.cancel() }
        if queue == nil { done.wait() }
    }

    /// Stops the load and cancels the exchange.
    override open func stopLoading() {
        load.stop()
    }
}
