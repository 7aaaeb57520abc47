/// Maps an archive's URLs to relative file paths that always stay inside the output folder.
///
/// The mapping (documented in the README):
/// - One origin: paths are the URL path. Several origins: the first folder is `host`, or
///   `host_port` for a non-default port.
/// - Each path segment is percent-decoded, unless the result would be `.`, `..`, empty, contain
///   `/`, `\` or NUL, or not be UTF-8: then the segment is kept encoded (a literal `%2e%2e` folder
///   name is harmless). `\` is always written `%5C`.
/// - A path ending in `/` (or empty) gets `index.html`.
/// - A query is appended to the file name as `?query`, with `/` written `%2F`.
/// - Two URLs that map to one file: written once when the bodies are equal, otherwise the later
///   one is reported. A file where a folder is needed (`/a` beside `/a/b`) is reported.
package enum UnpackPlan {
    /// The relative file path for a canonical URL, or nil when it is not http(s) or too long.
    package static func relativePath(forCanonicalURL url: String, includeOrigin: Bool) -> [String]? {
        // Searched as bytes (a canonical URL is ASCII): Foundation's `range(of:)` goes through NSString.
        guard let schemeEnd = url.utf8.firstRange(of: "://".utf8) else { return nil }
        let scheme = url[..<schemeEnd.lowerBound]
        guard scheme == "http" || scheme == "https" else { return nil }
        var rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        var query: Substring?
        if let mark = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
            query = rest[rest.utf8.index(after: mark)...]
            rest = rest[..<mark]
        }
        // Split as bytes: a Prepend scalar (U+0600) joins the `/` after it into one Character, which
        // would hide a `..` segment inside its neighbour.
        var segments = rest.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
            .map { safeSegment(String(Substring($0))) }
        if segments.isEmpty || segments.last == "" { segments = segments.dropLast() + ["index.html"] }
        segments = segments.map { $0.isEmpty ? "%2F" : $0 }
        if let query {
            segments[segments.count - 1] +=
                "?" + replacing([(UInt8(ascii: "/"), "%2F"), (UInt8(ascii: "\\"), "%5C")], in: query)
        }
        if includeOrigin {
            segments.insert(replacing([(UInt8(ascii: ":"), "_"), (UInt8(ascii: "/"), "_")], in: authority), at: 0)
        }
        guard segments.allSatisfy({ $0.utf8.count <= 255 && $0 != "." && $0 != ".." && !$0.isEmpty }) else {
            return nil
        }
        return segments
    }

    /// Decodes a segment when the decoded name is safe, else keeps it encoded.
    static func safeSegment(_ segment: String) -> String {
        let encoded = replacing([(UInt8(ascii: "\\"), "%5C")], in: segment)
        guard segment.utf8.contains(UInt8(ascii: "%")) else { return encoded }
        var bytes: [UInt8] = []
        var index = segment.utf8.startIndex
        let utf8 = segment.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
                let low = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), low < utf8.endIndex,
                let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = utf8.index(after: low)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        guard let decoded = UTF8Text.validated(bytes), decoded != ".", decoded != "..", !decoded.isEmpty,
            !decoded.contains("/"), !decoded.contains("\\"), !decoded.utf8.contains(0)
        else { return encoded }
        return decoded
    }

    /// `text` with each ASCII byte that `replacements` names written as its replacement: a byte
    /// scan, not Foundation's `replacingOccurrences`, whose bridging through `NSString` costs
    /// `unpack` dearly when paid for every URL, and which could also match inside a composed
    /// character.
    static func replacing(_ replacements: [(byte: UInt8, with: String)], in text: some StringProtocol) -> String {
        let utf8 = text.utf8
        func replacement(_ byte: UInt8) -> String? { replacements.first { $0.byte == byte }?.with }
        guard utf8.contains(where: { replacement($0) != nil }) else { return String(text) }
        var output = ""
        output.reserveCapacity(utf8.count + 8)
        var start = utf8.startIndex
        var index = start
        while index < utf8.endIndex {
            // An ASCII byte starts a Unicode scalar, so these indices slice `text` safely.
            if let replacement = replacement(utf8[index]) {
                output += text[start..<index]
                output += replacement
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        output += text[start...]
        return output
    }
}
