/// Reads one parameter of a URL's query as a form submits it (`application/x-www-form-urlencoded`):
/// `+` is a space, `%XX` a byte, and the bytes are UTF-8 with invalid sequences replaced (U+FFFD),
/// so that any target, however hostile, gives a string.
package enum QueryString {
    /// The decoded value of the first `name` parameter in `target`'s query (after `?`, before `#`),
    /// or nil when the query has none; a parameter without `=` has the empty value.
    package static func value(of name: String, in target: String) -> String? {
        guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        var query = target.utf8[target.utf8.index(after: question)...]
        if let hash = query.firstIndex(of: UInt8(ascii: "#")) { query = query[..<hash] }
        for pair in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let key = decode(pair[..<(equals ?? pair.endIndex)])
            guard key == name else { continue }
            return equals.map { decode(pair[pair.index(after: $0)...]) } ?? ""
        }
        return nil
    }

    /// `bytes` with `+` as a space and each `%XX` as its byte (a `%` not followed by two hex
    /// digits stays as it is), as UTF-8 with replacement.
    package static func decode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                if first != bytes.endIndex, let high = hex(bytes[first]) {
                    let second = bytes.index(after: first)
                    if second != bytes.endIndex, let low = hex(bytes[second]) {
                        output.append(high << 4 | low)
                        index = bytes.index(after: second)
                        continue
                    }
                }
            }
            output.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index = bytes.index(after: index)
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `text` percent-encoded for a query value: everything but unreserved ASCII as `%XX` of its
    /// UTF-8, spaces as `+`.
    package static func encode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                output += "+"
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                output += "%"
                output.unicodeScalars.append(digits[Int(byte >> 4)])
                output.unicodeScalars.append(digits[Int(byte & 15)])
            }
        }
        return output
    }
}
