import Foundation

/// Turns text back into the bytes of its declared charset, for bodies a browser transcoded to
/// UTF-8 when it saved them (HAR `content.text`).
enum TextCharset {
    /// The Foundation encoding for an IANA charset name, for the single-byte charsets common on
    /// the web; nil for UTF-8 and for names not listed.
    static func encoding(_ charset: String?) -> String.Encoding? {
        switch charset?.lowercased() {
        case "iso-8859-1", "latin1", "iso8859-1", "l1": .isoLatin1
        case "windows-1252", "cp1252": .windowsCP1252
        case "iso-8859-2", "latin2": .isoLatin2
        case "windows-1250", "cp1250": .windowsCP1250
        case "windows-1251", "cp1251": .windowsCP1251
        case "us-ascii", "ascii": .ascii
        default: nil
        }
    }

    /// `text` in `charset` when it is a listed single-byte charset and every character fits;
    /// UTF-8 otherwise.
    static func encode(_ text: String, charset: String?) -> [UInt8] {
        if let encoding = encoding(charset), let data = text.data(using: encoding) { return Array(data) }
        return Array(text.utf8)
    }

    /// `bytes` read in `charset` (UTF-8 when not listed), or nil when they do not decode.
    static func decode(_ bytes: [UInt8], charset: String?) -> String? {
        if let encoding = encoding(charset) { return String(data: Data(bytes), encoding: encoding) }
        return String(validating: bytes, as: UTF8.self)
    }
}
