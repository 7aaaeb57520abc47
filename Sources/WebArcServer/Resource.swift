import NIOCore
import WebArc
import WebArcReplay

/// What a request target resolves to before the request's own conditionals and range apply:
/// a stored response (or its rewritten copy) or a redirect, with the headers every answer shares.
///
/// Resources are cached by target, so a hot page costs one dictionary lookup; a class, so that
/// handing one out costs one reference count rather than one per field.
final class Resource: Sendable {
    /// Where the body bytes come from.
    enum Content: Sendable {
        /// A stored body, read (or taken from the hot-body cache) when written.
        case stored(ServedBody)
        /// A body already in memory: an HTML or CSS page whose links were rewritten.
        case memory(ByteBuffer)
    }

    /// The status to send when no conditional or range changes it.
    let status: Int
    /// The stored reason phrase.
    let reason: String?
    /// Every header but `Content-Length` (and `Content-Range`), encoded once for every answer.
    let headers: HeaderBlock
    /// The body's entity tag, quoted; nil for redirects.
    let etag: String?
    /// The body's `Last-Modified` time in seconds since 1970, when known and parseable.
    let lastModified: Int64?
    /// Body length in bytes.
    let length: UInt64
    /// The body; nil for redirects.
    let content: Content?
    /// The whole head of the plain answer (GET or HEAD without conditionals or range, HTTP/1.1,
    /// keep-alive): the answer nearly every request gets, encoded once.
    let plainHead: ByteBuffer

    /// Makes a resource and encodes its plain head.
    init(
        status: Int, reason: String?, headers: HeaderBlock, etag: String?, lastModified: Int64?, length: UInt64,
        content: Content?
    ) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.etag = etag
        self.lastModified = lastModified
        self.length = length
        self.content = content
        let sendsLength = Self.sendsLength(status: status, content: content)
        plainHead = ResponseHeadEncoder.encode(
            status: status, reason: reason, block: headers, contentRange: nil,
            contentLength: sendsLength ? (content == nil ? 0 : length) : nil, version: .http1_1, connection: nil)
    }

    /// Whether an answer of `status` carries `Content-Length`: every one but 1xx, 204 and 304 of a
    /// stored body (a redirect always does, with 0).
    static func sendsLength(status: Int, content: Content?) -> Bool {
        content == nil || !(status == 204 || status == 304 || status < 200)
    }

    /// A redirect to `location` (already mapped to where the client should go).
    ///
    /// A `location` that is not an http(s) or webarc URL (``ReplaySafety``: `javascript:`,
    /// `data:`, `file:`, …) is never sent: the answer keeps the stored status, has no `Location`,
    /// and carries a short page saying why, which a browser shows instead of following anything.
    static func redirect(status: Int, location: String, stored: [HTTPHeader] = []) -> Resource {
        let replayed = ReplayedHeaders.replayed(stored)
        guard ReplaySafety.isReplayable(location) else {
            let page = ServerPages.refusedRedirect(location)
            let headers = replayed.filter { $0.name.lowercased() != "content-type" } + page.headers
            return Resource(
                status: status, reason: nil, headers: HeaderBlock(headers), etag: nil, lastModified: nil,
                length: UInt64(page.body.readableBytes), content: .memory(page.body))
        }
        return Resource(
            status: status, reason: nil, headers: HeaderBlock(replayed + [HTTPHeader("Location", location)]),
            etag: nil, lastModified: nil, length: 0, content: nil)
    }

    /// Memory the resource holds, for the resource cache's budget: a fixed overhead for the value
    /// and its cache entry, the header names and values, and a rewritten body.
    var cost: Int {
        let headerBytes =
            headers.fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 32 }
            + headers.encoded.readableBytes
        let fixed = 256 + headerBytes + plainHead.readableBytes + (reason?.utf8.count ?? 0) + (etag?.utf8.count ?? 0)
        switch content {
        case .memory(let buffer)?: return fixed + buffer.readableBytes
        case .stored(let body)?: return fixed + MemoryLayout<BodyEntry>.stride + body.entry.chunkCount * 96
        case nil: return fixed
        }
    }
}

/// A stored body as a resource or a decision names it: the archive whose record named it (its
/// place in the set, and its reader) and its body entry, found with the record, whose chunks are
/// read without another lookup. The chunks are read from that same reader, so a body found
/// before the archives were reopened comes from the archive it was found in or fails, never
/// from another archive's positions.
package struct ServedBody: Sendable {
    /// The archive's place in the set that found it: the hot-body cache's key.
    let archive: Int
    /// The archive the chunks are read from.
    let reader: ArchiveReader
    /// The body's length, digests and chunks.
    let entry: BodyEntry

    /// The hot-body cache's key for the body.
    var key: HotBodyCache.Key { .init(archive: archive, reference: entry.reference) }
}
