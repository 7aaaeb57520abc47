import WebArc

/// A document whose analysis a base archive's index already holds (``BaseIndex``): what the
/// builder writes for it, its terms then come from the base's postings.
struct ReusedDocument: Sendable {
    /// Its number in the base's index.
    var base: Int
    /// The URL of the response it is now (the base's may differ in spelling, not in key).
    var url: String
    var title: String
    var length: Int
}

/// The index of an archive written before (the base of an applied update), read alongside the
/// records a writer indexes again: a document whose key, body, media type and charset are the
/// base's is taken from it (``match(key:response:body:wants:)``), its terms, title key and length
/// read from the base's pages instead of analysing its body again (spec §17).
///
/// The base's records are walked in tree order beside the writer's, as the base's writer walked
/// them: the first record of each key, a response it indexes, its body not indexed before. That
/// last is told by the document's URL (the next document entry's), so that no set of bodies is
/// held. Kept documents keep their order, so the base's posting lists, renumbered, stay sorted.
/// Anything unexpected (a page that does not read, a document that does not match) stops the
/// reuse from there: the documents after it are analysed as usual, and the archive's own check
/// (an applied update's target digest) stands behind the rest.
final class BaseIndex {
    let reader: ArchiveReader
    let root: IndexRoot
    private let cursor: RecordCursor
    private var lookahead: ArchiveEntry?
    private var lastKey: String?
    /// The base number of the next base document not yet passed.
    private var nextDocument = 0
    /// The document page read last and its entries.
    private var documentPage = -1
    private var documentEntries: [DocumentEntry] = []
    private var stopped = false
    /// The new number of each base document taken, -1 for the others.
    private(set) var newNumbers: [Int32]
    /// Documents taken.
    private(set) var taken = 0

    /// The index of `reader` when it has one of rules `version`, else nil.
    init?(_ reader: ArchiveReader, version: UInt64) {
        guard let (reference, found) = try? reader.searchIndexRoot, found == version,
            let root = try? IndexRoot(reader.searchPage(reference), version: version),
            // Each document is a record: a root that counts more is damaged (and would size
            // ``newNumbers`` from a hostile count).
            root.documentCount <= reader.recordCount
        else { return nil }
        self.reader = reader
        self.root = root
        // Its records' headers and body entries are never read here.
        cursor = RecordCursor(reader, remembering: false, keepingHeaders: false)
        newNumbers = []
    }

    var hasPositions: Bool { root.version == 1 }

    /// Every base document's length code (version 4's norm pages), read whole when the terms are
    /// first read: a byte a document, and the document count is bounded by the record count.
    private var normCodes: [UInt8]?

    /// The norm pages' length codes as postings take them (nil before version 4).
    fileprivate func norms() throws -> NormLookup? {
        guard root.hasNorms else { return nil }
        if normCodes == nil {
            var codes: [UInt8] = []
            codes.reserveCapacity(root.documentCount)
            for (number, reference) in root.normPages.enumerated() {
                let count = min(root.normSpan, root.documentCount - number * root.normSpan)
                codes += try NormPage.parse(try reader.searchPage(reference), count: count)
            }
            normCodes = codes
        }
        let codes = normCodes!
        let span = root.normSpan
        return NormLookup(span: span, documentCount: root.documentCount) { number in
            codes[(number * span)..<min(codes.count, (number + 1) * span)]
        }
    }

    /// The base's document for the response at `key` (tree order: each call's key after the
    /// last's) with body MD5 `body`, when the base indexed the same body with the same media type
    /// and charset at that key; nil otherwise.
    func match(
        key: [UInt8], response: IndexableResponse, body: BodyDigest, wants: (IndexableResponse) -> Bool
    ) -> ReusedDocument? {
        guard !stopped else { return nil }
        do {
            while let entry = try peek() {
                let entryKey = Array(entry.key.utf8)
                if entryKey.lexicographicallyPrecedes(key) {
                    _ = try pass(entry, wants: wants)
                    continue
                }
                guard entryKey == key, let (number, base) = try pass(entry, wants: wants),
                    base.body.digest == body, base.bodyLength == response.length,
                    base.mimeType == response.mediaType, base.textEncoding == response.charset
                else { return nil }
                let document = try document(number)
                return ReusedDocument(base: number, url: response.url, title: document.title, length: document.length)
            }
        } catch {
            stopped = true
        }
        return nil
    }

    /// Notes that base document `base` is document `number` of the new index.
    func take(_ base: Int, as number: Int) {
        // Grown as documents are taken (in base order), never sized from the root's count.
        if base >= newNumbers.count { newNumbers += repeatElement(-1, count: base + 1 - newNumbers.count) }
        newNumbers[base] = Int32(number)
        taken += 1
    }

    private func peek() throws -> ArchiveEntry? {
        if lookahead == nil { lookahead = try cursor.next() }
        return lookahead
    }

    /// Moves past `entry`; returns its base document number and response when it is one.
    private func pass(_ entry: ArchiveEntry, wants: (IndexableResponse) -> Bool) throws -> (Int, ResponseRecord)? {
        lookahead = nil
        defer { lastKey = entry.key }
        guard entry.key != lastKey, case .response(let response) = entry.record,
            wants(
                IndexableResponse(
                    url: response.request.url, status: response.status, mediaType: response.mimeType,
                    charset: response.textEncoding, length: response.bodyLength)),
            nextDocument < root.documentCount,
            try document(nextDocument).url == DocumentAnalysis.cut(response.request.url, to: maxString)
        else { return nil }
        nextDocument += 1
        return (nextDocument - 1, response)
    }

    private var maxString: Int { IndexFormat.maxDocumentStringBytes }

    /// Base document `number`'s entry; pages are read in order, each once.
    private func document(_ number: Int) throws -> DocumentEntry {
        let starts = root.documentStarts
        while documentPage < 0 || (documentPage + 1 < starts.count && starts[documentPage + 1] <= number) {
            documentPage += 1
            let reference = root.documentPages[root.documentPages.startIndex + documentPage]
            documentEntries = try DocumentPage.parse(try reader.searchPage(reference))
            let end = documentPage + 1 < starts.count ? starts[documentPage + 1] : root.documentCount
            guard documentEntries.count == end - starts[documentPage] else {
                throw WebArcError.corruptPage(
                    page: reference.offset, position: nil,
                    reason: "\(documentEntries.count) documents where the root gives \(end - starts[documentPage])")
            }
        }
        guard number >= starts[documentPage], number - starts[documentPage] < documentEntries.count else {
            throw WebArcError.corruptPage(page: 0, position: nil, reason: "no document entry for \(number)")
        }
        return documentEntries[number - starts[documentPage]]
    }

    /// The title key of every document taken, with its new number.
    func forEachTitle(_ body: ([UInt8], Int32) throws -> Void) throws {
        // No document taken: no new numbers either.
        guard !newNumbers.isEmpty else { return }
        for number in root.titleKeys.indices {
            let reference = root.titleShards[root.titleShards.startIndex + number]
            let entries = try TitleShard.parse(
                try reader.searchPage(reference), firstKey: root.titleKeys[number], documentCount: root.documentCount)
            for (key, document) in entries where document < newNumbers.count && newNumbers[document] >= 0 {
                try body(key, newNumbers[document])
            }
        }
    }

    /// The base's terms in order, each with its postings (and positions) as stored.
    func terms() -> TermStream { TermStream(self) }

    /// Reads the base's term shards one after another, each term's streams a page at a time
    /// (``ShardStream``): a shard's streams are never held whole.
    final class TermStream {
        private let base: BaseIndex
        private var shard = -1
        private var entries: [TermEntry] = []
        private var entry = 0
        private var postings: ShardStream?
        private var positions: ShardStream?
        /// The offset a damaged list of the shard is reported at: its first posting page.
        private var shardPage: UInt64 = 0

        init(_ base: BaseIndex) { self.base = base }

        /// The next term, its document frequency and its streams' bytes; nil after the last.
        func next() throws -> BaseTerm? {
            while entry == entries.count {
                shard += 1
                guard shard < base.root.termKeys.count else { return nil }
                try load(shard)
            }
            defer { entry += 1 }
            let found = entries[entry]
            let postingBytes = try postings?.bytes(found.postings) ?? []
            let positionBytes = try positions?.bytes(found.positions) ?? []
            if base.root.version >= 3, found.documentFrequency >= BlockPostings.blockedFrom {
                // A blocked list (spec §17.2) is decoded when it is renumbered, then blocked again
                // when its shard is written: never coded as version 2 on the way.
                return BaseTerm(
                    term: found.term, frequency: found.documentFrequency, postings: postingBytes,
                    postingRange: 0..<postingBytes.count, positions: [], positionRange: 0..<0,
                    blocked: (base.root.documentCount, shardPage, base.root.version, try base.norms()))
            }
            if let norms = try base.norms() {
                // A short list of version 4 joins as version 2 codes it, its length codes from the norms.
                let coded = BlockPostings.version2(
                    try TermPostings(
                        postingBytes, count: found.documentFrequency, documentCount: base.root.documentCount,
                        version: base.root.version, norms: norms, page: shardPage
                    ).all())
                return BaseTerm(
                    term: found.term, frequency: found.documentFrequency, postings: coded,
                    postingRange: 0..<coded.count, positions: [], positionRange: 0..<0)
            }
            return BaseTerm(
                term: found.term, frequency: found.documentFrequency, postings: postingBytes,
                postingRange: 0..<postingBytes.count, positions: positionBytes,
                positionRange: 0..<positionBytes.count)
        }

        private func load(_ number: Int) throws {
            let root = base.root
            let reference = root.termShards[root.termShards.startIndex + number]
            let shard = try TermShard(
                try base.reader.searchPage(reference), firstTerm: root.termKeys[number],
                documentCount: root.documentCount, version: root.version)
            postings = ShardStream(base.reader, pages: shard.postingPages, kind: .postings)
            positions = ShardStream(base.reader, pages: shard.positionPages, kind: .positions)
            shardPage = shard.postingPages.first?.offset ?? reference.offset
            entries = shard.entries
            entry = 0
        }
    }
}

/// A term of a base's index: its document frequency and where its postings and positions lie in
/// its shard's streams.
struct BaseTerm {
    var term: [UInt8]
    var frequency: Int
    var postings: [UInt8]
    var postingRange: Range<Int>
    var positions: [UInt8]
    var positionRange: Range<Int>
    /// For a blocked list (``postings`` holds its blocks): the index's document count and the
    /// page a damaged list is reported at. It is decoded only when its turn comes: a term on
    /// every page of a million is 24 MB decoded, and the join holds the term after the one it
    /// emits.
    var blocked: (documentCount: Int, page: UInt64, version: UInt64, norms: NormLookup?)? = nil

    /// A blocked list's postings, to be decoded a block at a time (nil for another list).
    func termPostings() throws -> TermPostings? {
        guard let blocked else { return nil }
        return try TermPostings(
            postings, count: frequency, documentCount: blocked.documentCount, version: blocked.version,
            norms: blocked.norms, page: blocked.page)
    }

    /// A blocked list's postings, decoded, with room for `extra` more.
    func decoded(reserving extra: Int = 0) throws -> [Posting]? {
        try termPostings()?.all(reserving: extra)
    }
}

/// One term's postings (spec §17.2): documents ascending, each with its count, title bit and
/// length code as stored, and (version 1) its positions as stored.
struct PostingList {
    var documents: [Int] = []
    /// Each posting's stored count, title bit and length code, end to end.
    var stored: [UInt8] = []
    /// The end of each posting's bytes in ``stored``.
    var storedEnds: [Int] = []
    /// The end of each posting's positions in ``positions``.
    var positionEnds: [Int] = []
    var positions: [UInt8] = []

    var count: Int { documents.count }

    mutating func removeAll() {
        documents.removeAll(keepingCapacity: true)
        stored.removeAll(keepingCapacity: true)
        storedEnds.removeAll(keepingCapacity: true)
        positionEnds.removeAll(keepingCapacity: true)
        positions.removeAll(keepingCapacity: true)
    }

    /// Appends the `count` postings of `bytes` (and their positions from `stream`, version 1).
    mutating func append(_ bytes: [UInt8], count: Int, positions stream: [UInt8]?) throws {
        try bytes.withUnsafeBufferPointer { bytes in
            try (stream ?? []).withUnsafeBufferPointer { positionBytes in
                try StoredPostings.walk(
                    bytes, bytes.indices, count: count, positions: stream == nil ? nil : positionBytes,
                    positionBytes.indices
                ) { document, storedRange, positionRange in
                    documents.append(document)
                    stored += bytes[storedRange]
                    storedEnds.append(stored.count)
                    if stream != nil {
                        positions += positionBytes[positionRange]
                        positionEnds.append(positions.count)
                    }
                }
            }
        }
    }

    /// Posting `at`, decoded from its stored count, title bit and length code.
    func posting(_ at: Int) throws -> Posting {
        var index = at == 0 ? 0 : storedEnds[at - 1]
        guard case .success(let packed) = LEB128.read(stored, &index), index == storedEnds[at] - 1,
            packed >> 1 >= 1, packed >> 1 < 1 << 32
        else { throw WebArcError.corruptPage(page: 0, position: nil, reason: "a search index's postings") }
        return Posting(
            document: documents[at], frequency: Int(packed >> 1), inTitle: packed & 1 == 1, lengthCode: stored[index])
    }

    /// Appends posting `at`, its document relative to `previous` (which becomes it).
    func encode(
        _ at: Int, after previous: inout Int, postings: inout [UInt8], positions: inout [UInt8], _ hasPositions: Bool
    ) {
        LEB128.append(UInt64(documents[at] - previous), to: &postings)
        postings += stored[(at == 0 ? 0 : storedEnds[at - 1])..<storedEnds[at]]
        previous = documents[at]
        if hasPositions {
            positions += self.positions[(at == 0 ? 0 : positionEnds[at - 1])..<positionEnds[at]]
        }
    }
}

/// Stored postings read without decoding what is copied on (spec §17.2): what both a base's
/// postings and a builder's own go through when they are joined.
enum StoredPostings {
    /// Calls `body` with each of the `count` postings of `bytes[range]`: its document (ascending),
    /// the bytes of its count, title bit and length code, and (with `stream`, version 1) the bytes
    /// of its positions in `stream[positionRange]`.
    ///
    /// - Throws: `corruptPage` for postings that do not read as `count`, fill `range` exactly, or
    ///   ascend; or positions that do not fill `positionRange` exactly.
    static func walk(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, count: Int,
        positions stream: UnsafeBufferPointer<UInt8>?, _ positionRange: Range<Int>,
        _ body: (_ document: Int, _ stored: Range<Int>, _ positions: Range<Int>) throws -> Void
    ) throws {
        let failure = WebArcError.corruptPage(page: 0, position: nil, reason: "a search index's postings")
        var index = range.lowerBound
        var positionIndex = positionRange.lowerBound
        var document = 0
        for posting in 0..<count {
            guard let delta = integer(bytes, &index, range.upperBound), posting == 0 || delta >= 1 else {
                throw failure
            }
            let storedStart = index
            guard let packed = integer(bytes, &index, range.upperBound), index < range.upperBound, delta < 1 << 40
            else { throw failure }
            index += 1
            document = posting == 0 ? Int(delta) : document + Int(delta)
            let positionStart = positionIndex
            if let stream {
                for _ in 0..<(packed >> 1) {
                    guard integer(stream, &positionIndex, positionRange.upperBound) != nil else { throw failure }
                }
            }
            try body(document, storedStart..<index, positionStart..<positionIndex)
        }
        guard index == range.upperBound, stream == nil || positionIndex == positionRange.upperBound else {
            throw failure
        }
    }

    /// An unsigned LEB128 integer at `index` before `end`, or nil when malformed.
    @inline(__always)
    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, _ end: Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while index < end, shift < 64 {
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }
}
