/// The URLs a stylesheet, a `<style>` element or a `style` attribute refers to: every `url(…)`
/// and every `@import "…"`, outside comments and strings.
///
/// A scanner, not a CSS parser: `url(` and `@import` match in any case, a string ends at its
/// quote or at a line feed, an unterminated comment runs to the end. Linear in the input.
public enum CSSReferences {
    /// The references in `css`, as written (unresolved, escapes not decoded), in order; empty
    /// ones and `data:` URLs are left out.
    public static func urls(in css: some Collection<UInt8>) -> [String] {
        let css = Array(css)
        var references: [String] = []
        var index = 0
        func at(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard index + count <= css.count else { return false }
            for offset in 0..<count where ASCII.lowercased(css[index + offset]) != text.utf8Start[offset] {
                return false
            }
            return true
        }
        func skipSpace() { while index < css.count, ASCII.isSpace(css[index]) { index += 1 } }
        func quoted() -> String? {
            guard index < css.count, css[index] == ASCII.doubleQuote || css[index] == ASCII.singleQuote else {
                return nil
            }
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
                    while index < css.count, css[index] != UInt8(ascii: ")"), !ASCII.isSpace(css[index]) { index += 1 }
                    references.append(String(decoding: css[start..<index], as: UTF8.self))
                }
            } else if at("@import") {
                index += 7
                skipSpace()
                if let text = quoted() { references.append(text) }
            } else if css[index] == ASCII.doubleQuote || css[index] == ASCII.singleQuote {
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
