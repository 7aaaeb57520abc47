/// An IP-literal host (`[…]`): parsed and written back as a browser does.
///
/// The parser and the serializer are WHATWG URL's "IPv6 parser" and "IPv6 serializer", step by
/// step: eight 16-bit pieces, at most one `::`, an optional dotted IPv4 address in the last two
/// pieces; written in lower-case hex without leading zeros, the first longest run of two or more
/// zero pieces as `::`. Anything else (IPvFuture, zone identifiers, a missing `]`) is no address.
///
/// Spec: §9 URL canonicalization, step 6.
enum IPv6Literal {
    /// The canonical form of a host that starts with `[`, brackets included.
    ///
    /// - Returns: `nil` when the host does not end with `]` or what is between is not an IPv6 address.
    static func canonical(_ host: [UInt8]) -> [UInt8]? {
        guard host.count >= 2, host.first == UInt8(ascii: "["), host.last == UInt8(ascii: "]"),
            let address = parse(host[1..<(host.count - 1)])
        else { return nil }
        return [UInt8(ascii: "[")] + serialize(address) + [UInt8(ascii: "]")]
    }

    /// The eight pieces of the address in `text`, or `nil` if it is not one.
    static func parse(_ text: ArraySlice<UInt8>) -> [UInt16]? {
        let colon = UInt8(ascii: ":")
        let dot = UInt8(ascii: ".")
        var address = [UInt16](repeating: 0, count: 8)
        var piece = 0
        var compress: Int?
        var index = text.startIndex
        func current() -> UInt8? { index < text.endIndex ? text[index] : nil }

        if current() == colon {
            guard index + 1 < text.endIndex, text[index + 1] == colon else { return nil }
            index += 2
            piece = 1
            compress = 1
        }
        while let byte = current() {
            guard piece < 8 else { return nil }
            if byte == colon {
                guard compress == nil else { return nil }
                index += 1
                piece += 1
                compress = piece
                continue
            }
            var value: UInt16 = 0
            var length = 0
            while length < 4, let digit = current().flatMap(URLKey.hexValue) {
                value = value << 4 | UInt16(digit)
                index += 1
                length += 1
            }
            if current() == dot {
                guard length > 0, piece <= 6 else { return nil }
                index -= length
                guard parseIPv4(text, at: &index, into: &address, piece: &piece) else { return nil }
                break
            } else if current() == colon {
                index += 1
                guard current() != nil else { return nil }
            } else if current() != nil {
                return nil
            }
            address[piece] = value
            piece += 1
        }
        if let compress {
            var swaps = piece - compress
            piece = 7
            while piece != 0 && swaps > 0 {
                address.swapAt(piece, compress + swaps - 1)
                piece -= 1
                swaps -= 1
            }
        } else if piece != 8 {
            return nil
        }
        return address
    }

    /// The dotted IPv4 tail (exactly four decimal numbers 0–255, no leading zeros) into two pieces.
    private static func parseIPv4(
        _ text: ArraySlice<UInt8>, at index: inout Int, into address: inout [UInt16], piece: inout Int
    ) -> Bool {
        var numbersSeen = 0
        while index < text.endIndex {
            if numbersSeen > 0 {
                guard text[index] == UInt8(ascii: "."), numbersSeen < 4 else { return false }
                index += 1
            }
            guard index < text.endIndex, URLKey.isDigit(text[index]) else { return false }
            var number: UInt16?
            while index < text.endIndex, URLKey.isDigit(text[index]) {
                let digit = UInt16(text[index] - UInt8(ascii: "0"))
                if number == 0 { return false }
                number = (number ?? 0) * 10 + digit
                if number! > 255 { return false }
                index += 1
            }
            address[piece] = address[piece] << 8 | number!
            numbersSeen += 1
            if numbersSeen == 2 || numbersSeen == 4 { piece += 1 }
        }
        return numbersSeen == 4
    }

    /// Lower-case hex pieces joined by `:`, the first longest run (≥ 2) of zero pieces as `::`.
    static func serialize(_ address: [UInt16]) -> [UInt8] {
        var compress: Int?
        var longest = 1
        var runStart: Int?
        for index in 0...8 {
            if index < 8 && address[index] == 0 {
                if runStart == nil { runStart = index }
                continue
            }
            if let start = runStart, index - start > longest {
                compress = start
                longest = index - start
            }
            runStart = nil
        }
        var output: [UInt8] = []
        var ignoreZero = false
        for (index, value) in address.enumerated() {
            if ignoreZero && value == 0 { continue }
            ignoreZero = false
            if compress == index {
                output += index == 0 ? [UInt8(ascii: ":"), UInt8(ascii: ":")] : [UInt8(ascii: ":")]
                ignoreZero = true
                continue
            }
            output += Array(String(value, radix: 16).utf8)
            if index != 7 { output.append(UInt8(ascii: ":")) }
        }
        return output
    }
}
