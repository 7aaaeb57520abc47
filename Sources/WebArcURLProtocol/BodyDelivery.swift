import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a body reaches the URL loading system: whole in one `didLoad`, or piece by piece.
///
/// With swift-corelibs-foundation, a completion handler or an async `data(for:)` receives only the
/// *last* piece a URL protocol delivers (each `didLoad` replaces the one before, silently), while a
/// session delegate's `urlSession(_:dataTask:didReceive:)` receives every piece. So a body goes in
/// pieces of at most 256 KiB (one archive chunk; memory stays bounded whatever the body size)
/// when the task reports to its session delegate, and whole otherwise. The choice is read per
/// task (see ``TaskInternals/behaviour(of:)``); when it cannot be read, bodies go whole, which is
/// never wrong, only larger in memory. On Apple platforms the loading system gathers pieces
/// itself, so there bodies always go in pieces.
enum BodyDelivery: Equatable, Sendable {
    case whole
    case pieces

    /// The delivery `task` can take without losing bytes; call only from `startLoading()`.
    static func mode(for task: URLSessionTask?) -> BodyDelivery {
        TaskInternals.behaviour(of: task) == .delegate ? .pieces : .whole
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
