import Synchronization
import WebArc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One page of text analysed for the index: its title, length and each term's positions (spec
/// §17.3: title tokens first, the body's after a gap of one position).
///
/// The terms come packed, in no set order, each with the hash ``ByteSliceSet`` finds it by, so
/// that the builder, which takes documents one at a time, only looks each one up and appends a
/// posting: everything else is done here, on any thread.
struct DocumentAnalysis: Sendable {
    var url: String
    var title: String
    /// Tokens in the title and the body: BM25's document length.
    var length: Int
    /// The folded title the suggestions sort by, cut to ``IndexFormat/maxTitleKeyBytes``; empty: none.
    var titleKey: [UInt8]
    /// The distinct terms (UTF-8) in no set order, one after another: term `i` ends at `termEnds[i]`.
    var termBytes: [UInt8] = []
    var termEnds: [Int32] = []
    /// Each term's ``ByteSliceSet`` hash.
    var termHashes: [UInt32] = []
    /// Each term's number of tokens; negated when the title holds it.
    var termCounts: [Int32] = []
    /// Each term's positions ascending, term after term in the order of the terms.
    var positions: [Int32] = []

    /// Analyses `text`: the title's tokens at positions 0…, the body's from one past the title's last.
    init(url: String, text: PageText) {
        self.url = url
        title = Self.cut(text.title, to: IndexFormat.maxDocumentStringBytes)
        titleKey = Self.titleKey(text.title)
        length = 0
        AnalysisWorkspace.borrow { workspace in
            workspace.table.removeAll()
            var titleText = text.title
            let titleEnd = titleText.withUTF8 {
                workspace.table.add(text: $0, from: 0, inTitle: true, cache: &workspace.cache)
            }
            var bodyText = text.text
            _ = bodyText.withUTF8 {
                workspace.table.add(
                    text: $0, from: titleEnd == 0 ? 0 : titleEnd + 1, inTitle: false, cache: &workspace.cache)
            }
            length = workspace.table.tokenCount
            workspace.table.pack(into: &self)
        }
    }

    /// How many distinct terms the page holds.
    var termCount: Int { termEnds.count }

    /// Calls `body` with each term's bytes, hash, token count, title flag and positions, in order.
    func forEachTerm(
        _ body: (
            _ term: UnsafeBufferPointer<UInt8>, _ hash: UInt32, _ count: Int, _ inTitle: Bool,
            _ positions: UnsafeBufferPointer<Int32>
        ) throws -> Void
    ) rethrows {
        try termBytes.withUnsafeBufferPointer { bytes in
            try positions.withUnsafeBufferPointer { positions in
                var start = 0
                var positionStart = 0
                for index in termEnds.indices {
                    let end = Int(termEnds[index])
                    let count = Int(termCounts[index].magnitude)
                    try body(
                        UnsafeBufferPointer(rebasing: bytes[start..<end]), termHashes[index], count,
                        termCounts[index] < 0,
                        UnsafeBufferPointer(rebasing: positions[positionStart..<positionStart + count]))
                    start = end
                    positionStart += count
                }
            }
        }
    }

    /// Each term, its positions ascending, and whether the title holds it; sorted by term bytes.
    var terms: [(term: [UInt8], positions: [Int], inTitle: Bool)] {
        var terms: [(term: [UInt8], positions: [Int], inTitle: Bool)] = []
        forEachTerm { term, _, _, inTitle, positions in
            terms.append((Array(term), positions.map(Int.init), inTitle))
        }
        return terms.sorted { $0.term.lexicographicallyPrecedes($1.term) }
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
    /// Distinct forms that are stemmed, and the term each one gives (-1 until it is resolved).
    private var forms = ByteSliceSet()
    private var formTerm: [Int32] = []
    /// Forms of ASCII letters met first in the current text, whose terms are looked up together
    /// at its end (``resolvePendingForms(from:inTitle:cache:)``).
    private var pendingForms: [Int32] = []
    /// The pending forms' terms while they are looked up: their bytes, and where each ends.
    private var pendingTermBytes: [UInt8] = []
    private var pendingTermEnds: [Int32] = []
    /// Every token in order: its term and position. A token of a pending form holds the form's
    /// number, negated and less one, until the form is resolved.
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

    /// Forgets the page's terms, forms and tokens, keeping the room they took for the next page
    /// unless a very long page made it large.
    mutating func removeAll() {
        let keeps = tokenTerms.capacity <= 1 << 18
        terms.removeAll()
        inTitle.removeAll(keepingCapacity: keeps)
        forms.removeAll()
        formTerm.removeAll(keepingCapacity: keeps)
        pendingForms.removeAll(keepingCapacity: keeps)
        tokenTerms.removeAll(keepingCapacity: keeps)
        tokenPositions.removeAll(keepingCapacity: keeps)
        nonASCIITerms.removeAll(keepingCapacity: keeps)
    }

    /// Adds the tokens of the UTF-8 text `bytes` at positions from `first`; returns one past the
    /// last position used relative to `first` (0 when the text has no token).
    mutating func add(
        text bytes: UnsafeBufferPointer<UInt8>, from first: Int, inTitle title: Bool, cache: inout StemCache
    ) -> Int {
        var end = 0
        let firstToken = tokenTerms.count
        Analyzer.forEachForm(in: bytes) { form, stems, position in
            let term = self.term(of: form, stems: stems, cache: &cache)
            if title, term >= 0 { inTitle[Int(term)] = true }
            tokenTerms.append(term)
            tokenPositions.append(Int32(truncatingIfNeeded: first + position))
            end = position + 1
        }
        resolvePendingForms(from: firstToken, inTitle: title, cache: &cache)
        return end
    }

    /// The number of the term `form` gives, added when new; for a form of ASCII letters met for
    /// the first time, its number negated less one, and the form waits to be resolved.
    private mutating func term(of form: UnsafeBufferPointer<UInt8>, stems: Bool, cache: inout StemCache) -> Int32 {
        // A form that cannot change as a term (not stemmed, not cut) is its own term.
        let eligible = stems && form.count >= 3 && form.count <= Analyzer.maxTermBytes
        guard eligible else {
            if form.count <= Analyzer.maxTermBytes { return termNumber(form) }
            Analyzer.termBytes(ofForm: form, stems: stems, into: &scratch)
            return scratch.withUnsafeBufferPointer { termNumber($0) }
        }
        let (formNumber, isNew) = forms.insert(form)
        if !isNew {
            let term = formTerm[formNumber]
            return term >= 0 ? term : -Int32(formNumber) - 1
        }
        if form.contains(where: { $0 >= 0x80 }) {
            // Terms above ASCII are numbered as met: the first spelling met is the one written.
            cache.termBytes(ofForm: form, hash: forms.hash(of: formNumber), into: &scratch)
            let number = scratch.withUnsafeBufferPointer { termNumber($0) }
            formTerm.append(number)
            return number
        }
        formTerm.append(-1)
        pendingForms.append(Int32(formNumber))
        return -Int32(formNumber) - 1
    }

    /// Looks up the terms of the pending forms, then gives the tokens from `firstToken` on their
    /// terms. The forms' cache records are read once first, all together: those loads do not
    /// depend on one another, so the processor overlaps their cache misses, which one look-up at
    /// a time paid in turn.
    private mutating func resolvePendingForms(from firstToken: Int, inTitle title: Bool, cache: inout StemCache) {
        guard !pendingForms.isEmpty else { return }
        // Worked on as locals (their room kept between pages), so no closure below holds `self`.
        var termBytes = Self.takeAll(&pendingTermBytes)
        var termEnds = Self.takeAll(&pendingTermEnds)
        var term = Self.takeAll(&scratch)
        let pending = pendingForms
        forms.withUnsafeStrings { forms in
            for form in pending { cache.touch(hash: forms.hash(of: Int(form))) }
            for form in pending {
                cache.termBytes(ofForm: forms.bytes(of: Int(form)), hash: forms.hash(of: Int(form)), into: &term)
                termBytes.append(contentsOf: term)
                termEnds.append(Int32(termBytes.count))
            }
        }
        termBytes.withUnsafeBufferPointer { bytes in
            var start = 0
            for (index, form) in pending.enumerated() {
                let end = Int(termEnds[index])
                formTerm[Int(form)] = termNumber(UnsafeBufferPointer(rebasing: bytes[start..<end]))
                start = end
            }
        }
        (pendingTermBytes, pendingTermEnds, scratch) = (termBytes, termEnds, term)
        pendingForms.removeAll(keepingCapacity: true)
        for token in firstToken..<tokenTerms.count where tokenTerms[token] < 0 {
            let term = formTerm[Int(-tokenTerms[token] - 1)]
            tokenTerms[token] = term
            if title { inTitle[Int(term)] = true }
        }
    }

    /// `array` emptied, with its room; `array` is left empty and without room.
    private static func takeAll<Element>(_ array: inout [Element]) -> [Element] {
        var taken: [Element] = []
        swap(&taken, &array)
        taken.removeAll(keepingCapacity: true)
        return taken
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

    /// Writes the terms, in the order numbered, with their hashes, counts, title flags and
    /// positions into `analysis` (the builder sorts its terms when it writes them out, so a page's
    /// need no order).
    func pack(into analysis: inout DocumentAnalysis) {
        let count = terms.count
        var counts = [Int32](repeating: 0, count: count)
        for term in tokenTerms { counts[Int(term)] += 1 }
        // Where each term's positions go: after the positions of the terms before it.
        var next = [Int32](repeating: 0, count: count)
        var offset: Int32 = 0
        analysis.termEnds.reserveCapacity(count)
        analysis.termHashes.reserveCapacity(count)
        analysis.termCounts.reserveCapacity(count)
        analysis.termBytes.reserveCapacity(terms.byteCount)
        for number in 0..<count {
            next[number] = offset
            offset += counts[number]
            terms.withBytes(of: number) { analysis.termBytes.append(contentsOf: $0) }
            analysis.termEnds.append(Int32(analysis.termBytes.count))
            analysis.termHashes.append(terms.hash(of: number))
            analysis.termCounts.append(inTitle[number] ? -counts[number] : counts[number])
        }
        analysis.positions = [Int32](repeating: 0, count: tokenTerms.count)
        for (term, position) in zip(tokenTerms, tokenPositions) {
            analysis.positions[Int(next[Int(term)])] = position
            next[Int(term)] += 1
        }
    }
}

/// The terms of stemmed forms met in earlier documents, kept by each thread that analyses (in
/// its ``AnalysisWorkspace``): most forms recur from page to page, and need not be stemmed again.
///
/// Direct-mapped by the form's hash, in records of 32 bytes, so that a look-up reads one cache
/// line (a hash table of every form met missed the processor's caches and cost more than the
/// stemmer it saved); a form whose record another holds is stemmed and takes the record. Forms
/// and terms longer than a record holds (rare) are always stemmed.
struct StemCache {
    /// Each record: the form's length, its bytes, the term's length, its bytes; a length of 0: empty.
    private var records: [UInt8]
    /// A record's size: two halves of a length and up to ``maxBytes`` bytes.
    private static let recordSize = 32
    /// The longest form or term a record holds.
    static let maxBytes = recordSize / 2 - 1

    /// Records in the cache (a power of two): 2 MiB, which finds about 87 % of a page's distinct
    /// forms in generated wiki prose (2 048 records found 30 %, 16 384 69 %). Its misses cost
    /// little more than a small table's, since a page's look-ups are made together.
    static let recordCount = 65536

    init() {
        records = [UInt8](repeating: 0, count: Self.recordCount * Self.recordSize)
    }

    /// Reads the first byte of the record of the form whose hash is `hash`, so that a look-up of
    /// it soon after finds the record in the processor's cache.
    @inline(__always)
    mutating func touch(hash: UInt32) {
        touched &+= records[(Int(hash) & (Self.recordCount - 1)) * Self.recordSize]
    }

    /// The sum of the bytes ``touch(hash:)`` read, kept so that the reads are not left out.
    private(set) var touched: UInt8 = 0

    /// Writes the term of the form `form` (``Analyzer/termBytes(ofForm:stems:into:)``, stemmed)
    /// to `term`; `hash` is the form's ``ByteSliceSet`` hash.
    mutating func termBytes(ofForm form: UnsafeBufferPointer<UInt8>, hash: UInt32, into term: inout [UInt8]) {
        let count = form.count
        guard count > 0, count <= Self.maxBytes else {
            return Analyzer.termBytes(ofForm: form, stems: true, into: &term)
        }
        let start = (Int(hash) & (Self.recordCount - 1)) * Self.recordSize
        let half = Self.recordSize / 2
        let found = records.withUnsafeBufferPointer { records -> Bool in
            let record = records.baseAddress! + start
            guard Int(record[0]) == count, memcmp(record + 1, form.baseAddress!, count) == 0 else { return false }
            term.removeAll(keepingCapacity: true)
            term.append(contentsOf: UnsafeBufferPointer(start: record + half + 1, count: Int(record[half])))
            return true
        }
        guard !found else { return }
        Analyzer.termBytes(ofForm: form, stems: true, into: &term)
        guard term.count <= Self.maxBytes else { return }
        records.withUnsafeMutableBufferPointer { records in
            let record = records.baseAddress! + start
            record[0] = UInt8(count)
            (record + 1).update(from: form.baseAddress!, count: count)
            record[half] = UInt8(term.count)
            term.withUnsafeBufferPointer { (record + half + 1).update(from: $0.baseAddress!, count: $0.count) }
        }
    }

}

/// What a thread that analyses pages keeps from one page to the next (borrowed from a pool): the
/// stem cache, and the term table's arrays and hash tables, so that a page allocates only its
/// result.
struct AnalysisWorkspace {
    var cache = StemCache()
    var table = TermTable()

    private static let pool = Mutex<[AnalysisWorkspace]>([])

    /// Runs `body` with a workspace of the pool (a new one when none is free), then returns it.
    static func borrow<Result>(_ body: (inout AnalysisWorkspace) throws -> Result) rethrows -> Result {
        var workspace = pool.withLock { $0.popLast() } ?? AnalysisWorkspace()
        defer {
            let returned = workspace
            pool.withLock { if $0.count < 64 { $0.append(returned) } }
        }
        return try body(&workspace)
    }
}
