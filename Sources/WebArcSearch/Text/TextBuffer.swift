/// The visible text of a page as it is gathered: bytes decoded from the page's encoding into
/// UTF-8, character references decoded, runs of whitespace collapsed to one space (or one line
/// break between blocks), and a limit on its size.
struct TextBuffer {
    /// The encodings pages are read in; any other is read as UTF-8.
    enum Encoding {
        case utf8
        /// Windows-1252, which the web reads for ISO-8859-1 and US-ASCII too.
        case windows1252

        /// The encoding a charset label names (WHATWG labels; unknown ones are UTF-8).
        init(label: String?) {
            switch label.map({ TextBuffer.trimmed(CaseFolding.fold($0)) }) {
            case "iso-8859-1", "iso8859-1", "latin1", "l1", "windows-1252", "cp1252", "us-ascii", "ascii",
                "iso_8859-1", "x-cp1252", "ibm819", "cp819":
                self = .windows1252
            default:
                self = .utf8
            }
        }
    }

    /// What separates the last text from the next.
    private enum Separator {
        case none, space, line
    }

    private(set) var bytes: [UInt8] = []
    /// The most bytes the text may hold.
    let limit: Int
    var encoding: Encoding
    /// Set once text had to be left out for the limit.
    private(set) var isFull = false
    private var separator = Separator.none
    /// Whether a blank line in the text separates blocks (plain text) rather than a space.
    private let blankLinesSeparate: Bool
    /// Line feeds in the current run of whitespace.
    private var lineFeeds = 0

    init(limit: Int, encoding: Encoding, reserve: Int, blankLinesSeparate: Bool = false) {
        self.limit = limit
        self.encoding = encoding
        self.blankLinesSeparate = blankLinesSeparate
        bytes.reserveCapacity(Swift.min(limit, reserve))
    }

    /// The text gathered, as a string.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Separates what comes next from what came before: a line break between blocks, a space
    /// otherwise (nothing at the start).
    mutating func separate(block: Bool) {
        if block {
            separator = .line
        } else if separator == .none {
            separator = .space
        }
    }

    /// Appends the text `source[range]`, raw bytes in ``encoding``, decoding character references
    /// unless `references` is false.
    mutating func append(_ source: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, references: Bool = true) {
        var index = range.lowerBound
        let end = range.upperBound
        while index < end, !isFull {
            let byte = source[index]
            if byte < 0x80 {
                if ASCIIByte.isSpace(byte) {
                    if separator == .none { separator = .space }
                    if blankLinesSeparate, byte == 0x0A {
                        lineFeeds += 1
                        if lineFeeds >= 2 { separator = .line }
                    }
                    index += 1
                } else if byte == UInt8(ascii: "&"), references, let (scalar, length) = reference(source, index, end) {
                    appendScalar(scalar)
                    index += length
                } else {
                    // A run of other ASCII bytes is copied at once, with the single spaces between
                    // its words: they are what collapsing would write (prose is mostly such runs).
                    var runEnd = index + 1
                    while runEnd < end {
                        if Self.isPlainASCII(source[runEnd]) {
                            runEnd += 1
                        } else if source[runEnd] == 0x20, runEnd + 1 < end, Self.isPlainASCII(source[runEnd + 1]) {
                            runEnd += 2
                        } else {
                            break
                        }
                    }
                    let room = limit - bytes.count - (bytes.isEmpty || separator == .none ? 0 : 1)
                    var count = Swift.min(runEnd - index, room)
                    // Cut by the limit, the run keeps no space at its end, as a word would not.
                    if count < runEnd - index, count > 0, source[index + count - 1] == 0x20 { count -= 1 }
                    guard count > 0, reserve(count) else {
                        isFull = true
                        return
                    }
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[index..<index + count]))
                    if count < runEnd - index { isFull = true }
                    index += count
                }
                continue
            }
            switch encoding {
            case .windows1252:
                appendScalar(Self.windows1252Scalar(byte))
                index += 1
            case .utf8:
                if byte == 0xC2, index + 1 < end, source[index + 1] == 0xA0 {
                    if separator == .none { separator = .space }
                    index += 2
                    continue
                }
                // A valid sequence is copied; each invalid one becomes U+FFFD here, so the limit
                // holds for the string too.
                let length = Self.validSequenceLength(source, index, end)
                if length == 0 {
                    appendScalar("\u{FFFD}")
                    index += Swift.max(1, Self.maximalInvalidPrefix(source, index, end))
                    continue
                }
                guard reserve(length) else { return }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[index..<index + length]))
                index += length
            }
        }
    }

    /// Whether `byte` is printable ASCII other than a space and `&`: copied as it is.
    @inline(__always)
    private static func isPlainASCII(_ byte: UInt8) -> Bool {
        byte &- 0x21 < 0x5F && byte != UInt8(ascii: "&")
    }

    /// The length of the valid UTF-8 sequence that starts at `index` with a byte above ASCII, or 0.
    @inline(__always)
    static func validSequenceLength(_ source: UnsafeBufferPointer<UInt8>, _ index: Int, _ end: Int) -> Int {
        let lead = source[index]
        let length: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            second = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            second = 0x80...0x9F
        case 0xF0:
            length = 4
            second = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            second = 0x80...0x8F
        default: return 0
        }
        guard index + length <= end, second.contains(source[index + 1]) else { return 0 }
        for offset in 2..<length where source[index + offset] & 0xC0 != 0x80 { return 0 }
        return length
    }

    /// How many bytes at `index` one U+FFFD replaces: the lead byte and the continuation bytes that
    /// could still have followed it (the "maximal subpart" the Unicode standard recommends).
    private static func maximalInvalidPrefix(_ source: UnsafeBufferPointer<UInt8>, _ index: Int, _ end: Int) -> Int {
        var length = 1
        let expected = source[index] >= 0xF0 ? 4 : source[index] >= 0xE0 ? 3 : 2
        while length < expected, index + length < end, source[index + length] & 0xC0 == 0x80,
            validPrefix(source[index], source[index + 1])
        {
            length += 1
        }
        return length
    }

    /// Whether `lead` then `second` can begin a valid sequence.
    private static func validPrefix(_ lead: UInt8, _ second: UInt8) -> Bool {
        switch lead {
        case 0xC2...0xDF, 0xE1...0xEC, 0xEE...0xEF, 0xF1...0xF3: second & 0xC0 == 0x80
        case 0xE0: second >= 0xA0 && second <= 0xBF
        case 0xED: second >= 0x80 && second <= 0x9F
        case 0xF0: second >= 0x90 && second <= 0xBF
        case 0xF4: second >= 0x80 && second <= 0x8F
        default: false
        }
    }

    /// Writes the pending separator and checks that `count` more bytes fit; false (and full) when not.
    @inline(__always)
    private mutating func reserve(_ count: Int) -> Bool {
        let separatorBytes = bytes.isEmpty || separator == .none ? 0 : 1
        guard bytes.count + separatorBytes + count <= limit else {
            isFull = true
            return false
        }
        if separatorBytes == 1 { bytes.append(separator == .line ? 0x0A : 0x20) }
        separator = .none
        lineFeeds = 0
        return true
    }

    private mutating func appendScalar(_ scalar: Unicode.Scalar) {
        if scalar.value == 0xA0 || (scalar.isASCII && ASCIIByte.isSpace(UInt8(scalar.value))) {
            if separator == .none { separator = .space }
            return
        }
        let encoded = UTF8.encode(scalar)!
        guard reserve(encoded.count) else { return }
        bytes.append(contentsOf: encoded)
    }

    /// The character reference at `start` (an `&`) and its length: `&#38;`, `&#x26;`, `&amp;`
    /// (the `;` may be left out of numeric ones and of `&amp`, `&lt`, `&gt`, `&quot`, `&nbsp`, as
    /// browsers allow), or nil when there is none.
    private func reference(_ source: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (Unicode.Scalar, Int)? {
        var index = start + 1
        guard index < end else { return nil }
        if source[index] == UInt8(ascii: "#") {
            index += 1
            let hex = index < end && (source[index] | 0x20) == UInt8(ascii: "x")
            if hex { index += 1 }
            let digitsStart = index
            var value: UInt32 = 0
            while index < end, index - digitsStart < 8 {
                let byte = source[index]
                let digit: UInt32
                if byte &- UInt8(ascii: "0") < 10 {
                    digit = UInt32(byte - UInt8(ascii: "0"))
                } else if hex, (byte | 0x20) &- UInt8(ascii: "a") < 6 {
                    digit = UInt32((byte | 0x20) - UInt8(ascii: "a") + 10)
                } else {
                    break
                }
                value = value * (hex ? 16 : 10) + digit
                index += 1
            }
            guard index > digitsStart else { return nil }
            if index < end, source[index] == UInt8(ascii: ";") { index += 1 }
            return (Self.numericReferenceScalar(value), index - start)
        }
        let nameStart = index
        while index < end, index - nameStart < 10, Self.isAlphanumeric(source[index]) { index += 1 }
        guard index > nameStart else { return nil }
        let name = String(decoding: UnsafeBufferPointer(rebasing: source[nameStart..<index]), as: UTF8.self)
        if index < end, source[index] == UInt8(ascii: ";"), let value = Self.namedEntities[name],
            let scalar = Unicode.Scalar(value)
        {
            return (scalar, index + 1 - start)
        }
        // Without `;`, only the legacy names, and only as a prefix (`&nbspx` is a space and `x`).
        guard let legacy = Self.legacyEntities.first(where: { name.utf8.starts(with: $0.0.utf8) }) else { return nil }
        return (legacy.1, 1 + legacy.0.utf8.count)
    }

    /// The references browsers read without their `;`: the ones pages leave it off most.
    private static let legacyEntities: [(String, Unicode.Scalar)] = [
        ("nbsp", "\u{A0}"), ("quot", "\""), ("amp", "&"), ("lt", "<"), ("gt", ">"),
    ]

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10
    }

    /// What a numeric reference stands for, as the HTML standard reads it: NUL, surrogates and
    /// values past Unicode become U+FFFD; 0x80–0x9F are read as Windows-1252.
    private static func numericReferenceScalar(_ value: UInt32) -> Unicode.Scalar {
        if value >= 0x80, value <= 0x9F { return windows1252Scalar(UInt8(value)) }
        guard value != 0, let scalar = Unicode.Scalar(value) else { return "\u{FFFD}" }
        return scalar
    }

    /// The scalars of Windows-1252's bytes 0x80–0x9F (the rest are Latin-1's).
    private static let windows1252High: [UInt16] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D,
        0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, 0x9D, 0x017E, 0x0178,
    ]

    /// The scalar of a Windows-1252 byte.
    static func windows1252Scalar(_ byte: UInt8) -> Unicode.Scalar {
        guard byte >= 0x80, byte <= 0x9F else { return Unicode.Scalar(byte) }
        return Unicode.Scalar(windows1252High[Int(byte - 0x80)])!
    }

    /// `text` without leading and trailing ASCII whitespace.
    static func trimmed(_ text: String) -> String {
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(where: { !ASCIIByte.isSpace($0) }),
            let last = utf8.lastIndex(where: { !ASCIIByte.isSpace($0) })
        else { return "" }
        return String(decoding: utf8[first...last], as: UTF8.self)
    }

    /// `text` cut to at most `count` UTF-8 bytes at a scalar boundary.
    static func prefix(_ text: String, bytes count: Int) -> String {
        let utf8 = text.utf8
        guard utf8.count > count else { return text }
        var end = utf8.index(utf8.startIndex, offsetBy: count)
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }
}
