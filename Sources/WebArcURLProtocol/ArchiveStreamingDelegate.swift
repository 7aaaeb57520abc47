import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session delegate that takes response bodies from the webarc handlers in pieces.
///
/// With swift-corelibs-foundation, a completion handler or an async `data(for:)` receives only the
/// *last* piece a URL protocol delivers (each piece replaces the one before, silently), while a
/// delegate's `urlSession(_:dataTask:didReceive:)` receives every piece. A URL protocol cannot
/// tell which of the two it is feeding, so ``ArchiveURLProtocol`` and ``RecordingURLProtocol``
/// send each body whole, in one piece, unless the session's delegate adopts this protocol: then
/// they send it in pieces of at most 256 KiB, and a 500 MB body never sits in memory at once.
///
/// Adopt it only on the delegate of a session whose data tasks all read bodies through the
/// delegate: a completion-handler task or a `data(for:)` call on the same session would get only
/// the body's last piece. On Apple platforms the loading system gathers pieces itself, so there
/// bodies always go in pieces and adopting this changes nothing.
///
/// ```swift
/// final class Saver: NSObject, ArchiveStreamingDelegate {
///     func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) { … }
/// }
/// let session = URLSession(configuration: configuration, delegate: Saver(), delegateQueue: nil)
/// ```
public protocol ArchiveStreamingDelegate: URLSessionDataDelegate {}

/// How a body reaches the URL loading system: whole in one `didLoad`, or piece by piece.
enum BodyDelivery: Equatable, Sendable {
    case whole
    case pieces

    /// The delivery a task can take without losing bytes (see ``ArchiveStreamingDelegate``).
    static func mode(for task: URLSessionTask?) -> BodyDelivery {
        #if canImport(FoundationNetworking)
        task?.delegate is any ArchiveStreamingDelegate ? .pieces : .whole
        #else
        .pieces
        #endif
    }

    /// Sends the pieces `next` yields, in order, until it yields nil.
    ///
    /// - Parameter length: the total, to size the buffer of a whole delivery.
    /// - Returns: false when the load stopped before every piece was sent.
    /// - Throws: whatever `next` throws.
    func send(through load: ProtocolLoad, length: Int, _ next: () throws -> [UInt8]?) throws -> Bool {
        switch self {
        case .pieces:
            while let piece = try next() {
                guard load.isRunning else { return false }
                if !piece.isEmpty && !load.load(Data(piece)) { return false }
            }
            return load.isRunning
        case .whole:
            var body = Data(capacity: length)
            while let piece = try next() {
                guard load.isRunning else { return false }
                body.append(contentsOf: piece)
            }
            return body.isEmpty ? load.isRunning : load.load(body)
        }
    }
}
