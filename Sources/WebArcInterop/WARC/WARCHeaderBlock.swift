import Foundation
import WebArc

/// A WARC record's header fields followed by its HTTP header block, without the payload: what
/// warc2zim 1.x stores for each crawled URL (its `H/` entries), so that a ZIM import can give
/// every payload back its URL, status and headers.
package struct WARCHeaderBlock: Equatable, Sendable {
    /// `WARC-Type`, lower case.
    package var type: String
    /// `WARC-Target-URI`, angle brackets removed.
    package var targetURI: String
    /// `WARC-Refers-To-Target-URI` of a revisit.
    package var refersToTargetURI: String?
    /// `WARC-Date`.
    package var date: Date?
    /// The HTTP status line and headers, when the record has them (a `response` or `revisit`).
    package var status: Int?
    package var reason: String?
    package var headers: [HTTPHeader]

    /// Why a block did not parse.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        package let reason: String
        package var description: String { reason }
    }

    /// Parses the WARC header lines, the blank line, then (when any bytes are left) the HTTP header lines.
    ///
    /// - Throws: ``Failure`` for a WARC header that does not parse or names no target, and for an
    ///   HTTP header block without a status line.
    package init(parsing bytes: [UInt8]) throws(Failure) {
        let lines = Self.lines(bytes)
        let blank = lines.firstIndex(where: \.isEmpty) ?? lines.endIndex
        guard blank > 0 else { throw Failure(reason: "no WARC header") }
        // The record's own Content-Length is there too: it describes a block not stored here.
        let header: WARCRecordHeader
        do {
            header = try WARCRecordHeader(versionLine: Array(lines[0]), fieldLines: lines[1..<blank].map(Array.init))
        } catch {
            throw Failure(reason: error.reason)
        }
        guard let target = header.targetURI, !target.isEmpty else { throw Failure(reason: "no WARC-Target-URI") }
        type = header.type
        targetURI = target
        refersToTargetURI = header["WARC-Refers-To-Target-URI"].map(WARCRecordHeader.unbracketed)
        date = header.date
        let http = lines[min(blank + 1, lines.endIndex)...].prefix { !$0.isEmpty }.map(Array.init)
        guard !http.isEmpty else {
            headers = []
            return
        }
        let head: HTTPHead
        do {
            head = try HTTPHead(lines: http)
        } catch {
            throw Failure(reason: error.reason)
        }
        guard case .response(_, let status, let reason) = head.startLine else {
            throw Failure(reason: "the HTTP block opens with a request line, not a status line")
        }
        self.status = status
        self.reason = reason
        headers = head.headers
    }

    /// The headers that describe the body as warc2zim stored it (decoded by warcio): no
    /// `Transfer-Encoding` or `Content-Encoding`, `Content-Length` equal to `length`.
    package func storedHeaders(length: UInt64) -> [HTTPHeader] {
        ContentCoding.headers(headers.removing("Content-Encoding"), remaining: [], length: length)
    }

    /// The headers a redirect made of this block keeps, as a WARC import keeps them: its body's
    /// `Content-Length`, `Content-Encoding` and `Transfer-Encoding` dropped with the body.
    package var redirectHeaders: [HTTPHeader] {
        headers.removing("Content-Length").removing("Content-Encoding").removing("Transfer-Encoding")
    }

    /// The lines of `bytes`, CRLF or LF ended, without their ends.
    private static func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? line.dropLast() : line
        }
    }
}
