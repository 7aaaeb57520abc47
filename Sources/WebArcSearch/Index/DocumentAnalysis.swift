import WebArc

/// One page of text analysed for the index: its title, length and each term's positions (spec
/// §17.3: title tokens first, the body's after a gap of one position).
struct DocumentAnalysis: Sendable {
    var url: String
    var title: String
    /// Tokens in the title and the body: BM25's document length.
    var length: Int
    /// The folded title the suggestions sort by, cut to ``IndexFormat/maxTitleKeyBytes``; empty: none.
    var titleKey: [UInt8]
    /// Each term (UTF-8), its positions ascending, and whether the title holds it; sorted by term bytes.
    var terms: [(term: [UInt8], positions: [Int], inTitle: Bool)]

    /// Analyses `text`: the title's tokens at positions 0…, the body's from one past the title's last.
    init(url: String, text: PageText) {
        self.url = url
        title = Self.cut(text.title, to: IndexFormat.maxDocumentStringBytes)
        var table = TermTable()
        var titleText = text.title
        let titleEnd = titleText.withUTF8 { table.add(text: $0, from: 0, inTitle: true) }
        var bodyText = text.text
        _ = bodyText.withUTF8 { table.add(text: $0, from: titleEnd == 0 ? 0 : titleEnd + 1, inTitle: false) }
        length = table.tokenCount
        terms = table.sortedTerms()
        titleKey = Self.titleKey(text.title)
    }

    /// A title as suggestions compare it: folded, runs of white space as one space, trimmed, cut
    /// to ``IndexFormat/maxTitleKeyBytes`` at a scalar boundary.
    static func titleKey(_ title: String) -> [UInt8] {
        let folded = Analyzer.fold(title)
        let words = folded.split(whereSeparator: { $0.isWhitespace })
        return Array(cut(words.joined(separator: " "), to: IndexFormat.maxTitleKeyBytes).utf8)
    }

    /// `text` cut to at most `limit` UTF-8 bytes at a scalar boundary.
    static func cut(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var bytes = Array(text.utf8.prefix(limit))
        while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
        if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// One document's terms while it is analysed: each distinct word form and each distinct term once,
/// as bytes in an arena, found through open-addressed hash tables; each token as a term number and
/// a position. A form seen before costs a hash and a comparison: no string, no second stemming.
struct TermTable {
    /// Distinct terms (stemmed, cut).
    private var terms = ByteSliceSet()
    /// Whether each term occurs in the title.
    private var inTitle: [Bool] = []
    /// Distinct forms that are stemmed, and the term each one gives.
    private var forms = ByteSliceSet()
    private var formTerm: [Int32] = []
    /// Every token in order: its term and position.
    private var tokenTerms: [Int32] = []
    private var tokenPositions: [Int32] = []
    /// The numbers of terms with bytes above ASCII, by string.
    private var nonASCIITerms: [String: Int32] = [:]
    private var scratch: [UInt8] = []

    /// Tokens added: BM25's document length.
    var tokenCount: Int { tokenTerms.count }

    init() {
        scratch.reserveCapacity(2 * Analyzer.maxTermBytes)
    }

    /// Adds the tokens of the UTF-8 text `bytes` at positions from `first`; returns one past the
    /// last position used relative to `first` (0 when the text has no token).
    mutating func add(text bytes: UnsafeBufferPointer<UInt8>, from first: Int, inTitle title: Bool) -> Int {
        var end = 0
        Analyzer.forEachForm(in: bytes) { form, stems, position in
            let term = self.term(of: form, stems: stems)
            if title { inTitle[Int(term)] = true }
            tokenTerms.append(term)
            tokenPositions.append(Int32(truncatingIfNeeded: first + position))
            end = position + 1
        }
        return end
    }

    /// The number of the term `form` gives, added when new.
    private mutating func term(of form: UnsafeBufferPointer<UInt8>, stems: Bool) -> Int32 {
        // A form that cannot change as a term (not stemmed, not cut) is its own term.
        let eligible = stems && form.count >= 3 && form.count <= Analyzer.maxTermBytes
        guard eligible else {
            if form.count <= Analyzer.maxTermBytes { return termNumber(form) }
            Analyzer.termBytes(ofForm: form, stems: stems, into: &scratch)
            return scratch.withUnsafeBufferPointer { termNumber($0) }
        }
        let (formNumber, isNew) = forms.insert(form)
        if !isNew { return formTerm[formNumber] }
        Analyzer.termBytes(ofForm: form, stems: true, into: &scratch)
        let number = scratch.withUnsafeBufferPointer { termNumber($0) }
        formTerm.append(number)
        return number
    }

    private mutating func termNumber(_ term: UnsafeBufferPointer<UInt8>) -> Int32 {
        if term.contains(where: { $0 >= 0x80 }) {
            // Terms are told apart as strings are: canonically equivalent spellings are one term,
            // written as the first one met.
            let key = String(decoding: term, as: UTF8.self)
            if let number = nonASCIITerms[key] { return number }
            let number = Int32(terms.insert(term).number)
            inTitle.append(false)
            nonASCIITerms[key] = number
            return number
        }
        let (number, isNew) = terms.insert(term)
        if isNew { inTitle.append(false) }
        return Int32(number)
    }

    /// Each term, its positions ascending, and whether the title holds it; sorted by term bytes.
    func sortedTerms() -> [(term: [UInt8], positions: [Int], inTitle: Bool)] {
        var counts = [Int32](repeating: 0, count: terms.count)
        for term in tokenTerms { counts[Int(term)] += 1 }
        var positions = counts.map { count -> [Int] in
            var list: [Int] = []
            list.reserveCapacity(Int(count))
            return list
        }
        for (term, position) in zip(tokenTerms, tokenPositions) { positions[Int(term)].append(Int(position)) }
        let order = (0..<terms.count).sorted { terms.precedes($0, $1) }
        return order.map { (terms.bytes(of: $0), positions[$0], inTitle[$0]) }
    }
}

/// A set of distinct byte strings, numbered in the order they were added: their bytes in one
/// arena, found by an open-addressed table of their numbers.
struct ByteSliceSet {
    private var arena: [UInt8] = []
    /// Where each string starts in ``arena``; one more entry than strings, the arena's end.
    private var starts: [Int32] = [0]
    private var hashes: [UInt32] = []
    /// Slots of the hash table: a string's number plus one, or 0 when free.
    private var slots = [Int32](repeating: 0, count: 256)

    /// How many strings the set holds.
    var count: Int { hashes.count }

    /// The number of `bytes`, and whether they were added now.
    mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>) -> (number: Int, isNew: Bool) {
        let hash = Self.hash(bytes)
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while slots[slot] != 0 {
            let number = Int(slots[slot] - 1)
            if hashes[number] == hash, equals(number, bytes) { return (number, false) }
            slot = (slot + 1) & mask
        }
        let number = hashes.count
        arena.append(contentsOf: bytes)
        starts.append(Int32(arena.count))
        hashes.append(hash)
        slots[slot] = Int32(number + 1)
        if 2 * hashes.count > slots.count { grow() }
        return (number, true)
    }

    /// The bytes of string `number`.
    func bytes(of number: Int) -> [UInt8] {
        Array(arena[Int(starts[number])..<Int(starts[number + 1])])
    }

    /// Whether string `left` sorts before string `right`, byte by byte.
    func precedes(_ left: Int, _ right: Int) -> Bool {
        let (leftStart, rightStart) = (Int(starts[left]), Int(starts[right]))
        let (leftCount, rightCount) = (Int(starts[left + 1]) - leftStart, Int(starts[right + 1]) - rightStart)
        return arena.withUnsafeBufferPointer { bytes in
            for offset in 0..<min(leftCount, rightCount) where bytes[leftStart + offset] != bytes[rightStart + offset] {
                return bytes[leftStart + offset] < bytes[rightStart + offset]
            }
            return leftCount < rightCount
        }
    }

    private func equals(_ number: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = Int(starts[number])
        guard Int(starts[number + 1]) - start == bytes.count else { return false }
        for offset in 0..<bytes.count where arena[start + offset] != bytes[offset] { return false }
        return true
    }

    private mutating func grow() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for number in hashes.indices {
            var slot = Int(hashes[number]) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(number + 1)
        }
    }

    /// FNV-1a over the bytes, folded to 32 bits.
    @inline(__always)
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return UInt32(truncatingIfNeeded: hash ^ hash >> 32)
    }
}
