import Foundation
import Synchronization

/// Ports on 127.0.0.1 for a test that stops a server and then expects its port to refuse.
///
/// A port the system picks (port 0) comes from its ephemeral range, and the system may give a
/// stopped server's port to the next server another test starts, which then answers what this
/// test expected to be refused. A private port lies below that range, where the system never picks,
/// and each is handed out once per process.
public enum PrivatePort {
    /// A free port below the system's ephemeral range, not handed out before in this process.
    ///
    /// - Throws: `EADDRINUSE` when no port of the private range is free.
    public static func next() throws -> Int {
        let low = ephemeralRangeStart
        let span = max(1, low - firstPort)
        for _ in 0..<span {
            let turn = handedOut.withLock { count in
                defer { count += 1 }
                return count
            }
            let port = firstPort + (offset + turn) % span
            if isFree(port) { return port }
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// The lowest port handed out: above the well-known and most registered services' ports.
    private static let firstPort = 20_000

    /// Where the ports handed out so far start: a different place in each process, so that two
    /// test processes on one machine seldom try the same ports.
    private static let offset = Int(getpid()) &* 7919 % 10_000

    private static let handedOut = Mutex(0)

    /// The first port of the system's ephemeral range (`ip_local_port_range`; 32 768, Linux's
    /// default, when it cannot be read; 49 152, IANA's, on Darwin).
    private static let ephemeralRangeStart: Int = {
        #if os(Linux)
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let low = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
        return max(low, firstPort + 1)
        #else
        return 49_152
        #endif
    }()

    /// Whether a socket can bind `port` on 127.0.0.1 without `SO_REUSEADDR` (nothing holds it).
    private static func isFree(_ port: Int) -> Bool {
        guard let (descriptor, _) = try? TestHTTPServer.boundSocket(port: port, reusingAddress: false) else {
            return false
        }
        close(descriptor)
        return true
    }
}
