import Foundation
import NIOSSL

/// How an archive is read over HTTP: timeouts, retries, the block cache and whom to trust.
///
/// ```swift
/// var configuration = RemoteConfiguration()
/// configuration.trustRoots = .file("/etc/ssl/private-ca.pem")
/// let reader = try ArchiveReader(url: "https://cdn.example.com/site.webarc", configuration: configuration)
/// ```
public struct RemoteConfiguration: Sendable {
    /// Bytes read from the end of the file at open (`Range: bytes=-16384`), with the file's length
    /// and what ``WebArc/ArchiveReader`` reads there: the trailer and, as a writer places them last,
    /// the metadata and the record root (about 1 KiB for a thousand records; spec §14). When the
    /// root is larger, the reader gets it in one more request. At least 272 (the smallest archive's
    /// end), at most 4 MiB.
    public var tailLength = 16_384
    /// Bytes a download (`verify URL`, ``DownloadedByteSource``) asks for from the end of the file
    /// in its first round trip, beside one stream from the start: enough for the pages of most
    /// archives (a small part of the file), so that the body checks start as
    /// the stream brings the first bodies. The stream stops where this tail begins, so it costs no
    /// byte twice; pages that start before it come in one more request. At least ``tailLength``,
    /// at most 4 MiB.
    public var downloadTailLength = 1 << 20
    /// Longest a connection may take to open (TCP and TLS).
    public var connectTimeout: TimeInterval = 10
    /// Longest a request may wait for its next bytes.
    public var readTimeout: TimeInterval = 30
    /// Retries after a 5xx, a reset or closed connection or a timeout (0: fail at once).
    public var retries = 4
    /// Wait before the first retry; each next one waits twice as long (with jitter), at most 8 s.
    public var retryDelay: TimeInterval = 0.25
    /// Most bytes the block cache keeps (least recently used go first).
    public var cacheBytes = 64 << 20
    /// Most bytes one prefetch request asks for when a body's chunks are read together; a longer
    /// body is fetched window by window, the next one while the current one is read.
    public var prefetchWindow = 4 << 20
    /// Redirects followed per request.
    public var maxRedirects = 8
    /// Certificates that are trusted for https; nil trusts the system's (and `SSL_CERT_FILE` when
    /// it is set, as OpenSSL does).
    public var trustRoots: NIOSSLTrustRoots?
    /// Sent as `User-Agent`.
    public var userAgent = "webarc"
    /// Called with one line per request and response (method, range, status, bytes, time) when set.
    public var trace: (@Sendable (String) -> Void)?

    /// The defaults.
    public init() {}

    /// The trust roots in force: the ones set, else `SSL_CERT_FILE` when set, else the system's.
    var effectiveTrustRoots: NIOSSLTrustRoots {
        if let trustRoots { return trustRoots }
        if let file = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !file.isEmpty { return .file(file) }
        return .default
    }

    /// The delay before retry `attempt` (1-based): exponential with ±25 % jitter, at most 8 s.
    func delay(beforeRetry attempt: Int) -> TimeInterval {
        let base = min(8, retryDelay * pow(2, Double(attempt - 1)))
        return base * Double.random(in: 0.75...1.25)
    }
}
