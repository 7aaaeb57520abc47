/// Start and end tags: the tag name, then attributes as the HTML standard's tokenizer reads them.
extension HTMLTokenizer {
    /// Reads the start tag whose `<` is at `start` and moves the index past it.
    mutating func startTag(at start: Int) -> HTMLTag {
        index = start + 1
        let name = readName()
        let (attributes, isSelfClosing) = readAttributes()
        return HTMLTag(name: name, range: start..<index, attributes: attributes, isSelfClosing: isSelfClosing)
    }

    /// Reads the end tag whose `<` is at `start` (attributes in it are read and dropped, as a
    /// browser does) and moves the index past it.
    mutating func endTagToken(at start: Int) -> HTMLToken {
        index = start + 2
        let name = readName()
        _ = readAttributes()
        return .endTag(name: name, range: start..<index)
    }

    /// The tag name at the index: up to a space, `/` or `>`, lower-cased.
    private mutating func readName() -> String {
        let nameStart = index
        while index < limit, !ASCII.isSpace(bytes[index]), bytes[index] != ASCII.slash,
            bytes[index] != ASCII.greaterThan
        {
            index += 1
        }
        return ASCII.lowercasedString(bytes[nameStart..<index])
    }

    /// The attributes up to the `>` that ends the tag (the index moves past it), and whether the
    /// tag ended with `/>`.
    private mutating func readAttributes() -> ([HTMLAttribute], Bool) {
        var attributes: [HTMLAttribute] = []
        while true {
            skipSpaces()
            guard index < limit else { return (attributes, false) }
            switch bytes[index] {
            case ASCII.greaterThan:
                index += 1
                return (attributes, false)
            case ASCII.slash:
                index += 1
                if index < limit, bytes[index] == ASCII.greaterThan {
                    index += 1
                    return (attributes, true)
                }
            default:
                attributes.append(readAttribute())
            }
        }
    }

    /// One attribute at the index: its name (whose first byte may be `=`, as the standard says),
    /// then, after an `=`, a quoted or unquoted value.
    private mutating func readAttribute() -> HTMLAttribute {
        let nameStart = index
        index += 1
        while index < limit, !ASCII.isSpace(bytes[index]), bytes[index] != ASCII.slash,
            bytes[index] != ASCII.greaterThan,
            bytes[index] != ASCII.equals
        {
            index += 1
        }
        let nameRange = nameStart..<index
        let name = ASCII.lowercasedString(bytes[nameRange])
        skipSpaces()
        guard index < limit, bytes[index] == ASCII.equals else {
            return HTMLAttribute(
                name: name, source: bytes, nameRange: nameRange, valueRange: nil, range: nameRange, quote: nil)
        }
        index += 1
        skipSpaces()
        var quote: UInt8?
        let valueRange: Range<Int>
        if index < limit, bytes[index] == ASCII.doubleQuote || bytes[index] == ASCII.singleQuote {
            quote = bytes[index]
            let valueStart = index + 1
            let valueEnd = bytes[valueStart..<limit].firstIndex(of: bytes[index]) ?? limit
            valueRange = valueStart..<valueEnd
            index = Swift.min(valueEnd + 1, limit)
        } else {
            let valueStart = index
            while index < limit, !ASCII.isSpace(bytes[index]), bytes[index] != ASCII.greaterThan { index += 1 }
            valueRange = valueStart..<index
        }
        return HTMLAttribute(
            name: name, source: bytes, nameRange: nameRange, valueRange: valueRange, range: nameStart..<index,
            quote: quote)
    }

    private mutating func skipSpaces() {
        while index < limit, ASCII.isSpace(bytes[index]) { index += 1 }
    }
}
