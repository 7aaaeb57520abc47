#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Strict UTF-8 decoding for the index's strings (keys, class names, header text).
///
/// The standard library's `String(validating:as:)` is generic and, outside the standard library,
/// runs unspecialized: every call looks up the encoding's runtime metadata, for every string of
/// the index a command reads. This decodes with the specialized repairing decoder and keeps
/// the result only when it holds exactly the input bytes, which is when they are valid UTF-8: a
/// repair puts U+FFFD (EF BF BD, itself valid) where an invalid sequence was, so a repaired string
/// always differs from its input.
enum UTF8Text {
    /// `bytes` as text when they are valid UTF-8, nil otherwise (what `String(validating: bytes, as:
    /// UTF8.self)` answers).
    static func validated(_ bytes: ArraySlice<UInt8>) -> String? {
        bytes.withUnsafeBufferPointer { validated($0) }
    }

    /// `bytes` as text when they are valid UTF-8, nil otherwise.
    static func validated(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { validated($0) }
    }

    /// `buffer`'s bytes as text when they are valid UTF-8, nil otherwise.
    static func validated(_ buffer: UnsafeBufferPointer<UInt8>) -> String? {
        var text = String(decoding: buffer, as: UTF8.self)
        let exact = text.withUTF8 { decoded in
            decoded.count == buffer.count
                && (buffer.isEmpty || memcmp(decoded.baseAddress!, buffer.baseAddress!, buffer.count) == 0)
        }
        return exact ? text : nil
    }

    /// Whether `bytes` are valid UTF-8, as ``validated(_:)-([UInt8])`` would answer, without making
    /// the text when they are ASCII (header names and values almost always are).
    static func isValid(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            // Eight bytes at a time while no high bit is set.
            while index + 8 <= buffer.count {
                let word = UnsafeRawPointer(buffer.baseAddress! + index).loadUnaligned(as: UInt64.self)
                guard word & 0x8080_8080_8080_8080 == 0 else { return validated(buffer) != nil }
                index += 8
            }
            while index < buffer.count {
                guard buffer[index] < 0x80 else { return validated(buffer) != nil }
                index += 1
            }
            return true
        }
    }

    /// Whether `first`'s UTF-8 bytes sort before `second`'s (`memcmp` order, a prefix first): what
    /// `first.utf8.lexicographicallyPrecedes(second.utf8)` answers, without walking the views a
    /// byte at a time (a ninth of `pack`'s folder scan, sorting paths that share long prefixes).
    static func precedes(_ first: String, _ second: String) -> Bool {
        let answer = first.utf8.withContiguousStorageIfAvailable { a in
            second.utf8.withContiguousStorageIfAvailable { b in KeyOrder.compare(a, b) < 0 }
        }
        return (answer ?? nil) ?? first.utf8.lexicographicallyPrecedes(second.utf8)
    }
}
