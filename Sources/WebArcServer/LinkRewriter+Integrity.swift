import WebArcHTML

/// What a rewritten HTML page must lose so that the browser accepts it: `integrity` hashes of the
/// stored bytes, and Content-Security-Policy `<meta>` elements naming the archived origins.
extension LinkRewriter {
    /// One change to a body: the bytes of `range` replaced.
    struct Edit {
        var range: Range<Int>
        var replacement: [UInt8]
    }

    /// `bytes` with `edits` applied in order of position; an edit overlapping an earlier one (a
    /// link inside a removed `<meta>`) is dropped.
    static func apply(_ edits: [Edit], to bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 256)
        var copied = 0
        for edit in edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound })
        where edit.range.lowerBound >= copied {
            output += bytes[copied..<edit.range.lowerBound]
            output += edit.replacement
            copied = edit.range.upperBound
        }
        output += bytes[copied...]
        return output
    }

    /// Whether `tag` is a `<meta http-equiv="Content-Security-Policy">` (or `…-Report-Only`).
    static func isPolicyMeta(_ tag: HTMLTag) -> Bool {
        tag.name == "meta" && httpEquiv(of: tag)?.hasPrefix("content-security-policy") == true
    }

    /// `range` (an attribute) with the one space before it, so that removing it leaves the tag
    /// spaced as it was.
    static func withSpaceBefore(_ range: Range<Int>, in bytes: [UInt8]) -> Range<Int> {
        range.lowerBound > 0 && isSpace(bytes[range.lowerBound - 1]) ? (range.lowerBound - 1)..<range.upperBound : range
    }
}
