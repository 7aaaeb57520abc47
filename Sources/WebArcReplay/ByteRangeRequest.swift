/// How a `Range` header applies to a body (RFC 9110 §14.1.2, §14.2).
///
/// One range is served: `bytes=first-last`, `bytes=first-` and `bytes=-suffix`. A header with
/// several ranges, another unit or a syntax error is ignored, as RFC 9110 allows, and the whole
/// body is sent. Every number comes from the client, so no arithmetic here can overflow: a
/// `last` of 2^64 − 1 is clamped to the body like any other past its end.
///
/// Spec: `Spec/replay.md` §4.
public enum ByteRangeRequest: Equatable, Sendable {
    /// Send the whole body (no header, or one the engine ignores).
    case whole
    /// Send these bytes with 206 Partial Content.
    case partial(Range<UInt64>)
    /// No byte of the body is in the range: 416 Range Not Satisfiable.
    case unsatisfiable

    /// Evaluates `header` against a body of `length` bytes.
    public init(header: String?, length: UInt64) {
        guard let header else {
            self = .whole
            return
        }
        let text = header.trimmingSpaces
        guard text.utf8.count > 6, text.prefix(6).lowercased() == "bytes=" else {
            self = .whole
            return
        }
        let spec = text.dropFirst(6).trimmingSpaces
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let firstText = spec[..<dash].trimmingSpaces
        let lastText = spec[spec.index(after: dash)...].trimmingSpaces
        if firstText.isEmpty {
            guard let suffix = UInt64.decimal(lastText) else {
                self = .whole
                return
            }
            self = suffix == 0 || length == 0 ? .unsatisfiable : .partial(length - min(suffix, length)..<length)
            return
        }
        guard let first = UInt64.decimal(firstText) else {
            self = .whole
            return
        }
        var end = length
        if !lastText.isEmpty {
            guard let last = UInt64.decimal(lastText), last >= first else {
                self = .whole
                return
            }
            // `last < length` first: `last + 1` cannot overflow then, since length ≤ UInt64.max.
            end = last < length ? last + 1 : length
        }
        self = first < length ? .partial(first..<end) : .unsatisfiable
    }
}

extension UInt64 {
    /// Parses one or more ASCII digits; nil for anything else or on overflow.
    static func decimal(_ text: Substring) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return UInt64(text)
    }
}

extension StringProtocol where SubSequence == Substring {
    /// The text without leading and trailing spaces and tabs.
    public var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let start = firstIndex { !isSpace($0) } ?? endIndex
        let end = lastIndex { !isSpace($0) }.map { index(after: $0) } ?? start
        return self[start..<Swift.max(start, end)]
    }
}
