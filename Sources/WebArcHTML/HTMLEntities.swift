/// The character references that URLs in attribute values commonly hold.
///
/// Not the standard's table of 2,231 names: `&amp;` (and `&#38;`) is what a page writes in a link
/// with several query parameters, and `&quot;`, `&#39;` and `&apos;` are what it writes for a
/// quote. Every other reference is left as written.
public enum HTMLEntities {
    private static let references: [(String, String)] = [
        ("&amp;", "&"), ("&#38;", "&"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"),
    ]

    /// `text` with `&amp;`, `&#38;`, `&quot;`, `&#39;` and `&apos;` decoded, in one pass (so
    /// `&amp;quot;` becomes `&quot;`, as a browser reads it).
    public static func decode(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        var output = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            output += rest[..<ampersand]
            rest = rest[ampersand...]
            if let (reference, character) = references.first(where: { rest.hasPrefix($0.0) }) {
                output += character
                rest = rest.dropFirst(reference.count)
            } else {
                output += "&"
                rest = rest.dropFirst()
            }
        }
        return output + rest
    }
}
