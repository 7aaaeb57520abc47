import NIOCore
import NIOHTTP1

/// Writes the HTTP/1.x head of a ``ResponseDecision``: status line, the decision's pre-encoded
/// fields, its length, and the `Connection` field the transport chose.
///
/// The server frames every body by `Content-Length` (it always knows the length), so nothing is
/// chunked and no field is added but `Connection`.
enum ResponseHeadEncoder {
    /// The head of `decision` for a request of `version`; `connection` is the `Connection` value to
    /// send (`close`, `keep-alive` for HTTP/1.0), or nil.
    static func encode(_ decision: ResponseDecision, version: HTTPVersion, connection: StaticString?) -> ByteBuffer {
        encode(
            status: decision.status, reason: decision.reason, block: decision.block,
            contentRange: decision.contentRange,
            contentLength: decision.contentLength, version: version, connection: connection)
    }

    /// A head of the given parts: status line, `block`, then `Content-Range`, `Content-Length` and
    /// `Connection` when given, and the empty line.
    static func encode(
        status: Int, reason: String?, block: HeaderBlock, contentRange: String?, contentLength: UInt64?,
        version: HTTPVersion,
        connection: StaticString?
    ) -> ByteBuffer {
        var head = ByteBuffer()
        head.reserveCapacity(block.encoded.readableBytes + 128)
        head.writeStaticString(version.minor == 0 && version.major == 1 ? "HTTP/1.0 " : "HTTP/1.1 ")
        head.writeString(String(status))
        head.writeStaticString(" ")
        head.writeString(reasonPhrase(reason, status: status))
        head.writeStaticString("\r\n")
        head.writeImmutableBuffer(block.encoded)
        if let contentRange {
            head.writeStaticString("Content-Range: ")
            head.writeString(contentRange)
            head.writeStaticString("\r\n")
        }
        if let contentLength {
            head.writeStaticString("Content-Length: ")
            head.writeString(String(contentLength))
            head.writeStaticString("\r\n")
        }
        if let connection {
            head.writeStaticString("Connection: ")
            head.writeStaticString(connection)
            head.writeStaticString("\r\n")
        }
        head.writeStaticString("\r\n")
        return head
    }

    /// `reason` when it is a valid reason phrase (no control characters), else the standard one
    /// for `status` (empty for codes without one).
    static func reasonPhrase(_ reason: String?, status: Int) -> String {
        if let reason, !reason.isEmpty, HeaderBlock.isValidValue(reason) { return reason }
        return HTTPResponseStatus(statusCode: status).reasonPhrase
    }

    /// The answer to a request NIO's parser refused: 400, no body, and the connection closes.
    static let badRequest = ByteBuffer(
        string: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
}
