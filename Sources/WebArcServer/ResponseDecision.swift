import NIOCore
import WebArc

/// Everything the transport needs to answer one request, settled before any body byte is read.
///
/// `headers` is complete, `Content-Length` included; the transport adds nothing but framing.
public struct ResponseDecision: Sendable {
    /// What follows the head.
    public enum Body: Sendable {
        /// No body: HEAD, 304, redirects.
        case none
        /// Bytes already in memory: server pages and rewritten HTML or CSS.
        case bytes(ByteBuffer)
        /// A byte range of a stored body of `length` bytes, read when the transport writes it.
        case stored(archive: Int, reference: BodyReference, length: UInt64, range: Range<UInt64>)

        /// Number of bytes the body holds.
        public var count: UInt64 {
            switch self {
            case .none: 0
            case .bytes(let buffer): UInt64(buffer.readableBytes)
            case .stored(_, _, _, let range): range.upperBound - range.lowerBound
            }
        }
    }

    /// The status code.
    public var status: Int
    /// The reason phrase: the stored one for replayed responses.
    public var reason: String?
    /// The header fields in order.
    public var headers: [HTTPHeader]
    /// The body.
    public var body: Body

    /// Makes a decision.
    public init(status: Int, reason: String? = nil, headers: [HTTPHeader], body: Body = .none) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }
}
