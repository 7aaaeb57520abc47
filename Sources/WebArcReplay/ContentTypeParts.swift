import Foundation

/// The media type and charset of a `Content-Type` value, as a record stores them (spec §7.3
/// `mimeType`, `textEncoding`): lower case, no parameters. Shared by everything that turns a
/// response into a record or reads one back (the URL protocol's recorder and cache, `webarc
/// refresh`, import and export).
/// ```swift
/// ContentTypeParts.of("text/HTML; charset=\"UTF-8\"")   // ("text/html", "utf-8")
/// ```
public enum ContentTypeParts {
    /// The media type (nil unless it is `type/subtype`, RFC 9110 §8.3.1) and the first `charset`
    /// parameter of `contentType` (the one a browser takes).
    public static func of(_ contentType: String?) -> (mimeType: String?, textEncoding: String?) {
        guard let contentType else { return (nil, nil) }
        // Split at every `;` byte, not at `;` Characters: a character that joins the one after it
        // (an Arabic number mark, Grapheme_Cluster_Break=Prepend) would hide a `;` in its cluster
        // and leave the parameters in the media type.
        let parts = contentType.utf8.split(separator: UInt8(ascii: ";")).map {
            String(String(decoding: $0, as: UTF8.self).trimmingSpaces)
        }
        let mimeType = parts.first.map { $0.lowercased() }.flatMap { $0.contains("/") ? $0 : nil }
        let charset = parts.dropFirst().first { $0.lowercased().hasPrefix("charset=") }
            .map { String($0.dropFirst(8)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased() }
        return (mimeType, charset)
    }
}
