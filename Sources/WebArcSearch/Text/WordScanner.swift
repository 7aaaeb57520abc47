/// Finds the words of UTF-8 text one at a time and folds each as it goes (see ``Analyzer`` for
/// the rules). It reads the bytes in place and reuses its buffers: no allocation per word.
struct WordScanner {
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
    /// The current word, folded: ASCII letters lower-cased, other scalars through ``CaseFolding``,
    /// format characters left out, `’` as `'`.
    private(set) var folded: [UInt8] = []
    /// Where the current word splits into parts (empty for most words).
    private(set) var splits: [Split] = []
    /// Whether the current word is one ideograph or kana (with the marks that follow it).
    private(set) var isIdeograph = false

    /// ``ScalarClass``'s ASCII table, held here so the loop reads it without a global's lazy check.
    private let asciiClasses = ScalarClass.asciiTable

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        folded.reserveCapacity(64)
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
            folded.append(ASCIIByte.lowercased(UInt8(scalar.value)))
        } else if CaseFolding.isApostrophe(scalar) {
            folded.append(UInt8(ascii: "'"))
        } else {
            CaseFolding.appendFolded(scalar, to: &folded)
        }
    }

    /// Moves to the next word; false at the end of the text.
    mutating func next() -> Bool {
        folded.removeAll(keepingCapacity: true)
        splits.removeAll(keepingCapacity: true)
        isIdeograph = false
        // Skip to the first scalar that can start a word.
        var first: ScalarClass = .other
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80, asciiClasses[Int(byte)] == .other {
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
        return !folded.isEmpty
    }

    /// The end of the run of ASCII letters and digits from `start` (`start` when there is none).
    @inline(__always)
    private func asciiAlphanumericEnd(from start: Int) -> Int {
        var end = start
        while end < bytes.count, bytes[end] < 0x80 {
            let kind = asciiClasses[Int(bytes[end])]
            guard kind == .letter || kind == .digit else { break }
            end += 1
        }
        return end
    }

    /// Reads a run of letters, digits, marks and joiners (UAX #29 rules WB4–WB13b, simplified);
    /// false when no letter or digit of it folds to something (a lone `_`, a lone U+037A).
    private mutating func readWord() -> Bool {
        let start = index
        let startScalar = scalarIndex
        var last: ScalarClass = .other
        var hasAlphanumeric = false
        scan: while index < bytes.count {
            // A run of ASCII letters and digits, the bulk of most text, is copied at once, then
            // lower-cased: setting bit 5 leaves the digits as they are.
            let runEnd = asciiAlphanumericEnd(from: index)
            if runEnd > index {
                let foldedStart = folded.count
                folded.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<runEnd]))
                folded.withUnsafeMutableBufferPointer { folded in
                    for offset in foldedStart..<folded.count { folded[offset] |= 0x20 }
                }
                last = asciiClasses[Int(bytes[runEnd - 1])]
                hasAlphanumeric = true
                scalarIndex += runEnd - index
                index = runEnd
                continue
            }
            let (scalar, length) = scalar(at: index)
            let kind = classify(scalar)
            switch kind {
            case .letter, .digit:
                let foldedStart = folded.count
                fold(scalar)
                last = kind
                // U+037A is a letter that folds to nothing: alone, it makes no word.
                if folded.count > foldedStart { hasAlphanumeric = true }
            case .mark:
                fold(scalar)
            case .format:
                break
            case .connector:
                let foldedStart = folded.count
                fold(scalar)
                splits.append(Split(folded: foldedStart..<folded.count, source: index..<index + length))
                last = .connector
            case .midLetter, .midNumLet, .midNum:
                guard index + length < bytes.count else { break scan }
                let following = classify(self.scalar(at: index + length).0)
                let joinsLetters = last == .letter && following == .letter && kind != .midNum
                let joinsDigits = last == .digit && following == .digit && kind != .midLetter
                guard joinsLetters || joinsDigits else { break scan }
                let foldedStart = folded.count
                fold(scalar)
                // A full stop between letters separates parts (`os.path`); an apostrophe does not.
                if joinsLetters, kind == .midNumLet, folded.last == UInt8(ascii: ".") || scalar.value == 0x2024 {
                    splits.append(Split(folded: foldedStart..<folded.count, source: index..<index + length))
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
