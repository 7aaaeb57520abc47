import WebArc

/// The stored response headers every replay drops, whatever carries the answer.
///
/// - hop-by-hop headers (`Connection`, `Keep-Alive`, `Proxy-Connection`, `TE`, `Trailer`,
///   `Transfer-Encoding`, `Upgrade`, `Proxy-Authenticate`, `Proxy-Authorization`) and any header
///   a stored `Connection` names: they described the captured connection, not the body;
/// - `Content-Length`: recomputed for the bytes actually sent;
/// - a `Location` or `Refresh` that leads outside http(s) and webarc (``ReplaySafety``).
///
/// Each front end drops or renames a few more, listed with it (README, "Server and URL protocol").
///
/// Spec: `Spec/replay.md` §4, §5.
public enum StoredHeaders {
    /// Lower-case names never replayed.
    public static let dropped: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authorization", "content-length",
    ]

    /// The stored headers that may go out, in their stored order and case, without those whose
    /// lower-case name is in ``dropped`` or `alsoDropped`.
    public static func replayable(_ stored: [HTTPHeader], alsoDropping alsoDropped: Set<String> = []) -> [HTTPHeader] {
        let nominated = stored.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.split(separator: ",").map { $0.trimmingSpaces.lowercased() } }
        return stored.filter {
            let name = $0.name.lowercased()
            return !dropped.contains(name) && !alsoDropped.contains(name) && !nominated.contains(name)
                && ReplaySafety.isReplayable($0)
        }
    }
}
