/// URL canonicalization and the lookup key built from it.
///
/// Spec: §9 URL canonicalization.
public enum URLKey {
    /// Default ports dropped from canonical URLs.
    static let defaultPorts: [String: String] = ["http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21"]
    /// Schemes in which a browser reads `\` as `/` before the query (WHATWG "special" schemes).
    static let specialSchemes: Set<String> = ["http", "https", "ws", "wss", "ftp", "file"]
    /// Bytes a browser refuses in a host once it is percent-decoded (spec §9 step 6): controls,
    /// space and `#%/:<>?@[\]^|`, as a table indexed by byte.
    private static let isForbiddenInHost: [Bool] = (0..<256).map {
        $0 <= 0x20 || Array("#%/:<>?@[\\]^|".utf8).contains(UInt8($0))
    }
    /// Bytes a path or query keeps as they are (spec §9 step 8): unreserved ones, `!$&'()*+,;=:@/`.
    private static let isKeptAsIs: [Bool] = (0..<256).map {
        isUnreserved(UInt8($0)) || Array("!$&'()*+,;=:@/".utf8).contains(UInt8($0))
    }
    private static let upperHexDigits = Array("0123456789ABCDEF".utf8)

    /// The lookup key of a request: upper-case method, a space, the canonical URL.
    ///
    /// - Throws: ``WebArcError/badURL(url:reason:)`` when `url` has no canonical form.
    public static func key(method: String, url: String) throws -> String {
        asciiUppercased(method) + " " + (try canonicalize(url))
    }

    /// The canonical form of an absolute URL (spec §9 steps 1–11).
    ///
    /// - Throws: ``WebArcError/badURL(url:reason:)`` when `url` has no scheme.
    public static func canonicalize(_ url: String) throws -> String {
        if isCanonicalAsIs(url) { return url }
        return try canonicalizeBySteps(url)
    }

    /// The canonical form of an absolute URL, each step of spec §9 made in turn.
    static func canonicalizeBySteps(_ url: String) throws -> String {
        var bytes = Array(url.utf8)
        while let first = bytes.first, first <= 0x20 { bytes.removeFirst() }
        while let last = bytes.last, last <= 0x20 { bytes.removeLast() }
        bytes.removeAll { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) { bytes.removeSubrange(hash...) }

        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, isAlpha(bytes[0]),
            bytes[0..<colon].allSatisfy({ isAlpha($0) || isDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
        else {
            throw WebArcError.badURL(url: url, reason: "no scheme: an absolute URL is needed")
        }
        let scheme = String(decoding: bytes[0..<colon].map(lowercased), as: UTF8.self)
        var rest = bytes[(colon + 1)...]
        if specialSchemes.contains(scheme) {
            let queryStart = rest.firstIndex(of: UInt8(ascii: "?")) ?? rest.endIndex
            for index in rest.startIndex..<queryStart where rest[index] == UInt8(ascii: "\\") {
                rest[index] = UInt8(ascii: "/")
            }
        }
        var output = Array(scheme.utf8) + [UInt8(ascii: ":")]

        let hasAuthority = rest.starts(with: [0x2F, 0x2F])
        if hasAuthority {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex { $0 == 0x2F || $0 == 0x3F } ?? rest.endIndex
            output +=
                [0x2F, 0x2F] + (try canonicalAuthority(Array(rest[rest.startIndex..<end]), scheme: scheme, url: url))
            rest = rest[end...]
        }
        let queryStart = rest.firstIndex(of: UInt8(ascii: "?"))
        var path = normalizePercentEncoding(rest[rest.startIndex..<(queryStart ?? rest.endIndex)], inQuery: false)
        if hasAuthority && path.isEmpty { path = [0x2F] }
        path = removeDotSegments(path)
        // Without an authority, a path starting `//` would read back as one (spec §9 step 11).
        if !hasAuthority && path.starts(with: [0x2F, 0x2F]) { path = [0x2F, 0x2E] + path }
        output += path
        if let queryStart {
            output.append(UInt8(ascii: "?"))
            output += normalizePercentEncoding(rest[(queryStart + 1)...], inQuery: true)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether `url` is its own canonical form, by a scan that copies nothing; false when it may
    /// not be. True for the usual URL of an archive: `http` or `https`, a host of lower-case
    /// letters, digits, `.` and `-` with no port or user, a path starting `/` with no segment
    /// starting with `.`, then a path and query of bytes that step 8 keeps as they are (escapes
    /// with upper-case digits of a byte it does not decode). Each step leaves such a URL as it is;
    /// ``canonicalizeBySteps(_:)`` made its copies for every record `verify` and `pack` read.
    static func isCanonicalAsIs(_ url: String) -> Bool {
        let slash = UInt8(ascii: "/")
        let scanned = url.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            var index: Int
            if bytes.starts(with: "http://".utf8) {
                index = 7
            } else if bytes.starts(with: "https://".utf8) {
                index = 8
            } else {
                return false
            }
            let hostStart = index
            while index < bytes.count, isPlainHostByte(bytes[index]) { index += 1 }
            guard index > hostStart, index < bytes.count, bytes[index] == slash else { return false }
            var inQuery = false
            var previous: UInt8 = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, let high = upperHexValue(bytes[index + 1]),
                        let low = upperHexValue(bytes[index + 2]), !isUnreserved(high << 4 | low)
                    else { return false }
                    index += 3
                    previous = byte
                    continue
                }
                if byte == UInt8(ascii: "?") {
                    inQuery = true
                } else if !isKeptAsIs[Int(byte)] || (!inQuery && byte == UInt8(ascii: ".") && previous == slash) {
                    return false
                }
                previous = byte
                index += 1
            }
            return true
        }
        return scanned ?? false
    }

    /// A byte of a host that canonicalization leaves as it is, when the host holds only such bytes.
    private static func isPlainHostByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || isDigit(byte) || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "-")
    }

    /// The value of an upper-case hex digit (the form step 8 writes escapes in).
    private static func upperHexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func canonicalAuthority(_ authority: [UInt8], scheme: String, url: String) throws -> [UInt8] {
        var hostPort = authority[...]
        if let at = hostPort.lastIndex(of: UInt8(ascii: "@")) { hostPort = hostPort[(at + 1)...] }
        var host = hostPort
        var port: ArraySlice<UInt8> = []
        let closing = hostPort.lastIndex(of: UInt8(ascii: "]"))
        if let colon = hostPort.lastIndex(of: UInt8(ascii: ":")), closing.map({ colon > $0 }) ?? true,
            hostPort[(colon + 1)...].allSatisfy(isDigit)
        {
            host = hostPort[hostPort.startIndex..<colon]
            port = hostPort[(colon + 1)...].drop { $0 == UInt8(ascii: "0") }
            if port.isEmpty && colon + 1 < hostPort.endIndex { port = [UInt8(ascii: "0")] }
        }
        var output = try canonicalHost(Array(host), url: url)
        let portText = String(decoding: port, as: UTF8.self)
        if !port.isEmpty && defaultPorts[scheme] != portText {
            output += [UInt8(ascii: ":")] + port
        }
        return output
    }

    /// The host as a browser requests it (spec §9 step 6): an IP literal must be an IPv6 address,
    /// written in its shortest form (``IPv6Literal``); otherwise
    /// percent-decoded when it holds a `%`, refused when it holds a byte a browser refuses in a
    /// host, then each label ASCII-lower-cased, or, when it has a
    /// non-ASCII character, Unicode-lower-cased and Punycode-encoded behind `xn--`.
    static func canonicalHost(_ host: [UInt8], url: String) throws -> [UInt8] {
        if host.first == UInt8(ascii: "[") {
            guard let literal = IPv6Literal.canonical(host) else {
                throw WebArcError.badURL(
                    url: url, reason: "a host that starts with [ must be an IPv6 address ending in ]")
            }
            return literal
        }
        var bytes = host
        if bytes.contains(UInt8(ascii: "%")) {
            bytes = percentDecoded(bytes)
            guard UTF8Text.validated(bytes) != nil else {
                throw WebArcError.badURL(url: url, reason: "the host does not percent-decode to UTF-8")
            }
        }
        if let byte = bytes.first(where: { isForbiddenInHost[Int($0)] }) {
            throw WebArcError.badURL(
                url: url, reason: "the host holds a byte a browser refuses (0x\(String(byte, radix: 16)))")
        }
        // An ASCII host (the usual one) is only lower-cased.
        if bytes.allSatisfy({ $0 < 0x80 }) { return bytes.map(lowercased) }
        var output: [UInt8] = []
        for (position, label) in bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            .enumerated()
        {
            if position > 0 { output.append(UInt8(ascii: ".")) }
            if label.allSatisfy({ $0 < 0x80 }) {
                output += label.map(lowercased)
            } else {
                guard let encoded = Punycode.encode(String(decoding: label, as: UTF8.self).lowercased()) else {
                    throw WebArcError.badURL(url: url, reason: "a host label cannot be Punycode-encoded")
                }
                output += Array("xn--".utf8) + Array(encoded.utf8)
            }
        }
        return output
    }

    /// `%XX` escapes replaced by their byte; a `%` without two hex digits is kept.
    private static func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return output
    }

    /// Rewrites `%XX` escapes and raw bytes to the one form of spec §9 step 8.
    static func normalizePercentEncoding(_ bytes: ArraySlice<UInt8>, inQuery: Bool) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                if index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]),
                    let low = hexValue(bytes[index + 2])
                {
                    let value = high << 4 | low
                    if isUnreserved(value) { output.append(value) } else { appendEscape(value, to: &output) }
                    index += 3
                    continue
                }
                output += Array("%25".utf8)
            } else if isKeptAsIs[Int(byte)] || (inQuery && byte == UInt8(ascii: "?")) {
                output.append(byte)
            } else {
                appendEscape(byte, to: &output)
            }
            index += 1
        }
        return output
    }

    /// RFC 3986 §5.2.4 on an already normalized path; a path without dot segments is returned as
    /// it is, as the algorithm would return it.
    static func removeDotSegments(_ path: [UInt8]) -> [UInt8] {
        hasDotSegment(path) ? removeDotSegmentsLiterally(path) : path
    }

    /// RFC 3986 §5.2.4 taken literally.
    static func removeDotSegmentsLiterally(_ path: [UInt8]) -> [UInt8] {
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        var input = path[...]
        var output: [UInt8] = []
        func removeLastSegment() {
            if let last = output.lastIndex(of: slash) { output.removeSubrange(last...) } else { output.removeAll() }
        }
        while !input.isEmpty {
            if input.starts(with: [dot, dot, slash]) {
                input = input.dropFirst(3)
            } else if input.starts(with: [dot, slash]) {
                input = input.dropFirst(2)
            } else if input.starts(with: [slash, dot, slash]) {
                input = input.dropFirst(2)
            } else if input.elementsEqual([slash, dot]) {
                input = [slash][...]
            } else if input.starts(with: [slash, dot, dot, slash]) {
                input = input.dropFirst(3)
                removeLastSegment()
            } else if input.elementsEqual([slash, dot, dot]) {
                input = [slash][...]
                removeLastSegment()
            } else if input.elementsEqual([dot]) || input.elementsEqual([dot, dot]) {
                input = []
            } else {
                let searchStart = input.first == slash ? input.startIndex + 1 : input.startIndex
                let end = input[searchStart...].firstIndex(of: slash) ?? input.endIndex
                output += input[input.startIndex..<end]
                input = input[end...]
            }
        }
        return output
    }

    /// Upper-cases ASCII letters only, as the spec's method rule says.
    static func asciiUppercased(_ text: String) -> String {
        String(
            decoding: text.utf8.map { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) ? $0 - 32 : $0 },
            as: UTF8.self)
    }

    private static func appendEscape(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "%"))
        output.append(upperHexDigits[Int(byte >> 4)])
        output.append(upperHexDigits[Int(byte & 0x0F)])
    }

    /// Whether a segment of `path` (between `/`s, or at either end) is `.` or `..`: without one,
    /// removing dot segments leaves a path as it is.
    static func hasDotSegment(_ path: [UInt8]) -> Bool {
        var segmentStart = 0
        for index in 0...path.count {
            guard index == path.count || path[index] == UInt8(ascii: "/") else { continue }
            let length = index - segmentStart
            if length == 1 && path[segmentStart] == UInt8(ascii: ".") { return true }
            if length == 2 && path[segmentStart] == UInt8(ascii: ".") && path[segmentStart + 1] == UInt8(ascii: ".") {
                return true
            }
            segmentStart = index + 1
        }
        return false
    }

    /// The value of an ASCII hex digit, either case.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func isAlpha(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
