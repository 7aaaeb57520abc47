/// The steps of the Porter2 algorithm, in order. Where a step lists suffixes, the longest one
/// the word ends with is the one that counts, whether or not its condition then holds.
extension Stemmer {
    /// Step 1a: possessive apostrophes, then plural `-s` forms.
    mutating func step1a() {
        if ends(with: "'s'") {
            replaceSuffix(3)
        } else if ends(with: "'s") {
            replaceSuffix(2)
        } else if ends(with: "'") {
            replaceSuffix(1)
        }
        if ends(with: "sses") {
            replaceSuffix(4, with: "ss")
        } else if ends(with: "ied") || ends(with: "ies") {
            // `ties` → `tie`, `cries` → `cri`.
            replaceSuffix(3, with: word.count > 4 ? "i" : "ie")
        } else if ends(with: "ss") || ends(with: "us") {
            return
        } else if ends(with: "s"), word.count >= 2, hasVowel(before: word.count - 2) {
            // `gaps` → `gap`, but `gas` stays.
            replaceSuffix(1)
        }
    }

    /// Step 1b: `-eed`, `-ed`, `-ing` and their `-ly` forms.
    mutating func step1b() {
        let count = word.count
        if ends(with: "eedly") || ends(with: "eed") {
            let start = count - (ends(with: "eedly") ? 5 : 3)
            guard start >= p1 else { return }
            let stem = word[..<start]
            if stem.elementsEqual("succ".utf8) || stem.elementsEqual("proc".utf8) || stem.elementsEqual("exc".utf8) {
                return
            }
            replaceSuffix(count - start, with: "ee")
            return
        }
        let suffixLength: Int
        if ends(with: "ingly") || ends(with: "edly") {
            suffixLength = ends(with: "ingly") ? 5 : 4
        } else if ends(with: "ing") {
            suffixLength = 3
            let start = count - 3
            // `dying` → `die`; `inning`, `outing`, `herring`… stay.
            if ends(with: "y", at: start) {
                if start == 2, !Self.isVowel(word[0]) {
                    replaceSuffix(4, with: "ie")
                    return
                }
            } else if Self.keptBeforeIng.contains(where: { word[..<start].elementsEqual($0.utf8) }) {
                return
            }
        } else if ends(with: "ed") {
            suffixLength = 2
        } else {
            return
        }
        let start = count - suffixLength
        guard hasVowel(before: start) else { return }
        word.removeLast(suffixLength)
        if ends(with: "at") || ends(with: "bl") || ends(with: "iz") {
            word.append(UInt8(ascii: "e"))
        } else if endsWithDouble() {
            // `hopping` → `hop`, but `added` → `add`.
            if word.count == 3,
                word[0] == UInt8(ascii: "a") || word[0] == UInt8(ascii: "e") || word[0] == UInt8(ascii: "o")
            {
                return
            }
            word.removeLast()
        } else if word.count == p1, endsInShortSyllable(word.count) {
            // A short word: `hoped` → `hope`.
            word.append(UInt8(ascii: "e"))
        }
    }

    /// Words that stay whole before `-ing`.
    private static let keptBeforeIng = ["even", "cann", "inn", "earr", "herr", "out"]

    /// Whether the word ends with `bb`, `dd`, `ff`, `gg`, `mm`, `nn`, `pp`, `rr` or `tt`.
    private func endsWithDouble() -> Bool {
        guard word.count >= 2, word[word.count - 1] == word[word.count - 2] else { return false }
        switch word[word.count - 1] {
        case UInt8(ascii: "b"), UInt8(ascii: "d"), UInt8(ascii: "f"), UInt8(ascii: "g"), UInt8(ascii: "m"),
            UInt8(ascii: "n"), UInt8(ascii: "p"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return true
        default:
            return false
        }
    }

    /// Step 1c: a final `y` after a non-vowel that is not the first letter becomes `i`.
    mutating func step1c() {
        let count = word.count
        guard count >= 3, word[count - 1] == Self.y || word[count - 1] == Self.capitalY, !Self.isVowel(word[count - 2])
        else { return }
        word[count - 1] = UInt8(ascii: "i")
    }

    /// Step 2 suffixes, longest first, and what replaces each (in R1).
    private static let step2Rules: [(StaticString, StaticString)] = [
        ("ization", "ize"), ("ational", "ate"), ("fulness", "ful"), ("ousness", "ous"), ("iveness", "ive"),
        ("tional", "tion"), ("biliti", "ble"), ("lessli", "less"),
        ("entli", "ent"), ("ation", "ate"), ("alism", "al"), ("aliti", "al"), ("ousli", "ous"), ("iviti", "ive"),
        ("fulli", "ful"), ("ogist", "og"),
        ("enci", "ence"), ("anci", "ance"), ("abli", "able"), ("izer", "ize"), ("ator", "ate"), ("alli", "al"),
        ("bli", "ble"), ("ogi", "og"), ("li", ""),
    ]

    /// Step 2: derivational suffixes such as `-ational`, `-iveness`, `-li`.
    mutating func step2() {
        guard let last = word.last, Self.isAmong(last, "ilmnrst"),
            let (suffix, replacement) = Self.step2Rules.first(where: { ends(with: $0.0) })
        else { return }
        let start = word.count - suffix.utf8CodeUnitCount
        guard start >= p1 else { return }
        if suffix.utf8CodeUnitCount == 3, suffix.utf8Start[0] == UInt8(ascii: "o") {
            // `ogi` → `og` only after `l`.
            guard start > 0, word[start - 1] == UInt8(ascii: "l") else { return }
        } else if suffix.utf8CodeUnitCount == 2 {
            // `li` goes after c, d, e, g, h, k, m, n, r or t.
            guard start > 0, Self.isAmong(word[start - 1], "cdeghkmnrt") else { return }
        }
        replaceSuffix(suffix.utf8CodeUnitCount, with: replacement)
    }

    /// Step 3 suffixes, longest first, and what replaces each (in R1; `ative` only in R2).
    private static let step3Rules: [(StaticString, StaticString)] = [
        ("ational", "ate"), ("tional", "tion"), ("alize", "al"), ("icate", "ic"), ("iciti", "ic"), ("ative", ""),
        ("ical", "ic"), ("ness", ""), ("ful", ""),
    ]

    /// Step 3: `-ical`, `-ness`, `-ful` and the like.
    mutating func step3() {
        guard let last = word.last, Self.isAmong(last, "eils"),
            let (suffix, replacement) = Self.step3Rules.first(where: { ends(with: $0.0) })
        else { return }
        let start = word.count - suffix.utf8CodeUnitCount
        guard start >= p1 else { return }
        if ends(with: "ative"), start < p2 { return }
        replaceSuffix(suffix.utf8CodeUnitCount, with: replacement)
    }

    /// Step 4 suffixes, longest first: each is deleted in R2 (`ion` only after `s` or `t`).
    private static let step4Suffixes: [StaticString] = [
        "ement", "ance", "ence", "able", "ible", "ment", "ate", "ive", "ize", "iti", "ism", "ion", "ous", "ant", "ent",
        "al", "er", "ic",
    ]

    /// Step 4: `-ement`, `-ance`, `-ion` and the like.
    mutating func step4() {
        guard let last = word.last, Self.isAmong(last, "ceilmnrst"),
            let suffix = Self.step4Suffixes.first(where: { ends(with: $0) })
        else { return }
        let start = word.count - suffix.utf8CodeUnitCount
        guard start >= p2 else { return }
        if ends(with: "ion") {
            guard start > 0, word[start - 1] == UInt8(ascii: "s") || word[start - 1] == UInt8(ascii: "t") else {
                return
            }
        }
        word.removeLast(suffix.utf8CodeUnitCount)
    }

    /// Step 5: a final `e` (in R2, or in R1 unless a short syllable precedes it) and the second
    /// `l` of a final `ll` in R2.
    mutating func step5() {
        let last = word.count - 1
        guard last >= 0 else { return }
        if word[last] == UInt8(ascii: "e") {
            if last >= p2 || (last >= p1 && !endsInShortSyllable(last)) { word.removeLast() }
        } else if word[last] == UInt8(ascii: "l") {
            if last >= p2, last > 0, word[last - 1] == UInt8(ascii: "l") { word.removeLast() }
        }
    }
}
