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
public enum UnpackPlan {
    /// The relative file path for a canonical URL, or nil when it is not http(s) or too long.
    public static func relativePath(forCanonicalURL url: String, includeOrigin: Bool) -> [String]? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let scheme = url[..<schemeEnd.lowerBound]
        guard scheme == "http" || scheme == "https" else { return nil }
        var rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var segments = rest.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { safeSegment(String($0)) }
        if segments.isEmpty || segments.last == "" { segments = segments.dropLast() + ["index.html"] }
        segments = segments.map { $0.isEmpty ? "%2F" : $0 }
        if let query {
            segments[segments.count - 1] += "?" + query.replacingOccurrences(of: "/", with: "%2F").replacingOccurrences(of: "\\", with: "%5C")
        }
        if includeOrigin {
            segments.insert(String(authority).replacingOccurrences(of: ":", with: "_").replacingOccurrences(of: "/", with: "_"), at: 0)
        }
        guard segments.allSatisfy({ $0.utf8.count <= 255 && $0 != "." && $0 != ".." && !$0.isEmpty }) else { return nil }
        return segments
    }

    /// Decodes a segment when the decoded name is safe, else keeps it encoded.
    static func safeSegment(_ segment: String) -> String {
        let encoded = segment.replacingOccurrences(of: "\\", with: "%5C")
        guard segment.contains("%") else { return encoded }
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
        guard let decoded = String(validating: bytes, as: UTF8.self), decoded != ".", decoded != "..", !decoded.isEmpty,
            !decoded.contains("/"), !decoded.contains("\\"), !decoded.utf8.contains(0)
        else { return encoded }
        return decoded
    }
}
