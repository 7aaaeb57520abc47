/// An error of a ``ByteSource`` that reads over a network (a remote archive's HTTP server or CDN):
/// the bytes could not be fetched, which says nothing about the archive itself.
///
/// A server answering from such an archive is a gateway to it, so it answers 504 Gateway Timeout
/// when ``timedOut`` and 502 Bad Gateway otherwise, instead of 500 (RFC 9110 §15.6).
package protocol SourceUnreachable: Error {
    /// No answer came in time.
    var timedOut: Bool { get }
}
