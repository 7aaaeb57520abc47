import WebArc

/// Builds an archive's full-text index (spec §17) from its pages of text, with bounded memory:
/// postings wait in memory until they pass ``spillThreshold``, then go to a sorted run in a
/// temporary file (every run in one file); the runs are merged when the pages are written, each
/// read through a block of a shared budget, the least term found through a heap.
///
/// Give one to a writer through its options; every writer of a webarc tool does by default:
///
/// ```swift
/// var options = ArchiveWriter.Options()
/// options.searchIndex = { SearchIndexBuilder() }
/// ```
///
/// The same responses in the same order give the same pages, byte for byte, so that an applied
/// update writes its target's index again (spec §13.1).
public final class SearchIndexBuilder: SearchIndexContributor {
    /// Bytes of postings and positions held in memory before a run is written out.
    public let spillThreshold: Int
    /// The index rules version written (`Writer.search`): 2 unless made for 1 (spec §17).
    public let version: UInt64

    private var held: HeldPostings
    /// The sorted runs, one after another, and where each lies in it.
    private var runFile: SpillFile?
    private var runs: [Range<UInt64>] = []
    /// Pages of text added so far.
    public private(set) var documentCount = 0
    private var tokenCount: UInt64 = 0
    /// The document entries, encoded, in order; and each one's size, for splitting pages.
    private var documentFile: SpillFile?
    private var documentSizes: [UInt32] = []
    /// Each document's length code, for the norm pages (version 4).
    private var lengthCodes: [UInt8] = []
    private var titles: TitleKeyTable
    /// Runs written, for tests of the bounded-memory path.
    public private(set) var runCount = 0
    /// The index of the archive written before, whose documents' analyses are taken (``reuseIndex(of:)``).
    private var base: BaseIndex?

    /// Bytes of postings held before a run is written, by default: about 1.26 M postings (20 bytes
    /// each while held and sorted), what a 3 000-page site of prose gives.
    public static let defaultSpillThreshold = 24 << 20

    /// Terms that a join with a base's index renumbers, and that version 4 codes, at once on every
    /// core, at most (tests make batches small to cross their boundaries).
    package var batchTerms = BaseTermJoin.defaultBatchTerms

    /// Makes a builder that writes a sorted run whenever `spillThreshold` bytes of postings are held
    /// (and of title keys, 4 MiB at most).
    public init(spillThreshold: Int = defaultSpillThreshold) {
        self.spillThreshold = max(1, spillThreshold)
        titles = TitleKeyTable(runBytes: Self.titleRunBytes(spillThreshold))
        version = IndexFormat.newest
        held = HeldPostings(keepsPositions: IndexFormat.newest == 1, reserved: Self.reservedPostings(spillThreshold))
    }

    /// Makes a builder of index rules `version` (1, with positions, or 2; spec §17), as a tool
    /// that writes an archive again by its recipe needs.
    package init(version: UInt64, spillThreshold: Int = defaultSpillThreshold) {
        precondition(IndexFormat.versions.contains(version), "search index version \(version)")
        self.spillThreshold = max(1, spillThreshold)
        titles = TitleKeyTable(runBytes: Self.titleRunBytes(spillThreshold))
        self.version = version
        held = HeldPostings(keepsPositions: version == 1, reserved: Self.reservedPostings(spillThreshold))
    }

    /// Bytes of title keys held before a run of them is written: a million titles take about 60 MB.
    private static func titleRunBytes(_ spillThreshold: Int) -> Int { min(4 << 20, max(1, spillThreshold)) }

    /// Registers this builder as the writer of each rules version it knows (1 and 2), for tools
    /// that write an archive with an index again (an applied update, a refresh: WebArc's
    /// `SearchIndexRegistry`), so that an archive written by an older version's rules is written
    /// again byte for byte.
    ///
    /// - Parameter writingByDefault: also make every writer of this process index what it writes
    ///   with the newest rules (`SearchIndexRegistry.writerDefault`), as the webarc tools do unless
    ///   given `--no-search`.
    public static func register(writingByDefault: Bool = false) {
        for version in IndexFormat.versions {
            SearchIndexRegistry.register(version: version) { SearchIndexBuilder(version: version) }
        }
        let make: @Sendable () -> any SearchIndexContributor = { SearchIndexBuilder() }
        SearchIndexRegistry.writerDefault = writingByDefault ? make : nil
    }

    /// The media types indexed: HTML and plain text (spec §17.1).
    public static let indexedMediaTypes: Set<String> = ["text/html", "application/xhtml+xml", "text/plain"]
    /// The longest body indexed, in bytes; longer ones are left out.
    public static let maxBodyBytes: UInt64 = 32 << 20

    /// Whether a response is indexed: status 200, an HTML or plain-text media type, a body of at
    /// most ``maxBodyBytes``, and not a plain-text copy of a page's source (``isSourceCopy(_:)``).
    public func wants(_ response: IndexableResponse) -> Bool {
        response.status == 200 && response.length <= Self.maxBodyBytes
            && Self.indexedMediaTypes.contains(response.mediaType ?? "")
            && !(response.mediaType == "text/plain" && Self.isSourceCopy(response.url))
    }

    /// Whether a URL's path has a segment `_sources`: where Sphinx puts the reStructuredText source
    /// of each page it builds, which would repeat every page in the results (spec §17.1).
    public static func isSourceCopy(_ url: String) -> Bool {
        let path = url.split(separator: "?", maxSplits: 1).first ?? ""
        return path.split(separator: "/").dropFirst(2).contains("_sources")
    }

    /// The visible text of the body, analysed.
    public func analyze(_ response: IndexableResponse, body: [UInt8]) -> any Sendable {
        let text =
            response.mediaType == "text/plain"
            ? VisibleText.of(plain: body, charset: response.charset)
            : VisibleText.of(html: body, charset: response.charset)
        return DocumentAnalysis(url: response.url, text: text)
    }

    /// Reads `base`'s index, when it is of this builder's rules version, for the documents an
    /// archive written again (an applied update) keeps from it: their terms, title keys and lengths
    /// come from its pages (``analysis(reusing:key:body:)``), and a fresh build of the same
    /// responses gives the same pages (spec §17). Only before the first document.
    public func reuseIndex(of base: ArchiveReader) -> Bool {
        guard self.base == nil, documentCount == 0, let index = BaseIndex(base, version: version) else { return false }
        self.base = index
        return true
    }

    /// The base's document for `response` when the base indexed the same body with the same media
    /// type and charset at `key` (calls in tree order); nil: analyse the body.
    public func analysis(reusing response: IndexableResponse, key: [UInt8], body: BodyDigest) -> (any Sendable)? {
        base?.match(key: key, response: response, body: body, wants: wants)
    }

    /// Documents taken from the base's index so far.
    public var reusedDocuments: Int { base?.taken ?? 0 }

    /// Adds a page by its URL, title and visible text (what ``analyze(_:body:)`` gives for a body).
    public func add(url: String, title: String, text: String) throws {
        try add(DocumentAnalysis(url: url, text: PageText(title: title, text: text)))
    }

    /// Adds one analysis from ``analyze(_:body:)``, in order.
    public func add(_ analysis: any Sendable) throws {
        if let reused = analysis as? ReusedDocument {
            try add(reused)
            return
        }
        guard let document = analysis as? DocumentAnalysis else { return }
        try add(document)
    }

    /// Adds a document of the base's index: its entry now, its terms and title key when the pages
    /// are written.
    private func add(_ document: ReusedDocument) throws {
        guard let base else { return }
        base.take(document.base, as: documentCount)
        documentCount += 1
        tokenCount += UInt64(document.length)
        try addEntry(url: document.url, title: document.title, length: document.length)
    }

    private func add(_ document: DocumentAnalysis) throws {
        let number = documentCount
        documentCount += 1
        tokenCount += UInt64(document.length)
        try addEntry(url: document.url, title: document.title, length: document.length)
        if !document.titleKey.isEmpty { try titles.append(document.titleKey, document: Int32(number)) }
        held.beginDocument(number, length: document.length)
        document.termHashes.withUnsafeBufferPointer { held.warm($0) }
        document.forEachTerm { term, hash, count, inTitle, positions in
            held.add(term, hash: hash, count: count, inTitle: inTitle, positions: positions)
        }
        if held.heldBytes > spillThreshold { try spill() }
    }

    /// Writes a document's entry (spec §17.2), its URL cut to the bound.
    private func addEntry(url: String, title: String, length: Int) throws {
        var entry = PayloadWriter()
        DocumentPage.encode(
            entry: DocumentAnalysis.cut(url, to: IndexFormat.maxDocumentStringBytes), title: title, length: length,
            into: &entry)
        try documents().write(entry.bytes)
        documentSizes.append(UInt32(entry.bytes.count))
        if version >= 4 { lengthCodes.append(LengthCode.encode(length)) }
    }

    /// The scratch file of document entries, made when the first document comes (a temporary
    /// folder that cannot take it is an error of the write, not of making the builder).
    private func documents() throws -> SpillFile {
        if let documentFile { return documentFile }
        let file = try SpillFile(prefix: "webarc-search-documents")
        documentFile = file
        return file
    }

    /// Writes the terms held in memory, sorted, as a run: term, frequency, last document, postings, positions.
    private func spill() throws {
        guard !held.isEmpty else { return }
        let run = try runFile ?? SpillFile(prefix: "webarc-search-runs")
        runFile = run
        let start = run.position
        try held.forEachSorted { term, frequency, lastDocument, postings, positions in
            try run.integer(term.count)
            try run.write(term)
            try run.integer(frequency)
            try run.integer(lastDocument)
            try run.integer(postings.count)
            try run.write(postings)
            try run.integer(positions.count)
            try run.write(positions)
        }
        runs.append(start..<run.position)
        runCount += 1
        held.removeAll()
    }

    /// Writes the term shards with their posting and position pages, the document pages, the title
    /// shards, and returns the root (spec §17.2).
    public func writePages(_ store: ([UInt8]) throws -> SearchPageAddress) throws -> [UInt8] {
        try withoutActuallyEscaping(store) { try writePages(escaping: $0) }
    }

    private func writePages(escaping store: @escaping ([UInt8]) throws -> SearchPageAddress) throws -> [UInt8] {
        var shards = ShardWriter(store: store, version: version)
        // The base's terms for the documents taken from it join this builder's own, term by term.
        var join = base.flatMap {
            $0.taken > 0 ? BaseTermJoin($0, version: version, batchTerms: batchTerms) : nil
        }
        // The builder's own lists alone (a pack) are coded on every core a batch at a time, then
        // added in term order; a join batches the base's lists itself, and holding its output in a
        // second batch would only hold more at once.
        var batch = RiceBatch(version: version, batchTerms: batchTerms)
        func add(_ term: [UInt8], _ frequency: Int, _ postings: JoinedPostings) throws {
            try shards.add(term: term, frequency: frequency, postings)
        }
        func emit(_ term: [UInt8], _ frequency: Int, _ postings: [UInt8], _ positions: [UInt8]) throws {
            guard join != nil else {
                return try batch.add(
                    term: term, frequency: frequency, .coded(postings: postings, positions: positions), to: add)
            }
            try join!.add(term: term, frequency: frequency, postings: postings, positions: positions, emit: add)
        }
        if runs.isEmpty {
            try held.forEachSorted { term, frequency, _, postings, positions in
                try emit(term, frequency, postings, positions)
            }
            held.removeAll()
        } else {
            try spill()
            let file = runFile!
            try file.finishWriting()
            // The runs' read blocks share one budget, so memory does not grow with their number.
            let blockSize = min(1 << 20, max(16 << 10, Self.mergeBudget / runs.count))
            try RunMerger(runs: runs.map { file.reader($0, blockSize: blockSize) }).merge(emit)
            runs = []
            runFile = nil
        }
        try join?.finish(emit: add)
        try batch.flush(to: add)
        try shards.finish()
        let (documentStarts, documentPages) = try writeDocumentPages(store)
        let (titleKeys, titlePages) = try writeTitleShards(store)
        let normSpan = version >= 4 ? IndexFormat.normSpan : 0
        let normPages = version >= 4 ? try NormPage.write(lengthCodes, span: normSpan, store) : []
        let payload = IndexRoot.encode(
            version: version, documentCount: documentCount, tokenCount: tokenCount, termKeys: shards.keys,
            documentStarts: documentStarts, titleKeys: titleKeys, normSpan: normSpan)
        return SearchPage.encode(
            kind: .root, children: shards.pages + documentPages + titlePages + normPages, payload: payload)
    }

    /// Postings a run of `spillThreshold` bytes holds, about, up to 4 Mi: what the builder makes
    /// room for at the start.
    private static func reservedPostings(_ spillThreshold: Int) -> Int {
        min(max(1, spillThreshold) / HeldPostings.bytesPerPosting, 4 << 20)
    }

    /// Bytes of read blocks the runs' merge holds at once, about (at least 16 KiB a run).
    static let mergeBudget = 16 << 20

    private func writeDocumentPages(_ store: ([UInt8]) throws -> SearchPageAddress) throws -> ([Int], [PageReference]) {
        let file = try documents()
        try file.finishWriting()
        let documents = file.reader(0..<file.length)
        var starts: [Int] = []
        var pages: [PageReference] = []
        var start = 0
        while start < documentCount {
            var end = start
            var bytes = 0
            while end < documentCount, end == start || bytes + Int(documentSizes[end]) <= IndexFormat.pageTarget {
                bytes += Int(documentSizes[end])
                end += 1
            }
            var payload = PayloadWriter()
            payload.integer(end - start)
            payload.bytes += try documents.readBytes(bytes)
            starts.append(start)
            pages.append(try store(SearchPage.encode(kind: .documents, children: [], payload: payload.bytes)).reference)
            start = end
        }
        return (starts, pages)
    }

    private func writeTitleShards(_ store: ([UInt8]) throws -> SearchPageAddress) throws -> ([[UInt8]], [PageReference])
    {
        try base?.forEachTitle { key, document in try titles.append(key, document: document) }
        var keys: [[UInt8]] = []
        var pages: [PageReference] = []
        var payload = PayloadWriter()
        var count = 0
        var previous: [UInt8] = []
        func close() throws {
            var page = PayloadWriter()
            page.integer(count)
            page.bytes += payload.bytes
            pages.append(try store(SearchPage.encode(kind: .titles, children: [], payload: page.bytes)).reference)
            payload = PayloadWriter()
            count = 0
        }
        try titles.forEachSorted { key, document in
            if count > 0, payload.bytes.count >= IndexFormat.pageTarget { try close() }
            if count == 0 { keys.append(Array(key)) }
            let shared = count == 0 ? 0 : zip(previous, key).prefix { $0 == $1 }.count
            payload.integer(shared)
            payload.string(key.dropFirst(shared))
            payload.integer(Int(document))
            previous = Array(key)
            count += 1
        }
        if count > 0 { try close() }
        return (keys, pages)
    }
}

/// Packs terms into shards as they come in order: each shard's postings and (version 1) positions
/// go to its own pages, written as they fill, and the shard after them (spec §17.2).
private struct ShardWriter {
    let store: ([UInt8]) throws -> SearchPageAddress
    /// The index rules version: 1's entries name a positions length and the shard counts its two
    /// kinds of pages; 3 and 4 code a list of ``BlockPostings/blockedFrom`` postings or more in
    /// blocks; 4 codes no length code.
    let version: UInt64
    var hasPositions: Bool { version == 1 }
    var keys: [[UInt8]] = []
    var pages: [PageReference] = []
    private var entries = PayloadWriter()
    private var count = 0
    private var first: [UInt8] = []
    private var previous: [UInt8] = []
    private var postings: [UInt8] = []
    private var positions: [UInt8] = []
    private var postingPages: [PageReference] = []
    private var positionPages: [PageReference] = []

    init(store: @escaping ([UInt8]) throws -> SearchPageAddress, version: UInt64) {
        self.store = store
        self.version = version
    }

    mutating func add(term: [UInt8], frequency: Int, _ joined: JoinedPostings) throws {
        if count > 0, entries.bytes.count >= IndexFormat.pageTarget { try close() }
        if count == 0 { first = term }
        // Postings come coded as version 2 codes them (runs, a base's short lists) or decoded (a
        // base's blocked lists): blocked here; or, in version 4, a base's blocked list already
        // coded by the join.
        let termPostings: [UInt8]
        var termPositions: [UInt8] = []
        switch (joined, version) {
        case (.coded(let postings, _), 4...):
            termPostings = try RicePostings.encode(version2: postings, count: frequency)
        case (.coded(let postings, let positions), _):
            termPostings = version == 3 ? try BlockPostings.encode(version2: postings, count: frequency) : postings
            termPositions = positions
        case (.decoded(let postings), 4...):
            termPostings = RicePostings.encode(postings)
        case (.decoded(let postings), _):
            termPostings = version == 3 ? BlockPostings.encode(postings) : BlockPostings.version2(postings)
        case (.rice(let postings), _):
            termPostings = postings
        }
        let shared = count == 0 ? 0 : zip(previous, term).prefix { $0 == $1 }.count
        entries.integer(shared)
        entries.string(term[shared...])
        entries.integer(frequency)
        entries.integer(termPostings.count)
        if hasPositions { entries.integer(termPositions.count) }
        count += 1
        previous = term
        postings += termPostings
        positions += termPositions
        try flushFull(&postings, into: &postingPages, kind: .postings)
        try flushFull(&positions, into: &positionPages, kind: .positions)
    }

    private func flushFull(_ stream: inout [UInt8], into pages: inout [PageReference], kind: SearchPage.Kind) throws {
        var start = 0
        while stream.count - start >= IndexFormat.pageTarget {
            pages.append(
                try store(
                    SearchPage.encode(
                        kind: kind, children: [], payload: Array(stream[start..<start + IndexFormat.pageTarget]))
                ).reference)
            start += IndexFormat.pageTarget
        }
        if start > 0 { stream.removeFirst(start) }
    }

    private mutating func close() throws {
        for (stream, kind) in [(postings, SearchPage.Kind.postings), (positions, .positions)] where !stream.isEmpty {
            let reference = try store(SearchPage.encode(kind: kind, children: [], payload: stream)).reference
            if kind == .postings { postingPages.append(reference) } else { positionPages.append(reference) }
        }
        var payload = PayloadWriter()
        if hasPositions {
            payload.integer(postingPages.count)
            payload.integer(positionPages.count)
        }
        payload.integer(count)
        payload.bytes += entries.bytes
        keys.append(first)
        pages.append(
            try store(SearchPage.encode(kind: .terms, children: postingPages + positionPages, payload: payload.bytes))
                .reference)
        entries = PayloadWriter()
        count = 0
        postings = []
        positions = []
        postingPages = []
        positionPages = []
    }

    mutating func finish() throws {
        if count > 0 { try close() }
    }
}

/// Merges sorted runs term by term: a term's parts, run after run, are one posting list once each
/// part's first document is made relative to the previous part's last.
///
/// The runs' heads wait in a binary heap (``RunHeads``) ordered by term, then run: a run of a
/// large site holds few documents (its terms' table fills the memory first), so there are many
/// runs, and a scan of every head for each term would cost the number of terms times the number
/// of runs.
private struct RunMerger {
    let runs: [SpillFile.Reader]

    private struct Head: RunOrdered {
        var term: [UInt8]
        var frequency: Int
        var lastDocument: Int
        var postings: [UInt8]
        var positions: [UInt8]

        static func precedes(_ lhs: Head, _ rhs: Head) -> Bool {
            lhs.term.lexicographicallyPrecedes(rhs.term)
        }
    }

    private static func next(_ run: SpillFile.Reader) throws -> Head? {
        guard !run.isAtEnd else { return nil }
        let term = try run.readBytes(try run.readInteger())
        let frequency = try run.readInteger()
        let last = try run.readInteger()
        let postings = try run.readBytes(try run.readInteger())
        let positions = try run.readBytes(try run.readInteger())
        return Head(term: term, frequency: frequency, lastDocument: last, postings: postings, positions: positions)
    }

    func merge(_ emit: ([UInt8], Int, [UInt8], [UInt8]) throws -> Void) throws {
        var heads = RunHeads<Head>(capacity: runs.count)
        for (number, run) in runs.enumerated() {
            if let head = try Self.next(run) { heads.insert(head, run: number) }
        }
        while let run = heads.leastRun {
            let term = heads.least!.term
            var parts = [heads.replaceLeast(with: try Self.next(runs[run]))]
            // Equal terms come off in run order (the heap's tie rule), and a run's next term is
            // after this one, so the parts are this term's, one per run.
            while let other = heads.leastRun, heads.least!.term == term {
                parts.append(heads.replaceLeast(with: try Self.next(runs[other])))
            }
            var frequency = 0
            var postings: [UInt8] = []
            var positions: [UInt8] = []
            var last: Int?
            // Runs hold consecutive documents in run order, so parts join in that order.
            for head in parts {
                var index = 0
                guard case .success(let first) = LEB128.read(head.postings, &index) else {
                    throw WebArcError.corruptPage(page: 0, position: nil, reason: "a damaged search run")
                }
                LEB128.append(first - UInt64(last ?? 0), to: &postings)
                postings += head.postings[index...]
                positions += head.positions
                frequency += head.frequency
                last = head.lastDocument
            }
            try emit(term, frequency, postings, positions)
        }
    }
}
