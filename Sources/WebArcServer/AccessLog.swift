import Logging
import NIOCore
import NIOHTTP1
import WebArc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One line per request through swift-log, e.g.
/// `127.0.0.1 "GET /docs/ HTTP/1.1" 200 5120`: client, request line, status, body bytes sent.
///
/// The line tells what went out, written once the response has: a body that failed before its
/// head was sent is logged with the status of the error page sent instead, and one that failed
/// after it with the body bytes actually written (short of the length the head declared), each
/// followed by an error line naming the failure.
public struct AccessLog: Sendable {
    /// The logger lines go to, at level `info`.
    public let logger: Logger

    /// Makes an access log writing to `logger`.
    public init(logger: Logger) { self.logger = logger }

    /// An access log printing one plain line per request on stderr.
    public static func standardError() -> AccessLog {
        AccessLog(logger: Logger(label: "webarc.access") { _ in StandardErrorLineHandler() })
    }

    /// Logs one answered request: the status sent and the body bytes written.
    func record(_ request: ArchiveRequest, version: HTTPVersion, status: Int, bytes: UInt64, client: SocketAddress?) {
        let address = client?.ipAddress ?? "-"
        logger.info(
            "\(address) \"\(request.method) \(Self.shown(request)) HTTP/\(version.major).\(version.minor)\" \(status) \(bytes)"
        )
    }

    /// Logs a body that failed after its head was sent with `sent` of its `length` bytes written.
    func failure(_ error: any Error, request: ArchiveRequest, sent: UInt64, of length: UInt64) {
        logger.error(
            "body of \(request.method) \(Self.shown(request)) failed after \(sent) of \(length) bytes, connection closed: \(error)"
        )
    }

    /// Logs a body that failed before its head was sent: an error page with `status` went out instead.
    func failure(_ error: any Error, request: ArchiveRequest, answered status: Int) {
        logger.error(
            "body of \(request.method) \(Self.shown(request)) failed before it was sent, answered \(status) instead: \(error)"
        )
    }

    /// Logs a failure with no response under way (the server was stopping).
    func failure(_ error: any Error) {
        logger.error("request failed, connection closed: \(error)")
    }

    /// The request target as logged: at most 200 characters.
    private static func shown(_ request: ArchiveRequest) -> Substring {
        request.target.count > 200 ? request.target.prefix(200) + "…" : Substring(request.target)
    }
}

/// A swift-log handler that writes each message as one line on stderr, prefixed by the UTC time.
public struct StandardErrorLineHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info

    /// Makes a handler at level `info`.
    public init() {}

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let stamp =
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
        let level = event.level >= .warning ? " \(event.level)" : ""
        let line = Array("\(stamp)\(level) \(event.message)\n".utf8)
        _ = FileWriting.writeAll(line, to: STDERR_FILENO)
    }
}
