/// Text made safe to put in HTML, as element content or a quoted attribute value.
package enum HTMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` as character references.
    package static func escape(_ text: some StringProtocol) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.unicodeScalars.append(character)
            }
        }
        return output
    }
}
