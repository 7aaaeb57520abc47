import WebArc

import struct Foundation.Date

/// The version line and named fields that open a WARC record.
///
/// Spec: ISO 28500 (WARC 1.0 and 1.1) §4–§5; `WARC/0.17` and `WARC/0.18` are read the same way.
struct WARCRecordHeader {
    /// The versions read.
    static let versions: Set<String> = ["WARC/1.0", "WARC/1.1", "WARC/0.17", "WARC/0.18"]

    var version: String
    var fields: [HTTPHeader]
    /// `Content-Length`: the block's size in bytes.
    var contentLength: UInt64

    /// Why a header did not parse.
    struct Failure: Error {
        let reason: String
    }

    /// Parses the version line and the field lines (without line ends and the blank line).
    init(versionLine: [UInt8], fieldLines: [[UInt8]]) throws(Failure) {
        let first = HTTPHead.text(versionLine.prefix(80)).trimmingHTTPWhitespace()
        guard Self.versions.contains(first) else {
            throw Failure(reason: "first line is \"\(first)\", not WARC/1.0 or WARC/1.1")
        }
        version = first
        var fields: [HTTPHeader] = []
        for line in fieldLines {
            if let lead = line.first, lead == 0x20 || lead == 0x09, !fields.isEmpty {
                fields[fields.count - 1].value += " " + HTTPHead.text(line).trimmingHTTPWhitespace()
                continue
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else {
                throw Failure(reason: "field line \"\(HTTPHead.text(line.prefix(60)))\" has no colon")
            }
            fields.append(
                HTTPHeader(
                    HTTPHead.text(line[..<colon]).trimmingHTTPWhitespace(),
                    HTTPHead.text(line[(colon + 1)...]).trimmingHTTPWhitespace()))
        }
        self.fields = fields
        guard let lengthText = fields.value(for: "Content-Length") else {
            throw Failure(reason: "no Content-Length field")
        }
        guard let length = UInt64(lengthText) else {
            throw Failure(reason: "Content-Length \"\(lengthText)\" is not a number")
        }
        contentLength = length
    }

    /// The value of a field, compared case-insensitively.
    subscript(_ name: String) -> String? { fields.value(for: name) }

    /// `WARC-Type`, lower case.
    var type: String { (self["WARC-Type"] ?? "").lowercased() }
    /// `WARC-Record-ID`.
    var recordID: String? { self["WARC-Record-ID"] }
    /// `WARC-Target-URI` without the angle brackets WARC 1.0 examples put around it.
    var targetURI: String? { self["WARC-Target-URI"].map(Self.unbracketed) }
    /// Every `WARC-Concurrent-To`.
    var concurrentTo: [String] { fields.values(for: "WARC-Concurrent-To") }
    /// `WARC-Date` parsed.
    var date: Date? { self["WARC-Date"].flatMap(ISODate.parse) }
    /// `WARC-Payload-Digest` normalized for comparison (`sha1:` + upper-case digest).
    var payloadDigest: String? { self["WARC-Payload-Digest"].map(Self.normalizedDigest) }

    static func unbracketed(_ uri: String) -> String {
        uri.hasPrefix("<") && uri.hasSuffix(">") ? String(uri.dropFirst().dropLast()) : uri
    }

    static func normalizedDigest(_ digest: String) -> String {
        let parts = digest.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else { return digest.uppercased() }
        return parts[0].lowercased() + ":" + parts[1].uppercased()
    }
}
