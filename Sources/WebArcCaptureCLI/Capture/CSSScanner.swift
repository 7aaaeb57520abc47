/// Finds the URLs a stylesheet refers to: every `url(…)` and every `@import "…"`, outside comments.
enum CSSScanner {
    /// The references in `css`, as written (unresolved), in order.
    static func references(in css: [UInt8]) -> [String] {
        var references: [String] = []
        var index = 0
        func at(_ text: String) -> Bool {
            let needle = Array(text.utf8)
            return index + needle.count <= css.count
                && zip(css[index..<index + needle.count], needle).allSatisfy { HTMLScanner.lower($0) == $1 }
        }
        func skipSpace() { while index < css.count, HTMLScanner.isSpace(css[index]) { index += 1 } }
        func quoted() -> String? {
            guard index < css.count, css[index] == UInt8(ascii: "\"") || css[index] == UInt8(ascii: "'") else { return nil }
            let quote = css[index]
            let start = index + 1
            index = start
            while index < css.count, css[index] != quote, css[index] != 0x0A { index += 1 }
            defer { index += 1 }
            return String(decoding: css[start..<min(index, css.count)], as: UTF8.self)
        }
        while index < css.count {
            if at("/*") {
                index += 2
                while index < css.count, !at("*/") { index += 1 }
                index += 2
            } else if at("url(") {
                index += 4
                skipSpace()
                if let text = quoted() {
                    references.append(text)
                } else {
                    let start = index
                    while index < css.count, css[index] != UInt8(ascii: ")"), !HTMLScanner.isSpace(css[index]) { index += 1 }
                    references.append(String(decoding: css[start..<index], as: UTF8.self))
                }
            } else if at("@import") {
                index += 7
                skipSpace()
                if let text = quoted() { references.append(text) }
            } else if css[index] == UInt8(ascii: "\"") || css[index] == UInt8(ascii: "'") {
                // A string outside url() and @import names nothing; skipping it whole keeps a
                // "url(" inside it from counting.
                _ = quoted()
            } else {
                index += 1
            }
        }
        return references.filter { !$0.isEmpty && !$0.lowercased().hasPrefix("data:") }
    }
}
