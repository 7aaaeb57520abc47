import Foundation
import WebArc
import WebArcReplay

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything the URL protocol handlers and the recorder report, with the URL it concerns.
///
/// URL loading callers see these wrapped in a `URLError` (see ``urlError``): the code tells the
/// kind of failure the way Foundation's own loaders do, and `NSUnderlyingErrorKey` holds this value.
public enum WebArcURLProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The archives hold no record for the request and the miss policy is offline.
    case notInArchive(method: String, url: String)
    /// A stored redirect chain comes back to a URL it already visited.
    case redirectLoop(chain: [String])
    /// A stored (or live) redirect chain is longer than the limit.
    case tooManyRedirects(chain: [String], limit: Int)
    /// The recorder was told not to follow a live redirect from `url` to `target`; the hop is stored.
    case redirectNotFollowed(url: String, target: String)
    /// The task's delegate did not answer `willPerformHTTPRedirection` for a stored redirect in time.
    case redirectNotAnswered(url: String)
    /// The load was stopped (the task cancelled) while the handler waited.
    case stopped(url: String)
    /// swift-corelibs-foundation gives a `URLProtocol` no way to hand a download task its file.
    case downloadTaskUnsupported(url: String)
    /// The archive could not be read while answering the request.
    case archive(url: String, error: WebArcError)
    /// A remote archive's server did not deliver its bytes: the
    /// app's network handling sees `.timedOut` or `.cannotConnectToHost`, not a damaged archive.
    case unreachable(url: String, reason: String, timedOut: Bool)
    /// The recorder could not store what it received.
    case recording(url: String, error: WebArcError)
    /// The recorder was finished or cancelled before the exchange could be stored.
    case recorderClosed(url: String)
    /// The request has no URL, or one without a canonical form.
    case badURL(url: String)
    /// An existing writable layer was discarded at setup: it is not an update over the bundle
    /// being served (another bundle shipped since), or it cannot be read.
    case staleLayer(path: String, error: WebArcError)
    /// The writable layer could not be rewritten; the previous file stays as it was.
    case layerWrite(path: String, error: WebArcError)

    /// An archive read failure for `url`; errors from outside the format keep their text.
    static func archive(url: String, _ error: any Error) -> WebArcURLProtocolError {
        if let unreachable = error as? SourceUnreachable {
            return .unreachable(url: url, reason: "\(error)", timedOut: unreachable.timedOut)
        }
        return .archive(
            url: url,
            error: error as? WebArcError ?? .io(path: url, operation: .transferring("read (\(error))"), errno: 0))
    }

    /// `error` as a ``WebArcError``; errors from outside the format keep their text, naming `path`.
    static func webArcError(_ error: any Error, path: String) -> WebArcError {
        error as? WebArcError ?? .io(path: path, operation: .transferring("write (\(error))"), errno: 0)
    }

    /// The URL the error concerns (for a writable layer error, the layer's path).
    public var url: String {
        switch self {
        case .notInArchive(_, let url), .downloadTaskUnsupported(let url), .redirectNotAnswered(let url),
            .stopped(let url), .archive(let url, _),
            .unreachable(let url, _, _),
            .recording(let url, _), .recorderClosed(let url), .badURL(let url), .redirectNotFollowed(let url, _):
            url
        case .staleLayer(let path, _), .layerWrite(let path, _): path
        case .redirectLoop(let chain), .tooManyRedirects(let chain, _): chain.first ?? ""
        }
    }

    /// The `URLError` code a URL loading caller sees.
    ///
    /// A miss is `.resourceUnavailable` (-1008), which is what Foundation's own cache answers for a
    /// request it does not hold under `.returnCacheDataDontLoad`; `.notConnectedToInternet` would
    /// claim something about the network that the handler does not know.
    public var code: URLError.Code {
        switch self {
        case .notInArchive: .resourceUnavailable
        case .redirectLoop, .tooManyRedirects: .httpTooManyRedirects
        case .downloadTaskUnsupported: .cannotCreateFile
        case .redirectNotAnswered: .timedOut
        case .stopped, .redirectNotFollowed: .cancelled
        case .archive: .cannotDecodeRawData
        case .unreachable(_, _, let timedOut): timedOut ? .timedOut : .cannotConnectToHost
        case .recording, .recorderClosed, .layerWrite: .cannotWriteToFile
        case .staleLayer: .cannotOpenFile
        case .badURL: .badURL
        }
    }

    /// This error as a `URLError` naming the URL, with this value as the underlying error.
    public var urlError: URLError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description, NSUnderlyingErrorKey: self]
        if let failing = URL(string: url) { info[NSURLErrorFailingURLErrorKey] = failing }
        return URLError(code, userInfo: info)
    }

    /// One line: what went wrong and the URL it concerns.
    public var description: String {
        switch self {
        case .notInArchive(let method, let url): "not in the archive: \(method) \(url)"
        case .redirectLoop(let chain): "redirect loop: \(chain.joined(separator: " -> "))"
        case .tooManyRedirects(let chain, let limit):
            "more than \(limit) redirects from \(chain.first ?? "?"): \(chain.suffix(3).joined(separator: " -> "))"
        case .downloadTaskUnsupported(let url):
            "download task for \(url): swift-corelibs-foundation cannot take a file from a URLProtocol; "
                + "use a data task with a session delegate instead"
        case .redirectNotAnswered(let url):
            "redirect from \(url): the session delegate did not call the completion handler of willPerformHTTPRedirection"
        case .stopped(let url): "cancelled: \(url)"
        case .redirectNotFollowed(let url, let target): "redirect not followed: \(url) -> \(target)"
        case .archive(let url, let error): "cannot read \(url) from the archive: \(error.description)"
        case .unreachable(let url, let reason, _):
            "cannot read \(url) from the archive: its server did not deliver: \(reason)"
        case .recording(let url, let error): "cannot record \(url): \(error.description)"
        case .recorderClosed(let url): "cannot record \(url): the recorder is already finished or cancelled"
        case .staleLayer(let path, let error):
            "discarded the writable layer \(path): \(error.description); it is rebuilt from the live site as pages are refreshed"
        case .layerWrite(let path, let error):
            "cannot write the writable layer \(path) (the previous one stays): \(error.description)"
        case .badURL(let url): "bad URL \"\(url)\": an absolute http, https or webarc URL is needed"
        }
    }
}

extension WebArcURLProtocolError {
    /// The URL protocol's form of a replay engine error.
    init(_ error: ReplayError) {
        switch error {
        case .badURL(let url, _): self = .badURL(url: url)
        case .archive(let url, let error): self = .archive(url: url, error: error)
        case .redirectLoop(let chain): self = .redirectLoop(chain: chain)
        case .tooManyRedirects(let chain, let limit): self = .tooManyRedirects(chain: chain, limit: limit)
        }
    }
}
