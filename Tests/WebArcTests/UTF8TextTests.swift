import Testing
import WebArcTestSupport

@testable import WebArc

/// `UTF8Text.validated`, the index's strict UTF-8 decoding, against the standard library's
/// `String(validating:as:)` (the answer it replaces): edge sequences the UTF-8 rules name, then
/// random byte strings weighted towards the bytes that start and continue sequences.
@Suite("UTF-8 validation")
struct UTF8TextTests {
    static func standard(_ bytes: [UInt8]) -> String? {
        String(validating: bytes, as: UTF8.self)
    }

    @Test("edge sequences: valid ones decode as themselves, invalid ones are refused")
    func edges() {
        let cases: [(bytes: [UInt8], valid: Bool)] = [
            ([], true),
            (Array("http://localhost/index.html".utf8), true),
            ([0x00], true),  // NUL is a character here, as in a field value
            ([0xC3, 0xA9], true),  // é
            ([0xE2, 0x82, 0xAC], true),  // €
            ([0xF0, 0x9F, 0x98, 0x80], true),  // 😀
            ([0xEF, 0xBF, 0xBD], true),  // U+FFFD itself: what a repair puts in
            ([0xF4, 0x8F, 0xBF, 0xBF], true),  // U+10FFFF, the last code point
            ([0x80], false),  // a continuation byte alone
            ([0xC3], false),  // a truncated two-byte sequence
            ([0xE2, 0x82], false),  // a truncated three-byte sequence
            ([0xC0, 0xAF], false),  // an overlong "/"
            ([0xE0, 0x80, 0xAF], false),  // an overlong "/" in three bytes
            ([0xED, 0xA0, 0x80], false),  // a UTF-16 surrogate
            ([0xF4, 0x90, 0x80, 0x80], false),  // past U+10FFFF
            ([0xFF], false),
            (Array("abc".utf8) + [0xEF, 0xBF], false),  // half a U+FFFD at the end
            ([0x61, 0xFE, 0x62], false),
        ]
        for (bytes, valid) in cases {
            let decoded = UTF8Text.validated(bytes)
            #expect((decoded != nil) == valid, "\(bytes)")
            #expect(decoded == Self.standard(bytes), "\(bytes)")
            if let decoded { #expect(Array(decoded.utf8) == bytes) }
            #expect(UTF8Text.validated(bytes[...]) == decoded)
        }
    }

    @Test("random byte strings give the standard library's answer, from slices too")
    func random() {
        var random = SeededGenerator(seed: 8)
        let alphabet: [UInt8] = [
            0x00, 0x2F, 0x41, 0x7F, 0x80, 0x9F, 0xBF, 0xC2, 0xC0, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
        ]
        var valid = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...12, using: &random)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &random)
                    ? alphabet.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            }
            let padded = [0x41] + bytes + [0x42]
            let decoded = UTF8Text.validated(padded[1..<padded.count - 1])
            #expect(decoded == Self.standard(bytes), "\(bytes)")
            if decoded != nil { valid += 1 }
        }
        // Both answers occur often enough for the comparison to mean something.
        #expect(valid > 1_000 && valid < 19_000)
    }

    @Test("precedes orders strings as their UTF-8 bytes do: prefixes first, short (inline) and long strings, non-ASCII")
    func byteOrder() {
        var random = SeededGenerator(seed: 11)
        let pieces = [
            "", "a", "a/", "a-b", "a/b", "_sources/library/", "é", "e\u{301}", "😀", "z", "library/functions.html",
            "\u{0}",
        ]
        var strings = pieces
        for _ in 0..<400 {
            strings.append(
                (0..<Int.random(in: 1...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined())
        }
        var before = 0
        for first in strings.prefix(120) {
            for second in strings.suffix(120) {
                let expected = first.utf8.lexicographicallyPrecedes(second.utf8)
                #expect(UTF8Text.precedes(first, second) == expected, "\(first) vs \(second)")
                if expected { before += 1 }
            }
        }
        #expect(before > 1_000 && before < 13_000)
        // "é" precomposed (C3 A9) sorts after "e" + U+0301 (65 CC 81) by bytes, though the two are equal as Strings.
        #expect(UTF8Text.precedes("e\u{301}", "é") && !UTF8Text.precedes("é", "e\u{301}"))
        #expect(UTF8Text.precedes("a", "a/") && !UTF8Text.precedes("a/", "a") && !UTF8Text.precedes("a", "a"))
    }

    @Test("isValid answers as validated does: edge sequences after ASCII runs of every length, random strings")
    func isValid() {
        var random = SeededGenerator(seed: 12)
        let tails: [[UInt8]] = [
            [], [0xC3, 0xA9], [0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80], [0xEF, 0xBF, 0xBD],
        ]
        for prefix in 0..<20 {
            for tail in tails {
                let bytes = [UInt8](repeating: 0x61, count: prefix) + tail + [UInt8](repeating: 0x62, count: prefix % 3)
                #expect(UTF8Text.isValid(bytes[...]) == (UTF8Text.validated(bytes) != nil), "\(bytes)")
            }
        }
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...24, using: &random)).map { _ in
                Int.random(in: 0..<4, using: &random) == 0
                    ? UInt8.random(in: 0x80...0xFF, using: &random) : UInt8.random(in: 0..<0x80, using: &random)
            }
            let padded = [0xFF] + bytes + [0xFF]
            let slice = padded[1..<padded.count - 1]
            #expect(UTF8Text.isValid(slice) == (UTF8Text.validated(bytes) != nil), "\(bytes)")
        }
    }
}
