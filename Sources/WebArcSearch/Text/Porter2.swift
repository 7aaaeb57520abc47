/// The Porter2 stemmer: Snowball's English stemming algorithm (the revision Snowball 3 ships),
/// which maps the inflected and derived forms of an English word to one stem
/// (`connection`, `connected`, `connecting` → `connect`; `generously` → `generous`).
///
/// ```swift
/// Porter2.stem("running")   // "run"
/// ```
///
/// Written from the algorithm's description at snowballstem.org; Tools/porter2-check.sh
/// compares it with the Snowball project's own Python stemmer over every word of a document set.
public enum Porter2 {
    /// The stem of `word`, which should be lower case: words of fewer than three letters, and
    /// words with anything but the letters `a`–`z` and the apostrophe, come back unchanged.
    public static func stem(_ word: String) -> String {
        var bytes = Array(word.utf8)
        guard bytes.allSatisfy({ $0 &- UInt8(ascii: "a") < 26 || $0 == UInt8(ascii: "'") }) else { return word }
        stem(&bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Stems `word` in place: lower-case ASCII letters and apostrophes only.
    static func stem(_ word: inout [UInt8]) {
        if word.count <= 6, word.count >= 3, let exception = exceptions.first(where: { $0.0 == word }) {
            word = exception.1
            return
        }
        guard word.count >= 3 else { return }
        // The stemmer works on the caller's buffer (swapped in and out, so it is never copied).
        var stemmer = Stemmer([])
        swap(&stemmer.word, &word)
        stemmer.run()
        swap(&stemmer.word, &word)
    }

    /// Whole words with a stem of their own, checked before anything else.
    private static let exceptions: [([UInt8], [UInt8])] = {
        let pairs: [(String, String)] = [
            ("andes", "andes"), ("atlas", "atlas"), ("bias", "bias"), ("cosmos", "cosmos"), ("howe", "howe"),
            ("news", "news"), ("sky", "sky"), ("early", "earli"), ("gently", "gentl"), ("idly", "idl"),
            ("only", "onli"), ("singly", "singl"), ("skies", "sky"), ("skis", "ski"), ("ugly", "ugli"),
        ]
        return pairs.map { (Array($0.0.utf8), Array($0.1.utf8)) }
    }()
}

/// One run of the algorithm over one word: the word (with `Y` marking a consonant `y`) and its
/// regions R1 and R2, which start at ``p1`` and ``p2``.
struct Stemmer {
    var word: [UInt8]
    var p1 = 0
    var p2 = 0

    init(_ word: [UInt8]) { self.word = word }

    static let y = UInt8(ascii: "y")
    static let capitalY = UInt8(ascii: "Y")

    @inline(__always)
    static func isVowel(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"), y: true
        default: false
        }
    }

    mutating func run() {
        var marksY = false
        if word.first == UInt8(ascii: "'") { word.removeFirst() }
        if word.first == Self.y {
            word[0] = Self.capitalY
            marksY = true
        }
        // A `y` after a vowel is a consonant.
        for index in word.indices.dropFirst() where word[index] == Self.y && Self.isVowel(word[index - 1]) {
            word[index] = Self.capitalY
            marksY = true
        }
        markRegions()
        step1a()
        step1b()
        step1c()
        step2()
        step3()
        step4()
        step5()
        if marksY {
            for index in word.indices where word[index] == Self.capitalY { word[index] = Self.y }
        }
    }

    /// Prefixes after which R1 starts, whatever the letters say.
    private static let regionPrefixes: [[UInt8]] = [
        "arsen", "commun", "emerg", "gener", "inter", "later", "organ",
        "past", "univers",
    ].map { Array($0.utf8) }

    /// R1: after the first non-vowel that follows a vowel (or after one of ``regionPrefixes``);
    /// R2: the same rule applied again inside R1.
    private mutating func markRegions() {
        p1 = word.count
        p2 = word.count
        let first = word[0]
        if Self.isAmong(first, "acegilopu"), let prefix = Self.regionPrefixes.first(where: { word.starts(with: $0) }) {
            p1 = prefix.count
        } else {
            guard let end = regionStart(after: 0) else { return }
            p1 = end
        }
        p2 = regionStart(after: p1) ?? word.count
    }

    /// The offset after the first non-vowel that follows a vowel at or after `start`.
    private func regionStart(after start: Int) -> Int? {
        guard let vowel = word[start...].firstIndex(where: Self.isVowel),
            let consonant = word[(vowel + 1)...].firstIndex(where: { !Self.isVowel($0) })
        else { return nil }
        return consonant + 1
    }

    // MARK: Helpers

    /// Whether the word (up to `end`, by default all of it) ends with `suffix`.
    @inline(__always)
    func ends(with suffix: StaticString, at end: Int? = nil) -> Bool {
        let end = end ?? word.count
        let count = suffix.utf8CodeUnitCount
        guard count <= end else { return false }
        let pointer = suffix.utf8Start
        // From the last letter back: most suffixes differ there.
        var offset = count - 1
        while offset >= 0 {
            if word[end - count + offset] != pointer[offset] { return false }
            offset -= 1
        }
        return true
    }

    /// Whether `byte` is one of the ASCII letters of `letters`.
    @inline(__always)
    static func isAmong(_ byte: UInt8, _ letters: StaticString) -> Bool {
        let pointer = letters.utf8Start
        for offset in 0..<letters.utf8CodeUnitCount where pointer[offset] == byte { return true }
        return false
    }

    /// Replaces the last `count` bytes with `replacement`.
    @inline(__always)
    mutating func replaceSuffix(_ count: Int, with replacement: StaticString = "") {
        word.removeLast(count)
        word.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
    }

    /// Whether `word[..<end]` ends in a short syllable: a non-vowel, a vowel, then a non-vowel
    /// other than `w`, `x` or `Y`; or a vowel then a non-vowel at the very start; or `past`.
    func endsInShortSyllable(_ end: Int) -> Bool {
        if end >= 3 {
            let last = word[end - 1]
            if !Self.isVowel(last), last != UInt8(ascii: "w"), last != UInt8(ascii: "x"), last != Self.capitalY,
                Self.isVowel(word[end - 2]), !Self.isVowel(word[end - 3])
            {
                return true
            }
        }
        if end == 2, !Self.isVowel(word[1]), Self.isVowel(word[0]) { return true }
        return ends(with: "past", at: end)
    }

    /// Whether `word[..<end]` holds a vowel.
    func hasVowel(before end: Int) -> Bool {
        word[..<end].contains(where: Self.isVowel)
    }
}
