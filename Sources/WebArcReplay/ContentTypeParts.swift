import Foundation

/// The media type and charset of a `Content-Type` value, as a record stores them (spec §7.3
/// `mimeType`, `textEncoding`): lower case, no parameters. Shared by everything that turns a live
/// response into a record (the URL protocol's recorder and cache, `webarc refresh`).
/// ```swift
/// ContentTypeParts.of("text/HTML; charset=\"UTF-8\"")   // ("text/html", "utf-8")
/// ```
public enum ContentTypeParts {
    /// The media type (nil when empty) and the `charset` parameter of `contentType`.
    public static func of(_ contentType: String?) -> (mimeType: String?, textEncoding: String?) {
        guard let contentType else { return (nil, nil) }
        // Split at every `;` byte, not at `;` Characters: a character that joins the one after it
        // (an Arabic number mark, Grapheme_Cluster_Break=Prepend) would hide a `;` in its cluster
        // and leave the parameters in the media type.
        let parts = contentType.utf8.split(separator: UInt8(ascii: ";")).map { String(String(decoding: $0, as: UTF8.self).trimmingSpaces) }
        let mimeType = parts.first.map { $0.lowercased() }.flatMap { $0.isEmpty ? nil : $0 }
        let charset = parts.dropFirst().first { $0.lowercased().hasPrefix("charset=") }
            .map { String($0.dropFirst(8)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased() }
        return (mimeType, charset)
    }
}
