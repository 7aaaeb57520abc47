import NIOHTTP1

/// What identifies the version of a remote file first opened: its `ETag` and `Last-Modified`.
///
/// Every later response is compared with it, so a file replaced while it is read is caught
/// (``RemoteError/changed(url:reason:)``) instead of mixing two versions.
public struct Validator: Sendable, Equatable {
    /// The `ETag` as sent, weak or strong.
    public var etag: String?
    /// The `Last-Modified` as sent.
    public var lastModified: String?

    init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The validator of a response with `headers` (the first of each name).
    public init(_ headers: HTTPHeaders) {
        etag = headers.first(name: "etag")
        lastModified = headers.first(name: "last-modified")
    }

    /// The precondition a request sends: `If-Match` with a strong `ETag` (a weak one never
    /// matches there), else `If-Unmodified-Since`.
    public var precondition: (name: String, value: String)? {
        if let etag, !etag.hasPrefix("W/") { return ("If-Match", etag) }
        if let lastModified { return ("If-Unmodified-Since", lastModified) }
        return nil
    }

    /// Why `headers` describe another version of the file than this validator, or nil.
    ///
    /// A validator the response does not repeat is not compared.
    public func mismatch(_ headers: HTTPHeaders) -> String? {
        if let etag, let found = headers.first(name: "etag"), found != etag { return "ETag \(found), was \(etag)" }
        if let lastModified, let found = headers.first(name: "last-modified"), found != lastModified {
            return "Last-Modified \(found), was \(lastModified)"
        }
        return nil
    }
}
