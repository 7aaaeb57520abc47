import WebArc

/// The payloads of the search index's pages (spec §17.2): what each page kind holds after the head
/// the core parses (``SearchPage``). Integers are unsigned LEB128; strings a length then UTF-8 bytes.
enum IndexFormat {
    /// The index rules version this module writes by default (`Writer.search`, the root's
    /// `version`): 4, Rice-coded postings without positions or length codes, and norm pages
    /// (spec §17.2).
    static let newest: UInt64 = 4
    /// The index rules versions this module reads and writes: 1 (with positions, under
    /// `Archive.search`), 2 (under `Archive.searchIndex`), 3 (under `Archive.searchIndex3`) and 4
    /// (under `Archive.searchIndex4`).
    static let versions: ClosedRange<UInt64> = 1...4
    /// Documents a norm page holds, as this module writes them (version 4).
    static let normSpan = 16_384
    /// The most documents a norm page may hold (the root's `normSpan`).
    static let maxNormSpan = 65_536
    /// Decoded payload bytes a writer aims at for each page (as the trees' 64 KiB pages).
    static let pageTarget = 65_536
    /// The longest title key a suggestion shard holds, in bytes.
    static let maxTitleKeyBytes = 128
    /// The longest URL or title a document entry holds, in bytes.
    static let maxDocumentStringBytes = 8_192
}

/// Appends LEB128 integers and length-prefixed bytes.
struct PayloadWriter {
    var bytes: [UInt8] = []

    mutating func integer(_ value: Int) { LEB128.append(UInt64(value), to: &bytes) }
    mutating func integer(_ value: UInt64) { LEB128.append(value, to: &bytes) }
    mutating func string<C: Collection<UInt8>>(_ value: C) {
        integer(value.count)
        bytes.append(contentsOf: value)
    }
}

/// Reads a page's payload; every failure is `corruptPage` at the page, naming the byte.
struct PayloadReader {
    let bytes: [UInt8]
    var index: Int
    let page: UInt64

    init(_ page: SearchPage) {
        bytes = page.bytes
        index = page.payloadStart
        self.page = page.offset
    }

    var isAtEnd: Bool { index == bytes.count }
    var remaining: Int { bytes.count - index }

    func corrupt(_ reason: String, at position: Int? = nil) -> WebArcError {
        .corruptPage(page: page, position: position ?? index, reason: reason)
    }

    mutating func integer() throws -> UInt64 {
        let start = index
        switch LEB128.read(bytes, &index) {
        case .success(let value): return value
        case .failure: throw corrupt("a malformed integer", at: start)
        }
    }

    /// An integer that counts things of at least `unit` bytes each still to come in the page.
    mutating func count(unit: Int = 1) throws -> Int {
        let start = index
        let value = try integer()
        guard value <= UInt64(remaining / max(1, unit)) else {
            throw corrupt("a count of \(value) past the page's end", at: start)
        }
        return Int(value)
    }

    mutating func bytes(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count <= remaining else { throw corrupt("\(count) bytes past the page's end") }
        defer { index += count }
        return bytes[index..<index + count]
    }

    mutating func string() throws -> ArraySlice<UInt8> { try bytes(try count()) }

    /// Moves past a string, returning its length: no slice made (a walk past hundreds of entries
    /// to one would retain and release the page's bytes for each).
    mutating func skipString() throws -> Int {
        let count = try count()
        index += count
        return count
    }

    mutating func text() throws -> String {
        let start = index
        let slice = try string()
        guard let text = String(validating: slice, as: UTF8.self) else { throw corrupt("invalid UTF-8", at: start) }
        return text
    }

    func requireEnd(_ what: String) throws {
        guard isAtEnd else { throw corrupt("\(remaining) bytes after the \(what)") }
    }
}

/// The root page (kind 1): counts for BM25 and where the shards and document pages are.
struct IndexRoot: Sendable {
    /// The index rules version: 1 with position pages, 2 without.
    var version: UInt64
    var documentCount: Int
    var tokenCount: UInt64
    /// First term of each term shard (children 0..<S).
    var termKeys: [ArraySlice<UInt8>]
    /// First document of each document page (children S..<S+D).
    var documentStarts: [Int]
    /// First key of each title shard (children S+D..<S+D+G).
    var titleKeys: [ArraySlice<UInt8>]
    /// Documents a norm page holds (version 4; 0 before): the last children are the norm pages.
    var normSpan: Int
    var children: [PageReference]

    var termShards: ArraySlice<PageReference> { children[0..<termKeys.count] }
    var documentPages: ArraySlice<PageReference> {
        children[termKeys.count..<termKeys.count + documentStarts.count]
    }
    var titleShards: ArraySlice<PageReference> {
        let start = termKeys.count + documentStarts.count
        return children[start..<start + titleKeys.count]
    }
    var normPages: ArraySlice<PageReference> {
        children[(termKeys.count + documentStarts.count + titleKeys.count)...]
    }
    /// Whether postings carry no length code, each document's being in the norm pages (version 4).
    var hasNorms: Bool { version >= 4 }
    /// The number of norm pages `documentCount` documents take, `span` to a page.
    static func normPageCount(documentCount: Int, span: Int) -> Int {
        span == 0 ? 0 : (documentCount + span - 1) / span
    }

    /// Parses and checks a root page: `version` (the one the metadata key names), ascending keys
    /// and starts, a child for each.
    init(_ page: SearchPage, version expected: UInt64) throws {
        var reader = PayloadReader(page)
        guard page.kind == .root else {
            throw reader.corrupt("a search page of kind \(page.kind.rawValue), not the root", at: 1)
        }
        let versionAt = reader.index
        let version = try reader.integer()
        guard version == expected else {
            throw reader.corrupt("search index version \(version), not \(expected)", at: versionAt)
        }
        self.version = version
        let documentsAt = reader.index
        let documents = try reader.integer()
        guard documents <= 1 << 40 else { throw reader.corrupt("\(documents) documents", at: documentsAt) }
        documentCount = Int(documents)
        tokenCount = try reader.integer()
        termKeys = try Self.keys(&reader, what: "term shard")
        var starts: [Int] = []
        for _ in 0..<(try reader.count()) {
            let at = reader.index
            let start = try reader.integer()
            guard start < documents, starts.isEmpty ? start == 0 : Int(start) > starts.last! else {
                throw reader.corrupt("document page start \(start) out of order", at: at)
            }
            starts.append(Int(start))
        }
        guard documentCount == 0 || !starts.isEmpty else {
            throw reader.corrupt("\(documentCount) documents and no document page")
        }
        documentStarts = starts
        titleKeys = try Self.keys(&reader, what: "title shard")
        normSpan = 0
        if version >= 4 {
            let spanAt = reader.index
            let span = try reader.integer()
            guard span >= 1, span <= UInt64(IndexFormat.maxNormSpan) else {
                throw reader.corrupt("a norm span of \(span) documents", at: spanAt)
            }
            normSpan = Int(span)
        }
        try reader.requireEnd("root")
        let named =
            termKeys.count + documentStarts.count + titleKeys.count
            + Self.normPageCount(documentCount: documentCount, span: normSpan)
        guard page.children.count == named else {
            throw reader.corrupt("\(page.children.count) children for \(named) pages", at: 4)
        }
        children = page.children
    }

    private static func keys(_ reader: inout PayloadReader, what: String) throws -> [ArraySlice<UInt8>] {
        var keys: [ArraySlice<UInt8>] = []
        for _ in 0..<(try reader.count()) {
            let at = reader.index
            let key = try reader.string()
            if let last = keys.last, !last.lexicographicallyPrecedes(key) {
                throw reader.corrupt("\(what) keys out of order", at: at)
            }
            keys.append(key)
        }
        return keys
    }

    /// The index of the last key *bytes*-≤ `key` (the shard that would hold it), or nil.
    static func shard<K: Collection<UInt8>>(for key: K, in keys: [ArraySlice<UInt8>]) -> Int? {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if key.lexicographicallyPrecedes(keys[middle]) { high = middle } else { low = middle + 1 }
        }
        return low == 0 ? nil : low - 1
    }

    static func encode(
        version: UInt64, documentCount: Int, tokenCount: UInt64, termKeys: [[UInt8]], documentStarts: [Int],
        titleKeys: [[UInt8]], normSpan: Int = 0
    ) -> [UInt8] {
        var writer = PayloadWriter()
        writer.integer(version)
        writer.integer(documentCount)
        writer.integer(tokenCount)
        writer.integer(termKeys.count)
        for key in termKeys { writer.string(key) }
        writer.integer(documentStarts.count)
        for start in documentStarts { writer.integer(start) }
        writer.integer(titleKeys.count)
        for key in titleKeys { writer.string(key) }
        if version >= 4 { writer.integer(normSpan) }
        return writer.bytes
    }
}

/// One term of a term shard: its document frequency and where its postings and positions lie in
/// the shard's streams (no positions in version 2: an empty range).
struct TermEntry: Sendable {
    var term: [UInt8]
    var documentFrequency: Int
    var postings: Range<Int>
    var positions: Range<Int>
}

/// A term shard (kind 2): sorted, front-coded terms; children are its posting pages then (version
/// 1) its position pages, whose payloads, concatenated, are its streams.
struct TermShard: Sendable {
    var entries: [TermEntry]
    var postingPages: ArraySlice<PageReference>
    var positionPages: ArraySlice<PageReference>

    /// Parses and checks a shard of index `version`: sorted terms, lengths that add up to its
    /// pages' payloads.
    init(_ page: SearchPage, firstTerm: ArraySlice<UInt8>, documentCount: Int, version: UInt64) throws {
        var reader = PayloadReader(page)
        guard page.kind == .terms else {
            throw reader.corrupt("a search page of kind \(page.kind.rawValue), not terms", at: 1)
        }
        let hasPositions = version == 1
        // Version 2: every child is a posting page, and no count says so.
        let postingCount = hasPositions ? try reader.integer() : UInt64(page.children.count)
        let positionCount = hasPositions ? try reader.integer() : 0
        // Compared without adding them: two counts from the page may overflow a sum.
        guard postingCount <= UInt64(page.children.count), positionCount == UInt64(page.children.count) - postingCount
        else {
            throw reader.corrupt("\(postingCount) + \(positionCount) stream pages for \(page.children.count) children")
        }
        // A stream page's payload is its length less the head; a child can name fewer bytes.
        if let short = page.children.firstIndex(where: { Int($0.rawLength) < SearchPage.headSize }) {
            throw reader.corrupt(
                "stream page \(short) of \(page.children[short].rawLength) bytes, shorter than a page head",
                at: SearchPage.headSize + short * PageReference.size)
        }
        postingPages = page.children[0..<Int(postingCount)]
        positionPages = page.children[Int(postingCount)...]
        let postingBytes = postingPages.reduce(0) { $0 + Int($1.rawLength) - SearchPage.headSize }
        let positionBytes = positionPages.reduce(0) { $0 + Int($1.rawLength) - SearchPage.headSize }
        var entries: [TermEntry] = []
        var previous: [UInt8] = []
        var postingEnd = 0
        var positionEnd = 0
        let count = try reader.count(unit: hasPositions ? 6 : 5)
        guard count >= 1 else { throw reader.corrupt("a term shard with no terms") }
        entries.reserveCapacity(count)
        for number in 0..<count {
            let at = reader.index
            let shared = try reader.integer()
            guard shared <= UInt64(previous.count) else {
                throw reader.corrupt("a shared prefix past the previous term", at: at)
            }
            let suffix = try reader.string()
            var term = Array(previous[0..<Int(shared)])
            term.append(contentsOf: suffix)
            if number == 0 {
                guard term.elementsEqual(firstTerm) else {
                    throw reader.corrupt("the shard's first term is not the root's key for it", at: at)
                }
            } else {
                guard previous.lexicographicallyPrecedes(term) else {
                    throw reader.corrupt("terms out of order", at: at)
                }
            }
            guard !term.isEmpty, term.count <= Analyzer.maxTermBytes else {
                throw reader.corrupt("a term of \(term.count) bytes", at: at)
            }
            let frequencyAt = reader.index
            let frequency = try reader.integer()
            guard frequency >= 1, frequency <= UInt64(documentCount) else {
                throw reader.corrupt("document frequency \(frequency) of \(documentCount) documents", at: frequencyAt)
            }
            let postingLength = try reader.integer()
            let positionLength = hasPositions ? try reader.integer() : 0
            // Version 3 codes a list of `blockedFrom` postings or more in blocks of at least 6 bytes
            // each, version 4 of at least 7; version 4's short postings take 2 bytes or more.
            let blocks = UInt64(BlockPostings.blockCount(Int(frequency)))
            let least =
                version < 3
                ? 3 * frequency
                : frequency < UInt64(BlockPostings.blockedFrom)
                    ? (version == 3 ? 3 : 2) * frequency
                    : (version == 3 ? 6 : 7) * blocks
            guard postingLength >= least, postingLength <= UInt64(postingBytes - postingEnd),
                positionLength <= UInt64(positionBytes - positionEnd)
            else {
                throw reader.corrupt("stream lengths past the shard's pages", at: frequencyAt)
            }
            entries.append(
                TermEntry(
                    term: term, documentFrequency: Int(frequency),
                    postings: postingEnd..<postingEnd + Int(postingLength),
                    positions: positionEnd..<positionEnd + Int(positionLength)))
            postingEnd += Int(postingLength)
            positionEnd += Int(positionLength)
            previous = term
        }
        try reader.requireEnd("terms")
        guard postingEnd == postingBytes, positionEnd == positionBytes else {
            throw reader.corrupt("the terms' streams do not fill the shard's pages")
        }
        self.entries = entries
    }

    /// The entry for `term`, or nil.
    func entry<K: Collection<UInt8>>(_ term: K) -> TermEntry? {
        let index = lowerBound(term)
        guard index < entries.count, entries[index].term.elementsEqual(term) else { return nil }
        return entries[index]
    }

    /// The first entry not before `term`.
    func lowerBound<K: Collection<UInt8>>(_ term: K) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].term.lexicographicallyPrecedes(term) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// One posting: a document, the term's count in it, whether the title holds it, and the
/// document's length as BM25 reads it (in version 4 from the norm pages, not the posting).
struct Posting: Sendable {
    var document: Int
    /// The count as stored: below 2^32 in every version (spec §17.2), so 4 bytes, and a posting
    /// takes 16 bytes where an `Int` count made it 24 (a list of a million is held decoded).
    private var count: UInt32
    var inTitle: Bool
    /// The document's length, quantized (``LengthCode``).
    var lengthCode: UInt8

    init(document: Int, frequency: Int, inTitle: Bool, lengthCode: UInt8) {
        self.document = document
        count = UInt32(clamping: frequency)
        self.inTitle = inTitle
        self.lengthCode = lengthCode
    }

    /// The term's count in the document. A decoder that reads a larger count (a damaged block:
    /// 2^32 fits its width) stores it clamped and refuses the block by its skip entry's maximum.
    var frequency: Int {
        get { Int(count) }
        set { count = UInt32(clamping: newValue) }
    }
}

/// A document's length in one byte, as each posting carries it so that ranking needs no other
/// page: lengths below 16 as they are, others as 3 significant bits and an exponent (spec §17.4).
enum LengthCode {
    static func encode(_ length: Int) -> UInt8 {
        guard length >= 16 else { return UInt8(length) }
        let exponent = Int.bitWidth - 1 - length.leadingZeroBitCount
        let mantissa = (length >> (exponent - 3)) & 7
        return UInt8(min(255, 16 + (exponent - 4) * 8 + mantissa))
    }

    static func decode(_ code: UInt8) -> Int {
        guard code >= 16 else { return Int(code) }
        let exponent = (Int(code) - 16) / 8 + 4
        let mantissa = (Int(code) - 16) % 8
        return (8 + mantissa) << (exponent - 3)
    }
}

/// Decodes a term's postings and positions (spec §17.2).
enum PostingCodec {
    static func encode(
        document: Int, previous: Int?, frequency: Int, inTitle: Bool, length: Int, into bytes: inout [UInt8]
    ) {
        encode(
            document: document, previous: previous, frequency: frequency, inTitle: inTitle,
            lengthCode: LengthCode.encode(length), into: &bytes)
    }

    /// Appends a posting; without `lengthCode` as version 4 codes it.
    static func encode(
        document: Int, previous: Int?, frequency: Int, inTitle: Bool, lengthCode: UInt8?, into bytes: inout [UInt8]
    ) {
        LEB128.append(UInt64(document - (previous ?? 0)), to: &bytes)
        LEB128.append(UInt64(frequency) << 1 | (inTitle ? 1 : 0), to: &bytes)
        if let lengthCode { bytes.append(lengthCode) }
    }

    /// `bytes` as `count` postings of documents below `documentCount`; without `lengths`, coded
    /// with no length code (version 4: each posting's `lengthCode` is 0, for the norms to fill).
    static func postings(
        _ bytes: [UInt8], count: Int, documentCount: Int, page: UInt64, lengths: Bool = true
    ) throws -> [Posting] {
        var index = 0
        var postings: [Posting] = []
        postings.reserveCapacity(count)
        var previous = -1
        func fail(_ reason: String) -> WebArcError {
            .corruptPage(page: page, position: nil, reason: "postings: \(reason)")
        }
        for number in 0..<count {
            guard case .success(let delta) = LEB128.read(bytes, &index),
                case .success(let packed) = LEB128.read(bytes, &index), !lengths || index < bytes.count
            else { throw fail("malformed") }
            let lengthCode = lengths ? bytes[index] : 0
            if lengths { index += 1 }
            guard number == 0 || delta >= 1, delta < UInt64(documentCount), packed >> 1 >= 1, packed >> 1 < 1 << 32
            else {
                throw fail("a document delta \(delta) or count \(packed >> 1) out of range")
            }
            let document = number == 0 ? Int(delta) : previous + Int(delta)
            guard document < documentCount else { throw fail("document \(document) of \(documentCount)") }
            postings.append(
                Posting(
                    document: document, frequency: Int(packed >> 1), inTitle: packed & 1 == 1, lengthCode: lengthCode))
            previous = document
        }
        guard index == bytes.count else { throw fail("\(bytes.count - index) bytes after the postings") }
        return postings
    }

    /// Each posting's positions, from the term's positions stream.
    static func positions(_ bytes: [UInt8], postings: [Posting], page: UInt64) throws -> [[Int]] {
        var index = 0
        var result: [[Int]] = []
        result.reserveCapacity(postings.count)
        for posting in postings {
            var list: [Int] = []
            guard posting.frequency <= bytes.count - index else {
                throw WebArcError.corruptPage(page: page, position: nil, reason: "positions past the stream")
            }
            list.reserveCapacity(posting.frequency)
            var position: UInt64 = 0
            for number in 0..<posting.frequency {
                guard case .success(let delta) = LEB128.read(bytes, &index), delta < 1 << 32 else {
                    throw WebArcError.corruptPage(page: page, position: nil, reason: "positions: malformed")
                }
                position = number == 0 ? delta : position + delta
                guard position < 1 << 40 else {
                    throw WebArcError.corruptPage(page: page, position: nil, reason: "positions: out of range")
                }
                list.append(Int(position))
            }
            result.append(list)
        }
        guard index == bytes.count else {
            throw WebArcError.corruptPage(
                page: page, position: nil, reason: "\(bytes.count - index) bytes after the positions")
        }
        return result
    }
}

/// One document of a document page.
struct DocumentEntry: Sendable {
    var url: String
    var title: String
    var length: Int
}

/// A document page (kind 5): consecutive documents from the root's start for it.
enum DocumentPage {
    static func parse(_ page: SearchPage) throws -> [DocumentEntry] {
        var entries: [DocumentEntry] = []
        try walk(page) { _, reader in entries.append(try entry(&reader)) }
        return entries
    }

    /// Entry `wanted` of the page, which must hold `count` documents: every entry's layout is
    /// checked, only the wanted one's text is made (a hit or a suggestion needs one of hundreds).
    static func entry(_ page: SearchPage, at wanted: Int, of count: Int) throws -> DocumentEntry {
        var found: DocumentEntry?
        let held = try walk(page) { number, reader in
            if number == wanted {
                found = try entry(&reader)
            } else {
                let at = reader.index
                let url = try reader.skipString()
                let title = try reader.skipString()
                try checkBounds(url, title, reader, at: at)
                _ = try length(&reader)
            }
        }
        guard held == count, let found else {
            throw PayloadReader(page).corrupt("\(held) documents where the root gives \(count)", at: 0)
        }
        return found
    }

    /// Calls `body` with each entry's number and the reader at its start; the entry count.
    @discardableResult
    private static func walk(_ page: SearchPage, _ body: (Int, inout PayloadReader) throws -> Void) throws -> Int {
        var reader = PayloadReader(page)
        guard page.kind == .documents, page.children.isEmpty else {
            throw reader.corrupt("a search page of kind \(page.kind.rawValue) where documents belong", at: 1)
        }
        let count = try reader.count(unit: 3)
        guard count >= 1 else { throw reader.corrupt("a document page with no documents") }
        for number in 0..<count { try body(number, &reader) }
        try reader.requireEnd("documents")
        return count
    }

    private static func entry(_ reader: inout PayloadReader) throws -> DocumentEntry {
        let at = reader.index
        let url = try reader.text()
        let title = try reader.text()
        try checkBounds(url.utf8.count, title.utf8.count, reader, at: at)
        return DocumentEntry(url: url, title: title, length: try length(&reader))
    }

    /// Writers cut a URL and a title to the bound (spec §10, §17.2).
    private static func checkBounds(_ url: Int, _ title: Int, _ reader: PayloadReader, at: Int) throws {
        guard url <= IndexFormat.maxDocumentStringBytes, title <= IndexFormat.maxDocumentStringBytes else {
            throw reader.corrupt("a document URL or title over \(IndexFormat.maxDocumentStringBytes) bytes", at: at)
        }
    }

    private static func length(_ reader: inout PayloadReader) throws -> Int {
        let length = try reader.integer()
        guard length < 1 << 40 else { throw reader.corrupt("a document length of \(length)") }
        return Int(length)
    }

    static func encode(entry url: String, title: String, length: Int, into writer: inout PayloadWriter) {
        writer.string(url.utf8)
        writer.string(title.utf8)
        writer.integer(length)
    }
}

/// A title shard (kind 6): sorted, front-coded title keys, each with its document.
enum TitleShard {
    static func parse(
        _ page: SearchPage, firstKey: ArraySlice<UInt8>, documentCount: Int
    ) throws -> [(
        key: [UInt8], document: Int
    )] {
        var reader = PayloadReader(page)
        guard page.kind == .titles, page.children.isEmpty else {
            throw reader.corrupt("a search page of kind \(page.kind.rawValue) where titles belong", at: 1)
        }
        let count = try reader.count(unit: 3)
        guard count >= 1 else { throw reader.corrupt("a title shard with no titles") }
        var entries: [(key: [UInt8], document: Int)] = []
        entries.reserveCapacity(count)
        var previous: (key: [UInt8], document: Int)?
        for number in 0..<count {
            let at = reader.index
            let shared = try reader.integer()
            guard shared <= UInt64(previous?.key.count ?? 0) else {
                throw reader.corrupt("a shared prefix past the previous key", at: at)
            }
            var key = Array((previous?.key ?? [])[0..<Int(shared)])
            key.append(contentsOf: try reader.string())
            let document = try reader.integer()
            guard document < UInt64(documentCount), key.count <= IndexFormat.maxTitleKeyBytes else {
                throw reader.corrupt("title document \(document) of \(documentCount), or a key too long", at: at)
            }
            if number == 0, !key.elementsEqual(firstKey) {
                throw reader.corrupt("the shard's first key is not the root's key for it", at: at)
            }
            if let previous {
                let ordered =
                    previous.key.lexicographicallyPrecedes(key)
                    || (previous.key == key && previous.document < Int(document))
                guard ordered else { throw reader.corrupt("title keys out of order", at: at) }
            }
            previous = (key, Int(document))
            entries.append((key, Int(document)))
        }
        try reader.requireEnd("titles")
        return entries
    }
}
