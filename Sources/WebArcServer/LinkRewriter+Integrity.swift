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
        for edit in edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) where edit.range.lowerBound >= copied {
            output += bytes[copied..<edit.range.lowerBound]
            output += edit.replacement
            copied = edit.range.upperBound
        }
        output += bytes[copied...]
        return output
    }

    /// The index after the `>` that closes the tag opened at `start` (or the end of the body).
    static func tagEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count, bytes[index] != UInt8(ascii: ">") { index += 1 }
        return min(index + 1, bytes.count)
    }

    /// The whole `<meta http-equiv="Content-Security-Policy…" …>` element opening at `start`, if it is one.
    static func policyMeta(_ bytes: [UInt8], at start: Int) -> Range<Int>? {
        guard matches(bytes, at: start, "<meta"), start + 5 < bytes.count,
            isSpace(bytes[start + 5]) || bytes[start + 5] == UInt8(ascii: "/")
        else { return nil }
        let end = tagEnd(bytes, from: start)
        let tag = String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
        guard tag.contains("http-equiv"), tag.contains("content-security-policy") else { return nil }
        return start..<end
    }

    /// The `integrity` attribute (with the space before it and its value) of the tag opened at
    /// `start`, if it has one.
    static func integrityAttribute(_ bytes: [UInt8], inTagAt start: Int) -> Range<Int>? {
        let end = tagEnd(bytes, from: start)
        var index = start + 1
        while index < end {
            guard isSpace(bytes[index - 1]), matches(bytes, at: index, "integrity"), index + 9 < end,
                !isNameByte(bytes[index + 9])
            else {
                index += 1
                continue
            }
            var valueEnd = index + 9
            while valueEnd < end, isSpace(bytes[valueEnd]) { valueEnd += 1 }
            guard valueEnd < end, bytes[valueEnd] == UInt8(ascii: "=") else { return (index - 1)..<(index + 9) }
            valueEnd += 1
            while valueEnd < end, isSpace(bytes[valueEnd]) { valueEnd += 1 }
            if valueEnd < end, bytes[valueEnd] == UInt8(ascii: "\"") || bytes[valueEnd] == UInt8(ascii: "'") {
                let quote = bytes[valueEnd]
                valueEnd += 1
                while valueEnd < end, bytes[valueEnd] != quote { valueEnd += 1 }
                return (index - 1)..<min(valueEnd + 1, end)
            }
            while valueEnd < end, !isSpace(bytes[valueEnd]), bytes[valueEnd] != UInt8(ascii: ">") { valueEnd += 1 }
            return (index - 1)..<valueEnd
        }
        return nil
    }
}
