/// Case and diacritic folding of one Unicode scalar at a time, from a generated table
/// (`FoldingTable.swift`, made by Tools/make-search-tables.py): compatibility decomposition,
/// combining diacritics dropped, full case folding (`É` → `e`, `ß` → `ss`, `ﬁ` → `fi`, `Ａ` → `a`).
///
/// A table rather than the platform's Unicode functions, so a term is folded the same way by every
/// writer and reader of an index whatever its Swift or Foundation version. Folding is idempotent:
/// every folded form folds to itself.
enum CaseFolding {
    /// A table entry: bit 31 set when the scalar has one, the folded UTF-8 bytes' offset in
    /// ``Table/bytes`` in bits 8–30 and their count in bits 0–7.
    private struct Table: Sendable {
        var bytes: [UInt8] = []
        /// Entries of U+0000–U+FFFF, by scalar value.
        var basic = [UInt32](repeating: 0, count: 0x10000)
        /// Entries above U+FFFF.
        var supplementary: [UInt32: UInt32] = [:]

        init(parsing text: String) {
            bytes.reserveCapacity(24_000)
            var utf8 = text.utf8.makeIterator()
            // Each entry is `key=value.value…`, all hexadecimal, ended by a space or a line break.
            var key: UInt32 = 0
            var value: UInt32 = 0
            var readingKey = true
            var hasDigits = false
            var start = 0
            func finishValue() {
                guard hasDigits, let scalar = Unicode.Scalar(value) else { return }
                bytes.append(contentsOf: UTF8.encode(scalar)!)
            }
            func finishEntry() {
                let entry = 0x8000_0000 | UInt32(start) << 8 | UInt32(bytes.count - start)
                if key < 0x10000 { basic[Int(key)] = entry } else { supplementary[key] = entry }
            }
            while let byte = utf8.next() {
                switch byte {
                case UInt8(ascii: "="):
                    readingKey = false
                    hasDigits = false
                    value = 0
                    start = bytes.count
                case UInt8(ascii: "."):
                    finishValue()
                    hasDigits = false
                    value = 0
                case UInt8(ascii: " "), UInt8(ascii: "\n"):
                    guard !readingKey else { continue }
                    finishValue()
                    finishEntry()
                    readingKey = true
                    key = 0
                default:
                    let digit = UInt32(
                        byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : byte - UInt8(ascii: "a") + 10)
                    if readingKey {
                        key = key << 4 | digit
                    } else {
                        value = value << 4 | digit
                        hasDigits = true
                    }
                }
            }
            if !readingKey {
                finishValue()
                finishEntry()
            }
        }
    }

    /// Parsed on first use (under a millisecond), then shared by every thread.
    private static let table = Table(parsing: tableText)

    /// Appends the folded form of `scalar` (above ASCII) to `output`: its UTF-8 bytes, or nothing
    /// for a combining diacritic.
    @inline(__always)
    static func appendFolded(_ scalar: Unicode.Scalar, to output: inout [UInt8]) {
        let value = scalar.value
        let entry = value < 0x10000 ? table.basic[Int(value)] : (table.supplementary[value] ?? 0)
        if entry & 0x8000_0000 != 0 {
            let start = Int(entry >> 8 & 0x7F_FFFF)
            output.append(contentsOf: table.bytes[start..<start + Int(entry & 0xFF)])
        } else {
            output.append(contentsOf: UTF8.encode(scalar)!)
        }
    }

    /// `text` with every scalar folded (ASCII letters lower-cased) as words are folded: format
    /// characters left out, `’` and its kin as `'`.
    static func fold(_ text: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                output.append(ASCIIByte.lowercased(UInt8(scalar.value)))
            } else if isApostrophe(scalar) {
                output.append(UInt8(ascii: "'"))
            } else if ScalarClass.of(scalar) != .format {
                appendFolded(scalar, to: &output)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether `scalar` is an apostrophe other than ASCII's, which words fold to `'`.
    @inline(__always)
    static func isApostrophe(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x2019 || scalar.value == 0x2018 || scalar.value == 0xFF07
    }
}

/// ASCII byte tests for the text code. WebArcHTML's twins stay internal: Tools/fuzz builds this
/// folder as a target of its own package, against WebArcHTML's public API only.
enum ASCIIByte {
    /// `byte` with an upper-case ASCII letter made lower case.
    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }

    /// Whether `byte` is HTML's ASCII whitespace (space, tab, line feed, form feed, carriage return).
    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0C || byte == 0x0D
    }
}
