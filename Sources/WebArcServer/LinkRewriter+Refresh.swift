import WebArcReplay

/// `<meta http-equiv="refresh">` elements that lead where a replay never goes.
extension LinkRewriter {
    /// The whole `<meta http-equiv="refresh" content="…; url=…">` element opening at `start` when
    /// its target is not an http(s) or webarc URL (`javascript:`, `data:`, `file:`, …): the
    /// element is removed, as the server drops such a `Refresh` header (``ReplaySafety``).
    static func unsafeRefreshMeta(_ bytes: [UInt8], at start: Int) -> Range<Int>? {
        guard matches(bytes, at: start, "<meta"), start + 5 < bytes.count,
            isSpace(bytes[start + 5]) || bytes[start + 5] == UInt8(ascii: "/")
        else { return nil }
        let end = tagEnd(bytes, from: start)
        let tag = String(decoding: bytes[start..<end], as: UTF8.self)
        let lower = tag.lowercased()
        guard lower.contains("http-equiv"), lower.contains("refresh"), let content = attributeValue("content", in: tag),
            let target = ReplaySafety.refreshTarget(content), !ReplaySafety.isReplayable(target)
        else { return nil }
        return start..<end
    }

    /// The value of attribute `name` (lower case) in the text of one tag, quotes removed.
    static func attributeValue(_ name: String, in tag: String) -> String? {
        let bytes = Array(tag.utf8)
        let wanted = Array(name.utf8)
        var index = 1
        while index + wanted.count <= bytes.count {
            defer { index += 1 }
            guard isSpace(bytes[index - 1]),
                bytes[index..<(index + wanted.count)].map({ $0 | 0x20 }).elementsEqual(wanted)
            else { continue }
            var cursor = index + wanted.count
            while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") else { continue }
            cursor += 1
            while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
            guard cursor < bytes.count else { return "" }
            if bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'") {
                let quote = bytes[cursor]
                let valueEnd = bytes[(cursor + 1)...].firstIndex(of: quote) ?? bytes.count
                return String(decoding: bytes[(cursor + 1)..<valueEnd], as: UTF8.self)
            }
            var valueEnd = cursor
            while valueEnd < bytes.count, !isSpace(bytes[valueEnd]), bytes[valueEnd] != UInt8(ascii: ">") { valueEnd += 1 }
            return String(decoding: bytes[cursor..<valueEnd], as: UTF8.self)
        }
        return nil
    }
}
