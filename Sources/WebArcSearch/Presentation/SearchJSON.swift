/// The JSON that `webarc search --json`, the server's `/_webarc/suggest` and the URL protocol's
/// `webarc://search` answer with: arrays of objects with their keys in a fixed order.
package enum SearchJSON {
    /// `[{"url":…,"title":…,"snippet":…,"score":…},…]`, one line.
    package static func hits(_ hits: [SearchHit]) -> String {
        "["
            + hits.map {
                "{\"url\":\(string($0.url)),\"title\":\(string($0.title)),\"snippet\":\(string($0.snippet)),"
                    + "\"score\":\(number($0.score))}"
            }.joined(separator: ",") + "]"
    }

    /// `[{"title":…,"url":…},…]`, one line.
    package static func suggestions(_ suggestions: [Suggestion]) -> String {
        "[" + suggestions.map { "{\"title\":\(string($0.title)),\"url\":\(string($0.url))}" }.joined(separator: ",")
            + "]"
    }

    /// `{"error":…}`, for a query refused.
    package static func error(_ message: String) -> String { "{\"error\":\(string(message))}" }

    /// A JSON string literal: quotes, backslashes and control characters escaped; other
    /// characters as they are (the output is UTF-8).
    package static func string(_ text: String) -> String {
        var output = "\""
        output.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{2028}": output += "\\u2028"
            case "\u{2029}": output += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        return output + "\""
    }

    /// A finite number as JSON (at most 4 decimals); 0 for NaN and infinities, which JSON lacks.
    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 10000).rounded() / 10000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return String(rounded)
    }
}
