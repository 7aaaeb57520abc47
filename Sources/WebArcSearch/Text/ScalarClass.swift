/// What a Unicode scalar is to word segmentation: the word-break classes of UAX #29 that search
/// needs, simplified (see ``Analyzer``).
enum ScalarClass: UInt8 {
    /// A letter of an alphabet or syllabary written with spaces (UAX #29 ALetter, Hebrew_Letter).
    case letter
    /// A decimal digit (Numeric).
    case digit
    /// A combining mark: part of the word it follows (Extend).
    case mark
    /// An invisible format character (soft hyphen, joiners): part of the word, not of the term (Format).
    case format
    /// A Han ideograph, Hiragana or Katakana: a word by itself.
    case ideograph
    /// `_` and its kin: joins whatever word characters it touches (ExtendNumLet).
    case connector
    /// Joins two letters: `·` (MidLetter, without `:`).
    case midLetter
    /// Joins two letters or two digits: `.`, `'`, `’` (MidNumLet, Single_Quote).
    case midNumLet
    /// Joins two digits: `,` (MidNum, without `;`).
    case midNum
    /// Anything else: spaces, punctuation, symbols.
    case other

    /// The classes of the 128 ASCII scalars.
    static let asciiTable: [ScalarClass] = (0..<128).map { (code: Int) -> ScalarClass in
        switch UInt8(code) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): .letter
        case UInt8(ascii: "0")...UInt8(ascii: "9"): .digit
        case UInt8(ascii: "_"): .connector
        case UInt8(ascii: "."), UInt8(ascii: "'"): .midNumLet
        case UInt8(ascii: ","): .midNum
        default: .other
        }
    }

    /// The class of an ASCII byte.
    @inline(__always)
    static func of(ascii byte: UInt8) -> ScalarClass { asciiTable[Int(byte)] }

    /// The class of `scalar`.
    static func of(_ scalar: Unicode.Scalar) -> ScalarClass {
        let value = scalar.value
        if value < 0x80 { return asciiTable[Int(value)] }
        switch value {
        case 0x00A0, 0x2000...0x200B, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: return .other
        case 0x00B7, 0x0387, 0x05F4, 0x2027, 0xFE13, 0xFE55, 0xFF1A: return .midLetter
        case 0x2018, 0x2019, 0x2024, 0xFE52, 0xFF07, 0xFF0E: return .midNumLet
        case 0x037E, 0x0589, 0x060C, 0x066C, 0xFE50, 0xFF0C: return .midNum
        case 0x203F, 0x2040, 0x2054, 0xFE33, 0xFE34, 0xFE4D...0xFE4F, 0xFF3F: return .connector
        case 0x200C, 0x200D, 0xFF9E, 0xFF9F: return .mark
        case 0x3005, 0x3007, 0x3021...0x3029, 0x3040...0x309F, 0x30A0...0x30FF, 0x31F0...0x31FF,
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0xFF66...0xFF9D, 0x20000...0x3FFFF:
            return .ideograph
        default:
            break
        }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .letterNumber:
            return .letter
        case .decimalNumber: return .digit
        case .nonspacingMark, .spacingMark, .enclosingMark: return .mark
        case .format: return .format
        default: return .other
        }
    }
}
