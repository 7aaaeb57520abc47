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

    /// Sends the pieces `next` yields, in order, until it yields nil; with `head`, sends it first,
    /// once the first piece is read (the whole body, when it goes whole), so that a read failing
    /// at the start has sent nothing.
    ///
    /// - Parameter length: the total, to size the buffer of a whole delivery.
    /// - Returns: false when the load stopped before every piece was sent.
    /// - Throws: whatever `next` throws.
    func send(
        through load: ProtocolLoad, head: URLResponse? = nil, length: Int, _ next: () throws -> [UInt8]?
    ) throws -> Bool {
        switch self {
        case .pieces:
            var piece = try next()
            if let head, !load.receive(head) { return false }
            while let current = piece {
                guard load.isRunning else { return false }
                if !current.isEmpty && !load.load(Data(current)) { return false }
                piece = try next()
            }
            return load.isRunning
        case .whole:
            var body = Data(capacity: length)
            while let piece = try next() {
                guard load.isRunning else { return false }
                body.append(contentsOf: piece)
            }
            if let head, !load.receive(head) { return false }
            return body.isEmpty ? load.isRunning : load.load(body)
        }
    }
}
