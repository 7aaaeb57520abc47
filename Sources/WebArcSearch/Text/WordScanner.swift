/// Finds the words of UTF-8 text one at a time and folds each as it goes (see ``Analyzer`` for
/// the rules). It reads the bytes in place and writes each folded word into one buffer of its
/// own, kept from word to word: no allocation and no array bookkeeping per word.
struct WordScanner: ~Copyable {
    /// Where a word joined by `.` between letters or by `_` may be split into parts: the joiner's
    /// bytes in ``folded`` and in the text.
    struct Split {
        var folded: Range<Int>
        var source: Range<Int>
    }

    /// The text, valid UTF-8 (a `String`'s bytes).
    let bytes: UnsafeBufferPointer<UInt8>
    /// The offset of the next byte to read.
    private var index = 0
    /// How many scalars come before ``index``.
    private var scalarIndex = 0

    /// The current word's bytes in the text.
    private(set) var source: Range<Int> = 0..<0
    /// The current word's scalars, as offsets from the start of the text.
    private(set) var scalars: Range<Int> = 0..<0
    /// Where the current word splits into parts (empty for most words).
    private(set) var splits: [Split] = []
    /// Whether the current word is one ideograph or kana (with the marks that follow it).
    private(set) var isIdeograph = false

    /// The current word, folded: ASCII letters lower-cased, other scalars through ``CaseFolding``,
    /// format characters left out, `’` as `'`. Valid until the next call to ``next()``.
    var folded: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: foldedBytes, count: foldedCount) }

    /// The buffer ``folded`` views, its room and the bytes in use.
    private var foldedBytes: UnsafeMutablePointer<UInt8>
    private var foldedCapacity = 64
    private var foldedCount = 0
    /// One scalar's folding, as ``CaseFolding`` writes it.
    private var scalarFolding: [UInt8] = []

    /// ``ScalarClass``'s ASCII table, held here so the loop reads it without a global's lazy check.
    private let asciiClasses = ScalarClass.asciiTable

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        foldedBytes = .allocate(capacity: foldedCapacity)
    }

    deinit { foldedBytes.deallocate() }

    /// Makes room in ``folded`` for `extra` more bytes.
    @inline(__always)
    private mutating func reserveFolded(_ extra: Int) {
        guard foldedCount + extra > foldedCapacity else { return }
        let capacity = max(foldedCount + extra, 2 * foldedCapacity)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.update(from: foldedBytes, count: foldedCount)
        foldedBytes.deallocate()
        (foldedBytes, foldedCapacity) = (grown, capacity)
    }

    @inline(__always)
    private mutating func appendFolded(_ byte: UInt8) {
        reserveFolded(1)
        foldedBytes[foldedCount] = byte
        foldedCount += 1
    }

    /// The scalar at `offset` and its length in bytes (the text is valid UTF-8).
    @inline(__always)
    private func scalar(at offset: Int) -> (Unicode.Scalar, Int) {
        let lead = bytes[offset]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        if lead < 0xE0 {
            let value = UInt32(lead & 0x1F) << 6 | UInt32(bytes[offset + 1] & 0x3F)
            return (Unicode.Scalar(value)!, 2)
        }
        if lead < 0xF0 {
            let value =
                UInt32(lead & 0x0F) << 12 | UInt32(bytes[offset + 1] & 0x3F) << 6 | UInt32(bytes[offset + 2] & 0x3F)
            return (Unicode.Scalar(value) ?? "\u{FFFD}", 3)
        }
        let value =
            UInt32(lead & 0x07) << 18 | UInt32(bytes[offset + 1] & 0x3F) << 12 | UInt32(bytes[offset + 2] & 0x3F) << 6
            | UInt32(bytes[offset + 3] & 0x3F)
        return (Unicode.Scalar(value) ?? "\u{FFFD}", 4)
    }

    @inline(__always)
    private func classify(_ scalar: Unicode.Scalar) -> ScalarClass {
        scalar.value < 0x80 ? asciiClasses[Int(scalar.value)] : ScalarClass.of(scalar)
    }

    /// Appends the folded form of `scalar` to ``folded``.
    @inline(__always)
    private mutating func fold(_ scalar: Unicode.Scalar) {
        if scalar.value < 0x80 {
            appendFolded(ASCIIByte.lowercased(UInt8(scalar.value)))
        } else if CaseFolding.isApostrophe(scalar) {
            appendFolded(UInt8(ascii: "'"))
        } else {
            scalarFolding.removeAll(keepingCapacity: true)
            CaseFolding.appendFolded(scalar, to: &scalarFolding)
            reserveFolded(scalarFolding.count)
            for byte in scalarFolding {
                foldedBytes[foldedCount] = byte
                foldedCount += 1
            }
        }
    }

    /// Moves to the next word; false at the end of the text.
    mutating func next() -> Bool {
        foldedCount = 0
        if !splits.isEmpty { splits.removeAll(keepingCapacity: true) }
        isIdeograph = false
        // Skip to the first scalar that can start a word.
        var first: ScalarClass = .other
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80, !Self.isASCIIAlphanumeric(byte), byte != UInt8(ascii: "_") {
                // Neither starts a word: a joiner (`.`, `'`, `,`) cannot begin one.
                index += 1
                scalarIndex += 1
                continue
            }
            let (scalar, length) = scalar(at: index)
            first = classify(scalar)
            if first == .letter || first == .digit || first == .connector || first == .ideograph {
                source = index..<index
                scalars = scalarIndex..<scalarIndex
                break
            }
            index += length
            scalarIndex += 1
        }
        guard index < bytes.count else { return false }
        if first == .ideograph ? readIdeograph() : readWord() { return true }
        return next()
    }

    /// Reads one ideograph or kana and the marks after it; false when they fold to nothing.
    private mutating func readIdeograph() -> Bool {
        isIdeograph = true
        let start = index
        let startScalar = scalarIndex
        var (scalar, length) = scalar(at: index)
        repeat {
            fold(scalar)
            index += length
            scalarIndex += 1
            guard index < bytes.count else { break }
            (scalar, length) = self.scalar(at: index)
        } while classify(scalar) == .mark
        source = start..<index
        scalars = startScalar..<scalarIndex
        return foldedCount > 0
    }

    /// Whether `byte` is an ASCII letter or digit.
    @inline(__always)
    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10
    }

    /// Whether the ASCII `byte` ends any word it follows: neither a letter, a digit, `_`, nor a
    /// joiner (`.`, `'`, `,`).
    @inline(__always)
    private static func endsWord(ascii byte: UInt8) -> Bool {
        !isASCIIAlphanumeric(byte) && byte != UInt8(ascii: "_") && byte != UInt8(ascii: ".")
            && byte != UInt8(ascii: "'") && byte != UInt8(ascii: ",")
    }

    /// Copies the run of ASCII letters and digits at ``index`` to ``folded``, lower-cased (setting
    /// bit 5 leaves the digits as they are), and moves past it; returns its last byte, or nil when
    /// there is none.
    @inline(__always)
    private mutating func copyASCIIAlphanumericRun() -> UInt8? {
        var end = index
        while end < bytes.count, Self.isASCIIAlphanumeric(bytes[end]) { end += 1 }
        guard end > index else { return nil }
        reserveFolded(end - index)
        for offset in index..<end {
            foldedBytes[foldedCount] = bytes[offset] | 0x20
            foldedCount += 1
        }
        scalarIndex += end - index
        index = end
        return bytes[end - 1]
    }

    /// Reads a run of letters, digits, marks and joiners (UAX #29 rules WB4–WB13b, simplified);
    /// false when no letter or digit of it folds to something (a lone `_`, a lone U+037A).
    private mutating func readWord() -> Bool {
        let start = index
        let startScalar = scalarIndex
        var last: ScalarClass = .other
        var hasAlphanumeric = false
        scan: while index < bytes.count {
            // A run of ASCII letters and digits is the bulk of most text; a space or punctuation
            // after it ends the word without a scalar decoded.
            if let lastByte = copyASCIIAlphanumericRun() {
                last = lastByte &- UInt8(ascii: "0") < 10 ? .digit : .letter
                hasAlphanumeric = true
                if index == bytes.count || bytes[index] < 0x80 && Self.endsWord(ascii: bytes[index]) { break scan }
                continue
            }
            let (scalar, length) = scalar(at: index)
            let kind = classify(scalar)
            switch kind {
            case .letter, .digit:
                let foldedStart = foldedCount
                fold(scalar)
                last = kind
                // U+037A is a letter that folds to nothing: alone, it makes no word.
                if foldedCount > foldedStart { hasAlphanumeric = true }
            case .mark:
                fold(scalar)
            case .format:
                break
            case .connector:
                let foldedStart = foldedCount
                fold(scalar)
                splits.append(Split(folded: foldedStart..<foldedCount, source: index..<index + length))
                last = .connector
            case .midLetter, .midNumLet, .midNum:
                guard index + length < bytes.count else { break scan }
                let following = classify(self.scalar(at: index + length).0)
                let joinsLetters = last == .letter && following == .letter && kind != .midNum
                let joinsDigits = last == .digit && following == .digit && kind != .midLetter
                guard joinsLetters || joinsDigits else { break scan }
                let foldedStart = foldedCount
                fold(scalar)
                // A full stop between letters separates parts (`os.path`); an apostrophe does not.
                let endsInFullStop = foldedCount > 0 && foldedBytes[foldedCount - 1] == UInt8(ascii: ".")
                if joinsLetters, kind == .midNumLet, endsInFullStop || scalar.value == 0x2024 {
                    splits.append(Split(folded: foldedStart..<foldedCount, source: index..<index + length))
                }
            case .ideograph, .other:
                break scan
            }
            index += length
            scalarIndex += 1
        }
        source = start..<index
        scalars = startScalar..<scalarIndex
        return hasAlphanumeric
    }
}
