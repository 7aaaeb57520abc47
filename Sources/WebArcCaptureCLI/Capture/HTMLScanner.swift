/// Reads the start tags of an HTML document one by one, with their attributes and, for raw-text
/// elements (`script`, `style`, `textarea`, `title`), their contents.
///
/// Tolerant by design: anything it does not understand is skipped, never an error.
struct HTMLScanner {
    /// One start tag.
    struct Element {
        /// The tag name, lower case.
        var name: String
        /// Attribute names (lower case) and values as written.
        var attributes: [(name: String, value: String)]
        /// The contents of a raw-text element; empty for others.
        var text: [UInt8] = []
    }

    private let bytes: [UInt8]
    private var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private static let rawText: Set<String> = ["script", "style", "textarea", "title"]

    /// The next start tag, or nil at the end.
    mutating func nextElement() -> Element? {
        while let open = find([UInt8(ascii: "<")], from: index) {
            index = open + 1
            if starts(with: "!--", at: index) {
                index = (find(Array("-->".utf8), from: index + 3).map { $0 + 3 }) ?? bytes.count
                continue
            }
            guard index < bytes.count, Self.isLetter(bytes[index]) else {
                index = find([UInt8(ascii: ">")], from: index).map { $0 + 1 } ?? bytes.count
                continue
            }
            let name = lowercased(readWhile { !Self.isSpace($0) && $0 != UInt8(ascii: ">") && $0 != UInt8(ascii: "/") })
            var element = Element(name: name, attributes: readAttributes())
            if Self.rawText.contains(name) {
                let end = findClosing(name) ?? bytes.count
                element.text = Array(bytes[min(index, end)..<end])
                index = end
            }
            return element
        }
        index = bytes.count
        return nil
    }

    private mutating func readAttributes() -> [(name: String, value: String)] {
        var attributes: [(name: String, value: String)] = []
        while index < bytes.count {
            _ = readWhile { Self.isSpace($0) || $0 == UInt8(ascii: "/") }
            guard index < bytes.count else { break }
            if bytes[index] == UInt8(ascii: ">") {
                index += 1
                break
            }
            let name = lowercased(readWhile { !Self.isSpace($0) && $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: ">") })
            _ = readWhile(Self.isSpace)
            var value = ""
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                _ = readWhile(Self.isSpace)
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
                    let quote = bytes[index]
                    index += 1
                    value = String(decoding: readWhile { $0 != quote }, as: UTF8.self)
                    index += 1
                } else {
                    value = String(decoding: readWhile { !Self.isSpace($0) && $0 != UInt8(ascii: ">") }, as: UTF8.self)
                }
            }
            if !name.isEmpty { attributes.append((name, value)) }
        }
        return attributes
    }

    /// The offset of `</name` (any case) from the current position.
    private func findClosing(_ name: String) -> Int? {
        let needle = Array("</\(name)".utf8)
        var from = index
        while let hit = find([UInt8(ascii: "<")], from: from) {
            if hit + needle.count <= bytes.count,
                zip(bytes[hit..<hit + needle.count], needle).allSatisfy({ Self.lower($0) == $1 })
            {
                return hit
            }
            from = hit + 1
        }
        return nil
    }

    private mutating func readWhile(_ accept: (UInt8) -> Bool) -> ArraySlice<UInt8> {
        let start = index
        while index < bytes.count, accept(bytes[index]) { index += 1 }
        return bytes[start..<index]
    }

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, start < bytes.count else { return nil }
        var position = start
        while position + needle.count <= bytes.count {
            if bytes[position] == needle[0], bytes[position..<position + needle.count].elementsEqual(needle) { return position }
            position += 1
        }
        return nil
    }

    private func starts(with text: String, at position: Int) -> Bool {
        let needle = Array(text.utf8)
        return position + needle.count <= bytes.count && bytes[position..<position + needle.count].elementsEqual(needle)
    }

    private func lowercased(_ slice: ArraySlice<UInt8>) -> String {
        String(decoding: slice.map(Self.lower), as: UTF8.self)
    }

    static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(lower(byte))
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }
}
