import NIOCore
import WebArc

/// What a request target resolves to before the request's own conditionals and range apply:
/// a stored response (or its rewritten copy) or a redirect, with the headers every answer shares.
///
/// Resources are cached by target, so a hot page costs one dictionary lookup.
struct Resource: Sendable {
    /// Where the body bytes come from.
    enum Content: Sendable {
        /// A stored body, read (or taken from the hot-body cache) when written.
        case stored(archive: Int, reference: BodyReference)
        /// A body already in memory: an HTML or CSS page whose links were rewritten.
        case memory(ByteBuffer)
    }

    /// The status to send when no conditional or range changes it.
    var status: Int
    /// The stored reason phrase.
    var reason: String?
    /// Every header but `Content-Length` (and `Content-Range`), encoded once for every answer.
    var headers: HeaderBlock
    /// The body's entity tag, quoted; nil for redirects.
    var etag: String?
    /// The body's `Last-Modified` time in seconds since 1970, when known and parseable.
    var lastModified: Int64?
    /// Body length in bytes.
    var length: UInt64
    /// The body; nil for redirects.
    var content: Content?

    /// A redirect to `location` (already mapped to where the client should go).
    static func redirect(status: Int, location: String, stored: [HTTPHeader] = []) -> Resource {
        Resource(
            status: status, reason: nil, headers: HeaderBlock(ReplayedHeaders.replayed(stored) + [HTTPHeader("Location", location)]),
            etag: nil, lastModified: nil, length: 0, content: nil)
    }

    /// Memory the resource holds, for the resource cache's budget: a fixed overhead for the value
    /// and its cache entry, the header names and values, and a rewritten body.
    var cost: Int {
        let headerBytes = headers.fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 32 } + headers.encoded.readableBytes
        let fixed = 256 + headerBytes + (reason?.utf8.count ?? 0) + (etag?.utf8.count ?? 0)
        if case .memory(let buffer)? = content { return fixed + buffer.readableBytes }
        return fixed
    }
}
