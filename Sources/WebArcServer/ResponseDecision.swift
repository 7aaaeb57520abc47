import NIOCore
import WebArc

/// Everything the transport needs to answer one request, settled before any body byte is read.
///
/// ``headers`` is complete, `Content-Length` included; the transport adds nothing but
/// `Connection` and framing.
package struct ResponseDecision: Sendable {
    /// What follows the head.
    package enum Body: Sendable {
        /// No body: HEAD, 304, redirects.
        case none
        /// Bytes already in memory: server pages and rewritten HTML or CSS.
        case bytes(ByteBuffer)
        /// A byte range of a stored body, read from the chunks its entry names when the transport
        /// writes it.
        case stored(ServedBody, range: Range<UInt64>)

        /// Number of bytes the body holds.
        package var count: UInt64 {
            switch self {
            case .none: 0
            case .bytes(let buffer): UInt64(buffer.readableBytes)
            case .stored(_, let range): range.upperBound - range.lowerBound
            }
        }
    }

    /// The status code.
    package var status: Int
    /// The reason phrase: the stored one for replayed responses.
    package var reason: String?
    /// The body.
    package var body: Body
    /// The fields shared by every answer from one resource (or this answer's own), pre-encoded.
    let block: HeaderBlock
    /// `Content-Range`, sent after ``block``, for a 206.
    let contentRange: String?
    /// `Content-Length`, sent last; nil when ``block`` holds the length itself or the answer has none.
    let contentLength: UInt64?
    /// The whole head as sent on an HTTP/1.1 keep-alive connection, when this answer is its
    /// resource's plain one (encoded once per resource); nil otherwise.
    var encodedHead: ByteBuffer?

    /// The header fields in order, `Content-Length` included; fields no peer could parse are left out.
    package var headers: [HTTPHeader] {
        var headers = block.fields
        if let contentRange { headers.append(HTTPHeader("Content-Range", contentRange)) }
        if let contentLength { headers.append(HTTPHeader("Content-Length", String(contentLength))) }
        return headers
    }

    /// Makes a decision sending `headers` as given (they name the length themselves).
    package init(status: Int, reason: String? = nil, headers: [HTTPHeader], body: Body = .none) {
        self.init(status: status, reason: reason, block: HeaderBlock(headers), body: body)
    }

    /// Makes a decision sending `block`, then `Content-Range` and `Content-Length` when given.
    init(
        status: Int, reason: String?, block: HeaderBlock, contentRange: String? = nil, contentLength: UInt64? = nil,
        encodedHead: ByteBuffer? = nil, body: Body = .none
    ) {
        self.status = status
        self.reason = reason
        self.block = block
        self.contentRange = contentRange
        self.contentLength = contentLength
        self.encodedHead = encodedHead
        self.body = body
    }
}
