/// The bytes HTML and CSS syntax is made of, and ASCII-only case folding (the standards fold
/// names with ASCII rules, never with Unicode ones).
enum ASCII {
    static let lessThan = UInt8(ascii: "<")
    static let greaterThan = UInt8(ascii: ">")
    static let slash = UInt8(ascii: "/")
    static let exclamation = UInt8(ascii: "!")
    static let question = UInt8(ascii: "?")
    static let dash = UInt8(ascii: "-")
    static let equals = UInt8(ascii: "=")
    static let doubleQuote = UInt8(ascii: "\"")
    static let singleQuote = UInt8(ascii: "'")

    /// `byte` with an ASCII upper-case letter made lower case.
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// `bytes` as a string (UTF-8, invalid sequences replaced), ASCII letters lower-cased.
    static func lowercasedString(_ bytes: ArraySlice<UInt8>) -> String {
        // Names are almost always lower case already: decode them without a copy.
        guard bytes.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(decoding: bytes.map(lowercased), as: UTF8.self)
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        let lower = lowercased(byte)
        return lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
    }

    /// HTML's ASCII whitespace: space, tab, line feed, form feed, carriage return.
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }
}
