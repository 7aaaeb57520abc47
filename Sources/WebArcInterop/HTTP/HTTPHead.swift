import WebArc

/// The start line and header fields of one HTTP/1 message, as a WARC record or HAR entry holds it.
struct HTTPHead: Equatable {
    /// `HTTP/1.1 200 OK` or `GET /path HTTP/1.1`.
    enum StartLine: Equatable {
        case response(version: String, status: Int, reason: String?)
        case request(method: String, target: String, version: String)
    }

    var startLine: StartLine
    var headers: [HTTPHeader]

    /// Why a header block did not parse.
    struct Failure: Error, Equatable {
        let reason: String
    }

    /// Parses the lines of a header block (without their line ends, without the blank line).
    ///
    /// Header bytes that are not UTF-8 are read as ISO-8859-1, so no byte is lost. A line that is
    /// neither a field nor a continuation of one is skipped, as browsers do.
    /// - Throws: ``Failure`` when the start line is neither a status line (with a three-digit
    ///   status) nor a request line.
    init(lines: [[UInt8]]) throws(Failure) {
        guard let first = lines.first.map(Self.text) else { throw Failure(reason: "empty header block") }
        let parts = first.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        if first.hasPrefix("HTTP/") {
            // Any three digits parse; the caller decides what a status outside 100–599 becomes.
            guard parts.count >= 2, parts[1].utf8.count == 3, parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let status = Int(parts[1])
            else {
                throw Failure(reason: "status line \"\(first)\" has no three-digit status")
            }
            startLine = .response(version: parts[0], status: status, reason: parts.count > 2 ? parts[2] : nil)
        } else if parts.count == 3, parts[2].hasPrefix("HTTP/"), parts[0].allSatisfy({ $0.isLetter || $0 == "-" }) {
            startLine = .request(method: parts[0], target: parts[1], version: parts[2])
        } else {
            throw Failure(reason: "start line \"\(first)\" is neither an HTTP status line nor a request line")
        }
        var headers: [HTTPHeader] = []
        for line in lines.dropFirst() {
            if let lead = line.first, lead == 0x20 || lead == 0x09, !headers.isEmpty {
                headers[headers.count - 1].value += " " + Self.text(line).trimmingHTTPWhitespace()
                continue
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { continue }
            let name = Self.text(line[..<colon]).trimmingHTTPWhitespace()
            guard !name.isEmpty, !name.contains(" ") else { continue }
            headers.append(HTTPHeader(name, Self.text(line[(colon + 1)...]).trimmingHTTPWhitespace()))
        }
        self.headers = headers
    }

    /// UTF-8 when valid, ISO-8859-1 otherwise.
    static func text<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        if let utf8 = String(validating: bytes, as: UTF8.self) { return utf8 }
        return String(bytes.map { Character(Unicode.Scalar($0)) })
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs, CR and LF.
    func trimmingHTTPWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !" \t\r\n".unicodeScalars.contains($0) }) else { return "" }
        let end = scalars.lastIndex(where: { !" \t\r\n".unicodeScalars.contains($0) })!
        return String(scalars[start...end])
    }
}

extension Array where Element == HTTPHeader {
    /// Every value of the headers named `name` (case-insensitive), in order.
    func values(for name: String) -> [String] {
        filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// The headers without those named `name`.
    func removing(_ name: String) -> [HTTPHeader] {
        filter { $0.name.caseInsensitiveCompare(name) != .orderedSame }
    }

    /// The comma-separated tokens of every header named `name`, lower-cased, in order.
    func tokens(for name: String) -> [String] {
        values(for: name).flatMap { $0.split(separator: ",") }.map { String($0).trimmingHTTPWhitespace().lowercased() }
            .filter { !$0.isEmpty }
    }
}
